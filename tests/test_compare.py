"""Unlike things side by side, on the shipped results: open-division boards name each model and
say when they differ, the accelerator compare page pairs like with like and is linked everywhere."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_site import built_site

from leaderboard.families import family
from leaderboard.render import history, pairs


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory) / "site"


@pytest.fixture(scope="module")
def compare_data(out) -> dict:
    text = (out / "data" / "accelerator-results.js").read_text(encoding="utf-8")
    return json.loads(text.removeprefix("window.leaderboardAccelerators = ").rstrip().removesuffix(";"))


def test_the_v1_1_bert_open_board_names_each_model_and_warns_they_differ(out):
    page = (out / "boards" / "mlperf-training-v1.1" / "bert.html").read_text(encoding="utf-8")
    open_section = page[page.index('data-division="open"') :]
    notice = re.search(r'<p class="notice model-notice">(.*?)</p>', open_section).group(1)
    assert "480B parameters" in notice and "200B parameters" in notice
    assert "reference model, BERT-Large" in notice and "name no model" in notice
    assert open_section.index("model-notice") < open_section.index("<table")  # above the table
    assert "Model: BERT-like dense Transformer encoder, 480B parameters" in open_section
    assert "Model not stated" in open_section
    closed_section = page[page.index('data-division="closed"') : page.index('data-division="open"')]
    assert "model-notice" not in closed_section


def test_published_boards_carry_no_open_division_model_notice(out):
    for board in (out / "boards" / "published").glob("*.html"):
        assert "model-notice" not in board.read_text(encoding="utf-8")


def trusted(row: dict) -> bool:
    return pairs.trust(row) == 0 and pairs.comparable(row)


def test_the_accelerator_pairs_match_chip_counts_where_they_can(compare_data):
    results = compare_data["results"]
    rows: dict[tuple[str, str], list[dict]] = {}
    for row in results:
        rows.setdefault((row["lineage"], row["accelerator"]), []).append(row)
    lineages = compare_data["lineages"]
    matched_across_rounds = 0
    for key, found in compare_data["pairs"].items():
        first, second = key.split(" ")
        for number, i, j in found:
            a, b = results[i], results[j]
            assert (a["accelerator"], b["accelerator"]) == (first, second)
            lineage = lineages[number]["id"]
            assert a["lineage"] == b["lineage"] == lineage
            like = {
                (x["segment"], x["chips"])
                for x in rows[lineage, first]
                if trusted(x)
                for y in rows[lineage, second]
                if trusted(y) and (y["segment"], y["chips"]) == (x["segment"], x["chips"])
            }
            if like:
                assert trusted(a) and trusted(b), (key, lineage)
                assert a["segment"] == b["segment"] and a["chips"] == b["chips"], (key, lineage, a["id"], b["id"])
                matched_across_rounds += a["round"] != b["round"]
    assert matched_across_rounds > 0  # pairs the old page put at mismatched scales


def test_the_accelerator_pairs_are_chosen_by_the_fields_that_key_them_alone(compare_data):
    """A rebuild chooses the pairs again only when a result's PAIR_FIELDS change (else they are
    remembered: history.write_pages): chosen from those fields alone, they are the pairs shipped."""
    lineage_ids = [lineage["id"] for lineage in compare_data["lineages"]]
    rounds = {key: {"date": r["date"]} for key, r in compare_data["rounds"].items()}
    only = [{name: row[name] for name in history.PAIR_FIELDS} for row in compare_data["results"]]
    assert compare_data["pairs"] and history.accelerator_pairs(lineage_ids, only, rounds) == compare_data["pairs"]
    fewer = [{name: value for name, value in row.items() if name != "chips"} for row in only]
    with pytest.raises(KeyError):
        history.accelerator_pairs(lineage_ids, fewer, rounds)


def _pair_inputs(compare_data) -> tuple[list[str], list[dict], dict]:
    lineage_ids = [lineage["id"] for lineage in compare_data["lineages"]]
    rounds = {key: {"date": r["date"]} for key, r in compare_data["rounds"].items()}
    only = [{name: row[name] for name in history.PAIR_FIELDS} for row in compare_data["results"]]
    return lineage_ids, only, rounds


def _counting_picks(monkeypatch) -> list[int]:
    calls = []
    pick_among = pairs.pick_among
    monkeypatch.setattr(pairs, "pick_among", lambda a, b: calls.append(1) or pick_among(a, b))
    return calls


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda row: {**row, "verified": False}, id="a result no longer verified"),
        pytest.param(lambda row: {**row, "minutes": row["minutes"] * 1000}, id="a result a thousand times slower"),
        pytest.param(lambda row: {**row, "chips": row["chips"] * 2}, id="a result at twice the chips"),
    ],
)
def test_a_rebuild_chooses_again_only_the_pairs_whose_sides_changed(compare_data, monkeypatch, change):
    """Pairs carried from the last build (accelerator_pairs' chosen_before) give the pairs chosen
    afresh, and only those with a changed side are chosen again."""
    lineage_ids, rows, rounds = _pair_inputs(compare_data)
    chosen: dict = {}
    calls = _counting_picks(monkeypatch)
    assert history.accelerator_pairs(lineage_ids, rows, rounds, None, chosen) == compare_data["pairs"]
    everything = len(calls)
    assert len(chosen) == everything > 1000
    paired = sorted({i for found in compare_data["pairs"].values() for _, a, b in found for i in (a, b)})
    for at in paired[:40]:  # the first result in a pair that the change moves
        changed = [*rows[:at], change(rows[at]), *rows[at + 1 :]]
        afresh = history.accelerator_pairs(lineage_ids, changed, rounds)
        if afresh != compare_data["pairs"]:
            break
    else:
        pytest.fail("no change of one result moved a pair")
    del calls[:]
    again: dict = {}
    assert history.accelerator_pairs(lineage_ids, changed, rounds, chosen, again) == afresh
    assert 0 < len(calls) < everything / 10
    assert set(again) - set(chosen)  # the changed side's pairs, under its new key


def test_pairs_carried_that_name_no_result_are_chosen_again(compare_data):
    """A carried pair is used only when it names two of the results: anything else (a cache
    spoilt by hand) is chosen again, never shown."""
    lineage_ids, rows, rounds = _pair_inputs(compare_data)
    chosen: dict = {}
    history.accelerator_pairs(lineage_ids, rows, rounds, None, chosen)
    spoilt = {}
    for number, (key, ids) in enumerate(chosen.items()):
        spoilt[key] = [["gone", "nowhere"], [ids], "text", 7, ids and ids[:1]][number % 5] if ids else ids
    assert history.accelerator_pairs(lineage_ids, rows, rounds, spoilt) == compare_data["pairs"]


def test_the_compare_page_never_holds_a_result_outside_mlperf(compare_data, project_kinds):
    assert compare_data["results"]
    for row in compare_data["results"]:
        assert row["round"] in compare_data["rounds"]
        assert family(project_kinds[row["round"]]).lineages


@pytest.fixture(scope="module")
def project_kinds(tmp_path_factory) -> dict[str, str]:
    from leaderboard.catalog import load_catalog

    catalog = load_catalog(built_site(tmp_path_factory) / "catalog")
    return {r.id: r.kind for r in catalog.rounds.values()}


def test_a100_and_h100_meet_at_eight_chips_on_bert(compare_data):
    results = compare_data["results"]
    titles = [lineage["id"] for lineage in compare_data["lineages"]]
    found = {titles[n]: (results[i], results[j]) for n, i, j in compare_data["pairs"]["a100-sxm4-80gb h100-sxm5-80gb"]}
    a, b = found["bert"]
    assert a["chips"] == b["chips"] and a["segment"] == b["segment"] and a["round"] == b["round"]


def test_the_accelerator_compare_page_is_linked_from_nav_index_and_every_accelerator_page(out, compare_data):
    link = 'href="compare-accelerators.html"'
    index = (out / "index.html").read_text(encoding="utf-8")
    nav = index[index.index('<nav aria-label="Site">') : index.index("</nav>")]
    assert link in nav
    body = index[index.index("<main") :]
    assert link in body
    board = (out / "boards" / "mlperf-training-v1.1" / "bert.html").read_text(encoding="utf-8")
    assert 'href="../../compare-accelerators.html"' in board
    compared = {r["accelerator"] for r in compare_data["results"]}
    assert len(compared) > 20
    for accelerator in compared:
        page = (out / "accelerators" / f"{accelerator}.html").read_text(encoding="utf-8")
        assert f'href="../compare-accelerators.html#{accelerator}"' in page, accelerator
