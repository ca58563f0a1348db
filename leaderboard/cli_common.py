"""What every command module shares: the expected failure that the command line prints as one
line on stderr with exit code 1, never a traceback."""

from __future__ import annotations

import click


class Failure(click.ClickException):
    """An expected failure: one line on stderr, exit 1."""

    exit_code = 1

    def show(self, file=None) -> None:
        click.echo(f"error: {self.message}", err=True)
