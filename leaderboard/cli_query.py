"""The `query` command: one read-only SQL statement, its rows printed as they arrive (a module
of its own because cli.py is at the size limit; cli.py registers it)."""

from __future__ import annotations

import os
import sys
from itertools import chain
from pathlib import Path

import click

from leaderboard import tables
from leaderboard.cli_common import DB, Failure


class _SqlCommand(click.Command):
    """A command whose SQL may start with a comment: click takes any word starting with "--" for
    an option, but one with whitespace before any "=" names no option, so it is the SQL."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        sql = [a for a in args if a.startswith("--") and any(c.isspace() for c in a.split("=", 1)[0])]
        if sql and "--" not in args:
            args = [a for a in args if a not in sql] + ["--", *sql]
        return super().parse_args(ctx, args)


@click.command(cls=_SqlCommand)
@click.argument("sql")
@DB
@click.option("--format", "fmt", type=click.Choice(list(tables.FORMATS)), default="table", show_default=True)
@click.option(
    "--max-width",
    type=click.IntRange(min=0),
    help="Widest the table may be, in characters (default: the terminal's width, at least 120); "
    "longer values wrap in their cell, never cut. 0: no limit, every value on one line (the "
    "whole result is read before the first line).",
)
def query(sql: str, db: str, fmt: str, max_width: int | None) -> None:
    """Run one read-only SQL statement against the database.

    SQL is one statement (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE or EXPLAIN), as
    DuckDB's own parser reads it, and may start with a comment (-- ...); several statements, or
    one that writes, are refused. Give - to read it from stdin. A bad query prints the
    database's whole message, hints included. Rows are printed as they arrive. In every format
    dates are YYYY-MM-DD, booleans true and false, floats the shortest text of their value to 15
    significant digits, an INTERVAL an ISO 8601 duration (P3D, PT1H30M), a BLOB as DuckDB writes
    one (printable ASCII as it is, every other byte \\xNN); NULL is NULL in the table and Markdown, an empty CSV field and JSON null,
    the empty text '' empty, "" in CSV. JSON is strict: NaN and the infinities are the text "NaN",
    "Infinity" and "-Infinity", and a repeated column name is keyed name_1, name_2, ...
    """
    from leaderboard import store
    from leaderboard.statements import NulInQuery, UndecodableQuery

    if sql == "-":
        # Bytes the locale cannot decode kept as the command line keeps them (surrogates), for
        # single_statement to name: a strict read would fail on them.
        sys.stdin.reconfigure(errors="surrogateescape")
        sql = sys.stdin.read()
    if not store.is_url(db):
        _check_duckdb_file(Path(db))
    try:
        with store.streaming(db, sql) as (names, batches):
            if fmt == "table" and max_width != 0 and not sys.stdout.isatty():
                batches = _hinting_when_squeezed(names, batches, max_width)
            count = tables.write(names, batches, fmt, sys.stdout, max_width)
            sys.stdout.flush()  # a reader gone before the last lines is a closed pipe here too
    except (FileNotFoundError, store.RefusedQuery, store.EmptyQuery, UndecodableQuery, NulInQuery) as error:
        raise Failure(str(error)) from None
    except store.QueryFailed as error:
        raise Failure(f"query failed: {error}") from None
    except BrokenPipeError:
        # The reader stopped early (| head): end as SIGPIPE ends other tools, status 128 + 13,
        # silently. Not by SIGPIPE's default action, which would also end `serve` on a client's
        # closed socket; stdout goes to devnull so that no later flush fails on the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    if fmt == "table":
        click.echo(f"{count} row{'' if count == 1 else 's'}", err=True)


# A DuckDB database file holds these bytes at this offset (its main header's magic).
DUCKDB_MAGIC, DUCKDB_MAGIC_AT = b"DUCK", 8


def _check_duckdb_file(path: Path) -> None:
    """Refuse a file that is not a DuckDB database (a CSV, Parquet or JSON file, an empty file)
    in one line: opened read-only, DuckDB's own message for it is about something else ("Cannot
    launch in-memory database in read-only mode!"). A missing file is left to store.connect."""
    try:
        with path.open("rb") as file:
            head = file.read(DUCKDB_MAGIC_AT + len(DUCKDB_MAGIC))
    except OSError:
        return  # missing, a folder, unreadable: store.connect or DuckDB says so
    if head[DUCKDB_MAGIC_AT:] != DUCKDB_MAGIC:
        raise Failure(
            f"{path} is not a DuckDB database file ({'empty' if not head else 'no DuckDB header'}): "
            "give the leaderboard.duckdb that 'leaderboard build' writes"
        )


def _hinting_when_squeezed(names: list[str], batches, max_width: int | None):
    """The batches, after one hint on stderr when the table squeezes its columns (tables.squeezed,
    with the widths print_table takes from the names and the first batch): hundreds of lines of
    names printed letter by letter, which a file or a pager shows only later."""
    width = max_width if max_width is not None else tables.default_width()
    batches = iter(batches)
    first = next(batches, [])
    if tables.squeezed(names, first, width):
        click.echo(
            f"hint: the table is too wide for its {len(names)} columns in {width} characters: "
            "--format csv (or json) keeps each value whole, --max-width 0 puts each row on one line",
            err=True,
        )
    return chain([first], batches)
