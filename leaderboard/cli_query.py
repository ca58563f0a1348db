"""The `query` command: one read-only SQL statement, its rows printed as they arrive (a module
of its own because cli.py is at the size limit; cli.py registers it)."""

from __future__ import annotations

import sys

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
    significant digits; NULL is NULL in the table and Markdown, an empty CSV field and JSON null,
    the empty text '' empty, "" in CSV. JSON is strict: NaN and the infinities are the text "NaN",
    "Infinity" and "-Infinity", and a repeated column name is keyed name_1, name_2, ...
    """
    from leaderboard import store

    if sql == "-":
        sql = sys.stdin.read()
    try:
        with store.streaming(db, sql) as (names, batches):
            count = tables.write(names, batches, fmt, sys.stdout, max_width)
    except (FileNotFoundError, store.RefusedQuery, store.EmptyQuery) as error:
        raise Failure(str(error)) from None
    except store.QueryFailed as error:
        raise Failure(f"query failed: {error}") from None
    if fmt == "table":
        click.echo(f"{count} row{'' if count == 1 else 's'}", err=True)
