"""Checks of catalog files item by item, apart from the catalog they make (catalog.py runs them):
real dates, prices dated before their part's release, and rounds that only MLCommons' families
may name MLPerf."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from leaderboard.problems import Problem

CATALOG_DATES = (("rounds", "rounds", "date"), ("accelerators", "accelerators", "release_date"))


def unreal_dates(data: dict[str, Any]) -> list[Problem]:
    documents = [(key, name, data[file]) for file, key, name in CATALOG_DATES if file in data]
    documents += [("prices", "date", price_doc) for price_doc in data.get("prices", [])]
    problems = []
    for key, name, (doc, content) in documents:
        for i, item in enumerate(content[key]):
            if item.get(name) is not None and not real_date(item[name]):
                problems.append(doc.problem((key, i, name), f"{item[name]!r} is not a real date"))
    return problems


def real_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


BEFORE_RELEASE_HINT = (
    "no one sells a part before it exists: check the date and the accelerator; when the source itself "
    "dates it so (a year without a day, an estimate), say why in date_before_release for a maintainer to review"
)


def before_release(doc, index: int, item: dict, accelerator: Any) -> list[Problem]:
    """A price dated before its accelerator's release date is refused, unless it says why."""
    release = accelerator.release_date
    if release is None or item["date"] >= release or item.get("date_before_release"):
        return []
    message = f"price dated {item['date']}, before {accelerator.id} was released ({release})"
    return [doc.problem(("prices", index, "date"), message, BEFORE_RELEASE_HINT)]


def round_names(doc, rounds: list[dict]) -> list[Problem]:
    """MLPerf® is MLCommons' trademark, and a board's name says whose results it holds: a round
    named MLPerf (in its name or its id) is of an MLPerf kind (mlperf-training, mlperf-hpc), whose
    results are recomputed from MLCommons' logs, never a round of published or other runs."""
    problems = []
    for i, item in enumerate(rounds):
        if item["kind"].startswith("mlperf-"):
            continue
        for field in ("name", "id"):
            if "mlperf" in re.sub(r"[\W_]", "", str(item[field]).casefold()):
                problems.append(
                    doc.problem(
                        ("rounds", i, field),
                        f"round {item['id']!r} of kind {item['kind']} is named MLPerf ({item[field]!r}): "
                        "only MLCommons' rounds (kind mlperf-training or mlperf-hpc) are",
                        "MLPerf is MLCommons' trademark: name the round after the source of its results",
                    )
                )
                break
    return problems
