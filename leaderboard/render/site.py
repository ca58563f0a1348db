"""Render the static site from the database into a folder, atomically (build aside, swap in).

Each page kind has its module (boards, entries, groups, feeds, sitemap, downloads) over the shared
writer; this one runs them in order. The site works from file:// with no network.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from leaderboard import atomic
from leaderboard.cache import folder_beside
from leaderboard.catalog import Catalog, checked_base_url
from leaderboard.memory import collector_paused, kept_out_of_reach
from leaderboard.render import (
    boards,
    downloads,
    entries,
    feeds,
    groups,
    history,
    model,
    painter,
    sitemap,
    sqlpage,
)
from leaderboard.render import prices as site_prices
from leaderboard.render.clone import Clone, prune, spare_name
from leaderboard.render.colours import Style, accelerator_styles
from leaderboard.render.model import SiteData
from leaderboard.render.reuse import MANIFEST, PageReuse
from leaderboard.render.writer import PAGE_ROWS, STATIC, SiteWriter, environment
from leaderboard.store import Staged


def render_site(
    db: str | Path | Staged,
    out: Path,
    catalog: Catalog,
    project: Path | None = None,
    page_rows: int = PAGE_ROWS,
    base_url: str | None = None,
    jobs: int | None = None,
    clone: Clone | None = None,
) -> None:
    """Write the whole site for database `db` (a file, a server's URL, or a build's database still
        in memory, which the downloads write to its file) into `out`; `project` is the folder submission
        paths are relative to (for copies of the submission files); `base_url` (else the catalog's)
        is where the site is published, for absolute links, sitemap.xml and robots.txt; `jobs` worker
        processes draw the charts (default: one a core; 1: drawn in this process); `clone`: the previous
    site's copy as links, started by the build (render/clone.py), that the site is drawn in. All or
    nothing."""
    base_url = base_url or (catalog.base_url if catalog is not None else None)
    base_url = checked_base_url(base_url) if base_url else None
    # The site's data holds no cycles and lives to the end: the collector need not walk it once a page.
    with kept_out_of_reach():
        with collector_paused(keep=True):
            data = model.load(db)
        _render_site(data, db, Path(out), catalog, project, page_rows, base_url, jobs, clone)


def _render_site(
    data: SiteData, db, out: Path, catalog: Catalog, project, page_rows: int, base_url, jobs, clone: Clone | None
) -> None:
    painter.use_cache_beside(folder_beside(out))
    cloned = clone.ready() if clone is not None and clone.previous == out else None
    if clone is not None and cloned is None:
        clone.discard()
    staging = cloned or atomic.staging_dir(out)
    environment_ = environment(folder_beside(out) / "templates")
    writer = SiteWriter(staging, environment_, data, page_rows, base_url, jobs, cloned=cloned is not None)
    found = clone.found if cloned is not None else None  # the previous site's pages, looked up meanwhile
    writer.reuse = PageReuse(out, folder_beside(out) / MANIFEST, found)
    writer.previous = out if out.is_dir() else None
    try:
        _render(writer, db, project, out)
        writer.painter.finish()  # the charts drawn beside the pages, written
        sitemap.write_sitemap(writer)  # last: it lists every page written
        writer.flush()
        if writer.cloned:
            prune(staging, writer.made)  # what the previous site had and this one has not
    except BaseException:
        writer.painter.close()
        try:
            writer.flush()  # nothing is written into the folder once it is removed
        except Exception:  # noqa: BLE001 - the first failure is the one raised
            pass
        shutil.rmtree(staging, ignore_errors=True)
        raise
    # The old site is kept beside it, for the next rebuild's copy to start from (render/clone.py).
    atomic.replace_dir(staging, out, background=True, spare=spare_name(out))
    writer.reuse.save()


def _render(site: SiteWriter, db: str | Path, project: Path | None, previous: Path) -> None:
    data = site.data
    project = Path(project).resolve() if project is not None else None
    # The downloads are exported by DuckDB, which lets go of the interpreter's lock: on a thread
    # of their own they take no time from the pages.
    downloads.before_thread(db)
    with ThreadPoolExecutor(1, thread_name_prefix="downloads") as pool:
        exported = pool.submit(downloads.write_all, site, db, previous)
        for asset in sorted(STATIC.iterdir()):
            site.copy_file(f"static/{asset.name}", asset)
        site.painter.bundle(partial(site.copy, "static/vega.js"))
        colours = accelerator_looks(data)

        boards.write_pages(site, colours)
        entries.write_pages(site, project)
        groups.write_pages(site)
        history.write_pages(site)
        _compare_page(site)
        for board in data.boards:
            site.derived(f"data/boards/{board.key}.js", downloads.board_script, board=board)
        # These pages name the tables the downloads ship: known before for a build's database,
        # whose process writes them meanwhile.
        shipped = downloads.shipped_tables(db)
        if shipped is not None:
            site.tables = shipped
            _last_pages(site)
        exported.result()
    if shipped is None:
        _last_pages(site)


def _last_pages(site: SiteWriter) -> None:
    _index_page(site)
    sqlpage.write_page(site)
    feeds.write_feed(site)


def accelerator_looks(data: SiteData) -> dict[str, Style]:
    """Each accelerator's look (by its name, as charts show it), the same on every chart."""
    order = sorted(data.accelerators.values(), key=lambda a: (a["release_date"] or "9999", a["id"]))
    looks = accelerator_styles([a["id"] for a in order], boards.accelerator_groups(data))
    return {data.accelerators[id_]["name"]: look for id_, look in looks.items() if id_ in data.accelerators}


def _compare_page(site: SiteWriter) -> None:
    comparable = [b for b in site.data.boards if b.comparable]  # nor linked from their pages
    # What the page shows of each board, not its rows (those are in its data script): the page is
    # drawn again when a board's count or its processors change, not with any of its results.
    shown = [
        {
            **b.heading,
            "results": len(b.rows),
            "cpu_accelerators": list(dict.fromkeys(r["accelerator"] for r in b.rows if r["cpu_only"])),
        }
        for b in comparable
    ]
    site.page(
        "compare.html", "compare.html", boards=shown, board_files={b.key: f"data/boards/{b.key}.js" for b in comparable}
    )


def _index_page(site: SiteWriter) -> None:
    data = site.data
    site.page(
        "index.html",
        "index.html",
        boards=[b.summary for b in data.boards],
        accelerators=groups.used_accelerators(data),
        submitters=[groups.without_rows(s) for s in groups.submitters(data)],
        tables=site.tables,
        later_prices=site_prices.later_price_count(data.results),
        priced=sum(1 for r in data.results if r["cost_usd"] is not None),
    )
