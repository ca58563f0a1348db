"""Republished results: a later round's result that is the same runs as an earlier round's (the
same run times), and the entry id of the result's first publication (results.republished_from).

Why at build time, from the run times the files already hold, rather than in the importer: the
files stay byte-identical to a fresh import (no re-import of the closed rounds), a match needs
every round at once (an importer sees one), and a pull request can neither claim nor hide one.
Identical logs, or logs that differ only in their headers, give identical run times to the
millisecond; one equal run time happens by chance in the shipped rounds, two never did, so a
match needs MIN_RUNS successful runs (failed runs have no time and are left out). Same round kind
and benchmark only; the earliest round wins (its date, then its id), so a chain v2.0 -> v2.1 ->
v3.0 points to v2.0 throughout. Two results of one round with the same runs (a submitter's
power-measured twin of a result, or one set of logs filed under two systems) are one measurement
too: the first publication is the one that measured its energy, else the smaller entry id, and
the other points to it, so a board counts the runs once.

Run times typed from a paper (a published run; any family whose results are not recomputed from
logs) are round numbers that two unrelated runs can share: such results match only on the same
accelerator, chip count and model too (`typed`).

Run times typed from a paper that equal, to a third of a second each (TYPED_TOLERANCE), those
(or some of those) some family recomputed from logs holds are those logs' runs, whatever the typed result's family,
benchmark or hardware: a published run that copies an MLPerf result's run times is a
republication of that result (log times to the millisecond are not round numbers two runs share).

A weak-scaling result (MLPerf HPC: many models trained at once) has no run times; its minutes
are the span from the first instance's start to the last one's stop, to a tenth of a
millisecond. The same span on the same number of chips for the same number of models is the
same measurement: such results match on (chips, models, minutes) instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_RUNS = 2  # one equal run time happens by chance (9 pairs in the shipped rounds); two never did
TYPED_TOLERANCE = 0.005  # minutes: typed run times rounded to two decimals still match their logs'


@dataclass(frozen=True)
class Publication:
    """One result as the matching sees it."""

    entry_id: str
    round: str
    round_date: str  # the round's publication date, ISO
    kind: str  # the round's kind: results of different families never match
    benchmark: str
    runs_minutes: tuple[float | None, ...]  # None for a failed run
    # A weak-scaling result's (chips, models, minutes); None for any other result.
    weak: tuple[float, int, float] | None = None
    energy: bool = False  # its energy was measured: of twins in one round, the first publication
    # Typed run times (a family not recomputed from logs): (accelerator, chips, model) must match
    # too; () for run times parsed from logs.
    typed: tuple = ()


def run_times(runs_minutes: Sequence[float | None]) -> tuple[float, ...] | None:
    """The successful run times in order (run order differs between copies of the same logs),
    or None when there are too few to tell a republication from a coincidence."""
    times = tuple(sorted(m for m in runs_minutes if m is not None))
    return times if len(times) >= MIN_RUNS else None


def republished_from(publications: Iterable[Publication]) -> dict[str, str]:
    """entry id -> entry id of its first publication, for every result whose run times equal
    those of a result of an earlier round, or of a first publication of its own round (same kind
    and benchmark), or of a logged result for typed run times (_typed_copies)."""
    publications = list(publications)
    groups: dict[tuple, list[Publication]] = {}
    for pub in publications:
        times = run_times(pub.runs_minutes)
        if times is not None:
            groups.setdefault((pub.kind, pub.benchmark, times, pub.typed), []).append(pub)
        elif pub.weak is not None and not pub.runs_minutes:
            groups.setdefault((pub.kind, pub.benchmark, "weak", pub.weak), []).append(pub)
    found = {}
    for group in groups.values():
        first = min(group, key=lambda p: (p.round_date, p.round, not p.energy, p.entry_id))
        for pub in group:
            if pub is not first:
                found[pub.entry_id] = first.entry_id
    found.update(_typed_copies(publications, found))
    return found


def _typed_copies(publications: Sequence[Publication], found: dict[str, str]) -> dict[str, str]:
    """Typed results whose run times are (within TYPED_TOLERANCE each) a logged result's, whatever
    their family: entry id -> the logged result's first publication."""
    logged: list[tuple[tuple[float, ...], Publication]] = []
    typed = []
    for pub in publications:
        times = run_times(pub.runs_minutes)
        if times is None:
            continue
        (typed if pub.typed else logged).append((times, pub))
    copies = {}
    for times, pub in typed:
        matches = [other for other_times, other in logged if _within(times, other_times)]
        if matches:
            first = min(matches, key=lambda p: (p.round_date, p.round, not p.energy, p.entry_id))
            copies[pub.entry_id] = found.get(first.entry_id, first.entry_id)
    return copies


def _within(typed: tuple[float, ...], logged: tuple[float, ...]) -> bool:
    """Whether every typed run time is one of the logged ones (each within TYPED_TOLERANCE, each
    logged run used once): a copy of all of a result's runs, or of some of them. Both sorted."""
    if len(typed) > len(logged):
        return False
    i = 0
    for time in logged:
        if i < len(typed) and abs(typed[i] - time) <= TYPED_TOLERANCE:
            i += 1
    return i == len(typed)
