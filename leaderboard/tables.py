"""Query results written out for people and programs, as the rows arrive: a table for the
terminal, CSV, JSON and Markdown (what `leaderboard query --format` prints; store.streaming gives the rows).

One rule for every value in every format (value_text): NULL is `NULL` in the table and
Markdown, an empty field in CSV and null in JSON, never the same as the empty text '' (empty in
the table and Markdown, "" in CSV, "" in JSON); booleans are true and false; a float is the
shortest text that reads back as its value rounded to 15 significant digits (0.1 + 0.2 is 0.3,
64 is 64.0, 1e-07 stays 1e-07), NaN and infinities are NaN, Infinity and -Infinity (in JSON,
which has no such numbers, the text "NaN", "Infinity" and "-Infinity"); dates are YYYY-MM-DD;
lists and structs are JSON. JSON's objects key a repeated column name as name_1, name_2, ...
The table alone writes a control character in a value or name escaped (table_text), so that its
columns stay aligned; the other formats keep the exact value.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterable
from decimal import Decimal
from itertools import chain
from typing import TextIO

FORMATS = ("table", "csv", "json", "markdown")
NULL = "NULL"  # how the table and Markdown show a missing value (as DuckDB's CLI and the SQL page do)
SIGNIFICANT_DIGITS = 15  # past these, a double's digits are binary noise (0.30000000000000004)
# How the table writes the characters that would move its borders: a tab, a NUL, a line break, an
# escape sequence's ESC (the C0 and C1 controls and DEL, Unicode's category Cc), and the Unicode line
# and paragraph separators. As Python writes them, but NUL as \0, as C writes it.
_NAMED = {0: "\\0", 9: "\\t", 10: "\\n", 13: "\\r"}
_TABLE_ESCAPES = {
    **{code: _NAMED.get(code, f"\\x{code:02x}") for code in (*range(0x20), *range(0x7F, 0xA0))},
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def write(names: list[str], batches: Iterable[list[tuple]], fmt: str, out: TextIO, max_width: int | None = None) -> int:
    """Rows in one of FORMATS, written batch by batch as they come; the number of rows.
    `max_width` is the table's (None: the terminal's, at least 120; 0: no limit, which reads the
    whole result before the first line, to know each column's widest value)."""
    writers = {"json": _write_json, "csv": _write_csv, "markdown": _write_markdown}
    if fmt == "table":
        return print_table(names, batches, out, max_width)
    if fmt not in writers:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    return writers[fmt](names, batches, out)


def plain(value: object) -> object:
    """A value as JSON has it: None, bool, int, float (rounded as value_text says), text, list, dict."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _rounded(value)
    if isinstance(value, Decimal):
        return (
            int(value) if value == value.to_integral_value() and value.as_tuple().exponent >= 0 else plain(float(value))
        )
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, dt.timedelta):
        return _duration(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        # As DuckDB writes a BLOB: printable ASCII as it is, every other byte as \xNN.
        return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02X}" for b in bytes(value))
    return str(value)


def _duration(value: dt.timedelta) -> str:
    """An INTERVAL as ISO 8601 writes a duration: 'P3D', 'PT1H30M', '-PT0.5S' ('P0D' for none)."""
    sign = "-" if value < dt.timedelta(0) else ""
    value = abs(value)
    seconds = value.seconds + value.microseconds / 1_000_000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    time = "".join(
        f"{amount:g}{unit}"
        for amount, unit in ((int(hours), "H"), (int(minutes), "M"), (round(seconds, 6), "S"))
        if amount
    )
    days = f"{value.days}D" if value.days or not time else ""
    return f"{sign}P{days}{'T' + time if time else ''}"


def value_text(value: object) -> str | None:
    """The text of one value, the same in the table, CSV and Markdown; None for NULL."""
    value = plain(value)
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, allow_nan=True)
    return str(value)


def _rounded(value: float) -> float:
    return value if not math.isfinite(value) else float(f"{value:.{SIGNIFICANT_DIGITS}g}")


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)  # the shortest text that reads back as the (rounded) value


def unique_names(names: list[str]) -> list[str]:
    """Column names as keys of one object: a repeated name (SELECT r.cost_usd, c.cost_usd) gets
    _1, _2, ... as DuckDB and pandas name it, never overwriting the first."""
    taken, unique = set(names), []
    for index, name in enumerate(names):
        if name in names[:index]:
            number = 1
            while f"{name}_{number}" in taken:
                number += 1
            name = f"{name}_{number}"
            taken.add(name)
        unique.append(name)
    return unique


def _json_value(value: object) -> object:
    """plain(value), with NaN and the infinities as the text "NaN", "Infinity" and "-Infinity":
    JSON has no such numbers (a NaN written bare is not JSON; null would say NULL)."""
    value = plain(value)
    if isinstance(value, float) and not math.isfinite(value):
        return _float_text(value)
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return value


def _write_json(names: list[str], batches: Iterable[list[tuple]], out: TextIO) -> int:
    """A JSON array of objects, two-space indented, written object by object; strict JSON (no
    NaN), every column a key of its own (unique_names)."""
    count = 0
    keys = unique_names(names)
    for batch in batches:
        for row in batch:
            item = json.dumps({n: _json_value(v) for n, v in zip(keys, row, strict=True)}, indent=2, allow_nan=False)
            out.write(("[\n" if count == 0 else ",\n") + "\n".join("  " + line for line in item.splitlines()))
            count += 1
    out.write("\n]\n" if count else "[]\n")
    return count


def csv_field(value: object) -> str:
    """One CSV field: NULL empty, the empty text "" (Python's csv module writes both as nothing
    unless it quotes every text, hence by hand); quoted when it holds a comma, quote or line break."""
    text = value_text(value)
    if text is None:
        return ""
    if text == "" or any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _write_csv(names: list[str], batches: Iterable[list[tuple]], out: TextIO) -> int:
    count = 0
    out.write(",".join(csv_field(n) for n in names) + "\n")
    for batch in batches:
        out.write("".join(",".join(csv_field(v) for v in row) + "\n" for row in batch))
        count += len(batch)
    return count


def _numeric_columns(width: int, rows: list[tuple]) -> list[bool]:
    """Which columns hold numbers only (in `rows`, the first batch): they are right-aligned."""

    def number(value: object) -> bool:
        return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)

    return [
        any(row[i] is not None for row in rows) and all(row[i] is None or number(row[i]) for row in rows)
        for i in range(width)
    ]


def _write_markdown(names: list[str], batches: Iterable[list[tuple]], out: TextIO) -> int:
    """A GitHub-flavoured Markdown table, numbers right-aligned (as the first batch shows them).
    Written by hand: the libraries that do it (tabulate, pandas' to_markdown) are not among the
    project's dependencies, and neither streams."""

    def cell(value: object) -> str:
        text = value_text(value)
        text = NULL if text is None else text
        return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")

    batches = iter(batches)
    first = next(batches, [])
    out.write("| " + " | ".join(cell(n) for n in names) + " |\n")
    out.write("|" + "|".join("---:" if n else "---" for n in _numeric_columns(len(names), first)) + "|\n")
    count = 0
    for batch in chain([first], batches):
        out.write("".join("| " + " | ".join(cell(v) for v in row) + " |\n" for row in batch))
        count += len(batch)
    return count


def print_table(names: list[str], batches: Iterable[list[tuple]], out: TextIO, max_width: int | None) -> int:
    """A boxed table, drawn as rich draws one (heavy header), printed batch by batch: column
    widths come from the names and the first batch, fitted into `max_width` by narrowing the
    widest columns first. A longer value wraps onto more lines of its cell, never cut.

    Drawn here rather than by rich.table, which lays out every row before printing the first
    (tens of seconds and half a gigabyte for the 100,000 rows of `runs`); rich measures and
    wraps the text."""
    from rich.cells import cell_len
    from rich.console import Console

    batches = iter(batches)
    first = next(batches, [])
    if max_width == 0:  # every value on one line: the widest of all, so read them all first
        first, batches = first + [row for batch in batches for row in batch], iter(())
    if max_width is None:
        max_width = default_width()
    right = _numeric_columns(len(names), first)

    _, widths = column_widths(names, first, max_width)
    wrapper = Console(width=max(widths, default=1) + 1, file=None, color_system=None, legacy_windows=False)

    def lines(text: str, width: int) -> list[str]:
        if cell_len(text) <= width:
            return [text]
        from rich.text import Text

        return [line.plain for line in Text(text).wrap(wrapper, width, overflow="fold")] or [""]

    def pad(text: str, width: int, to_right: bool) -> str:
        gap = " " * (width - cell_len(text))
        return gap + text if to_right else text + gap

    def draw(cells: list[str], edge: str) -> str:
        wrapped = [lines(c, w) for c, w in zip(cells, widths, strict=True)]
        height = max((len(w) for w in wrapped), default=1)
        return "".join(
            edge
            + " "
            + f" {edge} ".join(
                pad(w[k] if k < len(w) else "", width, to_right)
                for w, width, to_right in zip(wrapped, widths, right, strict=True)
            )
            + " "
            + edge
            + "\n"
            for k in range(height)
        )

    def rule(left: str, line: str, cross: str, right_end: str) -> str:
        return left + cross.join(line * (w + 2) for w in widths) + right_end + "\n"

    out.write(rule("┏", "━", "┳", "┓") + draw([table_text(n) for n in names], "┃") + rule("┡", "━", "╇", "┩"))
    count = 0
    for batch in chain([first], batches):
        out.write("".join(draw(_texts(row), "│") for row in batch))
        count += len(batch)
    out.write(rule("└", "─", "┴", "┘"))
    return count


def default_width() -> int:
    """A table's width when none is given: the terminal's, at least 120 characters."""
    from rich.console import Console

    return max(120, Console().width)


def table_text(text: str) -> str:
    """`text` as the table shows it: each control character escaped (a tab \\t, a NUL \\0, a line
    break \\n, ESC \\x1b), which would otherwise shift, end or recolour the rest of its line."""
    return text.translate(_TABLE_ESCAPES)


def _texts(row: Iterable[object]) -> list[str]:
    """A row's cells in the table: value_text, NULL for NULL, control characters escaped."""
    return [NULL if (t := value_text(v)) is None else table_text(t) for v in row]


def column_widths(names: list[str], first: list[tuple], max_width: int) -> tuple[list[int], list[int]]:
    """Each column's natural width (its name's and the first batch's longest line, at least 1)
    and its width in a table of `max_width` characters (0: the natural one)."""
    from rich.cells import cell_len

    natural = [cell_len(table_text(n)) for n in names]
    for row in first:
        for i, text in enumerate(_texts(row)):
            natural[i] = max(natural[i], cell_len(text))
    natural = [max(1, w) for w in natural]
    return natural, fitted(natural, max_width) if max_width else natural


def squeezed(names: list[str], first: list[tuple], max_width: int) -> bool:
    """Whether a table of `max_width` characters narrows a column below three characters and its
    natural width (69 columns in 120 characters print each name letter by letter)."""
    natural, widths = column_widths(names, first, max_width)
    return any(w < min(n, 3) for w, n in zip(widths, natural, strict=True))


def fitted(widths: list[int], max_width: int) -> list[int]:
    """Column widths narrowed, widest first, one character at a time, until the table (its
    borders and padding: 3 characters a column and one more) fits in `max_width`; no column
    narrower than one character."""
    widths = list(widths)
    border = 3 * len(widths) + 1
    while widths and sum(widths) + border > max_width:
        widest = max(widths)
        if widest <= 1:
            break
        second = max((w for w in widths if w < widest), default=1)
        excess = sum(widths) + border - max_width
        tied = [i for i, w in enumerate(widths) if w == widest]
        # Narrow the widest columns together down to the next width, or by what is left.
        step = min(widest - second, -(-excess // len(tied)))
        for i in tied:
            if excess <= 0:
                break
            cut = min(step, excess)
            widths[i] -= cut
            excess -= cut
    return widths
