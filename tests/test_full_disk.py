"""A build the machine refuses halfway (a full disk, a file-size limit): one clear line, exit 1, and
the previous database and site stay as they were, together; nothing is left behind."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import ROOT, run_cli
from test_site import add_known_submission, tree_digest

from leaderboard import build as build_module
from leaderboard import store
from leaderboard.machine_errors import describe
from leaderboard.render import site as site_module

DUCKDB_TEXT = (
    'FATAL Error: Failed to create checkpoint because of error: Could not write file "/p/.leaderboard.duckdb.7.tmp": '
    "No space left on device"
)


def _from(cause: BaseException) -> BaseException:
    """An error raised while handling `cause`, as a library re-raises it."""
    try:
        try:
            raise cause
        except BaseException as inner:
            raise RuntimeError("commit failed") from inner
    except RuntimeError as outer:
        return outer


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "site/a.html"),
            "site/a.html: No space left on device (free some disk space and run it again)",
        ),
        (
            OSError(errno.EFBIG, "File too large"),
            "File too large (the file grew past the largest this process may write: see `ulimit -f`)",
        ),
        (
            OSError(errno.EROFS, "Read-only file system", "/srv/db"),
            "/srv/db: Read-only file system (the folder is on a read-only file system)",
        ),
        (
            _from(OSError(errno.ENOSPC, "No space left on device", "x")),
            "x: No space left on device (free some disk space and run it again)",
        ),
        (
            sa.exc.DatabaseError("COMMIT", None, Exception(DUCKDB_TEXT)),
            "/p/.leaderboard.duckdb.7.tmp: No space left on device (free some disk space and run it again)",
        ),
        (Exception('Could not write file "/p/f": Disk melted'), "/p/f: Disk melted"),
        # Not the machine refusing: a bug, or an error that has a message of its own.
        (OSError(errno.ENOENT, "No such file or directory", "x"), None),
        (ValueError("disk full"), None),
        (RuntimeError("no database"), None),
    ],
)
def test_what_the_machine_refused_is_said_in_one_line(error, said):
    assert describe(error) == said


def run_limited(args: list[str], cwd: Path, limit: int) -> subprocess.CompletedProcess:
    """The command line, as a user runs it, in a process that may write no file past `limit`
    bytes (ulimit -f): its writes fail as on a full disk (EFBIG; Python ignores SIGXFSZ)."""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "leaderboard", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        preexec_fn=limited,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=300,
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _leftovers(project: Path) -> list[str]:
    """What a build left beside the site and database: never the site a rebuild replaced, kept for
    the next one (render/clone.py)."""
    return sorted(
        p.name
        for p in project.iterdir()
        if p.name.startswith((".site.", ".leaderboard.duckdb.")) and p.name != ".site.spare"
    )


@pytest.fixture
def built(empty_project: Path) -> Path:
    add_known_submission(empty_project)
    done = run_cli("build", "-q", cwd=empty_project)
    assert done.code == 0, done.err
    # A changed submission: the next build has a new database and pages to write.
    changed = next((empty_project / "submissions" / "published").rglob("*.yaml"))
    changed.write_text(changed.read_text(encoding="utf-8").replace("minutes: 600", "minutes: 500"), encoding="utf-8")
    return empty_project


def test_a_build_past_the_file_size_limit_says_so_and_changes_nothing(built):
    before_db, before_site = _digest(built / "leaderboard.duckdb"), tree_digest(built / "site")
    done = run_limited(["build", "-q"], cwd=built, limit=256 * 1024)  # far below the database file
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert "File too large" in done.stderr and "ulimit -f" in done.stderr
    assert re.match(r"error: /\S+: File too large", done.stderr), done.stderr  # the file is named
    assert "nothing was built (the previous database and site stay)" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert _digest(built / "leaderboard.duckdb") == before_db
    assert tree_digest(built / "site") == before_site
    assert _leftovers(built) == []


def test_a_site_that_cannot_be_written_keeps_the_previous_database_with_the_previous_site(built, monkeypatch):
    """The new database is complete before the site is drawn from it (in memory, its file written
    beside the pages), but takes its place only once the site has: a failure in between leaves
    both as they were."""
    before_db, before_site = _digest(built / "leaderboard.duckdb"), tree_digest(built / "site")
    drawn_from = []

    def full_disk(db, *args, **kwargs):
        drawn_from.append(db)
        raise OSError(errno.ENOSPC, "No space left on device", str(built / "site" / "index.html"))

    monkeypatch.setattr(site_module, "render_site", full_disk)
    with pytest.raises(OSError) as raised:
        build_module.build(
            built / "submissions", built / "catalog", built / "leaderboard.duckdb", built / "site", jobs=1
        )
    assert "No space left on device (free some disk space" in describe(raised.value)
    assert drawn_from and isinstance(drawn_from[0], store.Staged)  # the new database, not the old file
    assert _digest(built / "leaderboard.duckdb") == before_db
    assert tree_digest(built / "site") == before_site
    assert _leftovers(built) == []
    monkeypatch.undo()
    # And when nothing fails, both are new.
    outcome = build_module.build(
        built / "submissions", built / "catalog", built / "leaderboard.duckdb", built / "site", jobs=1
    )
    assert outcome.ok and _digest(built / "leaderboard.duckdb") != before_db
    assert tree_digest(built / "site") != before_site
    assert _leftovers(built) == []


def test_with_a_server_database_the_error_says_the_database_was_written(built, monkeypatch):
    """A server database is committed before its site is drawn: the line says so (the server
    here is a stand-in; the PostgreSQL tests run the real build)."""
    from click.testing import CliRunner

    from leaderboard import cli, store

    written = []
    monkeypatch.setattr(store, "write_database", lambda db, catalog, rows: written.append(db))

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "site/index.html")

    monkeypatch.setattr(site_module, "render_site", full_disk)
    monkeypatch.chdir(built)
    url = "postgresql+psycopg://someone@db.invalid/leaderboard"
    done = CliRunner().invoke(cli.main, ["build", "-q", "--db", url, "--jobs", "1"])
    assert done.exit_code == 1 and written == [url]
    assert done.output.strip() == (
        "error: site/index.html: No space left on device (free some disk space and run it again): "
        "the server database was written; the site was not (the previous site stays)"
    )


def test_several_files_are_written_all_or_none(tmp_path, monkeypatch):
    from leaderboard import atomic

    old = tmp_path / "a.yaml"
    old.write_text("old\n", encoding="utf-8")
    files = [(old, "new\n"), (tmp_path / "sub" / "b.yaml", "b\n"), (tmp_path / "c.yaml", "c\n")]
    real_write = Path.write_text

    def full_on_the_third(path, text, *args, **kwargs):
        if path.name == ".c.yaml.tmp":
            real_write(path, text[:1], *args, **kwargs)  # half written, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(path, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_on_the_third)
    with pytest.raises(OSError) as raised:
        atomic.write_texts(files)
    assert raised.value.filename == str(tmp_path / ".c.yaml.tmp")
    assert old.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.yaml"]  # nor the folder made for b.yaml
    monkeypatch.undo()
    atomic.write_texts(files)
    assert [path.read_text(encoding="utf-8") for path, _ in files] == ["new\n", "b\n", "c\n"]


def test_an_import_past_the_file_size_limit_writes_no_entry(shared_data, tmp_path):
    """Every entry file of the round is larger than the limit: the import stops at the first,
    says which, and leaves no entry and no temporary file."""
    archive = shared_data / "mlperf-training-v0.5.tar.xz"
    if not archive.is_file():
        pytest.skip("no MLPerf Training v0.5 archive in ../shared/data")
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    done = run_limited(["import-mlperf", str(archive), "-q", "--jobs", "1"], cwd=tmp_path, limit=1000)
    assert done.returncode == 1
    assert re.fullmatch(
        r"error: submissions/mlperf-training-v0\.5/\S+\.tmp: File too large \(.*ulimit -f.*\)\n", done.stderr
    ), done.stderr
    assert [p for p in (tmp_path / "submissions").rglob("*") if p.is_file()] == []
    assert not (tmp_path / "submissions").exists()  # nor the folders made for the entries


def test_an_import_whose_manifest_cannot_be_written_writes_no_entry(shared_data, tmp_path, monkeypatch):
    """The round's entries, its manifest (catalog/verified/) and its list of what was left off
    (catalog/skipped/) are written together: a full disk at the manifest, after every entry's
    text was written beside its place, leaves no entry, no manifest and no folder. Then the same
    import with room writes all three, the manifest's digests those of the files written."""
    from leaderboard import catalog as catalog_module
    from leaderboard import manifest
    from leaderboard.importers import mlperf

    archive = shared_data / "mlperf-training-v0.5.tar.xz"
    if not archive.is_file():
        pytest.skip("no MLPerf Training v0.5 archive in ../shared/data")
    catalog_dir = tmp_path / "catalog"
    shutil.copytree(ROOT / "catalog", catalog_dir)
    listed = manifest.manifest_path(catalog_dir, "mlperf-training-v0.5")
    left_off = catalog_dir / "skipped" / "mlperf-training-v0.5.csv"
    listed.unlink()  # a first import of the round: its manifest is new
    left_off.write_text("stale\n", encoding="utf-8")
    out = tmp_path / "submissions"
    catalog = catalog_module.load_catalog(catalog_dir)
    real_write = Path.write_text
    tried = []

    def full_at_the_manifest(path, text, *args, **kwargs):
        tried.append(path.name)
        if path.name == f".{listed.name}.tmp":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(path, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_at_the_manifest)
    with pytest.raises(OSError):
        mlperf.import_sources([archive], None, catalog, catalog_dir, out, jobs=1)
    assert len(tried) > 20  # the entries' texts were written before the manifest's failed
    assert not out.exists()
    assert not listed.exists()
    assert left_off.read_text(encoding="utf-8") == "stale\n"
    assert not [p for p in catalog_dir.rglob(".*.tmp")]
    monkeypatch.undo()

    [outcome] = mlperf.import_sources([archive], None, catalog, catalog_dir, out, jobs=1)
    assert outcome.failure is None
    rows = manifest.read_rows(listed)
    assert len(rows) == len(outcome.report.written) > 20
    assert all(_digest(out / f"{row['entry_id']}.yaml") == row["sha256"] for row in rows)
    assert left_off.read_text(encoding="utf-8") != "stale\n"
