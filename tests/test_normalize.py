"""Chips, chip-hours, the price in force, cost per tier, olympic mean and ranks: one row per case."""

import math
from pathlib import Path

import pytest

from leaderboard.catalog import Accelerator, Price
from leaderboard.normalize import (
    chip_hours,
    chips,
    competition_ranks,
    cost_note,
    costs,
    dropped_runs,
    from_logged,
    olympic_mean,
    price_in_force,
    reaches_target,
    slug,
    to_logged,
    worst_counted_quality,
)

TPU_V3 = Accelerator("tpu-v3", "Google", "TPU v3", chips_per_device=4, aliases=(), cores_per_chip=2)
A100 = Accelerator("a100", "NVIDIA", "A100", chips_per_device=1, aliases=())
IPU = Accelerator("ipu", "Graphcore", "IPU", chips_per_device=4, aliases=(), no_price_reason="no public price")


def price(
    tier="on-demand", usd=1.0, unit="chip-hour", date="2020-01-01", provider="P", accelerator="a100", estimate=False
):
    return Price(
        accelerator, provider, tier, usd, unit, date, f"https://example.com/{provider}/{date}", estimate=estimate
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Intel-HabanaLabs", "intel-habanalabs"),
        ("Acme", "acme"),
        ("NVIDIA + Microsoft", "nvidia-microsoft"),
        ("  Université de Montréal ", "universit-de-montr-al"),
        ("a__b--c", "a-b-c"),
    ],
)
def test_slug(text, expected):
    assert slug(text) == expected


@pytest.mark.parametrize(
    "count, unit, accelerator, expected",
    [
        (2048, "chip", TPU_V3, 2048),
        (16, "device", TPU_V3, 64),
        (512, "core", TPU_V3, 256),
        (8, "chip", A100, 8),
        (1, "device", IPU, 4),
    ],
)
def test_chips(count, unit, accelerator, expected):
    assert chips(count, unit, accelerator) == expected


def test_chips_refuses_cores_for_a_part_not_counted_in_cores():
    with pytest.raises(ValueError):
        chips(8, "core", A100)


@pytest.mark.parametrize(
    "n_chips, minutes, expected",
    [(4320, 0.347, 24.984), (64, 4.534, 4.836266667), (2048, 1196.638, 40845.24373), (64, 5760, 6144)],
)
def test_chip_hours(n_chips, minutes, expected):
    assert chip_hours(n_chips, minutes) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    "prices, date, expected_usd, later",
    [
        # latest on or before the date
        (
            [price(usd=3, date="2019-01-01"), price(usd=2, date="2020-06-01"), price(usd=1, date="2022-01-01")],
            "2021-01-01",
            2,
            False,
        ),
        # on the date itself counts as in force
        ([price(usd=3, date="2021-01-01"), price(usd=1, date="2022-01-01")], "2021-01-01", 3, False),
        # none before: the earliest later, flagged
        ([price(usd=5, date="2023-01-01"), price(usd=4, date="2022-01-01")], "2021-01-01", 4, True),
        # lowest among providers
        ([price(usd=4.10, provider="AWS"), price(usd=2.93, provider="GCP")], "2021-01-01", 2.93, False),
        # a provider in force beats a cheaper one only dated later
        (
            [price(usd=4.10, provider="AWS"), price(usd=1.0, provider="GCP", date="2023-01-01")],
            "2021-01-01",
            4.10,
            False,
        ),
        # none in force: the earliest later price overall, not a cheaper one from years later
        (
            [
                price(usd=4.10, provider="Azure", date="2022-04-15"),
                price(usd=1.50, provider="Lambda", date="2023-06-01"),
            ],
            "2021-12-01",
            4.10,
            True,
        ),
        # several prices from one provider on one day (regions): the lowest
        (
            [price(usd=2.20, provider="GCP", date="2018-10-11"), price(usd=2.00, provider="GCP", date="2018-10-11")],
            "2019-01-01",
            2.00,
            False,
        ),
        # a provider's old price no longer in force does not count
        (
            [
                price(usd=1.0, provider="A", date="2018-01-01"),
                price(usd=3.0, provider="A", date="2020-01-01"),
                price(usd=2.0, provider="B", date="2019-01-01"),
            ],
            "2021-01-01",
            2.0,
            False,
        ),
        # other tiers and accelerators are ignored
        ([price(tier="spot", usd=0.5), price(usd=9, accelerator="other")], "2021-01-01", None, None),
    ],
)
def test_price_in_force(prices, date, expected_usd, later):
    choice = price_in_force(prices, A100, "on-demand", date)
    if expected_usd is None:
        assert choice is None
    else:
        assert choice.per_chip_hour == pytest.approx(expected_usd)
        assert choice.later_than_result is later


@pytest.mark.parametrize(
    "unit, usd, expected_per_chip_hour",
    [("device-hour", 8.00, 2.00), ("core-hour", 1.0, 2.0), ("chip-hour", 2.0, 2.0)],
)
def test_price_units_convert_to_chip_hours(unit, usd, expected_per_chip_hour):
    choice = price_in_force([price(unit=unit, usd=usd, accelerator="tpu-v3")], TPU_V3, "on-demand", "2020-01-01")
    assert choice.per_chip_hour == pytest.approx(expected_per_chip_hour)


TPU_V3_PRICES = [
    price(accelerator="tpu-v3", usd=8.00, unit="device-hour", date="2019-07-01"),
    price(accelerator="tpu-v3", tier="spot", usd=2.40, unit="device-hour", date="2018-01-01"),
    price(accelerator="tpu-v3", tier="purchase", usd=5000, unit="chip", date="2018-05-18", estimate=True),
]


@pytest.mark.parametrize(
    "tier, cost_usd, price_after_result, price_estimate, cost_missing_reason",
    [
        ("on-demand", 12288, True, False, None),  # the only price is dated after the result
        ("spot", 6144 * 0.6, False, False, None),
        ("1-year", None, None, None, "no 1-year price for TPU v3 in the catalog"),
        ("3-year", None, None, None, "no 3-year price for TPU v3 in the catalog"),
        ("purchase", 64 * 5000, False, True, None),  # an estimated purchase price
    ],
)
def test_costs_of_every_tier_say_one_thing_per_field(
    tier, cost_usd, price_after_result, price_estimate, cost_missing_reason
):
    cost = {c.tier: c for c in costs(TPU_V3_PRICES, TPU_V3, 64, 6144, "2018-10-11")}[tier]
    assert cost.cost_usd == (None if cost_usd is None else pytest.approx(cost_usd))
    assert cost.price_after_result is price_after_result
    assert cost.price_estimate is price_estimate
    assert cost.cost_missing_reason == cost_missing_reason
    assert (cost.usd_per_chip_hour is None) == (tier == "purchase" or cost_usd is None)


def test_costs_without_any_price_give_the_accelerators_reason():
    result = costs([], IPU, 256, 16.2, "2021-12-01")
    assert all(c.cost_usd is None and c.cost_missing_reason == "no public price" for c in result)
    assert all(c.price_after_result is None and c.price_estimate is None for c in result)


@pytest.mark.parametrize(
    "tier, cost, expected",
    [
        ("spot", {"cost_usd": None, "cost_missing_reason": "no public price"}, "no public price"),
        ("spot", {"cost_usd": 1.0, "price_after_result": False, "price_date": "2018-01-01"}, None),
        (
            "on-demand",
            {"cost_usd": 1.0, "price_after_result": True, "price_date": "2019-07-01"},
            "no price dated on or before 2018-10-11: the earliest later price (2019-07-01) is used",
        ),
        (
            "purchase",
            {"cost_usd": 1.0, "price_after_result": False, "price_date": "2018-05-18"},
            "purchase price of the chips used (capital cost, not amortized over a run)",
        ),
        (
            "purchase",
            {"cost_usd": 1.0, "price_after_result": True, "price_date": "2019-01-01"},
            "no price dated on or before 2018-10-11: the earliest later price (2019-01-01) is used; "
            "purchase price of the chips used (capital cost, not amortized over a run)",
        ),
    ],
)
def test_cost_note_puts_the_fields_in_words(tier, cost, expected):
    assert cost_note(tier, "2018-10-11", cost) == expected


@pytest.mark.parametrize(
    "runs, fastest, slowest, expected",
    [
        ([3.338, 3.329, 3.501, 3.4, 3.3], 1, 1, (3.338 + 3.329 + 3.4) / 3),
        ([5, 1, 3, 2, 4], 1, 1, 3.0),
        ([1, 2, 3, None, 5], 1, 1, (2 + 3 + 5) / 3),  # the failed run is the slowest, dropped
        ([1, 2, None, None, 5], 1, 1, None),  # two failures, only one may be dropped
        (list(range(1, 41)), 4, 4, sum(range(5, 37)) / 32),
        ([7.0], 0, 0, 7.0),
    ],
)
def test_olympic_mean(runs, fastest, slowest, expected):
    result = olympic_mean(runs, fastest, slowest)
    assert (result is None) if expected is None else result == pytest.approx(expected)


@pytest.mark.parametrize(
    "runs, fastest, slowest, expected",
    [
        ([5, 1, 3, 2, 4], 1, 1, ["slowest", "fastest", None, None, None]),
        ([1, 2, 3, None, 5], 1, 1, ["fastest", None, None, "failed", None]),  # takes the slowest's place
        ([1, 2, None, None, 5], 1, 1, ["fastest", None, "failed", "failed", None]),  # too many: no mean
        ([2, 2, 2], 1, 1, ["fastest", None, "slowest"]),  # of equal times the earlier is faster
        ([3, 1, 2, 4], 0, 0, [None, None, None, None]),
        ([3, None, 2, 4], 0, 0, [None, "failed", None, None]),  # a failed run never counts
        ([6, 1, None, 5, 2, 4, 3, 8], 1, 4, ["slowest", "fastest", "failed", "slowest", None, None, None, "slowest"]),
        ([7.0], 0, 0, [None]),
        ([], 1, 1, []),
    ],
)
def test_dropped_runs(runs, fastest, slowest, expected):
    assert dropped_runs(runs, fastest, slowest) == expected


@pytest.mark.parametrize(
    "qualities, drops, direction, expected",
    [
        # The dropped fastest run reached only 0.7501: the counted runs' worst is 0.752.
        ([0.7501, 0.755, 0.752, 0.760, 0.753], ["fastest", None, None, "slowest", None], "higher", 0.752),
        # The dropped slowest run is the worst of all; it does not count either.
        ([0.76, 0.755, 0.752, 0.7500, 0.753], ["fastest", None, None, "slowest", None], "higher", 0.752),
        # A failed run's quality (its last evaluation) never counts.
        ([0.70, 0.755, 0.752, 0.76, 0.753], ["failed", None, None, "fastest", None], "higher", 0.752),
        # Lower is better (CosmoFlow's MAE, Stable Diffusion's FID): the worst is the largest.
        ([0.120, 0.123, 0.121, 0.124, 0.110], ["slowest", None, None, None, "fastest"], "lower", 0.124),
        ([0.5, 0.6], [None, None], "higher", 0.5),
        ([None, 0.6, 0.55], [None, None, "slowest"], "higher", 0.6),  # a counted run without quality is skipped
        ([0.5, None], ["fastest", None], "higher", None),  # no counted run has a quality
        ([], [], "higher", None),
    ],
)
def test_worst_counted_quality(qualities, drops, direction, expected):
    assert worst_counted_quality(qualities, drops, direction) == expected


@pytest.mark.parametrize(
    "value, scale, logged",
    [
        (0.218, 100, 21.8),  # GNMT v0.5's target, as its logs write BLEU (not 21.799999999999997)
        (0.24, 100, 24.0),
        (0.25, 100, 25.0),
        (0.21799999237060547, 100, 21.799999237060547),  # float32(21.8) as logged, exactly back
        (0.759, 1.0, 0.759),
    ],
)
def test_to_logged_and_back(value, scale, logged):
    assert to_logged(value, scale) == logged
    assert from_logged(logged, scale) == value


@pytest.mark.parametrize(
    "quality, target, direction, scale, expected",
    [
        (21.799999237060547, 21.8, "higher", 1.0, True),  # float32 of the target reaches it
        (0.21799999237060547, 0.218, "higher", 100, True),  # the same, stored 0-1: compared as logged
        (0.21799999237060547, 0.218, "higher", 1.0, False),  # ... not on the stored scale
        (0.2179, 0.218, "higher", 100, False),
        (0.2401, 0.24, "higher", 100, True),
        (0.125, 0.124, "lower", 1.0, False),
        (0.124, 0.124, "lower", 1.0, True),
    ],
)
def test_reaches_target_as_logged(quality, target, direction, scale, expected):
    assert reaches_target(quality, target, direction, scale) is expected


@pytest.mark.parametrize(
    "values, expected",
    [([0.35, 4.5, 3.4], [1, 3, 2]), ([2, 1, 2, 3], [2, 1, 2, 4]), ([1, None, 0.5], [2, None, 1]), ([], [])],
)
def test_competition_ranks(values, expected):
    assert competition_ranks(values) == expected


@pytest.mark.parametrize(
    "quality, target, direction, expected",
    [
        (0.76, 0.759, "higher", True),
        (0.759, 0.759, "higher", True),
        (0.75, 0.759, "higher", False),
        (0.055, 0.058, "lower", True),
        (0.06, 0.058, "lower", False),
    ],
)
def test_reaches_target(quality, target, direction, expected):
    assert reaches_target(quality, target, direction) is expected
    assert not math.isnan(target)


@pytest.mark.parametrize(
    "file, base, shown",
    [
        ("project/submissions/r/org/a.yaml", "project", "submissions/r/org/a.yaml"),
        ("linked/org/a.yaml", "project", "submissions/r/org/a.yaml"),  # through a link to a folder
        ("elsewhere/a.yaml", "project", "{tmp}/elsewhere/a.yaml"),  # outside: as given
        ("project-two/a.yaml", "project", "{tmp}/project-two/a.yaml"),  # a name that only starts alike
        ("project/submissions/r/org/a.yaml", None, "{tmp}/project/submissions/r/org/a.yaml"),
        ("project/submissions/r/org/a.yaml", "/", "{tmp}/project/submissions/r/org/a.yaml"),
    ],
)
def test_a_submission_file_is_shown_relative_to_the_project(tmp_path, file, base, shown):
    from leaderboard.rows import _display
    from leaderboard.tree import real_folder

    real_folder.cache_clear()
    tmp = tmp_path.resolve()
    (tmp / "project/submissions/r/org").mkdir(parents=True)
    (tmp / "elsewhere").mkdir()
    (tmp / "project-two").mkdir()
    (tmp / "linked").symlink_to(tmp / "project/submissions/r")
    folder = None if base is None else Path(base) if base == "/" else tmp / base
    expected = shown.format(tmp=tmp).lstrip("/") if base == "/" else shown.format(tmp=tmp)
    assert _display(str(tmp / file), folder) == expected
