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


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The install's folder of compiled templates and DDL (precompiled.py), empty and our own."""
    from leaderboard import precompiled, store

    folder = tmp_path / "installed"
    for module in (writer, store, precompiled):
        monkeypatch.setattr(module, "PRECOMPILED", folder)
    return folder


def test_a_build_whose_cache_is_empty_reads_the_templates_the_install_compiled(
    templates, installed, tmp_path, monkeypatch
):
    from leaderboard import precompiled

    assert precompiled.main() == 0
    names = writer.environment(None).list_templates()
    assert "plural-probe.html" in names and len(list((installed / "templates").iterdir())) == len(names)
    cache = tmp_path / "cache" / "templates"
    with monkeypatch.context() as refusing:
        refusing.setattr(writer.jinja2.Environment, "compile", lambda self, *a, **k: pytest.fail("compiled"))
        assert render(environment(cache)) == "3 chips"
        environment(cache).get_template("entry.html")  # and the pages', with the macros they import
        assert precompiled.compile_all() == []  # again: all there already
    assert not cache.exists()  # nothing compiled, so nothing kept


def test_templates_compiled_for_other_code_are_compiled_again(templates, installed, tmp_path, monkeypatch):
    """The environment's options are code: a template's bytecode is for the code that compiled it."""
    from leaderboard import precompiled

    precompiled.compile_all()
    cache = tmp_path / "cache" / "templates"
    render(environment(cache))  # kept in the build's cache too
    monkeypatch.setattr(writer, "code_version", lambda: "other code")
    compiled = []
    original = writer.jinja2.Environment.compile
    monkeypatch.setattr(
        writer.jinja2.Environment, "compile", lambda self, *a, **k: compiled.append(a[1]) or original(self, *a, **k)
    )
    assert render(environment(cache)) == "3 chips" and compiled == ["plural-probe.html"]


def test_an_install_folder_that_cannot_be_written_is_said_and_only_costs_a_compile(
    templates, installed, tmp_path, capsys
):
    from leaderboard import precompiled

    installed.write_text("a file where the folder should be", encoding="utf-8")
    assert precompiled.main() == 1
    error = capsys.readouterr().err
    count = len(writer.environment(None).list_templates())
    assert f"could not write {count} templates nor the database's DDL into {installed}: builds will" in error
    assert "slower first build" in error
    assert render(environment(tmp_path / "cache" / "templates")) == "3 chips"
