"""Where a pull request's entry would sit on its board: its rank by the board's own ranking, its
place under the board's other sorts, the results just above and below it by the board's rank
metric, and the link to that board (the rank preview of check-pr)."""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.normalize import HIGHER_IS_BETTER, metric_ranks, slug

METRIC_UNITS = {"minutes": "minutes", "chip_hours": "chip-hours", "models_per_minute": "models per minute"}
# What a reader may sort a board by besides its ranking (templates/board.html "Sort by"): the
# result's column and its name. A board's own rank metric among them is its ranking, not a sort;
# a weak-scaling board sorts by minutes only (its results trained different numbers of models).
SORTS = (("minutes", "minutes"), ("chip_hours", "chip-hours"), ("cost_usd", "cost"))
WEAK_SORTS = (("minutes", "minutes"),)


@dataclass(frozen=True)
class Neighbour:
    entry_id: str
    system: str
    submitter: str
    value: float | None  # the board's rank metric
    rank: int | None


@dataclass(frozen=True)
class SortPosition:
    """Where the entry sits when a reader sorts its board by another column."""

    label: str  # the column's name: minutes | chip-hours | cost
    rank: int | None  # None when the entry has no value there (no cost)
    out_of: int  # the ranked results with a value there


@dataclass(frozen=True)
class Placement:
    metric: str  # minutes | chip_hours | models_per_minute
    rank: int | None
    out_of: int
    above: Neighbour | None  # the result ranked just before, None when the entry is first
    below: Neighbour | None  # the result ranked just after, None when it is last
    board: str  # the board page's path (or address), with the division's anchor
    sorted_by: tuple[SortPosition, ...] = ()  # its place under each of the board's other sorts (SORTS)


def board_link(round_id: str, benchmark: str, division: str, base_url: str | None = None) -> str:
    """The board's page as the site writes it (render/model.py Board.path), at its division's heading."""
    path = f"boards/{round_id}/{benchmark}.html#h-{slug(division)}"
    return (base_url or "") + path


def placement(row: dict, group: list[dict], metric: str, base_url: str | None = None) -> Placement:
    """`row` among `group` (its board's division, `row` included) ordered by `metric`: best first,
    ties in the order given, results without a value last. As on the board, a result listed
    without a rank (its `unranked_reason`) takes none; `row` is placed among the ranked ones.
    The same holds for its place under each other sort of the board."""
    counted = [r is row or r.get("unranked_reason") is None for r in group]
    ranks, out_of = _ranks(group, counted, metric)
    sign = -1 if metric in HIGHER_IS_BETTER else 1
    order = sorted(
        range(len(group)),
        key=lambda i: (group[i].get(metric) is None, 0 if group[i].get(metric) is None else sign * group[i][metric]),
    )
    position = next(k for k, i in enumerate(order) if group[i] is row)

    def neighbour(k: int) -> Neighbour | None:
        if not 0 <= k < len(order):
            return None
        other = group[order[k]]
        return Neighbour(other["entry_id"], other["system"], other["submitter"], other.get(metric), ranks[order[k]])

    sorted_by = []
    for column, label in WEAK_SORTS if metric == "models_per_minute" else SORTS:
        if column != metric:
            sorted_ranks, sorted_out_of = _ranks(group, counted, column)
            sorted_by.append(SortPosition(label, sorted_ranks[group.index(row)], sorted_out_of))
    return Placement(
        metric,
        ranks[order[position]],
        out_of,
        neighbour(position - 1),
        neighbour(position + 1),
        board_link(row["round"], row["benchmark"], row["division"], base_url),
        tuple(sorted_by),
    )


def _ranks(group: list[dict], counted: list[bool], column: str) -> tuple[list[int | None], int]:
    """Each result's rank in `group` by `column` (those not `counted` take none), and how many have one."""
    values = [r.get(column) if c else None for r, c in zip(group, counted, strict=True)]
    return metric_ranks(values, column), sum(v is not None for v in values)


def ranking_text(place: Placement, unranked: bool = False) -> str:
    """The entry's rank by its board's own ranking: '34 of 134 by chip-hours'; for an entry the
    board lists without a rank (`unranked`), where it would sit among the ranked results:
    'none (it would sit at 34 of 134 by chip-hours)'."""
    label = METRIC_UNITS.get(place.metric, place.metric)
    if place.rank is None:
        return f"nowhere by {label} (it has no value)"
    if unranked:
        return f"none (it would sit at {place.rank} of {place.out_of} by {label})"
    return f"{place.rank} of {place.out_of} by {label}"


def sorted_text(place: Placement) -> str:
    """Its place under the board's other sorts: 'by minutes: 12 of 134; by cost: no cost'."""
    return "; ".join(
        f"by {s.label}: " + (f"no {s.label}" if s.rank is None else f"{s.rank} of {s.out_of}") for s in place.sorted_by
    )


def rank_text(place: Placement, unranked: bool = False) -> str:
    """The preview's rank line, the board's own ranking first: 'would rank 34 of 134 by chip-hours,
    the board's ranking (sorted by minutes: 12 of 134; by cost: no cost)'. An entry the board
    lists without a rank (`unranked`: an estimate, a republished result) takes none: 'would take
    no rank; among the ranked results it would sit at 34 of 134 by chip-hours, ...'."""
    others = f" (sorted {sorted_text(place)})" if place.sorted_by else ""
    if unranked and place.rank is not None:
        return (
            f"would take no rank; among the ranked results it would sit at {place.rank} of {place.out_of} "
            f"by {METRIC_UNITS.get(place.metric, place.metric)}, the board's ranking{others}"
        )
    return f"would rank {ranking_text(place)}, the board's ranking{others}"


def _value(value: float | None, metric: str) -> str:
    return "no value" if value is None else f"{value:,.4g} {METRIC_UNITS.get(metric, metric)}"


def neighbour_text(neighbour: Neighbour | None, metric: str, where: str) -> str:
    """'above: rank 1, acme-4320 (Acme Labs), 0.35 minutes' or 'above: none (first on the board)'."""
    if neighbour is None:
        return f"{where}: none ({'first' if where == 'above' else 'last'} on the board)"
    rank = f"rank {neighbour.rank}, " if neighbour.rank is not None else "unranked, "
    return f"{where}: {rank}{neighbour.system} ({neighbour.submitter}), {_value(neighbour.value, metric)}"


def text_lines(place: Placement) -> list[str]:
    """The two neighbours and the board, one line each."""
    return [
        neighbour_text(place.above, place.metric, "above"),
        neighbour_text(place.below, place.metric, "below"),
        f"board: {place.board}",
    ]
