"""Accelerator and submitter pages: a result's every board and division, never ranked across them."""

from __future__ import annotations

from leaderboard.families import family
from leaderboard.normalize import DEFAULT_TIER
from leaderboard.problems import plural
from leaderboard.render import model
from leaderboard.render import prices as site_prices
from leaderboard.render.model import SiteData
from leaderboard.render.writer import SiteWriter

# Accelerator and submitter pages show at most this many rows of each board and division
# (the best ranked): every result stays reachable on its leaderboard and entry page.
GROUP_ROWS = 50
# An accelerator's or submitter's tables show at most this many rows together: at 100,000
# results one page held 7,305 (4.3 MB); the largest shipped one holds 617 (0.34 MB).
PAGE_TABLE_ROWS = 2_500


def write_pages(site: SiteWriter) -> None:
    _accelerator_pages(site)
    _submitter_pages(site)


def _grouped(rows: list[dict], data: SiteData) -> list[dict]:
    """Rows grouped by board and division (never ranked across them), in board order."""
    order = data.board_order
    groups: dict[tuple, dict] = {}
    for row in rows:
        place = order[f"{row['round']}/{row['benchmark']}"]
        board = data.boards[place]
        key = (place, list(board.divisions).index(row["division"]))
        group = groups.setdefault(
            key,
            {"board": board, "division": row["division"], "rows": [], "size": len(board.divisions[row["division"]])},
        )
        group["rows"].append(row)
    shown = rows_per_group([len(g["rows"]) for g in groups.values()])
    for group in groups.values():
        group["rows"].sort(key=lambda r: (r["board_rank"] is None, r["board_rank"] or 0, r["entry_id"]))
        group["count"] = len(group["rows"])
        group["rows"] = [shown_in_small_table(r) for r in group["rows"][:shown]]
        group["heading"], group["caption"] = group_words(group)
        # What the page shows of the board (its link, its round's kind), not its rows: the page's
        # reuse key then changes with what its tables show, not with any row of the board.
        group["board"] = group["board"].heading
    return [groups[key] for key in sorted(groups)]


def rows_per_group(counts: list[int], most: int = GROUP_ROWS, budget: int = PAGE_TABLE_ROWS) -> int:
    """How many rows each of a page's tables shows (the best of its group; a caption says so and
    the leaderboard has them all): `most`, or fewer, the same for every table and at least one,
    where the tables would pass `budget` rows together."""
    shown = most
    while shown > 1 and sum(min(count, shown) for count in counts) > budget:
        shown -= 1
    return shown


def group_words(group: dict) -> tuple[str, str]:
    """A group's heading ('BERT, MLPerf Training v1.0, closed division'; no division where the
    family has none: published runs) and its table's caption: how many of the division's
    results it holds, and how many of those the rank counts."""
    board, division = group["board"], group["division"]
    heading = f"{board.benchmark['name']}, {board.round['name']}"
    if family(board.round["kind"]).divisions:
        heading += f", {division} division"
    results = board.divisions[division]
    ranked = board.ranked[division]
    caption = f"{heading}: {group['count']:,} of {plural(group['size'], 'result')}"
    if group["count"] > len(group["rows"]):
        caption += f", the best {len(group['rows']):,} shown (all on the leaderboard)"
    label = model.RANK_METRIC_LABEL[board.rank_metric]
    among = "all of them" if ranked == len(results) else f"the {ranked:,} with a rank"
    return heading, f"{caption}; rank by {label} among {among}"


# What a row of small_table (macros.html) shows of a result, the default tier's cost among them.
SMALL_TABLE_FIELDS = (
    "board_rank",
    "submitter",
    "submitter_path",
    "system",
    "path",
    "verified_note",
    "republished_note",
    "republished_path",
    "estimated",
    "accelerator_name",
    "accelerator_path",
    "chips",
    "cpu_only",  # processors counted as the chips: the count says CPUs
    "minutes",
    "models",  # weak scaling (MLPerf HPC): what its rank is by
    "models_per_minute",
    "chip_hours",
    "availability",
)


def shown_in_small_table(row: dict) -> dict:
    """The part of a result a group's table shows: a page's reuse key hashes what it is drawn from,
    and each result's every column, run and progress point is many times what its table row shows
    (the template stops at any field it lacks)."""
    return {**{name: row[name] for name in SMALL_TABLE_FIELDS}, "costs": {DEFAULT_TIER: row["costs"][DEFAULT_TIER]}}


def used_accelerators(data: SiteData) -> list[dict]:
    counts: dict[str, int] = {}
    for row in data.results:
        counts[row["accelerator"]] = counts.get(row["accelerator"], 0) + 1
    return [
        {**a, "results": counts[a["id"]], "path": model.accelerator_path(a["id"])}
        for a in sorted(data.accelerators.values(), key=lambda a: a["name"])
        if a["id"] in counts
    ]


def submitters(data: SiteData) -> list[dict]:
    """Each organization's page: its name ("title"), the names its results were published under,
    what the catalog says of them ("note", "source": catalog/organizations.yaml), its number of
    results and (under "rows", for grouping) its results."""
    by_path: dict[str, dict] = {}
    for row in data.results:
        path = row["submitter_path"]
        entry = by_path.setdefault(path, {"organizations": set(), "names": set(), "path": path, "rows": []})
        entry["organizations"].add(row.get("organization") or row["submitter"])
        entry["names"].add(row["submitter"])
        entry["rows"].append(row)
    pages = []
    for s in sorted(by_path.values(), key=lambda s: s["path"]):
        organizations = sorted(s.pop("organizations"))
        known = [data.organizations[o] for o in organizations if o in data.organizations]
        pages.append(
            {
                **s,
                "title": " / ".join(organizations),
                "names": sorted(s["names"]),
                "note": " ".join(o["note"] for o in known if o.get("note")) or None,
                "sources": [o["source"] for o in known if o.get("source")],
                "count": len(s["rows"]),
            }
        )
    return pages


def moved_submitter_pages(data: SiteData) -> dict[str, tuple[str, str]]:
    """The page each other name of an organization had before pages were one an organization
    (submitters/dell-emc.html) -> (the organization's page, that name), for links made before."""
    moved: dict[str, tuple[str, str]] = {}
    for row in data.results:
        own = model.submitter_path(row["submitter"])
        if own != row["submitter_path"]:
            moved.setdefault(own, (row["submitter_path"], row["submitter"]))
    pages = {row["submitter_path"] for row in data.results}
    return {old: moved[old] for old in sorted(moved) if old not in pages}


def without_rows(submitter: dict) -> dict:
    """What a page shows of a submitter: its rows are drawn in groups, and hashing them all
    again for every page that names the submitter is a noticeable part of a rebuild."""
    return {k: v for k, v in submitter.items() if k != "rows"}


def _accelerator_pages(site: SiteWriter) -> None:
    data = site.data
    results: dict[str, list[dict]] = {}
    for row in data.results:  # in the site's order, as each page lists them
        results.setdefault(row["accelerator"], []).append(row)
    all_prices: dict[str, list[dict]] = {}
    for price in data.prices:
        all_prices.setdefault(price["accelerator"], []).append(price)
    for accelerator in used_accelerators(data):
        rows, prices = results.get(accelerator["id"], []), all_prices.get(accelerator["id"], [])
        site.page(
            accelerator["path"],
            "accelerator.html",
            accelerator=accelerator,
            prices=prices,
            groups=_grouped(rows, data),
            # The accelerator compare page holds the parts with results followed across rounds.
            compared=any(family(r["round_kind"]).lineages for r in rows),
            price_coverage=site_prices.coverage(prices),
            price_anomalies=data.price_anomalies.get(accelerator["id"], []),
            later_prices=site_prices.later_price_count(rows),
            result_count=len(rows),
            cpu_results=sum(1 for r in rows if r["cpu_only"]),  # a CPU's results count processors
        )


def _submitter_pages(site: SiteWriter) -> None:
    pages = submitters(site.data)
    for submitter in pages:
        site.page(
            submitter["path"],
            "submitter.html",
            submitter=without_rows(submitter),
            groups=_grouped(submitter["rows"], site.data),
        )
    titles = {s["path"]: s["title"] for s in pages}
    for old, (new, name) in moved_submitter_pages(site.data).items():
        # Not a page of the site (the sitemap leaves it out): a pointer to where its results are.
        site.unlisted_page(
            old, "moved.html", target=new, title=titles[new], name=name, canonical=site.absolute_url(new)
        )
