"""The downloads of the database's tables: written by the process that fills a build's database
(downloads.Preparing), or by the build itself from a database file; the same files either way."""

import json
import os
import shutil
import threading

import duckdb
import pyarrow.ipc
import pyarrow.parquet
import pytest
from conftest import run_cli
from test_store import place_acme_results

from leaderboard import cache, store
from leaderboard.build import build
from leaderboard.cache import digest, folder_beside
from leaderboard.render import downloads, exports
from leaderboard.render.reuse import MANIFEST
from leaderboard.rows import table_rows
from leaderboard.validate import validate_paths


@pytest.fixture
def built(empty_project, monkeypatch, tmp_path):
    """A small project built, its cache beside its site (as in a real project)."""
    monkeypatch.setenv("LEADERBOARD_CACHE", str(tmp_path / "cache"))
    place_acme_results(empty_project, open_division=True)
    result = run_cli("build", "--quiet", cwd=empty_project)
    assert result.code == 0, result.out + result.err
    return empty_project


def rebuild(project):
    result = build(project / "submissions", project / "catalog", project / "leaderboard.duckdb", project / "site")
    assert result.ok, result.problems[:3]


def test_the_downloads_the_databases_process_writes_are_those_exported_from_its_file(built, tmp_path):
    """Every download the process filling a build's database writes (nothing kept: no previous
    site) is, byte for byte and key for key, what the build exports from the database's file."""
    validation = validate_paths([built / "submissions"], built / "catalog")
    rows = table_rows(validation.entries, validation.catalog, base=built)
    preparing = downloads.Preparing(tmp_path / "prepared", tmp_path / "no-site", tmp_path / "no-manifest.json")
    staged = store.Staged(tmp_path / "staged.duckdb", store.tables(validation.catalog, rows), then=preparing)
    try:
        prepared = staged.then_result
        assert isinstance(prepared, downloads.Prepared)
        # The hashes the build records them and the database file by, without reading them again.
        assert staged.file_digest == cache.digest(staged.write_aside().read_bytes())
        with duckdb.connect() as connection:
            connection.execute(f"ATTACH '{staged.write_aside()}' AS site_copy (READ_ONLY)")
            connection.execute("USE site_copy")
            plan = exports.plan(connection, downloads.RESULT_COLUMNS, staged.digests)
            (tmp_path / "here" / "data").mkdir(parents=True)
            for relative in plan.copies:
                exports.write(connection, plan, relative, str(tmp_path / "here" / relative))
        exports.write_arrows([(str(tmp_path / "here" / p), str(tmp_path / "here" / a)) for a, p in plan.arrows.items()])
    finally:
        staged.close()
    assert prepared.keys == plan.keys and prepared.tables == plan.tables == list(exports.TABLES)
    assert prepared.written == set(plan.keys) and prepared.from_previous == {}
    assert len(plan.keys) == 3 * len(exports.TABLES) + 2  # CSV, Parquet and Arrow; JSON of results and runs
    assert set(prepared.digests) == prepared.written
    for relative in plan.keys:
        assert (tmp_path / "prepared" / relative).read_bytes() == (tmp_path / "here" / relative).read_bytes(), relative
        assert prepared.digests[relative] == cache.digest((tmp_path / "here" / relative).read_bytes()), relative


def arrow_rows(path):
    with pyarrow.ipc.open_file(path) as reader:
        return reader.read_all().to_pylist()


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(lambda data: (data / "prices.parquet").write_bytes(b"not parquet"), id="unreadable"),
        # A Parquet file, of another table: its Arrow file, made from it, must not ship.
        pytest.param(
            lambda data: (data / "prices.parquet").write_bytes((data / "rounds.parquet").read_bytes()),
            id="another-tables",
        ),
        pytest.param(lambda data: (data / "prices.parquet").unlink(), id="gone"),
    ],
)
def test_an_arrow_file_is_never_made_from_a_parquet_file_the_build_does_not_keep(built, tamper, monkeypatch):
    """An Arrow file whose Parquet file is unchanged is made from the previous site's Parquet file
    (here: its record is gone from the manifest); when that file is not what the manifest says,
    the build exports the Parquet file again and makes the Arrow file from it. The previous site's
    file of each download is looked at once (hashed, when its identity changed)."""
    from leaderboard.render.reuse import PageReuse

    looked_at = []
    unchanged = PageReuse.unchanged
    monkeypatch.setattr(
        PageReuse, "unchanged", lambda self, path, key: looked_at.append(path) or unchanged(self, path, key)
    )
    site = built / "site"
    expected = pyarrow.parquet.ParquetFile(site / "data" / "prices.parquet").read().to_pylist()
    assert arrow_rows(site / "data" / "prices.arrow") == expected and len(expected) > 10
    manifest = folder_beside(site) / MANIFEST
    stored = json.loads(manifest.read_text())
    del stored["pages"]["data/prices.arrow"]
    manifest.write_text(json.dumps(stored))
    tamper(site / "data")
    rebuild(built)
    downloads_looked_at = [path for path in looked_at if path.startswith("data/") and not path.endswith(".js")]
    assert "data/prices.parquet" in downloads_looked_at
    assert sorted(downloads_looked_at) == sorted(set(downloads_looked_at))
    assert pyarrow.parquet.ParquetFile(site / "data" / "prices.parquet").read().to_pylist() == expected
    assert arrow_rows(site / "data" / "prices.arrow") == expected


def test_a_rebuild_moves_in_what_the_databases_process_wrote_and_leaves_no_folder(built, monkeypatch):
    """A rebuild's changed downloads come from the database's process; nothing is exported by the
    build itself, and the folder they were written in is gone after it, as is a killed build's."""
    cache = folder_beside(built / "site")
    stale = cache / "downloads.999999999.tmp"  # no process has this id
    (stale / "data").mkdir(parents=True)
    live = cache / f"downloads.{os.getppid()}.tmp"  # a running build's, in a cache shared with it
    live.mkdir()
    exported_here = []
    monkeypatch.setattr(downloads, "_write_here", lambda *args: exported_here.append(args[3]))
    submission = next((built / "submissions").rglob("acme-8.yaml"))
    submission.write_text(submission.read_text().replace("acme-8", "acme-eight"))
    before = (built / "site" / "data" / "results.csv").read_bytes()
    rebuild(built)
    assert exported_here == []
    after = (built / "site" / "data" / "results.csv").read_bytes()
    assert after != before and b"acme-eight" in after
    assert sorted(p.name for p in cache.glob("downloads.*")) == [live.name]
    # Each file moved in, and the database's copy, recorded by the hash of its bytes (worked out by
    # the database's process), as a later rebuild checks a kept file by.
    recorded = json.loads((cache / MANIFEST).read_text())["pages"]
    shipped = [relative for relative in recorded if relative.startswith("data/") and not relative.endswith(".js")]
    assert {"data/results.csv", "data/results.arrow", "data/leaderboard.duckdb"} <= set(shipped)
    for relative in shipped:
        assert recorded[relative][1] == digest((built / "site" / relative).read_bytes()), relative


def test_a_project_sharing_the_cache_gets_its_downloads_from_the_databases_process(built, tmp_path, monkeypatch):
    """A cache shared by two projects ($LEADERBOARD_CACHE) holds the other project's manifest: its
    downloads' keys are this build's too, but its files are not this site's. The database's
    process writes them all the same; the build exports nothing itself."""
    other = tmp_path / "other"
    other.mkdir()
    for name in ("catalog", "submissions"):
        shutil.copytree(built / name, other / name)
    exported_here = []
    monkeypatch.setattr(downloads, "_write_here", lambda *args: exported_here.append(args[3]))
    rebuild(other)
    assert exported_here == []
    assert (other / "site" / "data" / "results.csv").read_bytes() == (
        built / "site" / "data" / "results.csv"
    ).read_bytes()


def test_the_pages_that_name_the_downloads_tables_are_written_before_the_downloads_end(built, monkeypatch):
    """A build's database has every table: the home and SQL pages, which list them, are drawn
    while its process still writes the downloads (not after it, at the end of a rebuild)."""
    from leaderboard.render import site

    order = []
    index_drawn = threading.Event()
    write_all = downloads.write_all

    def waiting_downloads(*args):
        write_all(*args)
        index_drawn.wait(60)  # a build that draws the page after the downloads waits in vain
        order.append("downloads")

    index_page = site._index_page
    monkeypatch.setattr(
        site, "_index_page", lambda writer: (order.append("index"), index_page(writer), index_drawn.set())
    )
    monkeypatch.setattr(downloads, "write_all", waiting_downloads)
    rebuild(built)
    assert order == ["index", "downloads"]
    index = (built / "site" / "index.html").read_text()
    assert all(f"data/{table}.csv" in index for table in exports.TABLES)


@pytest.mark.parametrize("own_process", [True, False])
def test_a_process_of_its_own_writes_arrow_files_without_importing_numpy(built, tmp_path, own_process):
    """An Arrow file written in a process of its own (the database's) imports pyarrow without
    numpy, and is the same file, byte for byte, as one written with numpy imported."""
    import subprocess
    import sys

    data = built / "site" / "data"
    script = (
        "import sys\n"
        "from leaderboard.render import exports\n"
        f"exports.write_arrows([({str(data / 'results.parquet')!r}, {str(tmp_path / 'results.arrow')!r})], {own_process})\n"
        "print('numpy' in sys.modules, 'pyarrow' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(not own_process), "True"]
    assert (tmp_path / "results.arrow").read_bytes() == (data / "results.arrow").read_bytes()
