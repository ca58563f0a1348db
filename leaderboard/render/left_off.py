"""What a round page says about its results: how many are on the boards, how many result folders of
its published source are left off them, and each of those with why (skipped_results)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from leaderboard.families import family
from leaderboard.problems import plural


def _many(word: str) -> str:
    return f"{word[:-1]}ies" if word.endswith("y") else f"{word}s"


def counts_sentence(kind: str, on_boards: int, left_off: int | None) -> str:
    """'183 results on the boards, 3 result folders left off.'; without an importer's list of
    what it left off (left_off None), the results alone."""
    boards = f"{plural(on_boards, 'result')} on the boards"
    if left_off is None:
        return f"{boards}."
    unit = family(kind).source_unit
    return f"{boards}, {plural(left_off, unit, _many(unit))} left off."


def board_sentence(kind: str, left_off: int) -> str:
    """'4 result folders of this benchmark in the round's published source are left off this
    board'; '' when none is."""
    if not left_off:
        return ""
    unit = family(kind).source_unit
    verb = "is" if left_off == 1 else "are"
    return f"{plural(left_off, unit, _many(unit))} of this benchmark in the round's published source {verb} left off this board"


def logs_cell(row: dict) -> str:
    """'1 of 10 (9 absent from the public copy)'; '' where results are not run logs."""
    found, needed, missing = row.get("logs_found"), row.get("logs_needed"), row.get("logs_missing")
    if found is None:
        return ""
    text = f"{found} of {needed}" if needed is not None else f"{found}"
    return f"{text} ({missing} absent from the public copy)" if missing else text


def by_round(rows: Iterable[dict], benchmark_names: Mapping[str, str]) -> dict[str, list[dict]]:
    """skipped_results rows by round, each round's in submitter, folder order, with their logs
    cell and benchmark name (the benchmark's id, or folder, where the catalog names none)."""
    rounds: dict[str, list[dict]] = {}
    for row in sorted(rows, key=lambda r: (r["round"], r["submitter"].casefold(), r["folder"])):
        shown = {"logs": logs_cell(row), "benchmark_name": benchmark_names.get(row["benchmark"], row["benchmark"])}
        rounds.setdefault(row["round"], []).append({**row, **shown})
    return rounds
