"""What every command module shares: the expected failure that the command line prints as one
line on stderr with exit code 1 (never a traceback), the --db option, and the output flushed
before a process leaves by os._exit."""

from __future__ import annotations

import os
import sys

import click

from leaderboard import DB_ENV, DEFAULT_DB


class Failure(click.ClickException):
    """An expected failure: one line on stderr, exit 1."""

    exit_code = 1

    def show(self, file=None) -> None:
        click.echo(f"error: {readable(self.message)}", err=True)


def readable(text: str) -> str:
    """`text` with each byte of a name that is not UTF-8 (a file name or argument in another
    encoding, which Python holds as a lone surrogate) written as Python writes a byte, \\xff:
    printed as is, it would show as \\udcff."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no byte stands for: written \ud800
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _database(context: click.Context, parameter: click.Parameter, value: str) -> str:
    """A DuckDB file or a PostgreSQL URL: any other URL (sqlite://, mysql://) is refused before a
    connection, which could create an empty file or fail on the first DuckDB-only statement; so
    are an empty path and a folder, which no command can read or write as a database file."""
    if not value:
        raise click.BadParameter(
            f"the path is empty: give a DuckDB file ({DEFAULT_DB}) or a postgresql+psycopg:// URL", context, parameter
        )
    if "://" not in value and os.path.isdir(value):
        raise Failure(
            f"{value} is a folder, not a database file: give the file's path, such as {os.path.join(value, DEFAULT_DB)}"
        )
    scheme = value.split("://", 1)[0].lower() if "://" in value else None
    if scheme is not None and not scheme.startswith(("postgresql", "duckdb")):
        raise click.BadParameter(
            f"{readable(scheme)}:// is not a database the leaderboard writes: give a DuckDB file "
            "(leaderboard.duckdb) or a postgresql+psycopg:// URL",
            context,
            parameter,
        )
    return value


# The --db option of every command that reads or writes the database.
DB = click.option(
    "--db",
    callback=_database,
    default=DEFAULT_DB,
    envvar=DB_ENV,
    show_default=True,
    show_envvar=True,
    help="DuckDB file (a relative path is from the current folder), or a SQLAlchemy URL such as "
    "postgresql+psycopg://user@host/leaderboard.",
)


def flush_output() -> None:
    """What a command said, out before its process leaves by os._exit (no buffer flushed for it)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head): nothing more can be shown
            pass
