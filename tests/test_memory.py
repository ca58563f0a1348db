"""Freed memory goes back to the system between the steps of a build."""

import sys

import pytest

from leaderboard.memory import release_freed_memory


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim and /proc are Linux's")
def test_rows_freed_are_returned_to_the_system():
    rows = [{f"column_{i}": float(n + i) for i in range(60)} for n in range(50_000)]  # dicts over 512 bytes
    survivors = rows[::50]  # a few stay, scattered: the C library keeps the freed memory between them
    full = _rss_kib()
    del rows
    kept = _rss_kib()
    assert release_freed_memory()
    assert kept > full - 10_000  # freed, but still held by the process
    assert _rss_kib() < kept - 40_000  # given back
    assert len(survivors) == 1_000


def test_the_collector_is_paused_and_spaced_out_while_a_build_keeps_what_it_makes(empty_project, monkeypatch):
    """A build makes its entries, rows and site's data with the cycle collector paused (they hold
    no cycles), and collects the young generation every BUILD_YOUNG_THRESHOLD new objects, not
    every 700; both as they were after it, failed or not."""
    import gc

    from test_store import place_acme_results

    from leaderboard import build as build_module
    from leaderboard import memory
    from leaderboard.render import model

    place_acme_results(empty_project)
    seen = {}

    frozen = {}

    def watched(name, function):
        def call(*args, **kwargs):
            seen[name] = (gc.isenabled(), gc.get_threshold()[0])
            frozen[name] = gc.get_freeze_count()
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(build_module, "table_rows", watched("rows", build_module.table_rows))
    monkeypatch.setattr(model, "load", watched("site data", model.load))
    before = gc.get_threshold()
    result = build_module.build(
        empty_project / "submissions",
        empty_project / "catalog",
        empty_project / "leaderboard.duckdb",
        empty_project / "site",
    )
    assert result.ok and (empty_project / "site" / "index.html").is_file()
    assert seen == {"rows": (False, memory.BUILD_YOUNG_THRESHOLD), "site data": (False, memory.BUILD_YOUNG_THRESHOLD)}
    assert gc.isenabled() and gc.get_threshold() == before
    # The entries, then the rows, were put out of the collector's reach as each step ended, and
    # given back to it at the end.
    assert frozen["rows"] > 0 and frozen["site data"] > 0 and gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), memory.fewer_collections(), memory.collector_paused():
        assert not gc.isenabled() and gc.get_threshold()[0] == memory.BUILD_YOUNG_THRESHOLD
        raise RuntimeError("a build that fails")
    assert gc.isenabled() and gc.get_threshold() == before


def test_what_a_step_keeps_is_out_of_the_collectors_reach_until_the_end():
    """collector_paused(keep=True): what is made meanwhile is frozen before the collector runs
    again (never walked); kept_out_of_reach() gives it all back, failed or not."""
    import gc

    from leaderboard import memory

    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), memory.kept_out_of_reach():
        with memory.collector_paused(keep=True):
            kept = [{"row": n} for n in range(1_000)]
        assert gc.isenabled() and gc.get_freeze_count() >= len(kept)
        raise RuntimeError("a build that fails")
    assert gc.get_freeze_count() == 0 and gc.isenabled()
