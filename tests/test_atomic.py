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
