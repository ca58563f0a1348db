"""What crawlers and feed readers read: the Atom feed of the newest results and the records
they set, one per family too; with a base URL, also sitemap.xml and robots.txt.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape

from leaderboard.families import family
from leaderboard.render import model
from leaderboard.render.writer import SiteWriter, number


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
        rounds = {r["id"]: r["name"] for r in data.rounds}
        for item in items:
            row = item["row"]
            names = (rounds.get(row["round"], row["round"]), data.benchmarks.get(row["benchmark"], {}).get("name"))
            item["title"] = feed_title(item["kind"], row, *names)
            item["context"] = feed_context(row, *names)
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


def system_name(system: str, entry_id: str) -> str:
    """The system's name without the system file id the importer appends when two files share a
    name ("Tyche (1x NVIDIA GB200 NVL72) (tyche_ngpu64_ngc25.03_hugectr)"): readers know the name."""
    stem = entry_id.rsplit("/", 1)[-1]
    found = re.fullmatch(r"(.+) \(([^()\s]+)\)", system)
    if found and stem.startswith(found.group(2) + "-"):
        return found.group(1)
    return system


def feed_title(kind: str, row: dict, round_name: str, benchmark_name: str | None) -> str:
    """An item's title in names, never ids: what is new, the system (a published run's model),
    who, how many chips, the benchmark and round, and the division where the family has them."""
    if kind == "record":
        what = "New record"
    else:
        what = "Republished result" if row.get("republished_note") else "New result"
        what += " (self-reported)" if row.get("verified_note") else ""
    fam = family(row["round_kind"])
    name = (row.get("model_name") if fam.model_runs else None) or system_name(row["system"], row["entry_id"])
    return f"{what}: {name} ({row['submitter']}), {feed_context(row, round_name, benchmark_name)}"


def feed_context(row: dict, round_name: str, benchmark_name: str | None) -> str:
    """ "1,024 chips, ResNet-50, MLPerf Training v0.6, closed division": the division only where
    the family has divisions (a published run has none)."""
    parts = [f"{number(row['chips'])} chips", benchmark_name or row["benchmark"], round_name]
    if family(row["round_kind"]).divisions:
        parts.append(f"{row['division']} division")
    return ", ".join(parts)


SITEMAP = "sitemap.xml"
SITEMAP_URLS = 50_000  # the most one sitemap may list (sitemaps.org); more go in several, with an index
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def write_sitemap(site: SiteWriter) -> None:
    """sitemap.xml of every HTML page written, and robots.txt naming it; nothing without a
    base URL, as a sitemap lists absolute addresses only. Call it once every page is written."""
    if site.base_url is None:
        return
    urls = [site.absolute_url(page) for page in sorted(set(site.pages))]
    for name, text in sitemap_files(site.base_url, urls, site.data.newest_date).items():
        site.write(name, text)
    # Crawlers read robots.txt at the host's root only: for a site in a subfolder, this one
    # is the line to copy there.
    site.write("robots.txt", f"User-agent: *\nDisallow:\n\nSitemap: {site.absolute_url(SITEMAP)}\n")


def sitemap_files(base_url: str, urls: list[str], lastmod: str, limit: int = SITEMAP_URLS) -> dict[str, str]:
    """File name -> XML: sitemap.xml listing `urls`, or when they are more than `limit`,
    sitemap-1.xml, sitemap-2.xml, ... and sitemap.xml the index of them. `lastmod` is the
    newest result's date, the only date a build writes (builds stay deterministic)."""
    chunks = [urls[i : i + limit] for i in range(0, len(urls), limit)] or [[]]
    if len(chunks) == 1:
        return {SITEMAP: _sitemap_xml("urlset", "url", chunks[0], lastmod)}
    files = {f"sitemap-{i}.xml": _sitemap_xml("urlset", "url", chunk, lastmod) for i, chunk in enumerate(chunks, 1)}
    files[SITEMAP] = _sitemap_xml("sitemapindex", "sitemap", [base_url + name for name in files], lastmod)
    return files


def _sitemap_xml(root: str, item: str, locations: list[str], lastmod: str) -> str:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f'<{root} xmlns="{SITEMAP_NS}">']
    lines += [f"<{item}><loc>{escape(loc)}</loc><lastmod>{lastmod}</lastmod></{item}>" for loc in locations]
    lines.append(f"</{root}>")
    return "\n".join(lines) + "\n"
