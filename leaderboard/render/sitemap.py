"""What crawlers read: with a base URL, sitemap.xml of every page written (split with an index
past 50,000 addresses) and robots.txt naming it."""

from __future__ import annotations

from leaderboard.render.writer import SiteWriter

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
        site.copy(name, text)
    # Crawlers read robots.txt at the host's root only: for a site in a subfolder, this one
    # is the line to copy there.
    site.copy("robots.txt", f"User-agent: *\nDisallow:\n\nSitemap: {site.absolute_url(SITEMAP)}\n")


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
    from xml.sax.saxutils import escape  # imports urllib.request: only for a site with a base URL

    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f'<{root} xmlns="{SITEMAP_NS}">']
    lines += [f"<{item}><loc>{escape(loc)}</loc><lastmod>{lastmod}</lastmod></{item}>" for loc in locations]
    lines.append(f"</{root}>")
    return "\n".join(lines) + "\n"
