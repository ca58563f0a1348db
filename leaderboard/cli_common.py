"""What every command module shares: the expected failure that the command line prints as one
line on stderr with exit code 1 (never a traceback), and the --db option."""

from __future__ import annotations

import click

from leaderboard import DB_ENV, DEFAULT_DB


class Failure(click.ClickException):
    """An expected failure: one line on stderr, exit 1."""

    exit_code = 1

    def show(self, file=None) -> None:
        click.echo(f"error: {self.message}", err=True)


# The --db option of every command that reads or writes the database.
DB = click.option(
    "--db",
    default=DEFAULT_DB,
    envvar=DB_ENV,
    show_default=True,
    show_envvar=True,
    help="DuckDB file (a relative path is from the current folder), or a SQLAlchemy URL such as "
    "postgresql+psycopg://user@host/leaderboard.",
)
