"""Replacing a folder: readers see the old one or the new one; the old one is removed after,
by a process of its own when asked (it outlives the build)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from leaderboard import atomic


def folder_with(path: Path, text: str) -> Path:
    (path / "sub").mkdir(parents=True)
    (path / "sub" / "page.html").write_text(text)
    return path


def siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p != path)


@pytest.mark.parametrize("background", [False, True])
@pytest.mark.parametrize("can_exchange", [True, False])
def test_the_new_folder_takes_the_place_of_the_old_which_is_removed(tmp_path, monkeypatch, background, can_exchange):
    if not can_exchange:
        monkeypatch.setattr(atomic, "exchange", lambda a, b: False)
    target = folder_with(tmp_path / "site", "old")
    staging = folder_with(atomic.staging_dir(target), "new")
    atomic.replace_dir(staging, target, background=background)
    assert (target / "sub" / "page.html").read_text() == "new"
    deadline = time.monotonic() + 60
    while siblings(target) and background and time.monotonic() < deadline:
        time.sleep(0.05)  # the removal runs on its own
    assert siblings(target) == []


def test_a_first_folder_is_moved_into_place(tmp_path):
    target = tmp_path / "site"
    staging = folder_with(atomic.staging_dir(target), "new")
    atomic.replace_dir(staging, target, background=True)
    assert (target / "sub" / "page.html").read_text() == "new" and siblings(target) == []


def test_without_a_shell_the_old_folder_is_removed_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic.shutil, "which", lambda name: None)
    target = folder_with(tmp_path / "site", "old")
    staging = folder_with(atomic.staging_dir(target), "new")
    atomic.replace_dir(staging, target, background=True)
    assert (target / "sub" / "page.html").read_text() == "new" and siblings(target) == []


def test_changes_are_written_and_removed_together(tmp_path, monkeypatch):
    same, old, gone = tmp_path / "same.yaml", tmp_path / "old.yaml", tmp_path / "gone.yaml"
    for path, text in ((same, "same\n"), (old, "old\n"), (gone, "gone\n")):
        path.write_text(text, encoding="utf-8")
    changes = atomic.Changes()
    assert changes.write(same, "same\n") is False  # already holds it: nothing to do
    assert changes.write(old, "new\n") is True
    assert changes.write(tmp_path / "a" / "b" / "new.yaml", "n\n") is True
    changes.remove(gone)
    changes.remove(old)  # written by the same changes: kept
    assert changes.removed(gone) and gone.exists()  # nothing happens before commit()

    def refused(target, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "_written_beside", refused)
    with pytest.raises(OSError):
        changes.commit()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gone.yaml", "old.yaml", "same.yaml"]  # no folder a/
    assert old.read_text(encoding="utf-8") == "old\n"
    monkeypatch.undo()
    changes.commit()
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.yaml")) == [
        "a/b/new.yaml",
        "old.yaml",
        "same.yaml",
    ]
    assert old.read_text(encoding="utf-8") == "new\n"
    assert (changes.writes, changes.removals) == ([], [])
