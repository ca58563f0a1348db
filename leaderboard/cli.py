"""The command line: parse arguments, call the library, print, exit code. No logic of its own.

Exit codes: 0 success, 1 invalid input or a failed command, 2 usage error.
"""

from __future__ import annotations

import csv
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import click

from leaderboard.problems import Problem

DEFAULT_DB = "leaderboard.duckdb"


class Failure(click.ClickException):
    """An expected failure: one line on stderr, exit 1."""

    exit_code = 1

    def show(self, file=None) -> None:
        click.echo(f"error: {self.message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="leaderboard")
def main() -> None:
    """Open results database and leaderboard for ML training benchmarks."""


def _progress_factory(quiet: bool):
    """A progress bar on stderr when it is a terminal; nothing when piped or --quiet."""
    if quiet or not sys.stderr.isatty():
        return None
    from rich.progress import Progress

    progress = Progress(transient=True, console=__import__("rich.console").console.Console(stderr=True))

    def start(label: str, total: int | None):
        if not progress.live.is_started:
            progress.start()
        task = progress.add_task(label, total=total)
        return lambda n: progress.advance(task, n)

    start.stop = progress.stop  # type: ignore[attr-defined]
    return start


@contextmanager
def _progress(quiet: bool) -> Iterator:
    factory = _progress_factory(quiet)
    try:
        yield factory
    finally:
        if factory is not None:
            factory.stop()


def _print_problems(problems: list[Problem], fmt: str) -> None:
    if fmt == "json":
        return
    for problem in problems:
        click.echo(problem.format())


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--catalog", "catalog_dir", default="catalog", show_default=True, type=click.Path(path_type=Path),
              help="Catalog folder to check ids against.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def validate(paths: tuple[Path, ...], catalog_dir: Path, fmt: str, quiet: bool) -> None:
    """Check submission and catalog files (default: submissions/ and catalog/).

    Prints every problem as path:line:col: $.json.path: message (hint). Exit 0 when all
    files are valid, 1 otherwise.
    """
    from leaderboard.validate import validate_paths

    targets = list(paths) or [Path("submissions"), catalog_dir]
    with _progress(quiet) as progress:
        tick = progress("validating", None) if progress else None
        result = validate_paths(targets, catalog_dir, progress=tick)
    if fmt == "json":
        click.echo(json.dumps({"files": len(result.files), "valid": result.ok,
                               "problems": [p.as_dict() for p in result.problems]}, indent=2))
    else:
        _print_problems(result.problems, fmt)
        files_with = len({p.file for p in result.problems})
        summary = (f"{len(result.files)} files checked: all valid" if result.ok
                   else f"{len(result.files)} files checked: {len(result.problems)} problems in {files_with} files")
        click.echo(summary, err=True)
    sys.exit(0 if result.ok else 1)


@main.command()
@click.option("--submissions", default="submissions", show_default=True, type=click.Path(path_type=Path))
@click.option("--catalog", "catalog_dir", default="catalog", show_default=True, type=click.Path(path_type=Path))
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB file, or a SQLAlchemy URL.")
@click.option("--out", default="site", show_default=True, type=click.Path(path_type=Path), help="Site folder.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def build(submissions: Path, catalog_dir: Path, db: str, out: Path, quiet: bool) -> None:
    """Validate everything, then write the database and the site.

    Nothing is written when any file is invalid; the previous database and site stay.
    """
    from leaderboard.build import build as run_build

    if not submissions.is_dir():
        raise Failure(f"no submissions folder at {submissions}")
    with _progress(quiet) as progress:
        outcome = run_build(submissions, catalog_dir, db, out, progress=progress)
    if not outcome.ok:
        _print_problems(outcome.problems, "text")
        raise Failure(f"{len(outcome.problems)} problems: nothing was built (the previous database and site stay)")
    click.echo(f"{outcome.entries} results")
    click.echo(f"database: {Path(db).resolve() if '://' not in db else db}")
    click.echo(f"site:     {(outcome.site / 'index.html').resolve()}")


@main.command()
@click.argument("sql")
@click.option("--db", default=DEFAULT_DB, show_default=True, help="DuckDB file, or a SQLAlchemy URL.")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table", show_default=True)
def query(sql: str, db: str, fmt: str) -> None:
    """Run a read-only SQL query against the database."""
    import duckdb
    import sqlalchemy

    from leaderboard import store

    try:
        names, rows = store.run_query(db, sql)
    except (FileNotFoundError, PermissionError) as error:
        raise Failure(str(error)) from None
    except (duckdb.Error, sqlalchemy.exc.SQLAlchemyError) as error:
        raise Failure(f"query failed: {_first_line(error)}") from None
    if fmt == "json":
        click.echo(json.dumps([dict(zip(names, row)) for row in rows], indent=2, default=str))
    elif fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(rows)
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(*names, show_lines=False)
        for row in rows:
            table.add_row(*("" if v is None else str(v) for v in row))
        Console(width=max(120, Console().width)).print(table)
        click.echo(f"{len(rows)} rows", err=True)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def run() -> None:
    """Entry point that never shows a traceback for an expected failure."""
    try:
        main(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
