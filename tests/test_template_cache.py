"""Compiled templates kept between builds: used when present, compiled afresh when the source
changed or the cache cannot be read or written; never a failed page for the cache's sake."""

from __future__ import annotations

import shutil

import pytest

from leaderboard.render import writer
from leaderboard.render.writer import environment


def render(env) -> str:
    return env.get_template("plural-probe.html").render()


@pytest.fixture
def templates(tmp_path, monkeypatch):
    """A copy of the templates with one small template of our own, whose source a test edits."""
    folder = tmp_path / "templates"
    shutil.copytree(writer.TEMPLATES, folder)
    (folder / "plural-probe.html").write_text("{{ 3|plural('chip') }}", encoding="utf-8")
    monkeypatch.setattr(writer, "TEMPLATES", folder)
    return folder


def test_a_template_compiled_once_is_read_from_the_cache(templates, tmp_path, monkeypatch):
    cache = tmp_path / "cache" / "templates"
    assert render(environment(cache)) == "3 chips"
    assert len(list(cache.iterdir())) == 1  # the folder is made when the first template is kept
    compiled = []
    monkeypatch.setattr(
        writer.jinja2.Environment, "compile", lambda self, *a, **k: compiled.append(a) or pytest.fail("compiled")
    )
    assert render(environment(cache)) == "3 chips" and not compiled
    monkeypatch.undo()
    monkeypatch.setattr(writer, "TEMPLATES", templates)
    # An edited template hashes differently: compiled afresh, never the old code.
    (templates / "plural-probe.html").write_text("{{ 1|plural('chip') }}!", encoding="utf-8")
    assert render(environment(cache)) == "1 chip!"


@pytest.mark.parametrize("damage", ["truncated", "garbage", "unwritable"])
def test_a_cache_that_cannot_be_read_or_written_only_costs_a_compile(templates, tmp_path, damage):
    cache = tmp_path / "cache" / "templates"
    render(environment(cache))
    (kept,) = cache.iterdir()
    if damage == "truncated":
        kept.write_bytes(kept.read_bytes()[:40])
    elif damage == "garbage":
        kept.write_bytes(b"\0" * 200)
    else:  # a file where the folder should be: nothing can be kept
        shutil.rmtree(cache)
        cache.write_text("not a folder", encoding="utf-8")
    assert render(environment(cache)) == "3 chips"
