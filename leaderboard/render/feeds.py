"""The Atom feed: the newest results and the records they set."""

from __future__ import annotations

from leaderboard.render import model
from leaderboard.render.model import SiteData
from leaderboard.render.writer import SiteWriter


def write_feed(site: SiteWriter) -> None:
    data = site.data
    site.write(
        "feed.xml",
        site.env.get_template("feed.xml").render(root="", newest_date=data.newest_date, items=_feed_items(data)),
    )


FEED_ITEMS = 200  # the newest items only: the feed stays small however many results there are


def _feed_items(data: SiteData) -> list[dict]:
    items = [
        {"kind": "entry", "row": row, "date": row["date"], "id": f"entry/{row['entry_id']}"} for row in data.results
    ]
    items += [
        {"kind": "record", "row": row, "date": row["date"], "id": f"record/{row['entry_id']}"}
        for row in model.record_history(data.results)
    ]
    items.sort(key=lambda i: (i["date"], i["kind"] == "record", i["id"]), reverse=True)
    return items[:FEED_ITEMS]
