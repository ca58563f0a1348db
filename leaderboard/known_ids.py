"""The ids a submission names (round, benchmark, accelerator) that the catalog does not hold,
each with the closest known ids as a hint. Looked up even in a file that fails its schema
elsewhere, so a typo shows with the schema's problems rather than after they are fixed.
"""

from __future__ import annotations

from collections.abc import Iterator

from leaderboard.catalog import Catalog
from leaderboard.files import Document
from leaderboard.problems import Problem, did_you_mean, suggestion


def unknown_ids(doc: Document, catalog: Catalog) -> Iterator[Problem]:
    """The round, benchmark and accelerator the file names (where it names one as text) that the
    catalog does not hold, each with the closest ids as a hint."""
    data = doc.data
    round_id, benchmark_id = data.get("round"), data.get("benchmark")
    system = data.get("system") if isinstance(data.get("system"), dict) else {}
    accelerator_id = system.get("accelerator")
    if isinstance(round_id, str) and round_id not in catalog.rounds:
        yield doc.problem(("round",), f"unknown round {round_id!r}", did_you_mean(round_id, catalog.rounds))
    if isinstance(benchmark_id, str) and benchmark_id not in catalog.benchmarks:
        yield doc.problem(
            ("benchmark",), f"unknown benchmark {benchmark_id!r}", did_you_mean(benchmark_id, catalog.benchmarks)
        )
    if isinstance(accelerator_id, str) and accelerator_id not in catalog.accelerators:
        by_alias = catalog.accelerator_by_alias(accelerator_id)
        hint = (
            f"did you mean {by_alias.id!r}?"
            if by_alias
            else _and(
                suggestion(accelerator_id, {a.id: [a.name, *a.aliases] for a in catalog.accelerators.values()}),
                NEW_PART,
            )
        )
        yield doc.problem(("system", "accelerator"), f"unknown accelerator {accelerator_id!r}", hint)


# CONTRIBUTING.md, "Accelerators (`system.accelerator`)".
NEW_PART = "a part the catalog lacks is added to catalog/accelerators.yaml in the same pull request (CONTRIBUTING.md)"


def _and(first: str | None, then: str) -> str:
    return then if not first else f"{first.rstrip('?')}? Else {then}"
