"""Render the static site from the database into a folder, atomically (build aside, swap in).

Pages are Jinja2 templates with autoescaping; the site works from file:// with no network.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import shutil
import stat
from pathlib import Path
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from leaderboard import atomic
from leaderboard.cache import digest, folder_beside
from leaderboard.catalog import Catalog
from leaderboard.normalize import DEFAULT_TIER, TIERS, slug
from leaderboard.render import charts as chart_specs
from leaderboard.render import downloads, model
from leaderboard.render.charts import Chart
from leaderboard.render.model import Board, SiteData
from leaderboard.render.reuse import MANIFEST, PageReuse

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
PRODUCT = "Training results leaderboard"
# A leaderboard page holds at most this many rows of each division (about 2 KB of HTML a row):
# longer boards continue on numbered pages, complete without JavaScript, and site.js sorts and
# filters across all of a board's rows by loading its data file (data/boards/<key>.js).
PAGE_ROWS = 200
# Accelerator and submitter pages show at most this many rows of each board and division
# (the best ranked): every result stays reachable on its leaderboard and entry page.
GROUP_ROWS = 50


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = number
    env.filters["usd"] = usd
    env.filters["script_json"] = script_json
    env.filters["slug"] = slug
    env.globals.update(
        url=_url,
        TIERS=TIERS,
        DEFAULT_TIER=DEFAULT_TIER,
        PRODUCT=PRODUCT,
        NOT_VERIFIED=model.NOT_VERIFIED,
        RANK_METRIC_LABEL=model.RANK_METRIC_LABEL,
    )
    return env


def number(value: float | None, digits: int = 3) -> str:
    """1,234 for whole numbers, 1,234.568 otherwise; empty for no value."""
    if value is None:
        return ""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def usd(value: float | None) -> str:
    """$1,235 from $100 up, $12.35 below; empty for no value. site.js formats the same way."""
    if value is None:
        return ""
    return f"${value:,.0f}" if value >= 100 else f"${value:,.2f}"


def script_json(value: object) -> Markup:
    """JSON safe inside <script>: no '<', '>' or '&' can close the element or start markup."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@jinja2.pass_context
def _url(context: jinja2.runtime.Context, path: str) -> str:
    """A link from the page being rendered to `path` (relative to the site root)."""
    return context["root"] + quote(path)


class SiteWriter:
    """Writes pages and files under one folder, refusing any path that would leave it."""

    def __init__(self, folder: Path, env: jinja2.Environment, data: SiteData, page_rows: int = PAGE_ROWS):
        self.folder, self.env, self.data, self.page_rows = folder, env, data, page_rows
        self.reuse: PageReuse | None = None
        self.previous: Path | None = None  # the site being replaced, whose unchanged files are kept
        self.linked: set[str] = set()
        self.boards_by_key = {board.key: board for board in data.boards}
        # Each result's place in its division, for the leaderboard page that shows it.
        self.positions = {
            row["entry_id"]: i
            for board in data.boards
            for rows in board.divisions.values()
            for i, row in enumerate(rows)
        }
        self.folders: set[str] = set()
        self.root = str(folder)

    def path(self, relative: str) -> Path:
        return Path(self.file(relative))

    def file(self, relative: str) -> str:
        """The file for a site-relative path, its folder created; never outside the site.
        Plain strings: a path object per file is a noticeable part of a rebuild at scale."""
        parts = relative.split("/")
        if relative.startswith("/") or any(part in ("..", "", ".") for part in parts) or "\0" in relative:
            raise ValueError(f"refusing to write outside the site: {relative!r}")
        target = os.path.join(self.root, *parts)
        folder = os.path.dirname(target)
        if folder not in self.folders:
            os.makedirs(folder, exist_ok=True)
            self.folders.add(folder)
        return target

    def write(self, relative: str, content: str | bytes) -> None:
        target = self.file(relative)
        if relative in self.linked:  # never write through a link into the previous site's file
            os.unlink(target)
            self.linked.discard(relative)
        with open(target, "wb") as handle:
            handle.write(content.encode("utf-8") if isinstance(content, str) else content)

    def keep(self, relative: str) -> None:
        """Put the previous site's file (a regular file: PageReuse checked) in the new site: a
        hard link (the previous site is never written to, and creating files is what a build
        waits on), else a copy."""
        source = os.path.join(self.previous, relative)
        target = self.file(relative)
        try:
            os.link(source, target, follow_symlinks=False)
            self.linked.add(relative)
        except OSError:
            shutil.copyfile(source, target, follow_symlinks=False)

    def copy(self, relative: str, content: bytes) -> None:
        """A file of the given bytes: the previous site's one when it holds exactly these."""
        content_digest = digest(content)
        key = f"copy {content_digest}"
        if self.reuse is not None and self.previous is not None and self.reuse.unchanged(relative, key):
            self.keep(relative)
            return
        self.write(relative, content)
        if self.reuse is not None:
            self.reuse.record(relative, key, content, self.file(relative), content_digest)

    def page(self, relative: str, template: str, **context: object) -> None:
        context = {
            "root": "../" * relative.count("/"),
            "page_path": relative,
            "newest_date": self.data.newest_date,
            "rounds": self.data.rounds,
            **context,
        }
        key = None
        if self.reuse is not None:
            # Site-wide values every page shows are hashed once, not once a page.
            shared = {"rounds": self.data.rounds, "columns": self.data.columns}
            key = self.reuse.key(relative, template, context, shared)
        if key is not None and self.previous is not None and self.reuse.unchanged(relative, key):
            self.keep(relative)
            return
        html = self.env.get_template(template).render(**context).encode("utf-8")
        self.write(relative, html)
        if key is not None:
            self.reuse.record(relative, key, html, self.file(relative))

    def chart(self, chart: Chart) -> dict:
        """Write a chart's spec and SVG under charts/; what a template needs to show it."""
        self.write(f"charts/{chart.name}.vl.json", json.dumps(chart.spec, indent=1, sort_keys=True) + "\n")
        self.write(f"charts/{chart.name}.svg", chart_specs.svg(chart.spec))
        return {
            "name": chart.name,
            "title": chart.title,
            "description": chart.description,
            "spec": chart.spec,
            "svg": f"charts/{chart.name}.svg",
        }


def render_site(
    db: str | Path, out: Path, catalog: Catalog, project: Path | None = None, page_rows: int = PAGE_ROWS
) -> None:
    """Write the whole site for database `db` into `out`; `project` is the folder submission
    paths are relative to (for copies of the submission files). All or nothing."""
    data = model.load(db)
    gc.freeze()  # the site's data lives to the end: the collector need not walk it once a page
    try:
        _render_site(data, db, Path(out), catalog, project, page_rows)
    finally:
        gc.unfreeze()


def _render_site(data: SiteData, db, out: Path, catalog: Catalog, project, page_rows: int) -> None:
    chart_specs.use_cache_beside(out)
    staging = atomic.staging_dir(out)
    writer = SiteWriter(staging, environment(), data, page_rows)
    writer.reuse = PageReuse(out, folder_beside(out) / MANIFEST)
    writer.previous = out if out.is_dir() else None
    try:
        _render(writer, db, project, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    atomic.replace_dir(staging, out)
    writer.reuse.save()


def _render(site: SiteWriter, db: str | Path, project: Path | None, previous: Path) -> None:
    data = site.data
    project = Path(project).resolve() if project is not None else None
    _real_folder.cache_clear()  # folders may have changed since the last build in this process
    for asset in sorted(STATIC.iterdir()):
        site.write(f"static/{asset.name}", asset.read_bytes())
    site.write("static/vega.js", chart_specs.javascript_bundle())
    colours = chart_specs.colour_scale([a["name"] for a in data.accelerators.values()])

    _render_pages(site, project, colours)
    for board in data.boards:
        site.write(f"data/boards/{board.key}.js", downloads.board_script(board))
    downloads.write_all(site, db, previous)
    site.write(
        "feed.xml",
        site.env.get_template("feed.xml").render(root="", newest_date=data.newest_date, items=_feed_items(data)),
    )


def _render_pages(site: SiteWriter, project: Path | None, colours) -> None:
    data = site.data
    for board in data.boards:
        _board_page(site, board, colours)
    for round_ in data.rounds:
        _round_page(site, round_, colours)
    for row in data.results:
        _entry_page(site, row, project)
    _accelerator_pages(site)
    _submitter_pages(site)
    site.page(
        "compare.html",
        "compare.html",
        boards=data.boards,
        board_files={b.key: f"data/boards/{b.key}.js" for b in data.boards},
    )
    site.page(
        "index.html",
        "index.html",
        boards=data.boards,
        records=model.records,
        accelerators=_used_accelerators(data),
        submitters=[_without_rows(s) for s in _submitters(data)],
    )


def _division_context(board: Board, division: str) -> str:
    return f"{board.benchmark['name']}, {board.round['name']}, {division} division"


def board_page_count(board: Board, page_rows: int) -> int:
    return max(1, max((-(-len(rows) // page_rows) for rows in board.divisions.values()), default=1))


def board_page_path(board: Board, page: int) -> str:
    """Page 0 is the board's own path; later pages sit in a folder named after it."""
    if page == 0:
        return board.path
    return f"boards/{board.round['id']}/{board.benchmark['id']}/page-{page + 1}.html"


def _board_page(site: SiteWriter, board: Board, colours) -> None:
    root = "../" * board.path.count("/")
    charts_by_division = {}
    for division, rows in board.divisions.items():
        context = _division_context(board, division)
        stem = f"{board.round['id']}--{board.benchmark['id']}--{division}"
        inputs = [stem, board.round["kind"], rows, context, colours, root]
        charts = site.reuse.charts(stem, inputs) if site.reuse is not None else None
        if charts is None:
            charts = []
            if board.round["kind"] != "published":
                charts.append(chart_specs.scaling(f"{stem}--scaling", rows, context, colours, root))
            charts.append(chart_specs.cost_frontier(f"{stem}--cost", rows, context, colours, root))
            charts.append(chart_specs.chip_hours_bars(f"{stem}--chip-hours", rows, context, colours, root))
            charts = [c for c in charts if c]
            if site.reuse is not None:
                site.reuse.record_charts(stem, inputs, charts)
        charts_by_division[division] = [site.chart(c) for c in charts]
    rows = board.rows
    count = board_page_count(board, site.page_rows)
    pages = [{"number": k + 1, "path": board_page_path(board, k)} for k in range(count)]
    filters = {
        "accelerators": sorted({(r["accelerator"], r["accelerator_name"]) for r in rows}, key=lambda a: (a[1], a[0])),
        "submitters": sorted({r["submitter"] for r in rows}, key=lambda name: (name.casefold(), name)),
        "availabilities": [a for a in model.AVAILABILITIES if any(r["availability"] == a for r in rows)],
        "unverified": sum(1 for r in rows if not r["verified"]),
    }
    for k, page in enumerate(pages):
        first = k * site.page_rows
        sections = [
            {
                "division": division,
                "rows": division_rows[first : first + site.page_rows],
                "first": first + 1,
                "size": len(division_rows),
                # The charts draw every row of the division: they sit on the first page only.
                "charts": charts_by_division[division] if k == 0 else [],
            }
            for division, division_rows in board.divisions.items()
        ]
        site.page(
            page["path"],
            "board.html",
            board=board,
            sections=sections,
            pages=pages,
            page_number=k + 1,
            page_rows=site.page_rows,
            rows_script=f"data/boards/{board.key}.js" if count > 1 else None,
            **filters,
        )


def _round_page(site: SiteWriter, round_: dict, colours) -> None:
    data = site.data
    path = f"rounds/{round_['id']}.html"
    root = "../"
    boards = [b for b in data.boards if b.round["id"] == round_["id"]]
    rows = [r for b in boards for r in b.rows]
    charts = []
    if round_["kind"] == "published" and rows:
        for metric in ("chip_hours", "cost"):
            charts.append(
                chart_specs.over_time(
                    f"{round_['id']}--{metric}-over-time", rows, metric, round_["name"], colours, root
                )
            )
        if data.epoch_comparison:
            charts.append(
                chart_specs.epoch_comparison(
                    f"{round_['id']}--epoch-cost", data.epoch_comparison, {r["entry_id"]: r for r in rows}
                )
            )
    site.page(
        path,
        "round.html",
        round=round_,
        boards=boards,
        records=model.records,
        charts=[site.chart(c) for c in charts if c],
    )


def _entry_page(site: SiteWriter, row: dict, project: Path | None) -> None:
    data = site.data
    board = site.boards_by_key[f"{row['round']}/{row['benchmark']}"]
    division_rows = board.divisions[row["division"]]
    accelerator = data.accelerators.get(row["accelerator"], {})
    source_text, submission_copy = None, None
    if project is not None:
        content = _project_file_bytes(project, row["file"])
        if content is not None:
            source_text = content.decode("utf-8", errors="replace")
            submission_copy = f"data/{row['file']}"
            site.copy(submission_copy, content)
    page = site.positions[row["entry_id"]] // site.page_rows
    site.page(
        row["path"],
        "entry.html",
        row=row,
        board=board.heading,
        board_page=board_page_path(board, page),
        division_size=len(division_rows),
        accelerator=accelerator,
        columns=data.columns,
        source_text=source_text,
        submission_copy=submission_copy,
        per_unit=_chips_per_unit(row, accelerator),
    )


def _project_file_bytes(project: Path, relative: str) -> bytes | None:
    """The bytes of a regular file inside `project` (resolved), never through a link and
    never outside it (a database from elsewhere may name any path); None otherwise."""
    source = os.path.join(project, relative)
    folder = _real_folder(os.path.dirname(source))
    if folder != str(project) and not folder.startswith(str(project) + os.sep):
        return None
    try:
        handle = os.open(os.path.join(folder, os.path.basename(source)), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        return file.read()


@functools.lru_cache(maxsize=4096)
def _real_folder(folder: str) -> str:
    """A folder's real path: resolved once per folder, not once per file."""
    return os.path.realpath(folder)


def _chips_per_unit(row: dict, accelerator: dict) -> float | None:
    if row["unit"] == "chip":
        return 1.0
    if row["unit"] == "device":
        return accelerator.get("chips_per_device")
    cores = accelerator.get("cores_per_chip")
    return 1 / cores if cores else None


def _grouped(rows: list[dict], data: SiteData) -> list[dict]:
    """Rows grouped by board and division (never ranked across them), in board order."""
    order = {b.key: i for i, b in enumerate(data.boards)}
    groups: dict[tuple, dict] = {}
    for row in rows:
        board = data.boards[order[f"{row['round']}/{row['benchmark']}"]]
        key = (order[board.key], list(board.divisions).index(row["division"]))
        group = groups.setdefault(
            key,
            {"board": board, "division": row["division"], "rows": [], "size": len(board.divisions[row["division"]])},
        )
        group["rows"].append(row)
    for group in groups.values():
        group["rows"].sort(key=lambda r: (r["board_rank"] is None, r["board_rank"] or 0, r["entry_id"]))
        group["count"] = len(group["rows"])
        group["rows"] = group["rows"][:GROUP_ROWS]
    return [groups[key] for key in sorted(groups)]


def _used_accelerators(data: SiteData) -> list[dict]:
    counts: dict[str, int] = {}
    for row in data.results:
        counts[row["accelerator"]] = counts.get(row["accelerator"], 0) + 1
    return [
        {**a, "results": counts[a["id"]], "path": model.accelerator_path(a["id"])}
        for a in sorted(data.accelerators.values(), key=lambda a: a["name"])
        if a["id"] in counts
    ]


def _submitters(data: SiteData) -> list[dict]:
    """Each submitter's names, page, number of results and (under "rows", for grouping) results."""
    by_path: dict[str, dict] = {}
    for row in data.results:
        entry = by_path.setdefault(row["submitter_path"], {"names": set(), "path": row["submitter_path"], "rows": []})
        entry["names"].add(row["submitter"])
        entry["rows"].append(row)
    return [
        {**s, "names": sorted(s["names"]), "count": len(s["rows"])}
        for s in sorted(by_path.values(), key=lambda s: s["path"])
    ]


def _without_rows(submitter: dict) -> dict:
    """What a page shows of a submitter: its rows are drawn in groups, and hashing them all
    again for every page that names the submitter is a noticeable part of a rebuild."""
    return {k: v for k, v in submitter.items() if k != "rows"}


def _accelerator_pages(site: SiteWriter) -> None:
    data = site.data
    for accelerator in _used_accelerators(data):
        rows = [r for r in data.results if r["accelerator"] == accelerator["id"]]
        prices = [p for p in data.prices if p["accelerator"] == accelerator["id"]]
        site.page(
            accelerator["path"], "accelerator.html", accelerator=accelerator, prices=prices, groups=_grouped(rows, data)
        )


def _submitter_pages(site: SiteWriter) -> None:
    for submitter in _submitters(site.data):
        site.page(
            submitter["path"],
            "submitter.html",
            submitter=_without_rows(submitter),
            groups=_grouped(submitter["rows"], site.data),
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
