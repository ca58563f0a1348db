"""The catalog files as parsed by the last build (cache.ParsedFiles): a rebuild parses only the
catalog files whose bytes changed, reads the same catalog as a fresh parse, and reports every
catalog problem with its line and column as a fresh parse does."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import ROOT

from leaderboard import catalog as catalog_module
from leaderboard.catalog import load_catalog
from leaderboard.validate import PARSED_CATALOG, validate_paths


@pytest.fixture
def project(tmp_path):
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    (tmp_path / "submissions").mkdir()
    return tmp_path


def validated(project, monkeypatch) -> tuple[object, list[str]]:
    """validate_paths with the build's caches; the catalog files it parsed."""
    parsed = []
    load = catalog_module.load
    with monkeypatch.context() as patched:
        patched.setattr(catalog_module, "load", lambda path, *a: parsed.append(path.name) or load(path, *a))
        result = validate_paths(
            [project / "submissions"], project / "catalog", cache_file=project / "cache" / "validation.json"
        )
    return result, parsed


def test_a_rebuild_parses_only_the_catalog_files_that_changed(project, monkeypatch):
    first, parsed = validated(project, monkeypatch)
    assert not first.problems and "prices-epoch.yaml" in parsed and len(parsed) >= 10
    again, parsed = validated(project, monkeypatch)
    assert parsed == []
    assert again.catalog == load_catalog(project / "catalog") and again.catalog.prices
    # A changed file is parsed again, and what it now says is read.
    prices = project / "catalog" / "prices.yaml"
    prices.write_text(prices.read_text(encoding="utf-8").replace("usd: 8.00,", "usd: 8.50,", 1), encoding="utf-8")
    changed, parsed = validated(project, monkeypatch)
    assert parsed == ["prices.yaml"]
    assert changed.catalog == load_catalog(project / "catalog")
    assert 8.5 in {p.usd for p in changed.catalog.prices} and 8.5 not in {p.usd for p in again.catalog.prices}


def test_a_catalog_problem_has_its_line_though_its_file_was_parsed_before(project, monkeypatch):
    validated(project, monkeypatch)
    # The prices of an accelerator renamed in accelerators.yaml: prices.yaml, unchanged, now names
    # an unknown accelerator. Its problems are found where the file says it.
    accelerators = project / "catalog" / "accelerators.yaml"
    accelerators.write_text(
        accelerators.read_text(encoding="utf-8").replace("  - id: tpu-v3\n", "  - id: tpu-v3-renamed\n", 1),
        encoding="utf-8",
    )
    cached, parsed = validated(project, monkeypatch)
    assert "prices.yaml" in parsed  # read afresh for its problems' places
    fresh = validate_paths([project / "submissions"], project / "catalog")
    assert cached.problems == fresh.problems
    in_prices = [p for p in cached.problems if p.file.endswith("prices.yaml")]
    assert in_prices and all(p.line is not None and p.line > 1 and p.col is not None for p in in_prices)


def test_a_tampered_or_broken_cache_is_parsed_afresh(project, monkeypatch):
    validated(project, monkeypatch)
    stored_file = project / "cache" / PARSED_CATALOG
    stored = json.loads(stored_file.read_text(encoding="utf-8"))
    # A cached file's text changed but its hash kept: it is not used.
    key, (text, _) = next((k, v) for k, v in stored["files"].items() if '"usd":8.0' in v[0])
    stored["files"][key][0] = text.replace('"usd":8.0', '"usd":0.01', 1)
    stored_file.write_text(json.dumps(stored), encoding="utf-8")
    tampered, parsed = validated(project, monkeypatch)
    assert parsed == ["prices.yaml"] and tampered.catalog == load_catalog(project / "catalog")
    # Not JSON at all: every file is parsed again.
    stored_file.write_bytes(b"\x00garbage")
    broken, parsed = validated(project, monkeypatch)
    assert len(parsed) >= 10 and broken.catalog == load_catalog(project / "catalog")
