"""A configured base URL (`build --base-url`, or catalog/site.yaml): absolute links in the Atom
feed, sitemap.xml and robots.txt, a canonical link on every page; without one, relative feed
links and no sitemap. Tiny projects, built by the real command line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from conftest import run_cli

from leaderboard.catalog import checked_base_url
from leaderboard.normalize import slug
from leaderboard.render.sitemap import SITEMAP_NS, sitemap_files

ATOM = {"a": "http://www.w3.org/2005/Atom"}
SITEMAP = {"s": SITEMAP_NS}
BASE = "https://example.org/r&d%20lab/leaderboard"  # no trailing '/'; a '&' to escape in XML and HTML
BASE_URL = BASE + "/"
NEWEST = "2021-03-04"


def add_results(project: Path) -> None:
    """Two published results of two labs, the newer one on NEWEST."""
    for lab, date in (("Base Lab", "2020-01-02"), ("Ünïcødé & Co", NEWEST)):
        folder = project / "submissions" / "published" / slug(lab)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "run.yaml").write_text(
            "schema_version: 1\nround: published\nbenchmark: vision\ndivision: open\navailability: available\n"
            f'submitter: "{lab}"\ndate: "{date}"\n'
            "system:\n  name: Sixteen TPU v3 devices\n  accelerator: tpu-v3\n  count: 16\n  unit: device\n"
            "model:\n  name: A model\nresult:\n  minutes: 600\nsource:\n  citation: A test of links\n",
            encoding="utf-8",
        )


@pytest.fixture
def tiny_project(empty_project: Path) -> Path:
    add_results(empty_project)
    return empty_project


def build(project: Path, *args: str) -> Path:
    done = run_cli("build", "-q", *args, cwd=project)
    assert done.code == 0, done.err
    return project / "site"


def html_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def canonical_links(page: Path) -> list[str]:
    return [unescape(h) for h in re.findall(r'<link rel="canonical" href="([^"]*)">', page.read_text("utf-8"))]


def feed_links(site: Path) -> tuple[dict[str, str], list[str]]:
    """The feed's own links by rel, and every entry's link; the feed parsed as Atom."""
    feed = ET.parse(site / "feed.xml").getroot()
    assert feed.tag == "{http://www.w3.org/2005/Atom}feed"
    entries = feed.findall("a:entry", ATOM)
    assert entries and all(e.find("a:id", ATOM) is not None and e.find("a:updated", ATOM) is not None for e in entries)
    own = {link.get("rel"): link.get("href") for link in feed.findall("a:link", ATOM)}
    return own, [e.find("a:link", ATOM).get("href") for e in entries]


def sitemap_locations(site: Path) -> list[str]:
    urlset = ET.parse(site / "sitemap.xml").getroot()
    assert urlset.tag == f"{{{SITEMAP_NS}}}urlset"
    assert {u.findtext("s:lastmod", namespaces=SITEMAP) for u in urlset.findall("s:url", SITEMAP)} == {NEWEST}
    return [u.findtext("s:loc", namespaces=SITEMAP) for u in urlset.findall("s:url", SITEMAP)]


def test_a_base_url_makes_the_feed_sitemap_and_canonical_links_absolute(tiny_project):
    site = build(tiny_project, "--base-url", BASE)
    own, entry_links = feed_links(site)
    assert own == {"self": BASE_URL + "feed.xml", "alternate": BASE_URL + "index.html"}
    for link in entry_links:
        assert link.startswith(BASE_URL + "entries/published/")
        assert (site / unquote(link.removeprefix(BASE_URL))).is_file()
    pages = html_pages(site)
    assert sitemap_locations(site) == [BASE_URL + quote(p) for p in pages]  # each page once, in order
    assert (site / "robots.txt").read_text() == f"User-agent: *\nDisallow:\n\nSitemap: {BASE_URL}sitemap.xml\n"
    for page in pages:
        assert canonical_links(site / page) == [BASE_URL + quote(page)], page


def test_the_catalog_names_the_base_url_the_flag_overrides_it_and_a_change_redraws_every_page(tiny_project):
    (tiny_project / "catalog" / "site.yaml").write_text("base_url: https://catalog.example/lb\n", encoding="utf-8")
    site = build(tiny_project)
    pages = html_pages(site)
    assert canonical_links(site / "index.html") == ["https://catalog.example/lb/index.html"]
    sitemap = (site / "sitemap.xml").read_bytes()
    assert build(tiny_project) and (site / "sitemap.xml").read_bytes() == sitemap  # deterministic

    site = build(tiny_project, "--base-url", "http://localhost:8000/")
    assert feed_links(site)[0]["self"] == "http://localhost:8000/feed.xml"
    assert sitemap_locations(site) == ["http://localhost:8000/" + quote(p) for p in pages]
    for page in pages:  # none reused from the previous build with the other address
        assert canonical_links(site / page) == ["http://localhost:8000/" + quote(page)], page


def test_without_a_base_url_feed_links_stay_relative_and_there_is_no_sitemap(tiny_project):
    site = build(tiny_project, "--base-url", BASE)
    site = build(tiny_project)
    own, entry_links = feed_links(site)
    assert own == {"self": "feed.xml", "alternate": "index.html"}
    assert entry_links and all(link.startswith("entries/published/") for link in entry_links)
    assert not (site / "sitemap.xml").exists() and not (site / "robots.txt").exists()
    assert all(canonical_links(site / page) == [] for page in html_pages(site))


def test_a_bad_base_url_flag_is_a_usage_error(tiny_project):
    done = run_cli("build", "-q", "--base-url", "ftp://example.org/", cwd=tiny_project)
    assert done.code == 2
    assert "Invalid value for '--base-url': base URL 'ftp://example.org/' must start with https://" in done.err
    assert not (tiny_project / "site").exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ('base_url: "https://example.org/?page=1"\n', "$.base_url: base URL 'https://example.org/?page=1' must not"),
        ("base_url: ftp://example.org/\n", "$.base_url: 'ftp://example.org/' does not match '^https?://'"),
        ("base_url: https://example.org/\nhost: x\n", "site.yaml:2:1: $.host: unknown field 'host'"),
    ],
)
def test_a_bad_base_url_in_the_catalog_is_a_problem_with_its_place(tiny_project, text, message):
    (tiny_project / "catalog" / "site.yaml").write_text(text, encoding="utf-8")
    done = run_cli("build", "-q", cwd=tiny_project)
    assert done.code == 1 and "1 problem: nothing was built" in done.err  # one problem, never "1 problems"
    assert message in done.out
    assert re.match(r"catalog/site\.yaml:\d+:\d+: ", done.out)
    assert not (tiny_project / "site").exists()


@pytest.mark.parametrize(
    "value, expected",
    [
        ("https://example.org/leaderboard/", "https://example.org/leaderboard/"),
        ("https://example.org/leaderboard", "https://example.org/leaderboard/"),
        ("https://example.org", "https://example.org/"),
        ("http://localhost:8000", "http://localhost:8000/"),
        ("https://example.org/a%20b/", "https://example.org/a%20b/"),
        ("example.org/leaderboard/", "must start with https://"),
        ("https://", "must start with https://"),
        ("file:///srv/site/", "must start with https://"),
        ("https://example.org/?x=1", "must not have a query or fragment"),
        ("https://example.org/#top", "must not have a query or fragment"),
        ("https://example.org/a b/", "holds a space"),
        ("https://exämple.org/", "non-ASCII"),
        ("https://example.org:port/", "is not a URL"),
    ],
)
def test_checked_base_url(value, expected):
    if expected.startswith("http"):
        assert checked_base_url(value) == expected
    else:
        with pytest.raises(ValueError, match=re.escape(expected)):
            checked_base_url(value)


def test_past_the_limit_the_sitemap_is_an_index_of_several():
    base = "https://example.org/"
    urls = [f"{base}page-{i}.html" for i in range(5)]
    files = sitemap_files(base, urls, NEWEST, limit=2)
    assert sorted(files) == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", "sitemap.xml"]
    index = ET.fromstring(files["sitemap.xml"])
    assert index.tag == f"{{{SITEMAP_NS}}}sitemapindex"
    assert [s.findtext("s:loc", namespaces=SITEMAP) for s in index] == [f"{base}sitemap-{i}.xml" for i in (1, 2, 3)]
    listed = [
        u.findtext("s:loc", namespaces=SITEMAP) for i in (1, 2, 3) for u in ET.fromstring(files[f"sitemap-{i}.xml"])
    ]
    assert listed == urls
    assert list(sitemap_files(base, urls, NEWEST, limit=5)) == ["sitemap.xml"]
