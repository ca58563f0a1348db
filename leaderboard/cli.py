"""The command line: parse arguments, call the library, print, exit code. No logic of its own.

Exit codes: 0 success, 1 invalid input or a failed command, 2 usage error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import click

from leaderboard.cli_archives import fetch_archives, importable_archives
from leaderboard.cli_common import DB, Failure, flush_output
from leaderboard.cli_compute import import_compute
from leaderboard.cli_dawnbench import import_dawnbench
from leaderboard.cli_query import query
from leaderboard.cli_serve import serve
from leaderboard.machine_errors import describe
from leaderboard.problems import Problem, plural

REIMPORTED = (
    "A fresh import (DIR/submissions, DIR/catalog/verified, DIR/catalog/imported, DIR/catalog/skipped) the "
    "trusted job wrote into an empty folder from checksummed archives: importer-written files must be "
    "byte-identical to it."
)
OUT = "Folder of the published round."
# The --catalog option of the commands that read the catalog.
CATALOG = click.option(
    "--catalog", "catalog_dir", default="catalog", show_default=True, type=click.Path(path_type=Path)
)


@click.group(
    context_settings={"help_option_names": ["-h", "--help"]},
    commands=[import_compute, import_dawnbench, fetch_archives, importable_archives, query, serve],
)
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
@click.option(
    "--catalog",
    "catalog_dir",
    type=click.Path(path_type=Path),
    help="Catalog folder to check ids against (default: the project's catalog/, here or in the nearest "
    "folder above that has one).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def validate(paths: tuple[Path, ...], catalog_dir: Path | None, fmt: str, quiet: bool) -> None:
    """Check submission and catalog files (default: submissions/ and catalog/).

    Each file is checked in its place in the project's submissions/: against every entry there
    (the same entry under another name, or in the wrong folder, is a duplicate) and in its
    folder; a catalog file among PATHS checks every submission again. Prints every problem as path:line:col: $.json.path: message
    (hint), the path from the project folder, and each file it did not read. A valid file that
    check-pr refuses (a closed round's file its importer did not write, or a file that claims an
    importer wrote it) is named on stderr, "check-pr refuses ...". While a catalog file
    cannot be read (unparsable, or failing its schema), only the catalog's problems are
    reported: the submissions are counted as not checked (JSON: "unchecked"), not failed one by
    one for the catalog's fault. Exit 0 when all files are valid, 1 otherwise or when no file
    was checked.
    """
    from leaderboard.problems import plural
    from leaderboard.tree import project_root
    from leaderboard.validate import UNCHECKED, CheckFailed, validate_paths

    root = project_root(catalog_dir)
    catalog_dir = catalog_dir or root / "catalog"
    targets = list(paths) or [root / "submissions", catalog_dir]
    try:
        with _progress(quiet) as progress:
            tick = progress("validating", None) if progress else None
            result = validate_paths(targets, catalog_dir, progress=tick, tree=root / "submissions", root=root)
    except CheckFailed as error:
        raise Failure(str(error)) from None
    notes = []  # what check-pr refuses of valid files: a closed round's, or an importer's claimed provenance
    if result.catalog is not None:
        from leaderboard.review.closed import claim_problems

        checked = set(result.files)
        notes = claim_problems([e for e in result.entries if str(e.file) in checked], result.catalog)
    ok = result.ok and bool(result.files)
    if fmt == "json":
        report = {
            "files": len(result.files),
            "valid": ok,
            "problems": [p.as_dict() for p in result.problems],
            "ignored": [{"file": name, "reason": why} for name, why in result.ignored],
            "check_pr_refuses": [p.as_dict() for p in notes],
            "unchecked": result.unchecked,
        }
        click.echo(json.dumps(report, indent=2))
    else:
        _print_problems(result.problems, fmt)
        for name, why in result.ignored:
            click.echo(f"ignored {name}: {why}", err=True)
        for note in notes:
            click.echo(f"check-pr refuses {note.format()}", err=True)
        # A path named that is not there is a problem: looked for only when there are problems.
        missing = [] if result.ok else [n for n in result.files if not Path(n).exists() and not Path(n).is_symlink()]
        checked = plural(len(result.files) - len(result.unchecked) - len(missing), "file") + " checked"
        if not result.files:
            summary = "no file checked" + (": every file named was ignored" if result.ignored else "")
        elif len(missing) == len(result.files):
            summary = f"no file checked: {plural(len(missing), 'path')} named not found"
        elif result.ok:
            summary = f"{checked}: all valid"
        else:
            files_with = plural(len({p.file for p in result.problems}), "file")
            summary = f"{checked}: {plural(len(result.problems), 'problem')} in {files_with}"
        if missing and len(missing) < len(result.files):
            summary += f"; {plural(len(missing), 'path')} named not found"
        if result.unchecked:
            summary += f"; {UNCHECKED.format(plural(len(result.unchecked), 'submission file'))}"
        click.echo(summary, err=True)
    sys.exit(0 if ok else 1)


@main.command()
@click.option("--submissions", default="submissions", show_default=True, type=click.Path(path_type=Path))
@CATALOG
@DB
@click.option("--out", default="site", show_default=True, type=click.Path(path_type=Path), help="Site folder.")
@click.option(
    "--base-url",
    callback=lambda context, parameter, value: _base_url(value),
    help="Where the site is published (default: base_url of catalog/site.yaml, if any): "
    "absolute feed links, sitemap.xml, robots.txt, canonical links.",
)
@click.option("--db-only", is_flag=True, help="Write the database only, not the site (--out is not touched).")
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    help="Worker processes that validate files and draw the charts' SVGs (default: one per core; 1: none).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option(
    "--watch",
    is_flag=True,
    help="Then build again whenever a submission or the catalog changes, until Ctrl-C (each build as a new "
    "command would, without starting Python again).",
)
def build(
    submissions: Path,
    catalog_dir: Path,
    db: str,
    out: Path,
    base_url: str | None,
    db_only: bool,
    jobs: int | None,
    quiet: bool,
    watch: bool,
) -> None:
    """Validate everything, then write the database and the site.

    Nothing is written when any file is invalid, or when the machine refuses a write (a full
    disk): the previous database and site stay, together.
    """
    once = partial(_build_once, submissions, catalog_dir, db, None if db_only else out, base_url, jobs, quiet)
    if watch:
        from leaderboard.cache import folder_beside
        from leaderboard.watch import watch_builds

        # What the build writes: no change, should it be inside a watched folder.
        written = [Path(db), folder_beside(Path(db) if db_only else out), *([] if db_only else [out])]
        watch_builds(partial(exit_code, once), [submissions, catalog_dir], written)
    else:
        once()


def _build_once(
    submissions: Path, catalog_dir: Path, db: str, out: Path | None, base_url: str | None, jobs: int | None, quiet: bool
) -> None:
    from leaderboard.build import build as run_build

    if not submissions.is_dir():
        raise Failure(f"no submissions folder at {submissions}")
    from leaderboard.build import BuildLocked, CommittedCache
    from leaderboard.tree import FileChanged
    from leaderboard.validate import CheckFailed

    try:
        with _progress(quiet) as progress:
            outcome = run_build(submissions, catalog_dir, db, out, progress=progress, base_url=base_url, jobs=jobs)
    except (BuildLocked, CommittedCache, CheckFailed) as error:
        raise Failure(str(error)) from None
    except FileChanged as error:
        raise Failure(f"{error}; nothing was built (the previous database and site stay)") from None
    except Exception as error:
        refused = describe(error)
        if refused is None:
            raise
        kept = getattr(error, "__notes__", None) or ["nothing was built (the previous database and site stay)"]
        raise Failure(f"{refused}: {'; '.join(kept)}") from None
    if not outcome.ok:
        _print_problems(outcome.problems, "text")
        raise Failure(
            f"{plural(len(outcome.problems), 'problem')}: nothing was built (the previous database and site stay)"
        )
    for warning in outcome.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(plural(outcome.entries, "result"))
    click.echo(f"database: {Path(db).resolve() if '://' not in db else db}")
    if outcome.site is not None:
        click.echo(f"site:     {(outcome.site / 'index.html').resolve()}")


@main.command()
@click.option("--round", "round_id", help="Round id from catalog/rounds.yaml.")
@click.option("--benchmark", help="Benchmark id from catalog/benchmarks.yaml.")
@click.option("--division", type=click.Choice(["closed", "open"]))
@click.option("--availability", type=click.Choice(["available", "preview", "research"]))
@click.option("--submitter", help="Organization, as it names itself.")
@click.option(
    "--date",
    help="Publication date, YYYY-MM-DD: when the result was first made public (required for published runs).",
)
@click.option("--system", "system_name", help="System name.")
@click.option("--accelerator", help="Accelerator id from catalog/accelerators.yaml.")
@click.option("--count", type=float, help="How many accelerators, in --unit.")
@click.option("--unit", type=click.Choice(["chip", "core", "device"]))
@click.option("--minutes", type=float, help="Time to train to the quality target (default: from --runs-minutes).")
@click.option(
    "--runs-minutes",
    callback=lambda context, parameter, value: _runs(value),
    help="Every run's minutes in run order, comma-separated, null for a failed run where the round's "
    "scoring drops one; --minutes is then their olympic mean (a published run: the plain mean of every "
    "run, none failed).",
)
@click.option("--quality", type=float, help="Achieved quality (required in MLPerf rounds).")
@click.option(
    "--quality-target",
    type=float,
    help="Target trained to (default: the round's target for the division; required for an open entry where "
    "the round sets none).",
)
@click.option("--model", help="Model name (required for published runs, whose file is named after it).")
@click.option("--parameters", type=click.FloatRange(min=0, min_open=True), help="Number of trained parameters.")
@click.option("--source-url", help="Where the result was published (http or https).")
@click.option("--citation", help="Free-text citation, for a source without a stable URL.")
@click.option("--note", help="Anything a reader should know; for a second run of one paper, how it differs.")
@click.option("--submissions", default="submissions", show_default=True, type=click.Path(path_type=Path))
@CATALOG
@click.option("--no-input", is_flag=True, help="Never prompt: every required value comes from flags.")
def new(
    round_id,
    benchmark,
    division,
    availability,
    submitter,
    date,
    system_name,
    accelerator,
    count,
    unit,
    minutes,
    runs_minutes,
    quality,
    quality_target,
    model,
    parameters,
    source_url,
    citation,
    note,
    submissions,
    catalog_dir,
    no_input,
) -> None:
    """Write a new submission file at the right path, valid, from flags or prompts.

    Prompts ask what a good entry needs (every run's minutes, the model and its parameters for an
    open or published entry, a citation without a URL) and check each answer as it is typed, with
    validate's rules: a refused answer (or flag) is said with its problem and asked again. Unknown
    ids get the most similar known ones. With --no-input every missing required value is an error, all
    named at once. The file is checked against every entry in SUBMISSIONS too; an existing file
    is never overwritten (a second file of the same name gets -2, -3, ...). An official round
    (MLPerf, DAWNBench) is refused: only its importer writes it; a result you measured goes to
    round published.
    """
    from leaderboard.catalog import load_catalog
    from leaderboard.interview import interview
    from leaderboard.new import answers_from, flag_lines, missing_flags, unknown_ids, write_submission
    from leaderboard.problems import plural

    catalog = load_catalog(catalog_dir)
    if catalog.problems:
        _print_problems(catalog.problems, "text")
        raise Failure("the catalog has problems; fix them first")
    given = dict(click.get_current_context().params, round=round_id, system=system_name)
    if no_input:
        if missing := missing_flags(given, catalog):
            raise click.UsageError(f"required with --no-input: {', '.join(missing)}")
        # An unknown round leaves nothing to check the rest by; an unknown benchmark or
        # accelerator is said with every other problem of the file, in one pass.
        if (unknown := unknown_ids(given, catalog)) and given["round"] not in catalog.rounds:
            raise Failure("; ".join(unknown))
        values = given
    else:
        values = interview(given, catalog)
    answers = answers_from(values, catalog)
    path, problems = write_submission(answers, catalog, submissions)
    if problems:
        if no_input:  # each said of its flag: the file it names was not written
            click.echo("\n".join(flag_lines(problems, values)))
        else:
            _print_problems(problems, "text")
        raise Failure(f"not written: {plural(len(problems), 'problem')}")
    click.echo(f"wrote {path}")


def _runs(value: str | None) -> list[float | None] | None:
    from leaderboard.new import parse_runs

    try:
        return parse_runs(value) if value is not None else None
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@main.command("check-pr")
@click.option("--base", default=None, help="Base git ref (default: origin/main, else main).")
@click.option("--format", "fmt", type=click.Choice(["text", "github", "markdown"]), default="text", show_default=True)
@click.option(
    "--repo",
    default=".",
    show_default=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Any folder of the git repository (its root is the folder above it with catalog/ and submissions/).",
)
@click.option("--reimported", type=click.Path(path_type=Path, file_okay=False, exists=True), help=REIMPORTED)
def check_pr(base: str | None, fmt: str, repo: Path, reimported: Path | None) -> None:
    """Validate the submission files a pull request changes and preview their ranks.

    Compares the working tree with the merge base of --base. Added and modified submission and
    catalog files are validated against every entry in submissions/ (a catalog change checks
    every submission again); any other file under submissions/ is a problem; a file elsewhere
    that looks meant as a submission (submission/, a round's folder, a submission's content) is
    reported as not checked; changed and deleted entries show every field before -> after. An
    official round is closed: its files (and any an importer wrote, and their manifests) pass
    only as the fresh import in --reimported wrote them (without it, only unchanged). Each new
    or changed entry's rank is printed. Every other changed path is named with its kind (code,
    workflow, build, ...), those a code owner must review first. Exit 1 when a changed file is
    invalid, or when the only files that look meant as submissions are misplaced. Runs from any
    folder of the repository.
    """
    from leaderboard.checkpr import GitError, check_pull_request, default_base, repository_root
    from leaderboard.checkpr_report import as_github, as_markdown, as_text

    repo = repository_root(repo)
    try:
        check = check_pull_request(repo, base or default_base(repo), reimported=reimported)
    except GitError as error:
        raise Failure(f"git: {error}") from None
    click.echo({"text": as_text, "github": as_github, "markdown": as_markdown}[fmt](check), nl=False)
    sys.exit(0 if check.ok else 1)


@main.command("import-prices")
@click.argument("csv_file", metavar="CSV", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--catalog",
    "catalog_dir",
    default="catalog",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Catalog folder: accelerators are read from it, prices-epoch.yaml is written into it.",
)
def import_prices(csv_file: Path, catalog_dir: Path) -> None:
    """Import Epoch AI's hardware price table into CATALOG/prices-epoch.yaml.

    Hardware names map to accelerators by their aliases; rows that map to nothing are listed
    with the alias to add. Hand-entered prices (prices.yaml) are not touched.
    """
    from leaderboard.catalog import load_catalog
    from leaderboard.importers import prices

    catalog = _importable_catalog(catalog_dir, load_catalog)
    try:
        result = prices.import_prices(csv_file, catalog)
    except (OSError, prices.CsvError) as error:
        raise Failure(str(error)) from None
    out = catalog_dir / prices.OUTPUT_NAME
    written = prices.write_if_changed(out, prices.prices_yaml(result.prices))
    for line in prices.report_lines(result, out, written):
        click.echo(line)


@main.command("import-epoch")
@click.argument("csv_file", metavar="CSV", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--out", default="submissions/published", show_default=True, type=click.Path(path_type=Path), help=OUT)
@CATALOG
@click.option("--list-skipped", is_flag=True, help="Also list every row not written, with its reason.")
def import_epoch(csv_file: Path, out: Path, catalog_dir: Path, list_skipped: bool) -> None:
    """Import Epoch AI's notable-models database as published training runs.

    One file per model that names a single training hardware, its quantity and the training
    time, listed with digests in CATALOG/imported/published.csv. Hand-typed files are kept; an
    imported file is the importer's, rewritten whole (a hand edit does not survive). The files
    and the list are written together: when the machine refuses one (a full disk), none changes.
    """
    from leaderboard.catalog import load_catalog
    from leaderboard.importers import epoch

    catalog = _importable_catalog(catalog_dir, load_catalog)
    try:
        result = epoch.import_epoch(csv_file, catalog, out, catalog_dir=catalog_dir)
    except (OSError, epoch.CsvError) as error:
        raise Failure(describe(error) or str(error)) from None
    for line in epoch.report_lines(result, out) + (epoch.skipped_lines(result) if list_skipped else []):
        click.echo(line)


@main.command("import-mlperf")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--round",
    "round_id",
    help="Round id from catalog/rounds.yaml (default: the one each SOURCE is named after, "
    "such as mlperf-training-v4.0.tar.xz).",
)
@click.option(
    "--out",
    default="submissions",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Submissions folder: entries go to OUT/<round>/<submitter>/.",
)
@CATALOG
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: one per CPU).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def import_mlperf(
    sources: tuple[Path, ...], round_id: str | None, out: Path, catalog_dir: Path, jobs: int | None, quiet: bool
) -> None:
    """Score MLPerf Training and MLPerf HPC results trees from their raw logs, one entry per result.

    Each SOURCE is a folder or a .tar, .tar.gz, .tar.xz or .zip archive of one round, read
    without unpacking; several are imported side by side, one process per CPU. Prints, per
    source, the entries written, the runs counted and failed, and every result directory
    skipped with its reason (also written to catalog/skipped/<round>.csv). Each file is written
    whole: a re-import replaces hand edits, as official rounds are closed to them. A round's
    entry files, its manifest (catalog/verified/<round>.csv) and its list of what was left off are
    written together: when the machine refuses one (a full disk), none changes and no folder is
    left behind.
    """
    from leaderboard.catalog import load_catalog
    from leaderboard.importers import mlperf

    catalog = _importable_catalog(catalog_dir, load_catalog)
    if round_id is not None and len(sources) > 1:
        raise click.UsageError("--round names the round of one SOURCE; with several, each is named after its round")
    for source in sources if round_id is None else ():
        try:
            mlperf.round_of_source(source, catalog)
        except mlperf.ImportFailure as error:
            raise click.UsageError(str(error)) from None
    try:
        with _progress(quiet) as progress:
            single = len(sources) == 1
            label, total = ("reading logs", None) if single else ("importing rounds", len(sources))
            tick = progress(label, total) if progress else None
            outcomes = mlperf.import_sources(list(sources), round_id, catalog, catalog_dir, out, jobs, tick)
    except mlperf.ImportFailure as error:
        raise Failure(str(error)) from None
    failed = [o for o in outcomes if o.failure]
    for outcome in outcomes:
        if len(outcomes) > 1:
            click.echo(f"== {outcome.round_id}")
        for line in outcome.report.summary_lines() if outcome.report else []:
            click.echo(line)
    if failed:
        if len(outcomes) == 1:
            raise Failure(failed[0].failure)
        for outcome in failed:
            click.echo(f"error: {outcome.source}: {outcome.failure}", err=True)
        raise Failure(f"{len(failed)} of {plural(len(outcomes), 'source')} could not be imported")


def _base_url(value: str | None) -> str | None:
    from leaderboard.catalog import checked_base_url

    try:
        return checked_base_url(value) if value is not None else None
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _importable_catalog(catalog_dir: Path, load_catalog):
    catalog = load_catalog(catalog_dir)
    if catalog.problems:
        _print_problems(catalog.problems, "text")
        raise Failure(f"the catalog in {catalog_dir} has {plural(len(catalog.problems), 'problem')}: fix them first")
    return catalog


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def run() -> None:
    """Entry point: never a traceback. An unexpected error (a bug) is one line and exit 1;
    LEADERBOARD_DEBUG=1 shows the traceback for a bug report."""
    _exit(exit_code(partial(main, standalone_mode=True)))


def exit_code(command: Callable[[], object]) -> int | str | None:
    """Run `command` as the entry point runs a command: its exit code, any error said in one line
    (a click error as click says it, a refused write, a bug)."""
    import os

    try:
        command()
    except SystemExit as done:
        return done.code
    except click.ClickException as error:  # raised by a command run without click's main (watch)
        error.show()
        return error.exit_code
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    except Exception as error:  # noqa: BLE001 - the last line of defence
        if os.environ.get("LEADERBOARD_DEBUG"):
            raise
        refused = describe(error)  # a full disk, say: not a bug
        if refused is not None:
            click.echo(f"error: {refused}", err=True)
            return 1
        click.echo(
            f"error: internal error ({type(error).__name__}: {_first_line(error)}); please report it, "
            "with LEADERBOARD_DEBUG=1 for the details",
            err=True,
        )
        return 1
    return 0


def _exit(code: int | str | None) -> None:
    """Leave at once once the output is flushed. Every file a command writes is complete and
    renamed into place before it returns, so nothing is left to do; tearing down a large heap
    and native libraries object by object takes half a second after a big build."""
    import os

    if isinstance(code, str):
        click.echo(code, err=True)
        code = 1
    flush_output()
    os._exit(code or 0)
