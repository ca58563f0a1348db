"""Table cells drawn in Python (render/cells.py): each value escaped, each branch as the
templates' macros draw it (macros.html calls the same functions)."""

from __future__ import annotations

import pytest

from leaderboard.normalize import DEFAULT_TIER, TIERS
from leaderboard.render.cells import (
    board_rows,
    chips_cell,
    cost_cell,
    cost_rows,
    group_rows,
    hours_note,
    quality_cell,
    row_notes,
    run_rows,
    source_cell,
)
from leaderboard.render.writer import environment


def cost(**fields: object) -> dict:
    return {"cost_usd": None, "basis": None, "marks": [], "note": None, **fields}


def result(**fields: object) -> dict:
    row = {
        "board_rank": 3,
        "submitter": "Acme & Co",
        "submitter_path": "submitters/acme.html",
        "system": "<b>box</b>",
        "path": "entries/v1/acme/box 1.html",
        "verified_note": None,
        "republished_note": None,
        "republished_path": None,
        "estimated": False,
        "accelerator_name": 'H100 "SXM"',
        "accelerator_path": "accelerators/h100.html",
        "chips": 8,
        "cpu_only": False,
        "minutes": 12.5,
        "models": None,
        "models_per_minute": None,
        "chip_hours": 1.6666,
        "availability": "available",
        "costs": {DEFAULT_TIER: cost(cost_usd=1234.4)},
    }
    return {**row, **fields}


@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        ({}, '<span class="muted">n/a</span>'),
        ({"cost_usd": 12.345}, "$12.35"),
        (
            {"cost_usd": 1234.4, "basis": "8 × $2 <per> hour"},
            '$1,234<br><small class="price-basis">8 × $2 &lt;per&gt; hour</small>',
        ),
        (
            {"cost_usd": 100.0, "marks": ["price from 2024 & later", "b"]},
            '$100<br><small class="price-mark">price from 2024 &amp; later</small><br><small class="price-mark">b</small>',
        ),
        (
            {"note": "no price for <this>"},
            '<details class="na"><summary>n/a</summary><p>no price for &lt;this&gt;</p></details>',
        ),
    ],
)
def test_a_cost_cell_shows_the_cost_its_basis_and_marks_or_why_it_has_none(fields, shown):
    assert cost_cell(cost(**fields)) == shown


@pytest.mark.parametrize(
    ("chips", "cpu_only", "count", "note"),
    [
        (8, False, "8", ""),
        (82944, True, "82,944 CPUs", ' <small class="cpu-unit">processor-hours</small>'),
        (1, True, "1 CPU", ' <small class="cpu-unit">processor-hours</small>'),
        (None, False, "", ""),
    ],
)
def test_counts_and_hours_say_cpus_for_a_system_of_processors_alone(chips, cpu_only, count, note):
    row = {"chips": chips, "cpu_only": cpu_only}
    assert chips_cell(row) == count
    assert hours_note(row) == note


@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        ({}, ""),
        (
            {"verified_note": "Result not <verified>"},
            '<br><small class="unverified">Result not &lt;verified&gt;</small>',
        ),
        (
            {"republished_note": "First in v1.0", "republished_path": "entries/v1.0/a b.html"},
            '<br><small class="republished"><a href="../../entries/v1.0/a%20b.html">First in v1.0</a></small>',
        ),
        ({"estimated": True}, '<br><small class="estimated">Estimated, not measured</small>'),
    ],
)
def test_a_rows_notes_say_what_is_not_verified_republished_or_estimated(fields, shown):
    assert row_notes("../../", result(**fields)) == shown


def test_a_group_row_escapes_every_value_and_links_from_the_pages_root():
    html = group_rows("../", [result()], divisions=True)
    assert html == (
        '<tr><td class="n">3</td>\n'
        '<td><a href="../submitters/acme.html">Acme &amp; Co</a></td>\n'
        '<td><a href="../entries/v1/acme/box%201.html">&lt;b&gt;box&lt;/b&gt;</a></td>\n'
        '<td><a href="../accelerators/h100.html">H100 &#34;SXM&#34;</a></td>\n'
        '<td class="n">8</td><td class="n">12.500</td><td class="n">1.7</td>\n'
        '<td class="n">$1,234</td><td>available</td></tr>\n'
    )


def test_a_group_row_without_divisions_has_no_availability_and_an_unranked_one_a_dash():
    html = group_rows("", [result(board_rank=None, models=2, models_per_minute=0.123456)], divisions=False)
    assert html.startswith('<tr><td class="n">—</td>')
    assert '<br><small class="models">2 models, 0.1235 models/min</small>' in html
    assert "available" not in html and html.endswith('<td class="n">$1,234</td></tr>\n')


def test_the_templates_macros_draw_the_same_cells():
    template = environment().from_string(
        '{% from "macros.html" import notes, cost, small_table with context %}'
        "{{ notes(row) }}|{{ cost(row) }}|{{ chips_cell(row) }}{{ hours_note(row) }}|"
        "{{ small_table([row], board, 'Caption <1>') }}"
    )
    board = {"round": {"kind": "mlperf-training"}}
    row = result(cpu_only=True, verified_note="not verified")
    notes, shown_cost, count, table = template.render(row=row, board=board, root="../").split("|", 3)
    assert notes == row_notes("../", row) and shown_cost == cost_cell(row["costs"][DEFAULT_TIER])
    assert count == chips_cell(row) + hours_note(row)
    assert 'aria-label="Caption &lt;1&gt;"' in table
    assert f"<tbody>\n{group_rows('../', [row], divisions=True)}</tbody>" in table


def board_result(**fields: object) -> dict:
    tiers = {tier: cost(cost_usd=10.0) for tier in TIERS}
    row = result(
        entry_id='v1/acme/box "1"',
        ranked=True,
        accelerator="h100",
        model_name=None,
        framework="PyTorch <2>",
        model_text=None,
        division="closed",
        unranked_reason=None,
        energy_kwh=None,
        quality=0.72344,
        quality_target=0.72,
        source_url="https://example.org/?a=1&b=2",
        source_citation=None,
        costs=tiers,
        cost_by_tier={tier: 10.0 for tier in TIERS},
        latest_costs={tier: None for tier in TIERS},
        latest_marks={tier: [] for tier in TIERS},
        latest_bases={tier: "" for tier in TIERS},
    )
    return {**row, **fields}


def test_a_board_row_escapes_its_data_attributes_and_cells():
    html = board_rows("../../", [board_result()], has_energy=False, divisions=True)
    opening, _, cells = html.partition(">\n")
    assert opening.startswith(
        '<tr id="v1-acme-box-1" data-entry="v1/acme/box &#34;1&#34;" data-rank="3" data-ranked="true"'
    )
    assert ' data-minutes="12.5" data-chip_hours="1.6666"' in opening and "data-models_per_minute" not in opening
    assert f' data-cost-{DEFAULT_TIER}="10.0" data-marks-{DEFAULT_TIER}="" data-latest-{DEFAULT_TIER}=""' in opening
    assert ' data-basis-purchase="None"' in opening  # a missing basis, as the template wrote it
    assert 'data-search="acme &amp; co &lt;b&gt;box&lt;/b&gt; h100 &#34;sxm&#34;  pytorch &lt;2&gt;"' in opening
    assert '<td class="quality">0.7234 <span class="muted">(target 0.72)</span></td>' in cells
    assert '<td><a href="https://example.org/?a=1&amp;b=2" rel="external noopener noreferrer">source</a></td>' in cells
    assert "<td>available</td>\n" in cells and '<td class="n">—</td>' not in cells
    assert html.endswith("</tr>\n")


@pytest.mark.parametrize(
    ("fields", "rank_cell", "energy_cell"),
    [
        (
            {"board_rank": None, "unranked_reason": "estimate"},
            '<abbr title="Not ranked: an estimate; its time was not measured">—</abbr>',
            '<td class="n">—</td>',
        ),
        ({"board_rank": None}, '<td class="n rank">—</td>', '<td class="n">—</td>'),
        ({"energy_kwh": 1234.567}, '<td class="n rank">3</td>', '<td class="n">1,234.57</td>'),
    ],
)
def test_a_board_row_says_why_it_has_no_rank_and_shows_energy_where_the_board_has_it(fields, rank_cell, energy_cell):
    html = board_rows("", [board_result(**fields)], has_energy=True, divisions=False)
    assert rank_cell in html and energy_cell in html and "<td>available</td>" not in html


@pytest.mark.parametrize(
    ("fields", "quality", "source"),
    [
        ({"quality": None}, '<span class="muted">—</span>', None),
        ({"quality_target": None}, "0.7234", None),
        (
            {"source_url": None, "source_citation": "Paper <2020>"},
            None,
            '<span class="citation">Paper &lt;2020&gt;</span>',
        ),
        ({"source_url": None}, None, '<span class="muted">—</span>'),
    ],
)
def test_quality_and_source_cells(fields, quality, source):
    row = board_result(**fields)
    if quality is not None:
        assert quality_cell(row) == quality
    if source is not None:
        assert source_cell(row) == source


def run(**fields: object) -> dict:
    row = {
        "run": 1,
        "status": "success",
        "dropped": None,
        "counted": True,
        "minutes": 10.123456,
        "quality": 0.72,
        "energy_kwh": None,
        "failure_detail": None,
        "failure_reason": None,
        "log_url": None,
        "log_path": None,
    }
    return {**row, **fields}


@pytest.mark.parametrize(
    ("fields", "with_energy", "shown"),
    [
        (
            {},
            False,
            '<tr data-status="success"><th scope="row" class="n">1</th>\n<td class="n">10.1235</td>\n'
            '<td>success</td>\n<td>counted</td>\n<td class="n">0.72</td>\n<td><span class="muted">—</span></td></tr>\n',
        ),
        (
            {
                "status": "failed",
                "dropped": "failed",
                "counted": False,
                "minutes": None,
                "quality": None,
                "failure_reason": "abort <x>",
                "log_path": "a/b.txt",
            },
            True,
            '<tr data-status="failed" data-dropped="failed"><th scope="row" class="n">1</th>\n<td class="n">—</td>\n'
            '<td>failed: abort &lt;x&gt;</td>\n<td>not counted (failed)</td>\n<td class="n">—</td>\n'
            '<td class="n">—</td><td><code>a/b.txt</code></td></tr>\n',
        ),
        (
            {
                "dropped": "fastest",
                "counted": False,
                "energy_kwh": 12.3456,
                "log_url": "https://x.org/?a&b",
                "log_path": "<log>",
            },
            True,
            '<tr data-status="success" data-dropped="fastest"><th scope="row" class="n">1</th>\n<td class="n">10.1235</td>\n'
            '<td>success</td>\n<td>dropped as fastest</td>\n<td class="n">0.72</td>\n<td class="n">12.346</td>'
            '<td><a href="https://x.org/?a&amp;b" rel="external noopener noreferrer"><code>&lt;log&gt;</code></a></td></tr>\n',
        ),
        ({"counted": False}, False, "<td>not counted</td>"),
    ],
)
def test_an_entrys_run_rows(fields, with_energy, shown):
    assert shown in run_rows([run(**fields)], with_energy)


def test_an_entrys_cost_rows_show_each_tiers_computation():
    priced = {"provider": "Cloud <A>", "price_date": "2024-01-02", "price_source": "https://p.org/?x&y", "note": None}
    costs = {tier: cost(**priced, cost_usd=12.5, usd_per_chip_hour=2.449) for tier in TIERS}
    costs["purchase"] = cost(**{**priced, "note": "list <price>"}, cost_usd=2000.0, usd_per_chip_hour=None)
    costs["spot"] = cost(provider=None, note="no spot price <yet>")
    row = result(chips=8, chip_hours=5.1, costs=costs)
    html = cost_rows(row)
    assert html.count("<tr data-tier=") == len(TIERS) and html.endswith("</tr>\n")
    assert (
        f'<tr data-tier="{DEFAULT_TIER}"><th scope="row">{DEFAULT_TIER}</th>\n<td>Cloud &lt;A&gt;</td>\n'
        '<td class="n">$2.449 per chip-hour</td><td>2024-01-02</td>\n'
        '<td>5.1000 chip-hours × $2.449</td><td class="n">$12.50</td>\n'
        '<td><a href="https://p.org/?x&amp;y" rel="external noopener noreferrer">price source</a></td>\n</tr>\n'
    ) in html
    assert (
        '<td class="n">$250 per chip</td><td>2024-01-02</td>\n<td>8 chips × $250</td><td class="n">$2,000</td>\n'
        '<td><a href="https://p.org/?x&amp;y" rel="external noopener noreferrer">price source</a> list &lt;price&gt;</td>\n'
    ) in html
    assert (
        '<td>—</td>\n<td class="n">—</td><td>—</td><td>no price</td><td class="n">n/a</td><td>no spot price &lt;yet&gt;</td>\n'
    ) in html
    cpu = cost_rows({**row, "cpu_only": True})
    assert "$2.449 per processor-hour" in cpu and "8 CPUs × $250" in cpu and "$250 per CPU" in cpu
