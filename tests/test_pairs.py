"""The pair the accelerator compare page shows per benchmark lineage: the same benchmark, trusted
results, the same or nearest chip count, the nearest rounds (pure functions, one row per case)."""

from __future__ import annotations

import pytest

from leaderboard.render import pairs

DATES = {"r1": "2020-01-01", "r2": "2020-07-01", "r3": "2021-01-01", "r4": "2022-01-01"}


def result(
    id_, round_, chips, minutes, segment="bert@0.72", division="closed", availability="available", verified=True
):
    return {
        "id": id_,
        "round": round_,
        "chips": chips,
        "minutes": minutes,
        "segment": segment,
        "division": division,
        "availability": availability,
        "verified": verified,
        "ranked": verified,
    }


CASES = [
    # (why, first accelerator's results, second's, expected pair of ids)
    (
        "a matched scale in adjacent rounds beats mismatched scales in one round",
        [result("a-r2-8", "r2", 8, 20.0), result("a-r3-64", "r3", 64, 3.0)],
        [result("b-r3-8", "r3", 8, 10.0), result("b-r3-512", "r3", 512, 1.0)],
        ("a-r2-8", "b-r3-8"),
    ),
    (
        "in one round at one scale, the fastest of each",
        [result("a-slow", "r3", 8, 30.0), result("a-fast", "r3", 8, 20.0)],
        [result("b-fast", "r3", 8, 9.0), result("b-slow", "r3", 8, 12.0)],
        ("a-fast", "b-fast"),
    ),
    (
        "same scale in two rounds each: the nearest rounds, then the newest",
        [result("a-r1", "r1", 8, 20.0), result("a-r3", "r3", 8, 18.0)],
        [result("b-r1", "r1", 8, 10.0), result("b-r3", "r3", 8, 9.0)],
        ("a-r3", "b-r3"),
    ),
    (
        "several shared scales in one round: the larger",
        [result("a-8", "r3", 8, 20.0), result("a-64", "r3", 64, 3.0)],
        [result("b-8", "r3", 8, 10.0), result("b-64", "r3", 64, 2.0)],
        ("a-64", "b-64"),
    ),
    (
        "no shared scale: the nearest (ratio), 64 and 128 before 64 and 8",
        [result("a-64", "r3", 64, 3.0)],
        [result("b-8", "r3", 8, 10.0), result("b-128", "r4", 128, 1.0)],
        ("a-64", "b-128"),
    ),
    (
        "the same benchmark target before a matched scale",
        [result("a-old", "r1", 8, 20.0, segment="bert@0.712"), result("a-new", "r3", 64, 3.0)],
        [result("b-new", "r3", 8, 10.0)],
        ("a-new", "b-new"),
    ),
    (
        "a verified result before a self-reported one at the same scale",
        [result("a-8", "r3", 8, 20.0)],
        [result("b-self", "r3", 8, 1.0, verified=False), result("b-verified", "r1", 16, 12.0)],
        ("a-8", "b-verified"),
    ),
    (
        "closed and available before an open or research result at the same scale",
        [result("a-8", "r3", 8, 20.0)],
        [
            result("b-open", "r3", 8, 1.0, division="open"),
            result("b-research", "r3", 8, 2.0, availability="research"),
            result("b-closed", "r3", 16, 9.0),
        ],
        ("a-8", "b-closed"),
    ),
]


@pytest.mark.parametrize(("why", "rows_a", "rows_b", "expected"), CASES, ids=[c[0] for c in CASES])
def test_pick(why, rows_a, rows_b, expected):
    pair = pairs.pick(rows_a, rows_b, DATES)
    assert (pair.a["id"], pair.b["id"]) == expected, why


def test_pick_without_results_on_one_side():
    assert pairs.pick([result("a", "r1", 8, 1.0)], [], DATES) is None


@pytest.mark.parametrize(("a", "b", "expected"), [(8, 8, 0.0), (8, 16, 1.0), (64, 128, 1.0), (512, 64, 3.0)])
def test_chip_distance(a, b, expected):
    assert pairs.chip_distance(a, b) == expected


def test_pair_says_what_differs():
    pair = pairs.Pair(result("a", "r1", 8, 2.0), result("b", "r2", 8, 1.0, segment="bert@0.712"))
    assert (pair.same_scale, pair.same_round, pair.same_benchmark) == (True, False, False)


def _full_order(a: pairs.Side, b: pairs.Side) -> tuple:
    """The order pick() documents, worked out whole for every pair (what pick_among prunes)."""
    (ra, trust_a, far_a, day_a), (rb, trust_b, far_b, day_b) = a, b
    return (
        trust_a + trust_b,
        0 if ra["segment"] == rb["segment"] else 1,
        far_a + far_b,
        pairs.chip_distance(ra["chips"], rb["chips"]),
        abs(day_a - day_b),
        -max(day_a, day_b),
        -min(ra["chips"], rb["chips"]),
        ra["minutes"] + rb["minutes"],
        ra["id"],
        rb["id"],
    )


@pytest.mark.parametrize("seed", range(40))
def test_pick_among_chooses_the_pair_first_in_the_whole_order(seed):
    """Passing over pairs that lose on trust, benchmark and division never changes the choice:
    it is the pair a comparison of every pair's whole order picks (few values, so many ties)."""
    import random

    chance = random.Random(seed)

    def results(side: str) -> list[dict]:
        return [
            result(
                f"{side}{i}",
                chance.choice(list(DATES)),
                chance.choice([1, 8, 16, 64]),
                chance.choice([5.0, 10.0, 20.0]),
                segment=chance.choice(["bert@0.72", "bert@0.71"]),
                division=chance.choice(["closed", "open"]),
                availability=chance.choice(["available", "preview"]),
                verified=chance.random() < 0.7,
            )
            for i in range(chance.randint(1, 12))
        ]

    side_a, side_b = pairs.candidates(results("a"), DATES), pairs.candidates(results("b"), DATES)
    first = min((_full_order(a, b), a[0]["id"], b[0]["id"]) for a in side_a for b in side_b)
    chosen = pairs.pick_among(side_a, side_b)
    assert (chosen.a["id"], chosen.b["id"]) == first[1:]


SIDE = [result("a-r2-8", "r2", 8, 20.0), result("a-r3-64", "r3", 64, 3.0)]


@pytest.mark.parametrize(
    "field, value",
    [
        ("id", "a-other"),
        ("segment", "bert@0.73"),
        ("chips", 16),
        ("minutes", 19.5),
        ("verified", False),  # trust
        ("division", "open"),  # comparable or not
        ("round", "r1"),  # the round's day
    ],
)
def test_a_sides_key_changes_with_each_field_pick_among_reads(field, value):
    """side_key() keys the pairs a rebuild carries from the last (history.accelerator_pairs): a
    side whose key is unchanged must be one pick_among() sees as unchanged."""
    key = pairs.side_key(pairs.candidates(SIDE, DATES))
    assert pairs.side_key(pairs.candidates([dict(row) for row in SIDE], DATES)) == key
    changed = [{**SIDE[0], field: value}, SIDE[1]]
    assert pairs.side_key(pairs.candidates(changed, DATES)) != key
