"""One look per accelerator across the site (a colour, plus a point shape or line dash where a
chart has more accelerators than colours), and distinct looks for the series of any one chart.

The assignment is a greedy colouring of the accelerators, the most charted first, over the groups that
share a chart: two accelerators on one chart never share a colour while the chart holds at most
as many accelerators as PALETTE has colours, and never share colour and shape on any chart.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

# Tableau 20: its ten strong hues first, then their light partners (a light one and its strong
# hue look alike only next to nothing else, and colouring gives the strong ones out first).
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#499894",
    "#59a14f",
    "#b6992d",
    "#b07aa1",
    "#d37295",
    "#9d7660",
    "#79706e",
    "#a0cbe8",
    "#ffbe7d",
    "#ff9d9a",
    "#86bcb6",
    "#8cd17d",
    "#f1ce63",
    "#d4a6c8",
    "#fabfd2",
    "#d7b5a6",
    "#bab0ac",
)
# Each time the palette comes round again: a point shape, a line dash (Vega's names, pixels).
SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "triangle-left", "triangle-right")
DASHES = ((), (6, 3), (2, 2), (8, 3, 2, 3), (1, 3), (10, 4), (4, 2, 1, 2), (12, 3, 3, 3))
LEVELS = len(SHAPES)


@dataclass(frozen=True)
class Style:
    """How one series is drawn: its colour, its point shape and its line dash ([] = solid)."""

    colour: str
    shape: str
    dash: tuple[int, ...]


def style(index: int) -> Style:
    """The index-th look: every colour of the palette, then every colour again with the next shape and dash."""
    level = index // len(PALETTE) % LEVELS
    return Style(PALETTE[index % len(PALETTE)], SHAPES[level], DASHES[level])


def distinct_styles(count: int) -> list[Style]:
    """Looks for `count` series of one chart, no two alike (while count <= palette x levels)."""
    return [style(i) for i in range(count)]


def accelerator_indices(order: Iterable[str], groups: Iterable[Iterable[str]]) -> dict[str, int]:
    """Each accelerator's look (an index for style()), for accelerators in `order` (the catalog's)
    and `groups`, the sets of accelerators drawn on one chart.

    Greedy, the accelerators on most charts first (ties in `order`): each takes the first index
    whose colour no accelerator already placed shares a small chart with (one of at most as many
    accelerators as colours), and which no accelerator already placed shares any chart with."""
    sets = [frozenset(g) for g in groups]
    small = len(PALETTE)
    chart_mates: dict[str, set[str]] = {}
    colour_mates: dict[str, set[str]] = {}
    for members in sets:
        for a in members:
            chart_mates.setdefault(a, set()).update(members - {a})
            if len(members) <= small:
                colour_mates.setdefault(a, set()).update(members - {a})
    # The accelerators on most charts first: they take the strong colours and plain circles.
    shown = Counter(a for members in sets for a in members)
    known = list(dict.fromkeys([*order, *sorted(shown)]))
    rank = {a: k for k, a in enumerate(known)}
    ordered = sorted(known, key=lambda a: (-shown[a], rank[a]))
    chosen: dict[str, int] = {}
    for accelerator in ordered:
        taken = {chosen[m] for m in chart_mates.get(accelerator, ()) if m in chosen}
        colours = {chosen[m] % small for m in colour_mates.get(accelerator, ()) if m in chosen}
        looks = range(small * LEVELS)
        index = next((i for i in looks if i not in taken and i % small not in colours), None)
        if index is None:  # more small-chart mates than colours: a distinct look is what counts
            index = next(i for i in itertools.count() if i not in taken)
        chosen[accelerator] = index
    return chosen


def accelerator_styles(order: Iterable[str], groups: Iterable[Iterable[str]]) -> dict[str, Style]:
    """Each accelerator's look, the same on every chart of the site (see accelerator_indices)."""
    return {a: style(i) for a, i in accelerator_indices(order, groups).items()}
