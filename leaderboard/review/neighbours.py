"""Where a pull request's entry would sit on its board: the results just above and below it by
the board's rank metric, and the link to that board (the rank preview of check-pr)."""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.normalize import HIGHER_IS_BETTER, metric_ranks, slug

METRIC_UNITS = {"minutes": "minutes", "chip_hours": "chip-hours", "models_per_minute": "models per minute"}


@dataclass(frozen=True)
class Neighbour:
    entry_id: str
    system: str
    submitter: str
    value: float | None  # the board's rank metric
    rank: int | None


@dataclass(frozen=True)
class Placement:
    metric: str  # minutes | chip_hours | models_per_minute
    rank: int | None
    out_of: int
    above: Neighbour | None  # the result ranked just before, None when the entry is first
    below: Neighbour | None  # the result ranked just after, None when it is last
    board: str  # the board page's path (or address), with the division's anchor


def board_link(round_id: str, benchmark: str, division: str, base_url: str | None = None) -> str:
    """The board's page as the site writes it (render/model.py Board.path), at its division's heading."""
    path = f"boards/{round_id}/{benchmark}.html#h-{slug(division)}"
    return (base_url or "") + path


def placement(row: dict, group: list[dict], metric: str, base_url: str | None = None) -> Placement:
    """`row` among `group` (its board's division, `row` included) ordered by `metric`: best first,
    ties in the order given, results without a value last. As on the board, a result listed
    without a rank (its `unranked_reason`) takes none; `row` is placed among the ranked ones."""
    counted = [r is row or r.get("unranked_reason") is None for r in group]
    ranks = metric_ranks([r.get(metric) if c else None for r, c in zip(group, counted, strict=True)], metric)
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

    return Placement(
        metric,
        ranks[order[position]],
        sum(r.get(metric) is not None and c for r, c in zip(group, counted, strict=True)),
        neighbour(position - 1),
        neighbour(position + 1),
        board_link(row["round"], row["benchmark"], row["division"], base_url),
    )


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
