"""The `leaderboard import-dawnbench` command: a thin shell over importers/dawnbench.py, kept out
of cli.py (which is at its size limit) and added to its command group there.
"""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.cli_common import Failure
from leaderboard.machine_errors import describe
from leaderboard.problems import plural


@click.command("import-dawnbench")
@click.argument("source", metavar="SOURCE", type=click.Path(path_type=Path))
@click.option(
    "--out",
    default="submissions",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Submissions folder: entries go to OUT/dawnbench-v1.0/<author>/.",
)
@click.option("--catalog", "catalog_dir", default="catalog", show_default=True, type=click.Path(path_type=Path))
def import_dawnbench(source: Path, out: Path, catalog_dir: Path) -> None:
    """Import DAWNBench's training entries as self-reported results, one file per entry.

    SOURCE is the dawn-bench-entries repository as a folder or a .tar.xz, .tar.gz, .tar or .zip
    archive. Time to target is the first TSV row reaching the task's target; hardware is read
    through catalog/instance-types.yaml and the accelerators' aliases. Prints every entry not
    written with its reason (unresolved hardware, a malformed TSV); the others are written, with
    the importer's manifest in CATALOG/imported/dawnbench-v1.0.csv, all together: when the machine
    refuses one file (a full disk), none changes.
    """
    from leaderboard.catalog import load_catalog
    from leaderboard.importers import dawnbench

    catalog = load_catalog(catalog_dir)
    if catalog.problems:
        for problem in catalog.problems:
            click.echo(problem.format(), err=True)
        raise Failure(f"the catalog in {catalog_dir} has {plural(len(catalog.problems), 'problem')}: fix them first")
    try:
        result = dawnbench.import_dawnbench(source, catalog, out, catalog_dir)
    except (OSError, dawnbench.SourceError) as error:
        raise Failure(describe(error) or str(error)) from None
    for line in dawnbench.report_lines(result, out):
        click.echo(line)
