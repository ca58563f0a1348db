"""The model each result trained as pages show it, and when an open division's results train
different models (the v1.1 BERT open board: 480B and 200B parameters beside unnamed ones)."""

from __future__ import annotations

import pytest

from leaderboard.render import likeness


@pytest.mark.parametrize(
    ("parameters", "expected"),
    [
        (None, None),
        (480e9, "480B"),
        (336e6, "336M"),
        (1.6e12, "1.6T"),
        (25_600_000, "25.6M"),
        (8e3, "8K"),
        (12, "12"),
    ],
)
def test_parameters_text(parameters, expected):
    assert likeness.parameters_text(parameters) == expected


@pytest.mark.parametrize(
    ("name", "parameters", "expected"),
    [
        ("BERT-like encoder", 480e9, "BERT-like encoder, 480B parameters"),
        ("ResNet-50", None, "ResNet-50"),
        (None, 200e9, "200B parameters"),
        (None, None, None),
    ],
)
def test_model_text(name, parameters, expected):
    assert likeness.model_text(name, parameters) == expected


def row(name=None, parameters=None):
    return {"model_name": name, "model_parameters": parameters}


@pytest.mark.parametrize(
    ("rows", "models", "unstated"),
    [
        ([], None, None),  # nothing to say
        ([row(), row()], None, None),  # no result names a model
        ([row("X"), row("X")], None, None),  # one model throughout
        ([row("X", 480e9), row()], (("X, 480B parameters", 1),), 1),
        (
            [row("X", 480e9), row("X", 200e9), row("X", 480e9)],
            (("X, 480B parameters", 2), ("X, 200B parameters", 1)),
            0,
        ),
        # One model however its name is written, shown as most of its results write it.
        (
            [row("ResNet50"), row("Resnet 50"), row("ResNet-50"), row("ResNet50"), row("VGG")],
            (("ResNet50", 4), ("VGG", 1)),
            0,
        ),
        ([row("ResNet50"), row("Resnet 50"), row("resnet_50")], None, None),  # one model throughout
    ],
)
def test_open_division_notice(rows, models, unstated):
    notice = likeness.open_division_notice(rows, "BERT-Large")
    if models is None:
        assert notice is None
        return
    assert notice.models == models and notice.unstated == unstated
    assert notice.text.startswith("These results train different models: ")
    assert "reference model, BERT-Large" in notice.text
    assert ("name no model" in notice.text) == bool(unstated)


def test_a_long_notice_counts_the_models_it_does_not_name():
    rows = [row(f"model {i}") for i in range(likeness.SHOWN + 3)]
    text = likeness.open_division_notice(rows, None).text
    assert "3 other models" in text and "model 0" in text and "reference" not in text
