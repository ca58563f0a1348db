"""Republished results (results.republished_from): the pure matching, table-driven, then the
shipped rounds: every repeat of an earlier round's run times is flagged and never ranked, and no
record, feed record, lineage "best" or compared result is a republished one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from leaderboard import store
from leaderboard.build import build
from leaderboard.render import feeds, history, lineages, model
from leaderboard.republished import MIN_RUNS, Publication, republished_from, run_times


@pytest.mark.parametrize(
    ("runs_minutes", "expected"),
    [
        ((3.0, 1.0, 2.0), (1.0, 2.0, 3.0)),  # run order differs between copies of one result's logs
        ((2.0, None, 1.0), (1.0, 2.0)),  # a failed run has no time to compare
        ((5.0,), None),  # one run: equal by chance too often
        ((None, 5.0), None),
        ((), None),
    ],
)
def test_run_times_are_the_successful_runs_sorted_when_there_are_enough(runs_minutes, expected):
    assert MIN_RUNS == 2
    assert run_times(runs_minutes) == expected


def pub(entry_id, round_, runs, benchmark="bert", kind="mlperf-training", weak=None, energy=False, typed=()):
    dates = {"v2.0": "2022-06-29", "v2.1": "2022-11-09", "v3.0": "2023-06-27", "early": "2022-01-01"}
    return Publication(entry_id, round_, dates[round_], kind, benchmark, tuple(runs), weak, energy, typed)


def typed(entry_id, runs, hardware=("a100-sxm4-40gb", 256.0, "sam")):
    return pub(entry_id, "v2.0", runs, benchmark="vision", kind="published", typed=hardware)


def weak(entry_id, round_, chips=82944, models=81, minutes=137.4663, runs=()):
    return pub(entry_id, round_, runs, benchmark="cosmoflow-weak", kind="mlperf-hpc", weak=(chips, models, minutes))


RUNS = (10.5, 10.25, 11.0)
LOGGED = (10.6738, 9.99455, 9.971033)  # NVIDIA's v5.1 Llama 3.1 405B on 5,120 GB200, from its logs
OTHER = (10.5, 10.25, 11.5)


@pytest.mark.parametrize(
    ("publications", "expected"),
    [
        # A later round's copy points to the first publication.
        ([pub("a", "v2.0", RUNS), pub("b", "v2.1", RUNS[::-1])], {"b": "a"}),
        # Listed in any order: the earliest round still wins.
        ([pub("b", "v2.1", RUNS), pub("a", "v2.0", RUNS)], {"b": "a"}),
        # A chain v2.0 -> v2.1 -> v3.0: every copy points to the first, none to a copy.
        ([pub("c", "v3.0", RUNS), pub("b", "v2.1", RUNS), pub("a", "v2.0", RUNS)], {"b": "a", "c": "a"}),
        # The round's date decides, not its id ("early" sorts after "v2.0" but is older).
        ([pub("a", "v2.0", RUNS), pub("z", "early", RUNS)], {"a": "z"}),
        # One run differs: a different result.
        ([pub("a", "v2.0", RUNS), pub("b", "v2.1", OTHER)], {}),
        # Same run times, another benchmark or another family: not the same result.
        ([pub("a", "v2.0", RUNS), pub("b", "v2.1", RUNS, benchmark="resnet")], {}),
        ([pub("a", "v2.0", RUNS), pub("b", "v2.1", RUNS, kind="mlperf-hpc")], {}),
        # Two results of one round with the same runs are one measurement: the smaller entry id
        # is the first publication, and the twin and a later copy point to it...
        ([pub("b", "v2.0", RUNS), pub("a", "v2.0", RUNS), pub("c", "v2.1", RUNS)], {"b": "a", "c": "a"}),
        # ...unless the other twin measured its energy (the energy boards keep the one that did).
        ([pub("a", "v2.0", RUNS), pub("b", "v2.0", RUNS, energy=True)], {"a": "b"}),
        # Energy decides only within a round: an earlier round is still the first publication.
        ([pub("a", "v2.0", RUNS), pub("b", "v2.1", RUNS, energy=True)], {"b": "a"}),
        # A failed run in one copy and not the other: the successful runs decide.
        ([pub("a", "v2.0", (*RUNS, None)), pub("b", "v2.1", RUNS)], {"b": "a"}),
        # One equal run time is a coincidence, not a republication.
        ([pub("a", "v2.0", (7.0,)), pub("b", "v2.1", (7.0,))], {}),
        ([pub("a", "v2.0", (7.0, None)), pub("b", "v2.1", (7.0,))], {}),
        # Weak scaling (no run times): the same chips, models and minutes is the same measurement.
        ([weak("b", "v3.0"), weak("a", "v2.0"), weak("z", "early")], {"a": "z", "b": "z"}),
        # Any of the three differs: another result.
        ([weak("a", "v2.0"), weak("b", "v2.1", chips=512)], {}),
        ([weak("a", "v2.0"), weak("b", "v2.1", models=80)], {}),
        ([weak("a", "v2.0"), weak("b", "v2.1", minutes=137.4664)], {}),
        # A result with run times is matched on its runs only, never on its span.
        ([weak("a", "v2.0", runs=RUNS), weak("b", "v2.1", runs=OTHER)], {}),
        # Typed run times (published runs: round numbers): the same only on the same hardware and model.
        ([typed("a", (60.0, 60.0)), typed("b", (60.0, 60.0), ("tpu-v3", 64.0, "bigmodel"))], {}),
        ([typed("a", (60.0, 60.0)), typed("b", (60.0, 60.0), ("a100-sxm4-40gb", 128.0, "sam"))], {}),
        ([typed("b", (60.0, 60.0)), typed("a", (60.0, 60.0))], {"b": "a"}),
        # Typed run times that copy a logged result's, as written or rounded to two decimals: a
        # republication of it, whatever the family, benchmark or hardware (its first publication).
        ([pub("a", "v2.0", LOGGED), typed("p", LOGGED)], {"p": "a"}),
        ([pub("a", "v2.0", LOGGED), typed("p", (10.67, 9.99, 9.97))], {"p": "a"}),
        ([pub("a", "v2.0", LOGGED), pub("b", "v2.1", LOGGED), typed("p", LOGGED)], {"b": "a", "p": "a"}),
        # Some of its runs copied (two or more of them) are its runs too...
        ([pub("a", "v2.0", LOGGED), typed("p", LOGGED[:2])], {"p": "a"}),
        ([pub("a", "v2.0", LOGGED), typed("p", (LOGGED[0], LOGGED[2]))], {"p": "a"}),
        # ...but not one off by more than a third of a second, nor more runs than it has.
        ([pub("a", "v2.0", LOGGED), typed("p", (10.6738, 9.99455, 9.98))], {}),
        ([pub("a", "v2.0", LOGGED), typed("p", (*LOGGED, 9.5))], {}),
        ([pub("a", "v2.0", LOGGED), typed("p", (LOGGED[0], LOGGED[0]))], {}),  # one run used twice
        # Logged results of two families never match each other on this looser rule.
        ([pub("a", "v2.0", LOGGED), pub("b", "v2.1", (10.67, 9.99, 9.97), kind="mlperf-hpc")], {}),
        ([], {}),
    ],
)
def test_republished_from_points_each_repeat_to_its_first_publication(publications, expected):
    assert republished_from(publications) == expected


# --- The shipped rounds -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    """The database of the shipped submissions (no site)."""
    if not any((ROOT / "submissions").glob("mlperf-training-*/*/*.yaml")):
        pytest.skip("the shipped MLPerf submissions are absent")
    db = tmp_path_factory.mktemp("republished") / "leaderboard.duckdb"
    outcome = build(ROOT / "submissions", ROOT / "catalog", db, None)
    assert not outcome.problems, outcome.problems[:3]
    return db


def query(db: Path, sql: str) -> list[dict]:
    names, rows = store.run_query(db, sql)
    return [dict(zip(names, row, strict=True)) for row in rows]


def test_every_result_whose_run_times_equal_an_earlier_rounds_is_flagged(shipped):
    """By SQL over the runs table: every result with the same successful run times as a result of
    an earlier round (same kind and benchmark) names the earliest such result; of twins in one
    round, the one that measured its energy (else the smaller entry id) is the first publication."""
    rows = query(
        shipped,
        """
        WITH times AS (
            SELECT r.entry_id, r.round, r.round_kind, r.benchmark, d.date AS round_date, r.republished_from,
                   r.energy_kwh IS NULL AS no_energy,
                   list(u.minutes ORDER BY u.minutes) FILTER (WHERE u.minutes IS NOT NULL) AS t
            FROM results r JOIN rounds d ON d.id = r.round JOIN runs u USING (entry_id)
            GROUP BY ALL
        ),
        firsts AS (
            SELECT round_kind, benchmark, t, count(*) AS n,
                   arg_min(entry_id, (round_date, round, no_energy, entry_id)) AS first
            FROM times WHERE len(t) >= 2 GROUP BY ALL
        )
        SELECT times.entry_id, times.republished_from, first AS expected, times.round
        FROM times JOIN firsts USING (round_kind, benchmark, t)
        WHERE n > 1 AND times.entry_id <> first
        """,
    )
    assert len(rows) >= 200  # 204 in the shipped rounds (see README)
    # Dell's v4.1 Llama 2 70B LoRA result and its power-measured twin: the same runs, one measurement.
    twin = "mlperf-training-v4.1/dell/8xXE9680x8H100-SXM-80GB-llama2_70b_lora"
    assert [r["expected"] for r in rows if r["entry_id"] == twin] == [twin.replace("GB-llama", "GB-POWER-llama")]
    rows = [{k: v for k, v in r.items() if k != "round"} for r in rows]
    weak = query(
        shipped,
        """
        SELECT later.entry_id, later.republished_from,
               arg_min(earlier.entry_id, (d_earlier.date, earlier.round, earlier.entry_id)) AS expected
        FROM results later JOIN rounds d_later ON d_later.id = later.round
        JOIN results earlier ON earlier.round_kind = later.round_kind AND earlier.benchmark = later.benchmark
         AND earlier.chips = later.chips AND earlier.models = later.models AND earlier.minutes = later.minutes
        JOIN rounds d_earlier ON d_earlier.id = earlier.round
        WHERE (d_earlier.date, earlier.round) < (d_later.date, later.round)
          AND NOT EXISTS (SELECT 1 FROM runs u WHERE u.entry_id IN (later.entry_id, earlier.entry_id))
        GROUP BY later.entry_id, later.republished_from
        """,
    )
    # Fugaku's CosmoFlow weak-scaling results (v1.0, again in v2.0 and v3.0) and Perlmutter's (v1.0,
    # again in v3.0): 6.
    assert len(weak) >= 6, weak
    wrong = [r for r in rows + weak if r["republished_from"] != r["expected"]]
    assert not wrong, wrong[:5]
    flagged = query(shipped, "SELECT count(*) AS n FROM results WHERE republished_from IS NOT NULL")[0]["n"]
    assert flagged == len(rows) + len(weak)  # and nothing else is flagged


def test_republished_results_per_round_match_the_issues_count(shipped):
    """The issue counted 71 in v2.1, 43 in v3.0, 31 in v3.1 and 18 in v5.1, and more."""
    found = {
        r["round"]: r["n"]
        for r in query(
            shipped,
            "SELECT round, count(*) AS n FROM results WHERE republished_from IS NOT NULL GROUP BY round",
        )
    }
    for round_, count in {"v2.1": 71, "v3.0": 43, "v3.1": 31, "v5.1": 18}.items():
        assert found[f"mlperf-training-{round_}"] == count


def test_a_republished_result_points_to_a_first_publication_with_the_same_runs(shipped):
    rows = query(
        shipped,
        """
        SELECT a.entry_id, b.republished_from AS chained, a.benchmark = b.benchmark AS same_benchmark,
               ra.date > rb.date OR (a.round = b.round AND (b.energy_kwh IS NOT NULL OR b.entry_id < a.entry_id))
               AS later,
               (SELECT list(minutes ORDER BY minutes) FROM runs WHERE entry_id = a.entry_id)
             = (SELECT list(minutes ORDER BY minutes) FROM runs WHERE entry_id = b.entry_id)
               OR (a.models IS NOT NULL AND (a.chips, a.models, a.minutes) = (b.chips, b.models, b.minutes))
               AS same_runs
        FROM results a JOIN results b ON b.entry_id = a.republished_from
        JOIN rounds ra ON ra.id = a.round JOIN rounds rb ON rb.id = b.round
        """,
    )
    assert rows
    assert all(r["chained"] is None and r["same_benchmark"] and r["later"] and r["same_runs"] for r in rows)


def test_a_republished_result_is_listed_but_never_ranked(shipped):
    rows = query(shipped, "SELECT rank, ranked FROM results WHERE republished_from IS NOT NULL")
    assert rows and all(r["rank"] is None and r["ranked"] is False for r in rows)


def test_every_unranked_result_says_why_and_an_estimate_never_ranks(shipped):
    rows = query(shipped, "SELECT rank, ranked, unranked_reason, estimated, republished_from FROM results")
    assert all(r["ranked"] == (r["unranked_reason"] is None) for r in rows)
    assert all(r["rank"] is None for r in rows if not r["ranked"])
    estimates = [r for r in rows if r["estimated"]]
    assert len(estimates) >= 6  # the shipped NVIDIA GPT-3 175B projection among them
    assert all(r["rank"] is None and r["unranked_reason"] in ("estimate", "republished") for r in estimates)
    assert {r["unranked_reason"] for r in rows if r["republished_from"]} == {"republished"}


@pytest.fixture(scope="module")
def site_data(shipped) -> model.SiteData:
    return model.load(shipped)


def test_no_record_and_no_feed_record_is_republished(site_data):
    republished = {r["entry_id"] for r in site_data.results if r["republished_from"]}
    assert republished
    records = [row for board in site_data.boards for row in model.records(board).values()]
    assert records and not {r["entry_id"] for r in records} & republished
    feed_records = [i["row"]["entry_id"] for i in feeds._feed_items(site_data.results) if i["kind"] == "record"]
    assert not set(feed_records) & republished
    history_records = {r["entry_id"] for r in model.record_history(site_data.results)}
    assert history_records and not history_records & republished
    estimates = {r["entry_id"] for r in site_data.results if r["estimated"]}
    assert estimates and not (history_records | {r["entry_id"] for r in records}) & estimates


def test_no_lineage_best_generation_or_compared_result_is_republished(site_data):
    republished = {r["entry_id"] for r in site_data.results if r["republished_from"]}
    found = lineages.lineages(site_data)
    points = [
        cell["entry_id"]
        for lineage in found
        for item in lineages.progress(lineage)
        for cell in item["cells"].values()
        if cell
    ]
    assert points and not set(points) & republished
    per_accelerator = [
        r["entry_id"] for lineage in found for item in lineages.best_per_accelerator(lineage) for r in item["rows"]
    ]
    assert per_accelerator and not set(per_accelerator) & republished
    generation_rows = [
        row[key]["entry_id"]
        for line in lineages.vendor_lines(site_data)
        for item in lineages.generations(line, found)
        for row in item["rows"]
        for key in ("at_scale", "overall")
        if row[key]
    ]
    assert generation_rows and not set(generation_rows) & republished
    script = history.accelerator_script(found, {r["id"]: r for r in site_data.rounds})
    assert not [e for e in republished if f'"id":"{e}"' in script]


# --- The site, on a small project -------------------------------------------------------------------

FIRST = "mlperf-training-v5.0/dell/1xXE9680Lx8B200-SXM-180GB-rgat"
COPIES = (
    "mlperf-training-v5.1/dell/1xXE9680Lx8B200-SXM-180GB-rgat",
    "mlperf-training-v5.1/dell/1xXE9780x8B200-SXM-180GB-rgat",
)


def test_boards_entry_pages_and_the_feed_say_republished_from_with_a_link(tmp_path):
    """Dell's v5.1 R-GAT results on two systems are the runs of its v5.0 one: the v5.1 board lists
    both, unranked, each linking the v5.0 entry page; the feed calls them republished, no record."""
    if not (ROOT / "submissions" / f"{FIRST}.yaml").is_file():
        pytest.skip("the shipped MLPerf submissions are absent")
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    for entry_id in (FIRST, *COPIES, "mlperf-training-v5.1/nvidia/tyche_ngpu8_ngc25.03_dgl-rgat"):
        target = tmp_path / "submissions" / f"{entry_id}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "submissions" / f"{entry_id}.yaml", target)
    done = run_cli("build", "-q", cwd=tmp_path)
    assert done.code == 0, done.err
    site = tmp_path / "site"
    board = (site / "boards" / "mlperf-training-v5.1" / "rgat.html").read_text(encoding="utf-8")
    link = f'<a href="../../entries/{FIRST}.html">Republished from MLPerf Training v5.0</a>'
    assert board.count(link) == 2
    assert board.count('title="Not ranked: republished; it ranks where it was first published"') == 2
    for copy in COPIES:
        entry = (site / "entries" / f"{copy}.html").read_text(encoding="utf-8")
        assert "Republished from MLPerf Training v5.0" in entry and f"{FIRST}.html" in entry
        assert "Rank <strong>" not in entry
    first_page = (site / "entries" / f"{FIRST}.html").read_text(encoding="utf-8")
    assert "Republished from" not in first_page and "Rank <strong>1</strong>" in first_page
    feed = (site / "feed.xml").read_text(encoding="utf-8")
    for copy in COPIES:
        assert f"record/{copy}<" not in feed and f"entry/{copy}<" in feed
    assert feed.count("<title>Republished result:") == 2
    assert f"record/{FIRST}<" in feed


POWER = "mlperf-training-v4.1/dell/8xXE9680x8H100-SXM-80GB-POWER-llama2_70b_lora"
TWIN = "mlperf-training-v4.1/dell/8xXE9680x8H100-SXM-80GB-llama2_70b_lora"
SLOWER = "mlperf-training-v4.1/dell/4xXE9680x8H100-SXM-80GB-llama2_70b_lora"


def test_twins_of_one_round_count_once_on_its_board(tmp_path):
    """Dell filed the runs of its v4.1 Llama 2 70B LoRA result twice, once with its power measured:
    the board lists both, ranks the power-measured one, and the slower result ranks next (2, not
    3); the twin's row and page say "Published twice in" with a link to the one that ranks."""
    if not (ROOT / "submissions" / f"{POWER}.yaml").is_file():
        pytest.skip("the shipped MLPerf submissions are absent")
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    for entry_id in (POWER, TWIN, SLOWER):
        target = tmp_path / "submissions" / f"{entry_id}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "submissions" / f"{entry_id}.yaml", target)
    done = run_cli("build", "-q", cwd=tmp_path)
    assert done.code == 0, done.err
    ranks = {
        r["entry_id"]: (r["rank"], r["republished_from"])
        for r in query(tmp_path / "leaderboard.duckdb", "SELECT entry_id, rank, republished_from FROM results")
    }
    assert ranks == {POWER: (1, None), TWIN: (None, POWER), SLOWER: (2, None)}
    site = tmp_path / "site"
    board = (site / "boards" / "mlperf-training-v4.1" / "llama2_70b_lora.html").read_text(encoding="utf-8")
    assert board.count(f'<a href="../../entries/{POWER}.html">Published twice in MLPerf Training v4.1</a>') == 1
    twin = (site / "entries" / f"{TWIN}.html").read_text(encoding="utf-8")
    assert "Published twice in MLPerf Training v4.1" in twin and f"{POWER.split('/')[-1]}.html" in twin
    assert "Rank <strong>" not in twin
    first = (site / "entries" / f"{POWER}.html").read_text(encoding="utf-8")
    assert "Published twice" not in first and "Rank <strong>1</strong>" in first
    # "of" counts the results that take a rank, and says how many the board lists.
    assert "Rank <strong>1</strong> of 2 ranked (3 listed) in the closed division by minutes." in first
    assert "closed division: 3 results (1 without a rank, each saying why), ranked by minutes." in board
    slower = (site / "entries" / f"{SLOWER}.html").read_text(encoding="utf-8")
    assert "Rank <strong>2</strong> of 2 ranked (3 listed)" in slower
