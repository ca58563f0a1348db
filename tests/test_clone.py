"""A rebuild draws its site in a copy of the previous one made of hard links (render/clone.py): it
writes what changed without ever writing through a link into the previous site, removes what it
no longer has, and gives the same site as a build from scratch, with or without `cp`."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from leaderboard.build import build
from leaderboard.render import clone

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [
    "published/01-ai/yi-lightning.yaml",
    "published/01-ai/yi-vl-34b.yaml",
    "mlperf-training-v5.0/cisco/hpf_n8-bert.yaml",
]


def _files(folder: Path) -> dict[str, str]:
    """Every file under `folder` (links not followed) by its path: its bytes' hash, or the link's target."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[relative] = "-> " + os.readlink(path)
        elif path.is_file():
            found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _folders(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_dir() and not p.is_symlink()}


@pytest.mark.parametrize(
    "made, left",
    [
        # Kept files stay with their folders; the rest go, and the folders they leave empty.
        ({"a.html", "x/b.html"}, {"a.html", "x/b.html"}),
        ({"a.html"}, {"a.html"}),
        (set(), set()),
        ({"x/y/c.html"}, {"x/y/c.html"}),
    ],
)
def test_prune_leaves_only_what_the_build_made(tmp_path, made, left):
    site = tmp_path / "site"
    for relative in ("a.html", "x/b.html", "x/y/c.html", "z/d.html"):
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text(relative)
    (site / "empty").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the site's")
    (site / "x" / "to-a-folder").symlink_to(outside)  # a link is removed, never followed
    (site / "to-a-file").symlink_to(outside / "keep.txt")
    clone.prune(site, made)
    assert set(_files(site)) == left
    assert _folders(site) == {str(Path(p).parent) for p in left if "/" in p} | (
        {"x"} if any(p.startswith("x/y/") for p in left) else set()
    )
    assert (outside / "keep.txt").read_text() == "not the site's"


def _project(folder: Path) -> Path:
    shutil.copytree(ROOT / "catalog", folder / "catalog")
    for relative in SHIPPED:
        target = folder / "submissions" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "submissions" / relative, target)
    return folder


def _build(project: Path) -> None:
    outcome = build(project / "submissions", project / "catalog", project / "leaderboard.duckdb", project / "site")
    assert outcome.ok, outcome.problems[:3]


def _leftovers(project: Path) -> list[str]:
    """Staging or removed folders still beside the site (its spare aside), once a background
    removal had time to end."""
    for _ in range(100):
        left = sorted(p.name for p in project.iterdir() if p.name.startswith(".site.") and p.name != ".site.spare")
        if not left:
            break
        time.sleep(0.1)
    return left


@pytest.mark.parametrize("copier", ["cp", "no cp", "cp fails"])
def test_a_rebuild_in_the_copy_never_writes_the_previous_site_and_equals_a_fresh_build(tmp_path, monkeypatch, copier):
    monkeypatch.setenv("LEADERBOARD_CACHE", "")
    if copier == "no cp":
        monkeypatch.setattr(clone, "CP", "no-such-program")
    elif copier == "cp fails":
        monkeypatch.setattr(clone, "CP", "false")
    project = _project(tmp_path / "incremental")
    _build(project)
    site = project / "site"
    # Strays in the previous site: a file no build makes, and links to outside it.
    (site / "stray.txt").write_text("left by hand")
    (site / "entries" / "elsewhere").symlink_to(tmp_path)
    (site / "hostname.html").symlink_to("/etc/hostname")
    # The previous site's files, as links of their own: any write through a link would show here.
    snapshot = tmp_path / "snapshot"
    subprocess.run(["cp", "-al", str(site), str(snapshot)], check=True)
    before = _files(snapshot)

    edited = project / "submissions" / SHIPPED[0]
    edited.write_text(edited.read_text(encoding="utf-8").replace("CC BY 4.0)", "CC BY 4.0, cited anew)"))
    (project / "submissions" / SHIPPED[1]).unlink()
    _build(project)

    assert _files(snapshot) == before  # the previous site was never written to
    _assert_built_afresh_alike(site, tmp_path / "fresh", edited)
    assert "cited anew" in (site / "data" / "results.csv").read_text(encoding="utf-8")
    assert _leftovers(project) == []


def _assert_built_afresh_alike(site: Path, fresh: Path, edited: Path) -> None:
    """`site` is the site built from scratch in `fresh` from the same input (SHIPPED[0] as
    `edited`, SHIPPED[1] removed), file for file (the DuckDB file by nothing: it carries random
    identifiers), and has no folder left empty."""
    _project(fresh)
    shutil.copyfile(edited, fresh / "submissions" / SHIPPED[0])
    (fresh / "submissions" / SHIPPED[1]).unlink()
    _build(fresh)
    database = "data/leaderboard.duckdb"
    rebuilt, built = _files(site), _files(fresh / "site")
    assert {k: v for k, v in rebuilt.items() if k != database} == {k: v for k, v in built.items() if k != database}
    assert _folders(site) == _folders(fresh / "site")


def test_a_build_that_stops_before_its_site_leaves_no_copy(tmp_path, monkeypatch):
    """The copy starts with the build: an invalid file stops the build, and the copy goes."""
    monkeypatch.setenv("LEADERBOARD_CACHE", "")
    project = _project(tmp_path / "project")
    _build(project)
    before = _files(project / "site")
    broken = project / "submissions" / SHIPPED[0]
    broken.write_text("round: [\n", encoding="utf-8")
    outcome = build(project / "submissions", project / "catalog", project / "leaderboard.duckdb", project / "site")
    assert not outcome.ok
    assert _files(project / "site") == before
    assert _leftovers(project) == []


def test_the_previous_sites_pages_are_looked_up_while_the_build_validates(tmp_path, monkeypatch):
    """clone.start() also forks a process that finds each page of the previous site's manifest
    (size, modification time, inode) as PageReuse would itself; PageReuse takes them as found
    there, and finds them itself when that process failed."""
    from leaderboard import cache
    from leaderboard.forked import ChildFailed
    from leaderboard.render import reuse

    monkeypatch.setenv("LEADERBOARD_CACHE", "")
    project = _project(tmp_path / "project")
    _build(project)
    site = project / "site"
    manifest = cache.folder_beside(site) / reuse.MANIFEST
    pages = cache.read_json(manifest)["pages"]
    started = clone.start(site)
    try:
        found = started.found()
    finally:
        started.discard()
    assert found == reuse._identities(site, pages)
    assert len(found) == len(pages) > 20

    assert reuse.PageReuse(site, manifest, found=dict)._found == {}  # as found elsewhere

    def failed() -> dict:
        raise ChildFailed("the process forked to do the work was ended by SIGKILL")

    assert reuse.PageReuse(site, manifest, found=failed)._found == found
    assert reuse.PageReuse(site, manifest)._found == found


def _inodes(folder: Path) -> dict[str, int]:
    """Every file and link under `folder` (links not followed) by its path: its inode."""
    return {
        p.relative_to(folder).as_posix(): p.lstat().st_ino
        for p in sorted(folder.rglob("*"))
        if p.is_symlink() or not p.is_dir()
    }


def test_mirror_makes_a_folder_hold_hard_links_to_exactly_what_another_holds(tmp_path):
    source, target, outside = tmp_path / "source", tmp_path / "target", tmp_path / "outside"
    for relative in ("a.html", "same.html", "x/b.html", "x/y/c.html", "to-file/d.html", "new/e.html"):
        (source / relative).parent.mkdir(parents=True, exist_ok=True)
        (source / relative).write_text(relative)
    (source / "empty").mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("not the site's")
    (source / "link").symlink_to(outside / "keep.txt")
    # The target: an older copy with links to the same files, others to files since replaced,
    # strays, a file where a folder is and a folder where a file is.
    (target / "x" / "y").mkdir(parents=True)
    os.link(source / "same.html", target / "same.html")
    (target / "a.html").write_text("an older a.html")
    (target / "x" / "y" / "c.html").write_text("older")
    (target / "x" / "stray.html").write_text("stray")
    (target / "stray-folder" / "deep").mkdir(parents=True)
    (target / "stray-folder" / "deep" / "f.html").write_text("stray")
    (target / "to-file").write_text("a file where a folder is")
    (target / "x" / "b.html").mkdir()  # a folder where a file is
    (target / "x" / "b.html" / "inside.html").write_text("x")
    (target / "stray-link").symlink_to(outside)
    before = _files(source) | {"keep": (outside / "keep.txt").read_text()}
    clone.mirror(source, target)
    assert _inodes(target) == _inodes(source)
    assert _folders(target) == _folders(source)
    assert _files(source) | {"keep": (outside / "keep.txt").read_text()} == before  # nothing followed or written
    assert os.readlink(target / "link") == str(outside / "keep.txt")


def test_a_rebuild_starts_from_the_site_it_replaced_and_equals_a_fresh_build(tmp_path, monkeypatch):
    """The second rebuild's copy is the first rebuild's replaced site (`.site.spare`), mirrored:
    spoilt by hand, it still gives the previous site's copy, which the previous site never sees."""
    monkeypatch.setenv("LEADERBOARD_CACHE", "")
    project = _project(tmp_path / "incremental")
    _build(project)
    spare = project / ".site.spare"
    assert not spare.exists()
    edited = project / "submissions" / SHIPPED[0]
    edited.write_text(edited.read_text(encoding="utf-8").replace("CC BY 4.0)", "CC BY 4.0, cited anew)"))
    _build(project)
    site = project / "site"
    assert spare.is_dir() and _files(spare) != _files(site)  # the site the rebuild replaced
    (spare / "stray.html").write_text("left by hand")
    shutil.rmtree(spare / "entries")
    (spare / "index.html").unlink()
    (spare / "index.html").mkdir()
    (spare / "data" / "results.csv").write_text("edited in the spare")
    snapshot = tmp_path / "snapshot"
    subprocess.run(["cp", "-al", str(site), str(snapshot)], check=True)
    before = _files(snapshot)
    used = []
    from_spare = clone._from_spare
    monkeypatch.setattr(clone, "_from_spare", lambda *a: used.append(from_spare(*a)) or used[-1])
    (project / "submissions" / SHIPPED[1]).unlink()
    _build(project)

    assert used and used[0] is not None  # the copy started from the spare
    assert _files(snapshot) == before  # the previous site was never written to
    assert _files(spare) == before and _inodes(spare) == _inodes(snapshot)  # it is the spare now
    _assert_built_afresh_alike(site, tmp_path / "fresh", edited)
    assert _leftovers(project) == []
    # Without its site, a build removes the spare too.
    shutil.rmtree(site)
    _build(project)
    assert not spare.exists() and _leftovers(project) == []


def test_a_spare_that_cannot_be_mirrored_leaves_the_site_to_be_drawn_afresh(tmp_path, monkeypatch):
    """mirror() failing in its process: no copy (the build draws in an empty folder), nothing of the
    spare left behind, the previous site untouched."""
    monkeypatch.setenv("LEADERBOARD_CACHE", "")
    site = tmp_path / "site"
    (site / "x").mkdir(parents=True)
    (site / "x" / "a.html").write_text("a")
    (tmp_path / ".site.spare").mkdir()

    def failing(source, target):
        raise OSError("no room")

    monkeypatch.setattr(clone, "mirror", failing)
    started = clone.start(site)
    try:
        assert started.ready() is None
    finally:
        started.discard()
    assert not started.staging.exists() and not (tmp_path / ".site.spare").exists()
    assert _files(site) == {"x/a.html": hashlib.sha256(b"a").hexdigest()}
