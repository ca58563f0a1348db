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

from leaderboard.normalize import DEFAULT_TIER, TIERS, slug
from leaderboard.render.prices import significant
from leaderboard.rows import UNRANKED_REASONS


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


def board_rows(root: str, rows: list[dict], has_energy: bool, divisions: bool) -> Markup:
    """The rows of a leaderboard's table (board.html), each ending in a newline, with what site.js
    sorts, filters and prices them by in data- attributes; `root`: the page's way up to the site's
    root; `has_energy`: the board has an Energy column; `divisions`: an Availability column.
    Python, not the template, as group_rows: the 2,600 rows of the boards were a noticeable part of
    a cold build's leaderboard pages in Jinja."""
    lines = []
    for row in rows:
        rank, per_minute, models = row["board_rank"], row["models_per_minute"], row["models"]
        entry_id = row["entry_id"]
        opening = (
            f'<tr id="{escape(slug(entry_id))}" data-entry="{escape(entry_id)}"'
            f' data-rank="{escape(rank) if rank is not None else ""}" data-ranked="{"true" if row["ranked"] else "false"}"'
            f' data-minutes="{escape(row["minutes"])}" data-chip_hours="{escape(row["chip_hours"])}"'
        )
        if per_minute is not None:
            opening += f' data-models_per_minute="{escape(per_minute)}"'
        searched = " ".join(
            [row["submitter"], row["system"], row["accelerator_name"], row["model_name"] or "", row["framework"] or ""]
        )
        system = f'<a href="{root}{_href(row["path"])}">{escape(row["system"])}</a>'
        if row["model_text"]:
            system += f'<br><small class="model">Model: {escape(row["model_text"])}</small>'
        elif row["division"] == "open":
            system += '<br><small class="model">Model not stated</small>'
        if models:
            many = "s" if models != 1 else ""
            system += (
                f'<br><small class="models">{number(models)} model{many}, {four_digits(per_minute)} models/min</small>'
            )
        energy = row["energy_kwh"] if has_energy else None
        energy_cell = f'<td class="n">{number(energy, 2) if energy is not None else "—"}</td>\n' if has_energy else ""
        availability = f"<td>{escape(row['availability'])}</td>\n" if divisions else ""
        lines.append(
            f"{opening}{_tier_attributes(row)}"
            f' data-availability="{escape(row["availability"])}" data-accelerator="{escape(row["accelerator"])}"'
            f' data-submitter="{escape(row["submitter"])}"\n'
            f' data-search="{escape(searched.lower())}">\n'
            f'<td class="n rank">{_rank(rank, row["unranked_reason"])}</td>\n'
            f'<td><a href="{root}{_href(row["submitter_path"])}">{escape(row["submitter"])}</a></td>\n'
            f"<td>{system}{_notes(root, row)}</td>\n"
            f'<td><a href="{root}{_href(row["accelerator_path"])}">{escape(row["accelerator_name"])}</a></td>\n'
            f'<td class="n">{_chips(row)}</td>\n'
            f'<td class="n">{number(row["minutes"])}</td>\n'
            f'<td class="n">{number(row["chip_hours"], 1)}{_hours_note(row)}</td>\n'
            f'<td class="n cost">{_cost(row["costs"][DEFAULT_TIER])}</td>\n'
            f'{energy_cell}<td class="quality">{_quality(row)}</td>\n'
            f"{availability}<td>{_source(row)}</td>\n"
            "</tr>\n"
        )
    return Markup("".join(lines))


def _tier_attributes(row: dict) -> str:
    """A board row's cost in every tier, as site.js reads it: the cost at the result's date and at
    the newest prices, their marks and bases, and why there is none."""
    attributes = []
    for tier in TIERS:
        cost, latest, shown = row["cost_by_tier"][tier], row["latest_costs"][tier], row["costs"][tier]
        attributes.append(
            f' data-cost-{tier}="{escape(cost) if cost is not None else ""}"'
            f' data-marks-{tier}="{escape("; ".join(shown["marks"]))}"'
            f' data-latest-{tier}="{escape(latest) if latest is not None else ""}"'
            f' data-latest-marks-{tier}="{escape("; ".join(row["latest_marks"][tier]))}"'
            f' data-basis-{tier}="{escape(shown["basis"])}" data-latest-basis-{tier}="{escape(row["latest_bases"][tier])}"'
        )
        if cost is None and shown["note"]:
            attributes.append(f' data-na-{tier}="{escape(shown["note"])}"')
    return "".join(attributes)


def _rank(rank: int | None, reason: str | None) -> str:
    if rank is not None:
        return str(rank)
    if reason:
        return f'<abbr title="Not ranked: {escape(UNRANKED_REASONS[reason])}">—</abbr>'
    return "—"


def quality_cell(row: dict) -> Markup:
    """A result's quality, and its target (quality(row) in macros.html)."""
    return Markup(_quality(row))


def _quality(row: dict) -> str:
    if row["quality"] is None:
        return '<span class="muted">—</span>'
    target = row["quality_target"]
    shown = four_digits(row["quality"])
    return shown if target is None else f'{shown} <span class="muted">(target {four_digits(target)})</span>'


def source_cell(row: dict) -> Markup:
    """Where a result was published: a link, else its citation (source(row) in macros.html)."""
    return Markup(_source(row))


def _source(row: dict) -> str:
    if row["source_url"]:
        return f'<a href="{escape(row["source_url"])}" rel="external noopener noreferrer">source</a>'
    if row["source_citation"]:
        return f'<span class="citation">{escape(row["source_citation"])}</span>'
    return '<span class="muted">—</span>'


def run_rows(runs: list[dict], with_energy: bool) -> Markup:
    """The rows of an entry page's runs table (entry.html), each ending in a newline: each run's
    minutes, status, part in the score, quality, energy (`with_energy`: the table has the column)
    and raw log. Python, not the template: 2,600 entry pages a cold build."""
    lines = []
    for run in runs:
        status, dropped, minutes, quality = run["status"], run["dropped"], run["minutes"], run["quality"]
        why = (run["failure_detail"] or run["failure_reason"]) if status == "failed" else None
        shown_status = ("failed" + (f": {escape(why)}" if why else "")) if status == "failed" else "success"
        if run["counted"]:
            part = "counted"
        elif dropped == "failed":
            part = "not counted (failed)"
        else:
            part = f"dropped as {escape(dropped)}" if dropped else "not counted"
        dropped_attribute = f' data-dropped="{escape(dropped)}"' if dropped else ""
        energy = ""
        if with_energy:
            kwh = run["energy_kwh"]
            energy = f'<td class="n">{number(kwh, 3) if kwh is not None else "—"}</td>'
        if run["log_url"]:
            log = f'<a href="{escape(run["log_url"])}" rel="external noopener noreferrer"><code>{escape(run["log_path"])}</code></a>'
        else:
            log = f"<code>{escape(run['log_path'])}</code>" if run["log_path"] else '<span class="muted">—</span>'
        lines.append(
            f'<tr data-status="{escape(status)}"{dropped_attribute}>'
            f'<th scope="row" class="n">{escape(run["run"])}</th>\n'
            f'<td class="n">{number(minutes, 4) if minutes is not None else "—"}</td>\n'
            f"<td>{shown_status}</td>\n"
            f"<td>{part}</td>\n"
            f'<td class="n">{four_digits(quality) if quality is not None else "—"}</td>\n'
            f"{energy}<td>{log}</td></tr>\n"
        )
    return Markup("".join(lines))


def cost_rows(row: dict) -> Markup:
    """The rows of an entry page's cost table (entry.html), a price tier each, ending in a
    newline: the provider, the price in force and its date, the computation, the cost, the
    price's source and note. Python, not the template, as run_rows."""
    unit = "CPU" if row["cpu_only"] else "chip"
    hours = hours_unit(row)
    lines = []
    for tier in TIERS:
        c = row["costs"][tier]
        cells = f'<tr data-tier="{tier}"><th scope="row">{tier}</th>\n<td>{escape(c["provider"] or "—")}</td>\n'
        if c["cost_usd"] is None:
            cells += f'<td class="n">—</td><td>—</td><td>no price</td><td class="n">n/a</td><td>{escape(c["note"] or "")}</td>\n'
        else:
            if tier == "purchase":
                # To the cent: the product shown is the cost shown.
                per_chip = "${:,.2f}".format(c["cost_usd"] / row["chips"]).replace(".00", "")
                price = f"{escape(per_chip)} per {unit}"
                computation = f"{escape(chip_count(row))} × {escape(per_chip)}"
            else:
                per_hour = escape(significant(c["usd_per_chip_hour"]))
                price = f"${per_hour} per {hours[:-1]}"
                computation = f"{number(row['chip_hours'], 4)} {hours} × ${per_hour}"
            source = ""
            if c["price_source"]:
                source = f'<a href="{escape(c["price_source"])}" rel="external noopener noreferrer">price source</a>'
            if c["note"]:
                source += f" {escape(c['note'])}"
            cells += (
                f'<td class="n">{price}</td><td>{escape(c["price_date"])}</td>\n'
                f'<td>{computation}</td><td class="n">{usd(c["cost_usd"])}</td>\n'
                f"<td>{source}</td>\n"
            )
        lines.append(cells + "</tr>\n")
    return Markup("".join(lines))


# The functions the templates call by these names (writer.environment's globals).
TEMPLATE_FUNCTIONS = {
    function.__name__: function
    for function in (
        field_rows,
        group_rows,
        board_rows,
        run_rows,
        cost_rows,
        row_notes,
        cost_cell,
        chips_cell,
        hours_note,
        quality_cell,
        source_cell,
    )
}
