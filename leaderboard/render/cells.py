"""What a page's table cells show of a value: numbers, costs, counts and notes, formatted alike on
every page (the templates' filters and globals, from writer.environment), and the tables' rows
Python draws itself where thousands of them are drawn a build.

A function that gives markup (Markup) escapes every value it puts in; one that gives text (str)
is escaped where a template shows it.
"""

from __future__ import annotations

import functools
import math
from urllib.parse import quote

from markupsafe import Markup, escape

from leaderboard.normalize import DEFAULT_TIER


def number(value: float | None, digits: int = 3) -> str:
    """1,234 for whole numbers, 1,234.568 otherwise; empty for no value. A value that `digits`
    would show as 0.0 gets two significant digits (0.021 chip-hours, not 0.0 beside its cost).
    site.js formats the same way."""
    if value is None:
        return ""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) < 0.5 * 10**-digits:
        digits = 1 - math.floor(math.log10(abs(value)))
    return f"{value:,.{digits}f}"


def four_digits(value: float) -> str:
    """Four significant digits, as '%.4g' writes them (qualities, models per minute)."""
    return f"{value:.4g}"


def chip_count(row: dict) -> str:
    """'512 chips'; '82,944 CPUs' for a system of processors alone (results.cpu_only), whose
    processors stand for the chips: never read as accelerator chips."""
    chips = row["chips"]
    return f"{number(chips)} {'CPU' if row.get('cpu_only') else 'chip'}{'' if chips == 1 else 's'}"


def hours_unit(row: dict) -> str:
    """What a result's chip-hours are: processor-hours for a system of processors alone."""
    return "processor-hours" if row.get("cpu_only") else "chip-hours"


def usd(value: float | None) -> str:
    """$1,235 from $100 up, $12.35 below; empty for no value. site.js formats the same way."""
    if value is None:
        return ""
    return f"${value:,.0f}" if value >= 100 else f"${value:,.2f}"


def field_rows(row: dict, columns: list[tuple[str, str]]) -> Markup:
    """The rows of an entry page's "Every field" table: each column's name, value and meaning.
    Python, not the template: 2,600 pages of 70 rows were a tenth of a cold build in Jinja."""
    lines = []
    for (name, _), (before, after) in zip(columns, _field_frames(tuple(columns)), strict=True):
        value = row[name]
        if value is None:
            shown = '<span class="muted">—</span>'
        elif value is True or value is False:
            shown = "true" if value else "false"
        elif isinstance(value, str) and value.startswith(("https://", "http://")):
            text = escape(value)
            shown = f'<a href="{text}" rel="external noopener noreferrer">{text}</a>'
        else:
            shown = escape(value)
        lines.append(f"{before}{shown}{after}")
    return Markup("".join(lines))


@functools.lru_cache(maxsize=4)
def _field_frames(columns: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    """Each column's escaped markup before and after its value: the same on every page, so made
    once per set of columns."""
    return [
        (f'<tr><th scope="row"><code>{escape(name)}</code></th>\n<td>', f"</td>\n<td>{escape(meaning)}</td></tr>\n")
        for name, meaning in columns
    ]


def group_rows(root: str, rows: list[dict], divisions: bool) -> Markup:
    """The rows of an accelerator's or submitter's table (small_table, macros.html), each ending in
    a newline; `root`: the page's way up to the site's root ('../'); `divisions`: the round's
    family has divisions (an Availability column). Python, not the template, as field_rows: a
    change to one result draws its submitter's and accelerator's pages again (617 rows on the
    largest), and in Jinja their rows took most of a one-file rebuild's time on those pages."""
    lines = []
    for row in rows:
        rank, models = row["board_rank"], row["models"]
        system = f'<a href="{root}{_href(row["path"])}">{escape(row["system"])}</a>'
        if models:
            many = "s" if models != 1 else ""
            per_minute = four_digits(row["models_per_minute"])
            system += f'<br><small class="models">{number(models)} model{many}, {per_minute} models/min</small>'
        availability = f"<td>{escape(row['availability'])}</td>" if divisions else ""
        lines.append(
            f'<tr><td class="n">{rank if rank is not None else "—"}</td>\n'
            f'<td><a href="{root}{_href(row["submitter_path"])}">{escape(row["submitter"])}</a></td>\n'
            f"<td>{system}{_notes(root, row)}</td>\n"
            f'<td><a href="{root}{_href(row["accelerator_path"])}">{escape(row["accelerator_name"])}</a></td>\n'
            f'<td class="n">{_chips(row)}</td><td class="n">{number(row["minutes"])}</td>'
            f'<td class="n">{number(row["chip_hours"], 1)}{_hours_note(row)}</td>\n'
            f'<td class="n">{_cost(row["costs"][DEFAULT_TIER])}</td>{availability}</tr>\n'
        )
    return Markup("".join(lines))


@functools.lru_cache(maxsize=20_000)
def _href(path: str) -> str:
    """A site-relative path as a link's escaped href after the page's root (url() in a template:
    the root, '../' repeated, has nothing to escape). Pages name the same submitters and
    accelerators many times."""
    return str(escape(quote(path)))


def row_notes(root: str, row: dict) -> Markup:
    """What a table's row says of a result not verified, republished or estimated (notes(row) in
    macros.html); `root`: the page's way up to the site's root."""
    return Markup(_notes(root, row))


def _notes(root: str, row: dict) -> str:
    notes = ""
    if row["verified_note"]:
        notes += f'<br><small class="unverified">{escape(row["verified_note"])}</small>'
    if row["republished_note"]:
        link = f"{root}{_href(row['republished_path'])}"
        notes += f'<br><small class="republished"><a href="{link}">{escape(row["republished_note"])}</a></small>'
    if row["estimated"]:
        notes += '<br><small class="estimated">Estimated, not measured</small>'
    return notes


def cost_cell(cost: dict) -> Markup:
    """A result's cost in one tier as a table cell shows it (cost(row, tier) in macros.html): with
    its basis and marks, else why it has none (behind a disclosure: reachable by keyboard and
    touch, not a hover-only title)."""
    return Markup(_cost(cost))


def _cost(cost: dict) -> str:
    if cost["cost_usd"] is not None:
        cell = usd(cost["cost_usd"])
        if cost["basis"]:
            cell += f'<br><small class="price-basis">{escape(cost["basis"])}</small>'
        for mark in cost["marks"]:
            cell += f'<br><small class="price-mark">{escape(mark)}</small>'
        return cell
    if cost["note"]:
        return f'<details class="na"><summary>n/a</summary><p>{escape(cost["note"])}</p></details>'
    return '<span class="muted">n/a</span>'


def chips_cell(row: dict) -> Markup:
    """A result's count in a table cell: a system of processors alone (results.cpu_only) counts
    CPUs, not accelerator chips. site.js draws the same."""
    return Markup(_chips(row))


def _chips(row: dict) -> str:
    chips = row["chips"]
    return number(chips) + ((" CPUs" if chips != 1 else " CPU") if row["cpu_only"] else "")


def hours_note(row: dict) -> Markup:
    """After a result's chip-hours in a table cell: a system of processors alone's are
    processor-hours."""
    return Markup(_hours_note(row))


def _hours_note(row: dict) -> str:
    return ' <small class="cpu-unit">processor-hours</small>' if row["cpu_only"] else ""
