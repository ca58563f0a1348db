"""Where a chart's point labels go (leaderboard/render/labels.py)."""

from __future__ import annotations

import pytest

from leaderboard.render import labels
from leaderboard.render.labels import Box


@pytest.mark.parametrize(
    "a, b, overlaps",
    [
        (Box(0, 0, 10, 10), Box(5, 5, 15, 15), True),
        (Box(0, 0, 10, 10), Box(10, 0, 20, 10), False),  # touching edges do not overlap
        (Box(0, 0, 10, 10), Box(0, 10, 10, 20), False),
        (Box(0, 0, 10, 10), Box(2, 2, 4, 4), True),  # inside
        (Box(0, 0, 10, 10), Box(20, 20, 30, 30), False),
    ],
)
def test_box_overlaps(a, b, overlaps):
    assert a.overlaps(b) is overlaps
    assert b.overlaps(a) is overlaps


def test_a_label_sits_right_of_its_point_and_above_it():
    placed = labels.box(100, 50, "ab", "right")
    assert placed.left == 100 + labels.OFFSET and placed.right == placed.left + 2 * labels.CHARACTER_WIDTH
    assert placed.bottom < 50 and placed.bottom - placed.top == labels.TEXT_HEIGHT
    left = labels.box(100, 50, "ab", "left")
    assert left.right == 100 - labels.OFFSET and left.top == placed.top


@pytest.mark.parametrize(
    "points, sides",
    [
        ([], []),
        ([(100, 100, "GPT-3")], ["right"]),
        # The second point's label would run into the first's on the right: it goes left.
        ([(100, 100, "GPT-3"), (90, 100, "Gopher")], ["right", "left"]),
        # A third at the same spot has no room on either side: left off.
        ([(100, 100, "GPT-3"), (90, 100, "Gopher"), (95, 100, "PaLM")], ["right", "left", None]),
        # Near the right edge the label goes left; near both edges and no room: left off.
        ([(630, 100, "LLaMA-65B")], ["left"]),
        ([(320, 100, "a model name so long that it leaves the plot on the right and on the left")], [None]),
        # Too close to the top for the text above the point.
        ([(100, 2, "T5")], [None]),
        # Far apart: both on the right.
        ([(100, 100, "T5"), (100, 300, "BERT")], ["right", "right"]),
    ],
)
def test_place(points, sides):
    assert labels.place(points, 640, 380) == sides


@pytest.mark.parametrize(
    "values, decades",
    [([0.8, 2.4e8], (-1, 9)), ([1.0, 10.0], (0, 1)), ([5.0], (0, 1)), ([100.0, 100.0], (2, 2))],
)
def test_log_decades(values, decades):
    assert labels.log_decades(values) == decades


@pytest.mark.parametrize(
    "value, low, high, size, at", [(5, 0, 10, 100, 50.0), (0, 0, 10, 100, 0.0), (3, 3, 3, 100, 50.0)]
)
def test_linear(value, low, high, size, at):
    assert labels.linear(value, low, high, size) == at
