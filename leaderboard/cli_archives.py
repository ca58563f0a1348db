"""The fetch-archives and importable-archives commands, beside cli.py (which is at its size
limit) and registered by it: parse arguments, call leaderboard.archives, print, exit code."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("fetch-archives")
@click.option(
    "--to", "folder", required=True, type=click.Path(path_type=Path, file_okay=False), help="Folder to fetch into."
)
@click.option(
    "--from",
    "source",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Copy from this local data folder (each archive at its `path`, else at the top by name).",
)
@click.option(
    "--repository",
    help="Download the release assets of this repository, e.g. https://github.com/<owner>/<name> "
    "(the URL template is release_asset in catalog/archives.yaml).",
)
@click.option(
    "--catalog", "catalog_dir", default="catalog", show_default=True, type=click.Path(path_type=Path, file_okay=False)
)
def fetch_archives(folder: Path, source: Path | None, repository: str | None, catalog_dir: Path) -> None:
    """Fetch every archive in CATALOG/archives.yaml into a folder, checked by size and SHA-256.

    Copies each from --from or downloads it from --repository's release. A copy already in the
    folder is kept when it matches and replaced when it does not; a new one is written under a
    temporary name and renamed into place only once checked, so the folder never holds a file
    that differs from its listing. Prints one line per archive, the files of --from the list
    does not name (left alone), and refuses a file in the folder the list does not name (an
    importer would read it unchecked). Exit 0 when every archive is there and matches, 1 otherwise.
    """
    from leaderboard import archives

    if (source is None) == (repository is None):
        raise click.UsageError("give --from FOLDER or --repository URL (one of them)")
    listing, problems = archives.read(catalog_dir)
    if listing is None:
        for problem in problems:
            click.echo(problem.format())
        click.echo(f"error: {catalog_dir / 'archives.yaml'} cannot be read: fix it first", err=True)
        sys.exit(1)
    try:
        opener = (
            archives.from_folder(source)
            if source is not None
            else archives.from_release(repository, listing.release_asset)
        )
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--repository") from None
    try:
        report = archives.fetch_all(listing, folder, opener, source)
    except OSError as error:
        click.echo(f"error: {folder}: {error.strerror or error}", err=True)
        sys.exit(1)
    for line in report.lines():
        click.echo(line)
    sys.exit(0 if report.ok else 1)


@click.command("importable-archives")
@click.argument("importer")
@click.option(
    "--in", "folder", required=True, type=click.Path(path_type=Path, file_okay=False), help="The fetched archives."
)
@click.option(
    "--catalog", "catalog_dir", default="catalog", show_default=True, type=click.Path(path_type=Path, file_okay=False)
)
def importable_archives(importer: str, folder: Path, catalog_dir: Path) -> None:
    """Print the archives in a folder that IMPORTER (e.g. import-mlperf) reads, one path a line.

    Those CATALOG/archives.yaml names with `importer: leaderboard IMPORTER` whose rounds the
    catalog holds; on stderr, each other archive of IMPORTER and why it is left out (its round
    is not in the catalog yet). For `make reimport`, after fetch-archives checked the folder.
    Exit 1 when one is not in the folder, or none is left to import.
    """
    from leaderboard import archives
    from leaderboard.catalog import load_catalog

    catalog = load_catalog(catalog_dir)
    if catalog.problems or catalog.archives is None:
        for problem in catalog.problems:
            click.echo(problem.format(), err=True)
        click.echo(f"error: the catalog in {catalog_dir} has problems or no archives.yaml: fix it first", err=True)
        sys.exit(1)
    chosen, left = archives.importable(catalog.archives, f"leaderboard {importer}", catalog.rounds)
    for archive, why in left:
        click.echo(f"not imported: {archive.file}: {why}", err=True)
    missing = [a.file for a in chosen if not (folder / a.file).is_file()]
    if missing or not chosen:
        click.echo(
            f"error: not in {folder}: {', '.join(missing)}" if missing else f"error: no archive for {importer}",
            err=True,
        )
        sys.exit(1)
    for archive in chosen:
        click.echo(folder / archive.file)
