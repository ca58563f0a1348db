"""The `import-flops` command: Epoch AI's peak FLOP/s and training compute into the catalog
(a module of its own because cli.py is at the size limit; cli.py registers it)."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.cli_common import Failure
from leaderboard.problems import plural


@click.command("import-flops")
@click.argument("hardware_csv", metavar="HARDWARE_CSV", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("models_csv", metavar="MODELS_CSV", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--catalog",
    "catalog_dir",
    default="catalog",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Catalog folder: accelerators are read from it, compute-epoch.yaml is written into it.",
)
def import_compute(hardware_csv: Path, models_csv: Path, catalog_dir: Path) -> None:
    """Import peak FLOP/s and training compute into CATALOG/compute-epoch.yaml.

    HARDWARE_CSV is the "Machine Learning Hardware" export, MODELS_CSV the "Notable AI Models"
    export: the physical limits of check-pr's plausibility check (the compute floor).
    """
    from leaderboard.catalog import load_catalog
    from leaderboard.importers import compute, prices

    catalog = load_catalog(catalog_dir)
    if catalog.problems:
        for problem in catalog.problems:
            click.echo(problem.format())
        raise Failure(f"the catalog in {catalog_dir} has {plural(len(catalog.problems), 'problem')}: fix them first")
    try:
        result, written = compute.import_compute(hardware_csv, models_csv, catalog, catalog_dir)
    except (OSError, prices.CsvError) as error:
        raise Failure(str(error)) from None
    for line in compute.report_lines(result, catalog_dir / compute.OUTPUT_NAME, written):
        click.echo(line)
