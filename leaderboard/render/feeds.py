"""What feed readers read: the Atom feed of the newest results and the records they set, one
per family too (the sitemap for crawlers is in sitemap.py)."""

from __future__ import annotations

from leaderboard.families import family
from leaderboard.render import model
from leaderboard.render.writer import SiteWriter


def family_feed_path(kind: str) -> str:
    return f"feeds/{kind}.xml"


def write_feed(site: SiteWriter) -> None:
    """feed.xml of every family, and feeds/<kind>.xml of each family with results: a reader who
    follows MLPerf HPC is not buried under the newest MLPerf Training results."""
    data = site.data
    template = site.env.get_template("feed.xml")
    # Without a base URL the links stay relative: Atom resolves them against the feed's own
    # address (RFC 4287 section 2, RFC 3986 section 5.1), right wherever the site is served from.
    feeds = {"feed.xml": (None, data.results)}
    for kind in sorted({row["round_kind"] for row in data.results}):
        feeds[family_feed_path(kind)] = (kind, [row for row in data.results if row["round_kind"] == kind])
    for path, (kind, rows) in feeds.items():
        root = site.base_url or "../" * path.count("/")
        newest = max((row["date"] for row in rows), default=data.newest_date)
        items = _feed_items(rows)
        label = family(kind).label if kind else None
        text = template.render(root=root, newest_date=newest, items=items, feed_path=path, family_label=label)
        site.write(path, text)


FEED_ITEMS = 200  # the newest items only: the feed stays small however many results there are


def _feed_items(results: list[dict]) -> list[dict]:
    items = [{"kind": "entry", "row": row, "date": row["date"], "id": f"entry/{row['entry_id']}"} for row in results]
    items += [
        {"kind": "record", "row": row, "date": row["date"], "id": f"record/{row['entry_id']}"}
        for row in model.record_history(results)
    ]
    items.sort(key=lambda i: (i["date"], i["kind"] == "record", i["id"]), reverse=True)
    return items[:FEED_ITEMS]
