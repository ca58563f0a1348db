"""Bounds no real result crosses, checked on every submission: its date (an MLPerf result is
dated by its round; none is dated before 2000, or years before its accelerator was released,
and none that says it is available predates the release) and its machine's size (at most a
million chips, ten times the largest machine in the shipped data).
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
