"""What feed readers read: the Atom feed of the newest results and the records they set, one
per family too (the sitemap for crawlers is in sitemap.py)."""

from __future__ import annotations

import re

from leaderboard.families import family
from leaderboard.render import model
from leaderboard.render.cells import chip_count
from leaderboard.render.writer import SiteWriter


def family_feed_path(kind: str) -> str:
    return f"feeds/{kind}.xml"


def write_feed(site: SiteWriter) -> None:
    """feed.xml of every family, and feeds/<kind>.xml of each family with results: a reader who
    follows MLPerf HPC is not buried under the newest MLPerf Training results."""
    data = site.data
    # Without a base URL the links stay relative: Atom resolves them against the feed's own
    # address (RFC 4287 section 2, RFC 3986 section 5.1), right wherever the site is served from.
    feeds = {"feed.xml": (None, data.results)}
    for kind in sorted({row["round_kind"] for row in data.results}):
        feeds[family_feed_path(kind)] = (kind, [row for row in data.results if row["round_kind"] == kind])
    for path, (kind, rows) in feeds.items():
        root = site.base_url or "../" * path.count("/")
        newest = max((row["date"] for row in rows), default=data.newest_date)
        items = _feed_items(rows)
        rounds = {r["id"]: r["name"] for r in data.rounds}
        for item in items:
            row = item["row"]
            names = (rounds.get(row["round"], row["round"]), data.benchmarks.get(row["benchmark"], {}).get("name"))
            item["title"] = feed_title(item["kind"], row, *names)
            item["context"] = feed_context(row, *names)
        label = family(kind).label if kind else None
        context = {"root": root, "newest_date": newest, "items": items, "feed_path": path, "family_label": label}
        site.rendered(path, "feed.xml", context)


FEED_ITEMS = 200  # the newest items only: the feed stays small however many results there are


def _feed_items(results: list[dict]) -> list[dict]:
    items = [{"kind": "entry", "row": row, "date": row["date"], "id": f"entry/{row['entry_id']}"} for row in results]
    items += [
        {"kind": "record", "row": row, "date": row["date"], "id": f"record/{row['entry_id']}"}
        for row in model.record_history(results)
    ]
    items.sort(key=lambda i: (i["date"], i["kind"] == "record", i["id"]), reverse=True)
    return items[:FEED_ITEMS]


def system_name(system: str, entry_id: str) -> str:
    """The system's name without the system file id the importer appends when two files share a
    name ("Tyche (1x NVIDIA GB200 NVL72) (tyche_ngpu64_ngc25.03_hugectr)"): readers know the name."""
    stem = entry_id.rsplit("/", 1)[-1]
    found = re.fullmatch(r"(.+) \(([^()\s]+)\)", system)
    if found and stem.startswith(found.group(2) + "-"):
        return found.group(1)
    return system


# Only a ranked result holds a record: a faster republished one is no new measurement.
RECORD_WORDS = {
    "minutes": "Fastest ranked result",
    "chip_hours": "Ranked run with the fewest chip-hours",
    "models_per_minute": "Ranked result with the most models per minute",
}


def feed_title(kind: str, row: dict, round_name: str, benchmark_name: str | None) -> str:
    """An item's title in names, never ids: what is new, the system (a published run's model),
    who, how many chips, the benchmark and round, and the division where the family has them."""
    fam = family(row["round_kind"])
    if kind == "record":
        # An MLPerf round's results share its date: its record is the round's best, not an all-time one.
        what = RECORD_WORDS.get(row.get("record_metric", "minutes"), "Best ranked result")
        what += " in its round" if fam.round_rules else " so far"
    else:
        what = "Republished result" if row.get("republished_note") else "New result"
        what += " (self-reported)" if row.get("verified_note") else ""
    name = (row.get("model_name") if fam.model_runs else None) or system_name(row["system"], row["entry_id"])
    return f"{what}: {name} ({row['submitter']}), {feed_context(row, round_name, benchmark_name)}"


def feed_context(row: dict, round_name: str, benchmark_name: str | None) -> str:
    """ "1,024 chips, ResNet-50, MLPerf Training v0.6, closed division" ("82,944 CPUs" for a system
    of processors alone): the division only where the family has divisions (a published run has none)."""
    parts = [chip_count(row), benchmark_name or row["benchmark"], round_name]
    if family(row["round_kind"]).divisions:
        parts.append(f"{row['division']} division")
    return ", ".join(parts)
