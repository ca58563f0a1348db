"""What every page kind shares: the Jinja2 environment and its filters, and SiteWriter, which
writes pages, charts and files under the site folder (reusing the previous site's unchanged ones).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from urllib.parse import quote

import jinja2
from markupsafe import Markup, escape

from leaderboard.cache import PRECOMPILED, code_version, digest
from leaderboard.families import family
from leaderboard.normalize import DEFAULT_TIER, TIERS, slug
from leaderboard.problems import plural
from leaderboard.render import cells, model
from leaderboard.render.cells import chip_count, four_digits, hours_unit, number, usd
from leaderboard.render.charts import Chart
from leaderboard.render.file_writer import BackgroundWriter
from leaderboard.render.kept_charts import KeptChart
from leaderboard.render.model import SiteData
from leaderboard.render.painter import Painter, renderer_version, vega_lite_version
from leaderboard.render.prices import significant
from leaderboard.render.reuse import PageReuse
from leaderboard.rows import UNRANKED_REASONS
from leaderboard.tree import FileChanged

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
PRODUCT = "Training results leaderboard"
# A leaderboard page holds at most this many rows of each division (about 2 KB of HTML a row):
# longer boards continue on numbered pages, complete without JavaScript, and site.js sorts and
# filters across all of a board's rows by loading its data file (data/boards/<key>.js).
PAGE_ROWS = 200


class TemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between builds (compiling them all takes half a second, on a cold
    build's critical path), each under the hash of its source and of the code (the environment's
    options are code), so an edited template, or new code, is compiled afresh. Where this cache
    has none, the install's (precompiled.py) is read. A cache only saves time: a file that cannot
    be read or written is compiled again."""

    def __init__(self, directory: str):
        super().__init__(directory)
        self.installed = str(PRECOMPILED / "templates")

    def get_source_checksum(self, source: str) -> str:
        return digest(f"{code_version()}\0{source}")

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        for folder in (self.directory, self.installed):
            if bucket.code is not None:
                break
            try:
                with open(os.path.join(folder, self.pattern % (bucket.key,)), "rb") as file:
                    bucket.load_bytecode(file)
            except Exception:  # noqa: BLE001 - missing, truncated or foreign: compiled again
                bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


class PageEnvironment(jinja2.Environment):
    """Jinja2's environment, with `row.minutes` on a dictionary looked up as its item at once.

    Jinja2 asks for the attribute first, and a dictionary's key is none: each `row.minutes` raised
    and caught an AttributeError: 1.5 us a lookup against 0.45 us here, 637,000 lookups in a cold
    build's entry pages (0.7 s of their 11). A dictionary whose class has no attribute of that
    name, and takes none on its instances (no __dict__, no __getattr__), would give what this
    gives: its item, else Undefined."""

    def getattr(self, obj: object, attribute: str) -> object:
        if isinstance(obj, dict) and _item_only(obj.__class__, attribute):
            try:
                return obj[attribute]
            except (TypeError, LookupError):
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def _item_only(kind: type, attribute: str) -> bool:
    """Whether an instance of the dictionary class `kind` can have no attribute `attribute`."""
    names = _attribute_names(kind)
    return names is not None and attribute not in names


@functools.cache
def _attribute_names(kind: type) -> frozenset[str] | None:
    """Every attribute an instance of the dictionary class `kind` has, when it can have no other
    (None: it can, through its __dict__, a __getattr__ or its own __getattribute__)."""
    names = frozenset(dir(kind))
    plain = "__dict__" not in names and "__getattr__" not in names and kind.__getattribute__ is dict.__getattribute__
    return names if plain else None


def environment(cache: Path | None = None) -> jinja2.Environment:
    """The pages' Jinja2 environment; `cache`: a folder that keeps compiled templates."""
    env = PageEnvironment(
        bytecode_cache=TemplateCache(str(cache)) if cache is not None else None,
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # a build's templates do not change under it: no stat() a page
    )
    env.filters["num"] = number
    env.filters["usd"] = usd
    env.filters["significant"] = significant
    env.filters["plural"] = plural
    env.filters["script_json"] = script_json
    env.filters["script_text"] = script_text
    env.filters["slug"] = slug
    env.filters["g4"] = four_digits
    env.filters["chip_count"] = chip_count
    env.filters["hours_unit"] = hours_unit
    env.globals.update(
        url=_url,
        TIERS=TIERS,
        UNRANKED_REASONS=UNRANKED_REASONS,
        DEFAULT_TIER=DEFAULT_TIER,
        PRODUCT=PRODUCT,
        NOT_VERIFIED=model.NOT_VERIFIED,
        RANK_METRIC_LABEL=model.RANK_METRIC_LABEL,
        family=family,
        round_links=RoundLinks(),
    )
    env.globals.update(cells.TEMPLATE_FUNCTIONS)
    return env


class RoundLinks:
    """The navigation's links to the rounds, as every page shows them: worked out once for each
    folder depth (`root`), not once a page."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[list[dict], Markup]] = {}

    def __call__(self, root: str, rounds: list[dict]) -> Markup:
        made = self._made.get(root)
        if made is None or made[0] is not rounds:
            links = "".join(
                f'<li><a href="{escape(root + quote("rounds/" + r["id"] + ".html"))}">{escape(r["name"])}</a></li>\n'
                for r in rounds
            )
            made = self._made[root] = (rounds, Markup(links))
        return made[1]


def script_json(value: object) -> Markup:
    """JSON safe inside <script>: no '<', '>' or '&' can close the element or start markup."""
    return script_text(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


def script_text(text: str) -> Markup:
    """JSON text (script_json's, a chart's spec text) made safe inside <script> as script_json
    makes it: the characters replaced are only ever inside its strings, where an escape means them."""
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@jinja2.pass_context
def _url(context: jinja2.runtime.Context, path: str) -> str:
    """A link from the page being rendered to `path` (relative to the site root)."""
    return context["root"] + quote(path)


class SiteWriter:
    """Writes pages and files under one folder, refusing any path that would leave it."""

    def __init__(
        self,
        folder: Path,
        env: jinja2.Environment,
        data: SiteData,
        page_rows: int = PAGE_ROWS,
        base_url: str | None = None,
        jobs: int | None = None,
        cloned: bool = False,
    ):
        self.folder, self.env, self.data, self.page_rows = folder, env, data, page_rows
        # `folder` starts as the previous site's files, hard links (render/clone.py): a kept file is
        # already there, a written one replaces the link, and what is neither goes at the end.
        self.cloned = cloned
        self.made: set[str] = set()  # site-relative paths written or kept (a cloned folder is pruned to them)
        self.unlinked: set[str] = set()  # paths of the clone whose link was removed (fresh())
        self.base_url = base_url  # where the site is published, ending in '/'; None: links stay relative
        self.pages: list[str] = []  # every HTML page written, for the sitemap
        self.tables: list[str] = []  # the database's tables shipped under data/ (downloads.write_all)
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
        self.folders: set[str] = set()  # the folders created, or to be created by the writer's thread
        self.folders_made: set[str] = set()  # the folders created in this thread
        self.root = str(folder)
        self.vl_version = vega_lite_version()
        self.painter = Painter(self.vl_version, jobs)  # draws the charts' SVGs beside the pages
        self.files = BackgroundWriter()  # writes the files beside the pages

    def path(self, relative: str) -> Path:
        return Path(self.file(relative))

    def fresh(self, relative: str) -> str:
        """The file for a path this thread writes itself (not through write()): nothing there
        (a cloned folder's link to the previous site's file is removed), its folder created."""
        target = self.file(relative)
        self.made.add(relative)
        if self.cloned:
            try:
                os.unlink(target)
            except FileNotFoundError:
                pass
            self.unlinked.add(relative)
        return target

    def file(self, relative: str, create: bool = True) -> str:
        """The file for a site-relative path, its folder created (`create`); never outside the
        site. Plain strings: a path object per file is a noticeable part of a rebuild at scale."""
        parts = relative.split("/")
        if relative.startswith("/") or any(part in ("..", "", ".") for part in parts) or "\0" in relative:
            raise ValueError(f"refusing to write outside the site: {relative!r}")
        target = os.path.join(self.root, *parts)
        if create:
            folder = os.path.dirname(target)
            if folder not in self.folders_made:
                os.makedirs(folder, exist_ok=True)
                self.folders_made.add(folder)
                self.folders.add(folder)
        return target

    def write(self, relative: str, content: str | bytes, then: Callable[[str], None] | None = None) -> None:
        """Write the file on the writer's thread (flush() waits for it); `then(file)` runs once it
        is written."""
        target, make_folder = self._queued_file(relative)
        # Never write through a link into the previous site's file: unlink it first.
        replace = self.cloned or relative in self.linked
        self.linked.discard(relative)
        self.made.add(relative)
        data = content.encode("utf-8") if isinstance(content, str) else content
        self.files.write(target, data, replace, None if then is None else partial(then, target), make_folder)

    def _queued_file(self, relative: str) -> tuple[str, bool]:
        """The file of a path written on the writer's thread, and whether that thread creates its
        folder first (a new folder is created there too: a millisecond each, a thousand a build)."""
        target = self.file(relative, create=False)
        folder = os.path.dirname(target)
        make_folder = folder not in self.folders
        self.folders.add(folder)
        return target, make_folder

    def flush(self) -> None:
        """Wait until every file handed to write() is on disk."""
        self.files.flush()

    def keep(self, relative: str) -> None:
        """Put the previous site's file (a regular file: PageReuse checked) in the new site: a
        hard link (the previous site is never written to, and creating files is what a build
        waits on), else a copy. In a cloned folder it is there already."""
        self.made.add(relative)
        if self.cloned and relative not in self.unlinked:
            return
        target, make_folder = self._queued_file(relative)
        # On the writer's thread, in order: a page written later at this path replaces the link.
        self.files.link(os.path.join(self.previous, relative), target, make_folder)
        self.linked.add(relative)

    def copy(
        self, relative: str, content: str | bytes | Callable[[], bytes], content_digest: str | None = None
    ) -> None:
        """A file of the given bytes (whose hash is `content_digest`, when known): the previous
        site's one when it holds exactly these. `content` may be a function that gives the bytes,
        called only when they are written (`content_digest` is then required)."""
        if callable(content) and content_digest is None:
            raise TypeError("copy() of bytes not yet read needs their digest")
        content_digest = content_digest or digest(content)
        key = f"copy {content_digest}"
        if self._kept(relative, key):
            return
        if callable(content):
            content = content()
        reuse = self.reuse
        record = None if reuse is None else lambda file: reuse.record(relative, key, content, file, content_digest)
        self.write(relative, content, record)

    def copy_file(self, relative: str, source: Path) -> None:
        """The file `source`, as copy() would give its bytes: not read when the previous site's
        copy is kept (its hash is remembered by the source file's identity: PageReuse.source_digest)."""
        if self.reuse is None:
            self.copy(relative, source.read_bytes())
            return
        known = self.reuse.source_digest(source)

        def content() -> bytes:
            data = source.read_bytes()
            if digest(data) != known:
                raise FileChanged(f"{source} changed while the site was built; build again")
            return data

        self.copy(relative, content, known)

    def absolute_url(self, relative: str) -> str | None:
        """The published address of a site-relative path; None without a base URL."""
        return None if self.base_url is None else self.base_url + quote(relative)

    def page(self, relative: str, template: str, **context: object) -> None:
        self.pages.append(relative)
        self.unlisted_page(relative, template, **context)

    def unlisted_page(self, relative: str, template: str, **context: object) -> None:
        """A page the sitemap leaves out (a pointer to where a page went)."""
        context = {
            "root": "../" * relative.count("/"),
            "page_path": relative,
            # In the context, so the reuse key changes with the base URL: its pages are drawn again.
            "canonical": self.absolute_url(relative),
            "newest_date": self.data.newest_date,
            "newest_price_date": self.data.prices_as_of,
            "rounds": self.data.rounds,
            **context,
        }
        self.rendered(relative, template, context)

    def rendered(self, relative: str, template: str, context: dict) -> None:
        """The file `template` draws from `context`: the previous site's when they hash the same."""
        key = None
        if self.reuse is not None:
            # Site-wide values every page shows are hashed once, not once a page.
            shared = {"rounds": self.data.rounds, "columns": self.data.columns}
            key = self.reuse.key(relative, template, context, shared)
        self._drawn(relative, key, lambda: self.env.get_template(template).render(**context))

    def derived(self, relative: str, make: Callable[..., str], **inputs: object) -> None:
        """The file `make(**inputs)` gives (a function of its inputs alone, by code the cache's
        version covers): the previous site's when the inputs hash the same, without calling it."""
        key = None
        if self.reuse is not None:
            key = self.reuse.key(relative, f"{make.__module__}.{make.__qualname__}", inputs)
        self._drawn(relative, key, lambda: make(**inputs))

    def _drawn(self, relative: str, key: str | None, draw: Callable[[], str]) -> None:
        """The previous site's file when its inputs hashed to `key` (None: unknown), else `draw()`'s text."""
        if key is not None and self._kept(relative, key):
            return
        text = draw().encode("utf-8")
        reuse = self.reuse
        self.write(relative, text, None if key is None else lambda file: reuse.record(relative, key, text, file))

    def _kept(self, relative: str, key: str) -> bool:
        """Whether the previous site's file, drawn from inputs that hashed to `key`, is kept."""
        if self.reuse is not None and self.previous is not None and self.reuse.unchanged(relative, key):
            self.keep(relative)
            return True
        return False

    def chart_specs(self, stem: str, inputs: list, draw: Callable[[], list[Chart]]) -> list[KeptChart]:
        """The charts `draw()` builds from `inputs` (every value they are built from): as last
        built from the same inputs, else built afresh (building them with Altair is a large part
        of a rebuild)."""
        charts = self.reuse.charts(stem, inputs, draw) if self.reuse is not None else None
        if charts is None:
            charts = [KeptChart.of(chart) for chart in draw()]
            if self.reuse is not None:
                self.reuse.record_charts(stem, inputs, charts)
        return charts

    def remembered(self, name: str, inputs: list, make: Callable[[], object]) -> object:
        """What `make()` gives (a JSON value, made from `inputs` alone, by code the cache's version
        covers): as last made from the same inputs, else made afresh."""
        found = self.reuse.value(name, inputs) if self.reuse is not None else None
        if found is None:
            found = make()
            if self.reuse is not None:
                self.reuse.record_value(name, inputs, found)
        return found

    def carried(self, name: str) -> dict:
        """What the last build carried under `name` (carry()): a dict of JSON values, each made from
        what its key hashes; it is carried to the next build as it is unless carry() replaces it.
        {} when there is none (a first build, a cache of other code)."""
        found = self.reuse.value(name, []) if self.reuse is not None else None
        return found if isinstance(found, dict) else {}

    def carry(self, name: str, values: dict) -> None:
        """Carry `values` (JSON keys and values) under `name` to the next build (carried())."""
        if self.reuse is not None:
            self.reuse.record_value(name, [], values)

    def chart(self, chart: KeptChart) -> dict:
        """Write a chart's spec and SVG under charts/; what a template needs to show it. An SVG is
        drawn from the spec alone, by the renderer: the previous site's is kept when both are as
        they were; else it is drawn (or taken from the cache of drawings) in a worker process
        while the pages go on, and written when it is done (finish())."""
        # Its bytes made only when written: their hash is known.
        self.copy(f"charts/{chart.name}.vl.json", chart.spec_file, chart.file_digest)
        svg = f"charts/{chart.name}.svg"
        key = f"svg {renderer_version(self.vl_version)} {chart.file_digest}"
        reuse = self.reuse
        if not self._kept(svg, key):

            def deliver(drawn: str) -> None:
                record = None if reuse is None else lambda file: reuse.record(svg, key, drawn, file)
                self.write(svg, drawn, record)

            self.painter.svg(chart.spec, deliver)
        return {
            "name": chart.name,
            "title": chart.title,
            "description": chart.description,
            "kept": chart,  # its spec text, read when the page is drawn
            "svg": f"charts/{chart.name}.svg",
        }
