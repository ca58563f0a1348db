"""Each unchanged entry's rows as the last build made them (kept_rows.KeptRows): a rebuild makes
only the rows of the entries whose files changed, all of them again when the catalog, a
manifest or the project's place changes, and gives the same rows as making them all afresh."""

from __future__ import annotations

import os

import duckdb
import pytest
from test_store import place_acme_results

from leaderboard import rows as rows_module
from leaderboard.build import build
from leaderboard.kept_rows import KEPT_ROWS, KeptRows, inputs_digest
from leaderboard.rows import table_rows
from leaderboard.validate import validate_paths


@pytest.fixture
def project(empty_project):
    place_acme_results(empty_project, open_division=True)
    return empty_project


def made_rows(project, monkeypatch):
    """table_rows with the kept rows of the last call, as a build runs it; the entries whose rows
    were made (not kept), and the rows, checked against rows all made afresh."""
    validation = validate_paths(
        [project / "submissions"], project / "catalog", cache_file=project / "cache" / "validation.json"
    )
    assert not validation.problems
    catalog = validation.catalog
    kept = KeptRows(
        project / "cache" / KEPT_ROWS,
        inputs_digest(validation.catalog_digest, catalog.verified, catalog.imported, project),
    )
    made = []
    entry_rows = rows_module._entry_rows
    with monkeypatch.context() as patched:
        patched.setattr(
            rows_module, "_entry_rows", lambda entry, *a: made.append(entry.entry_id) or entry_rows(entry, *a)
        )
        found = table_rows(validation.entries, catalog, base=project, kept=kept)
    kept.save()
    fresh = table_rows(validation.entries, catalog, base=project)
    for name in ("results", "costs", "runs", "progress"):
        assert getattr(found, name) == getattr(fresh, name), name
    return sorted(made), found


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_only_the_rows_of_a_changed_file_are_made_again(project, monkeypatch):
    made, first = made_rows(project, monkeypatch)
    assert len(made) == 4 == len(first.results)
    made, again = made_rows(project, monkeypatch)
    assert made == []
    assert again.results == first.results and again.costs == first.costs
    changed = next(project.glob("submissions/*/*/acme-4320.yaml"))
    edit(changed, "minutes: 0.347", "minutes: 0.5")
    made, after = made_rows(project, monkeypatch)
    assert len(made) == 1 and {r["minutes"] for r in after.results} - {r["minutes"] for r in first.results} == {0.5}


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda p: edit(p / "catalog" / "prices.yaml", "usd: 8.00,", "usd: 8.50,"), id="a price"),
        pytest.param(
            lambda p: (p / "catalog" / "verified" / "v9.9.csv").write_text("entry_id,sha256\nx,00\n", encoding="utf-8"),
            id="a manifest",
        ),
        pytest.param(lambda p: os.chdir(p / "submissions"), id="the working folder"),
    ],
)
def test_every_entrys_rows_are_made_again_when_what_they_all_rest_on_changes(project, monkeypatch, change):
    monkeypatch.chdir(project)
    made_rows(project, monkeypatch)
    change(project)
    made, _ = made_rows(project, monkeypatch)
    assert len(made) == 4


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[:-100], id="cut short"),
        pytest.param(lambda data: data[:-50] + bytes([data[-50] ^ 1]) + data[-49:], id="a byte changed"),
        pytest.param(lambda data: b"not a cache", id="not one"),
    ],
)
def test_a_damaged_file_of_kept_rows_is_not_read(project, monkeypatch, damage):
    made_rows(project, monkeypatch)
    path = project / "cache" / KEPT_ROWS
    path.write_bytes(damage(path.read_bytes()))
    made, _ = made_rows(project, monkeypatch)
    assert len(made) == 4


def test_a_rebuild_after_a_price_changed_has_the_database_a_fresh_build_has(project, tmp_path, monkeypatch):
    """At the user's level: the kept rows of a build are not those of the next once a price moved."""
    monkeypatch.setenv("LEADERBOARD_CACHE", str(tmp_path / "cache"))

    def costs(folder):
        result = build(folder / "submissions", folder / "catalog", folder / "leaderboard.duckdb", None)
        assert result.ok, result.problems[:3]
        with duckdb.connect(str(folder / "leaderboard.duckdb"), read_only=True) as connection:
            return connection.execute("SELECT entry_id, tier, cost_usd FROM costs ORDER BY ALL").fetchall()

    before = costs(project)
    assert (tmp_path / "cache" / KEPT_ROWS).is_file()
    edit(project / "catalog" / "prices.yaml", "usd: 8.00,", "usd: 8.50,")
    after = costs(project)
    monkeypatch.setenv("LEADERBOARD_CACHE", str(tmp_path / "fresh-cache"))
    assert after == costs(project) != before


def test_a_file_whose_bytes_are_not_its_manifests_has_its_rows_made_each_time(project, monkeypatch):
    """Such a file is said each build (not verified: build.unmatched_warnings): never kept."""
    _, first = made_rows(project, monkeypatch)
    row = next(r for r in first.results if r["round_kind"] == "mlperf-training")
    manifest = project / "catalog" / "verified" / f"{row['round']}.csv"
    manifest.write_text(f"entry_id,sha256\n{row['entry_id']},{'0' * 64}\n", encoding="utf-8")
    for _ in range(2):
        made, again = made_rows(project, monkeypatch)
        assert row["entry_id"] in made and len(again.unmatched) == 1
    assert made == [row["entry_id"]]
