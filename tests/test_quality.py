"""A result's quality is its worst counted run's, on one scale per benchmark across rounds, and
every run says in a small vocabulary why it failed or was dropped: pure rules and the shipped data."""

from __future__ import annotations

import pytest
from conftest import ROOT

import leaderboard
from leaderboard.build import build
from leaderboard.failures import FAILURE_REASONS, failure_reason
from leaderboard.render import lineages, model

# ---- the vocabulary of run failures ----------------------------------------------------------


@pytest.mark.parametrize(
    "detail, expected",
    [
        ("run_stop status is aborted, not success", "aborted"),
        ("run_stop status is abort, not success", "aborted"),  # Google's TPU logs spell it abort
        ("run_stop status is fail, not success", "aborted"),  # Intel's
        ("run_stop status is missing, not success", "no_status"),
        ("run_stop has no status", "no_status"),  # MLPerf HPC
        ("no run_start", "missing_record"),
        ("no run_stop", "missing_record"),
        ("run_stop logged 2 times", "repeated_record"),
        ("line 12: run_stop without a numeric time_ms", "malformed_log"),
        ("line 3: MLLOG line longer than 1,048,576 bytes", "malformed_log"),
        ("not read", "unreadable_log"),
        ("run_stop is not after run_start", "bad_times"),
        ("initialization took 31.2 minutes (limit 30)", "slow_initialization"),
        ("quality target never reached before run_stop (eval_accuracy 0.759)", "target_not_reached"),
        ("the open division's quality target never reached before run_stop (eval_accuracy 0.72)", "target_not_reached"),
        ("the node caught fire", "other"),
        (None, None),
    ],
)
def test_failure_reason_codes(detail, expected):
    assert failure_reason(detail) == expected
    assert expected is None or expected in FAILURE_REASONS


# ---- the shipped data ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped_db(tmp_path_factory):
    """The database of the shipped catalog and submissions (no site)."""
    db = tmp_path_factory.mktemp("quality") / "leaderboard.duckdb"
    outcome = build(ROOT / "submissions", ROOT / "catalog", db, None)
    assert not outcome.problems, outcome.problems[:3]
    return db


def sql(db, query: str) -> list[tuple]:
    with leaderboard.connect(db) as con:
        return con.sql(query).fetchall()


def test_no_result_quality_differs_from_its_worst_counted_run(shipped_db):
    """Every result with runs: quality is the worst quality among the counted runs (not the
    dropped fastest and slowest, not the failed), per the benchmark's direction."""
    checked = sql(
        shipped_db,
        """
        SELECT r.entry_id, r.quality,
               CASE WHEN b.direction = 'lower' THEN max(u.quality) ELSE min(u.quality) END AS worst
        FROM results r JOIN runs u USING (entry_id) JOIN benchmarks b ON b.id = r.benchmark
        WHERE u.counted AND u.quality IS NOT NULL AND r.quality IS NOT NULL
        GROUP BY r.entry_id, r.quality, b.direction
        """,
    )
    assert len(checked) > 1800
    differ = [(entry, quality, worst) for entry, quality, worst in checked if quality != worst]
    assert differ == []


def test_quality_and_targets_of_bleu_are_on_one_scale_in_every_round(shipped_db):
    rows = sql(
        shipped_db,
        """
        SELECT benchmark, round, min(least(quality, quality_target)), max(greatest(quality, quality_target))
        FROM results WHERE benchmark IN ('gnmt', 'transformer') GROUP BY ALL ORDER BY ALL
        """,
    )
    assert {(b, r.rsplit("-", 1)[1]) for b, r, _, _ in rows} == {
        (b, v) for b in ("gnmt", "transformer") for v in ("v0.5", "v0.6", "v0.7")
    }
    for benchmark, round_id, low, high in rows:
        assert 0.2 < low <= high < 0.35, (benchmark, round_id, low, high)
    runs = sql(
        shipped_db,
        "SELECT count(*) FROM runs u JOIN results r USING (entry_id) "
        "WHERE r.benchmark IN ('gnmt', 'transformer') AND u.quality > 1",
    )
    assert runs == [(0,)]
    # The catalog records how v0.5 and v0.6 logged BLEU, for whoever wants it as logged.
    scales = sql(
        shipped_db,
        "SELECT DISTINCT round, log_scale FROM benchmark_rounds WHERE benchmark IN ('gnmt', 'transformer') ORDER BY 1",
    )
    assert scales == [("mlperf-training-v0.5", 100.0), ("mlperf-training-v0.6", 100.0), ("mlperf-training-v0.7", 1.0)]


def test_gnmt_and_transformer_lineages_join_rounds_with_one_target(shipped_db):
    """GNMT's target was 21.8 BLEU in v0.5 and 24 from v0.6 on: two segments, v0.6 and v0.7 on
    one line. Transformer's was 25 throughout: one segment over all three rounds."""
    found = {lineage.id: lineage for lineage in lineages.lineages(model.load(shipped_db))}
    segments = {
        name: [(s.quality_target, [r["id"].rsplit("-", 1)[1] for r in s.rounds]) for s in found[name].segments]
        for name in ("gnmt", "transformer")
    }
    assert segments == {
        "gnmt": [(0.218, ["v0.5"]), (0.24, ["v0.6", "v0.7"])],
        "transformer": [(0.25, ["v0.5", "v0.6", "v0.7"])],
    }


def test_failed_runs_are_dropped_as_failed_with_a_reason_of_the_vocabulary(shipped_db):
    assert sql(
        shipped_db, "SELECT count(*) FROM runs WHERE status = 'failed' AND dropped IS DISTINCT FROM 'failed'"
    ) == [(0,)]
    assert sql(shipped_db, "SELECT count(*) FROM runs WHERE status = 'success' AND dropped = 'failed'") == [(0,)]
    reasons = dict(
        sql(shipped_db, "SELECT failure_reason, count(*) FROM runs WHERE status = 'failed' GROUP BY ALL ORDER BY ALL")
    )
    assert set(reasons) <= set(FAILURE_REASONS) - {"other"}  # every failed run has a known reason
    assert reasons["aborted"] > 150  # logs spell it aborted, abort and fail: one code
    assert sql(shipped_db, "SELECT DISTINCT dropped FROM runs ORDER BY 1") == [
        ("failed",),
        ("fastest",),
        ("slowest",),
        (None,),
    ]
