"""A chart's labels, pure functions: their text (a name cut in the middle, a log axis's number),
and where point labels go: beside their point, to its right or else to its left, and only
where they cover no label placed before them and stay inside the plot.

Positions are the static image's (pixels from the plot's top left corner). A label left off keeps
its point and its tooltip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

CHARACTER_WIDTH = 5.6  # pixels a character takes at Vega's 10-pixel text, about
TEXT_HEIGHT = 12
OFFSET = 6  # the label's distance from its point, across and up (the text marks' dx and dy)
SIDES = ("right", "left")


@dataclass(frozen=True)
class Box:
    left: float
    top: float
    right: float
    bottom: float

    def overlaps(self, other: Box) -> bool:
        return (
            self.left < other.right and other.left < self.right and self.top < other.bottom and other.top < self.bottom
        )


def box(x: float, y: float, label: str, side: str) -> Box:
    """The box a label takes beside the point at (x, y): its text starts OFFSET pixels right of
    the point (ends OFFSET pixels left of it), its baseline OFFSET pixels above it."""
    width = len(label) * CHARACTER_WIDTH
    left = x + OFFSET if side == "right" else x - OFFSET - width
    bottom = y - OFFSET + 2
    return Box(left, bottom - TEXT_HEIGHT, left + width, bottom)


def place(points: list[tuple[float, float, str]], width: float, height: float) -> list[str | None]:
    """For each (x, y, label), taken in the order given (the most wanted first): the side its
    label goes ("right", "left"), or None when both sides cover an earlier label or leave the
    width x height plot."""
    taken: list[Box] = []
    sides: list[str | None] = []
    for x, y, label in points:
        chosen = None
        for side in SIDES:
            candidate = box(x, y, label, side)
            inside = (
                candidate.left >= 0 and candidate.right <= width and candidate.top >= 0 and candidate.bottom <= height
            )
            if inside and not any(candidate.overlaps(other) for other in taken):
                chosen = side
                taken.append(candidate)
                break
        sides.append(chosen)
    return sides


def linear(value: float, low: float, high: float, size: float) -> float:
    """Where `value` falls on an axis from `low` to `high` drawn `size` pixels long."""
    return (value - low) / (high - low) * size if high > low else size / 2


def log_decades(values: list[float]) -> tuple[float, float]:
    """A log axis's ends as Vega draws it for `values` (positive): whole powers of ten."""
    return math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))


def log_label(value: float) -> str:
    """`value` as a log axis labels it (charts.LOG_FORMAT): 0.01, 1, 1,000,000."""
    return f"{value:,.{max(0, -math.floor(math.log10(value)))}f}"


def cut_middle(text: str, most: int) -> str:
    """`text` in at most `most` characters, its start and its end kept and "…" between."""
    if len(text) <= most:
        return text
    head = (most - 1) // 2
    return text[:head] + "…" + text[len(text) - (most - 1 - head) :]
