"""Bounds no real result crosses, checked on every submission: its date (an MLPerf result is
dated by its round; none is dated before 2000, or years before its accelerator was released,
and none that says it is available predates the release), its machine's size (at most a
million chips, ten times the largest machine in the shipped data) and its time (at least a
second: the fastest shipped result trained in 7 seconds).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from leaderboard.catalog import Accelerator, Round
from leaderboard.families import family
from leaderboard.files import Document
from leaderboard.normalize import chips
from leaderboard.problems import Problem

EARLIEST = "2000-01-01"  # before any accelerator in the catalog, or any published training run in it
# A preview or research system may publish before its part's release (Google's TPU v4 in
# MLPerf Training v0.7: 295 days before); two years before is a wrong date or a wrong part.
BEFORE_RELEASE_DAYS = 730
MAX_CHIPS = 1_000_000  # the largest shipped result has 100,000 chips
# No training run reaches a quality target in under a second: the fastest shipped result takes
# 7.2 s (NVIDIA's 3,472-GPU BERT, 0.119 minutes); a time of 1e-300 minutes would take every
# record with no chip-hours at all.
MIN_MINUTES = 1 / 60


def date_problems(
    doc: Document, date: dt.date, round_: Round | None, accelerator: Accelerator | None
) -> Iterator[Problem]:
    data = doc.data
    if data["date"] < EARLIEST:
        yield doc.problem(
            ("date",),
            f"date {data['date']} is before {EARLIEST}, earlier than any training result the leaderboard holds",
            "give the result's publication date, YYYY-MM-DD",
        )
        return
    if round_ is not None and family(round_.kind).round_rules and data["date"] != round_.date:
        yield doc.problem(
            ("date",),
            f"date {data['date']} is not the day {round_.name} was published ({round_.date})",
            f'an MLPerf result is dated by its round: date: "{round_.date}"',
        )
    released = accelerator.release_date if accelerator is not None else None
    if not released:
        return
    if data["availability"] == "available" and data["date"] < released:
        yield doc.problem(
            ("date",),
            f"date {data['date']} is before the {accelerator.name} was released ({released})",
            "check the date and system.accelerator; a system not yet released is availability: preview or research",
        )
    elif (dt.date.fromisoformat(released) - date).days > BEFORE_RELEASE_DAYS:
        yield doc.problem(
            ("date",),
            f"date {data['date']} is more than {BEFORE_RELEASE_DAYS // 365} years before the {accelerator.name} "
            f"was released ({released}), even for a preview or research system",
            "check the date and system.accelerator",
        )


def size_problems(doc: Document, accelerator: Accelerator | None) -> Iterator[Problem]:
    system = doc.data["system"]
    if accelerator is None:
        return
    try:
        count = chips(system["count"], system.get("unit", "chip"), accelerator)
    except ValueError:
        return  # a unit the part is not counted in: reported by validate
    if count > MAX_CHIPS:
        yield doc.problem(
            ("system", "count"),
            f"{count:,.0f} chips is more than {MAX_CHIPS:,}, ten times the largest machine the leaderboard holds",
            "check system.count and system.unit (chip, core or device)",
        )


def time_problems(doc: Document) -> Iterator[Problem]:
    """`result.minutes` and every run's minutes at least MIN_MINUTES (a second)."""
    result = doc.data["result"]
    values = [(("result", "minutes"), result.get("minutes"))]
    values += [(("result", "runs_minutes", i), v) for i, v in enumerate(result.get("runs_minutes") or [])]
    for path, value in values:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < MIN_MINUTES:
            yield doc.problem(
                path,
                f"{value:g} minutes is less than a second, faster than any training run to a quality target "
                "(the fastest the leaderboard holds took 7 seconds)",
                "give the time in minutes (90 seconds is 1.5)",
            )
