"""Query results written out for people and programs: a table for the terminal, CSV, JSON and
Markdown (what `leaderboard query --format` prints; store.run_query gives the rows).
"""

from __future__ import annotations

import csv
import json
from typing import TextIO

FORMATS = ("table", "csv", "json", "markdown")


def write(names: list[str], rows: list[tuple], fmt: str, out: TextIO, max_width: int | None = None) -> None:
    """Rows in one of FORMATS. Dates and other values JSON has no type for are written as text
    (a date as YYYY-MM-DD); `max_width` is the table's (None: the terminal's, at least 120; 0: no limit)."""
    if fmt == "json":
        out.write(json.dumps([dict(zip(names, row, strict=True)) for row in rows], indent=2, default=str) + "\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(rows)
    elif fmt == "markdown":
        out.write(markdown(names, rows))
    elif fmt == "table":
        print_table(names, rows, out, max_width)
    else:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")


def print_table(names: list[str], rows: list[tuple], out: TextIO, max_width: int | None) -> None:
    """A boxed table (rich). A long value wraps onto more lines of its cell, never cut with "…";
    with max_width 0 the table is as wide as its widest values, each on one line."""
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    table = Table(*names, show_lines=False)
    for column in table.columns:
        column.overflow = "fold"
        column.no_wrap = max_width == 0
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    if max_width == 0:
        unbounded = Console(width=10**6)
        max_width = Measurement.get(unbounded, unbounded.options, table).maximum
    elif max_width is None:
        max_width = max(120, Console().width)
    Console(width=max_width, file=out).print(table)


def markdown(names: list[str], rows: list[tuple]) -> str:
    """A GitHub-flavoured Markdown table, numbers right-aligned. Written by hand: the libraries
    that do it (tabulate, pandas' to_markdown) are not among the project's dependencies."""

    def cell(value: object) -> str:
        text = "" if value is None else str(value)
        return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")

    def numeric(index: int) -> bool:
        values = [row[index] for row in rows if row[index] is not None]
        return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)

    lines = [
        "| " + " | ".join(cell(n) for n in names) + " |",
        "|" + "|".join("---:" if numeric(i) else "---" for i in range(len(names))) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
