"""The site's data files: results as CSV, Parquet, JSON and DuckDB, and per-board scripts that
the compare page loads on demand (a <script> works from file://, where fetch() does not).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard import cache, costs_at, loading, store
from leaderboard.cache import folder_beside
from leaderboard.forked import Forked
from leaderboard.render import exports
from leaderboard.render.exports import TABLES, identifier, literal
from leaderboard.render.reuse import MANIFEST, file_identity

if TYPE_CHECKING:
    import duckdb

    from leaderboard.render.model import Board
    from leaderboard.render.writer import SiteWriter

DATABASE = "data/leaderboard.duckdb"
# Exporting sorts every result; unbounded, DuckDB takes up to most of the machine's memory
# for it. Beyond the limit it spills to a folder in the build's cache.
EXPORT_MEMORY = "512MB"
# The results columns a build's downloads hold, in order (the site's data has the same: model.load).
RESULT_COLUMNS = [str(c.name) for c in store.results.columns]


@dataclass
class Prepared:
    """The downloads the database's process wrote (Preparing), in a folder of their own."""

    folder: Path  # where they are
    keys: dict[str, str]  # every download's key
    tables: list[str]  # the tables that ship
    content: str  # a hash of every table
    written: set[str] = field(default_factory=set)  # the files written into the folder
    # Arrow files written from the previous site's Parquet file (its key unchanged): good only
    # where the build keeps that Parquet file.
    from_previous: dict[str, str] = field(default_factory=dict)
    # The hash of each file written (cache.digest of its bytes), worked out in the database's
    # process, which has time to spare: the build's process, at the end of its critical path, need
    # not read the files again to record them (render/reuse.py).
    digests: dict[str, str] = field(default_factory=dict)


@dataclass
class Preparing:
    """Run in the process that fills a build's database (store.Staged's `then`), once its file is
    written: every download whose key is not the previous site's, written from the database in
    memory into `folder` (the build moves them into its site). The build's own process then
    exports nothing while it draws the pages, and never imports pyarrow (a seventh of a second)."""

    folder: Path  # beside the site, in its cache: the same file system, so each file is moved in one rename
    previous: Path  # the site being replaced
    manifest: Path  # its page manifest (render/reuse.py), the previous downloads' keys

    def __call__(self, connection: duckdb.DuckDBPyConnection, known: dict[str, str | None]) -> Prepared:
        stored = cache.read_json(self.manifest).get("pages", {})
        plan = exports.plan(connection, RESULT_COLUMNS, known)
        before = {relative: self._previous_key(stored, relative) for relative in plan.keys}
        prepared = Prepared(self.folder, plan.keys, plan.tables, plan.content)
        shutil.rmtree(self.folder, ignore_errors=True)
        (self.folder / "data").mkdir(parents=True)
        for relative in plan.copies:
            if before.get(relative) != plan.keys[relative]:
                exports.write(connection, plan, relative, str(self.folder / relative))
                prepared.written.add(relative)
        fresh, previous = [], []
        for arrow, parquet in plan.arrows.items():
            if before.get(arrow) == plan.keys[arrow]:
                continue
            if parquet in prepared.written:
                fresh.append((str(self.folder / parquet), str(self.folder / arrow)))
                prepared.written.add(arrow)
            else:
                previous.append((arrow, parquet))
        exports.write_arrows(fresh, own_process=True)  # Staged's process
        for arrow, parquet in previous:
            # From the previous site's Parquet file, which may be gone or not what its key says
            # (the build checks it, and then exports both here): left to the build then.
            try:
                exports.write_arrows([(str(self.previous / parquet), str(self.folder / arrow))], own_process=True)
            except Exception:  # noqa: BLE001 - pyarrow's errors have no common base of their own
                continue
            prepared.written.add(arrow)
            prepared.from_previous[arrow] = parquet
        prepared.digests = {relative: cache.path_digest(self.folder / relative) for relative in prepared.written}
        return prepared

    def _previous_key(self, stored: dict, relative: str) -> str | None:
        """The key the previous site's file of a download was made from, when that file is the one
        the manifest recorded: a cache may be shared ($LEADERBOARD_CACHE), and its manifest then
        describe another project's site, whose downloads this build would not write, and so export
        in its own process. (The build checks each kept file again: reuse.PageReuse.unchanged.)"""
        recorded = stored.get(relative)
        if not isinstance(recorded, list) or len(recorded) != 3:
            return None
        try:
            return recorded[0] if file_identity(self.previous / relative) == recorded[2] else None
        except OSError:
            return None

    def discard(self) -> None:
        """What the build did not move into its site."""
        shutil.rmtree(self.folder, ignore_errors=True)


def preparing(site: Path) -> Preparing:
    """A build's Preparing, for the site it replaces (`site`, which may not exist yet)."""
    beside = folder_beside(site)
    return Preparing(beside / f"downloads.{os.getpid()}.tmp", site, beside / MANIFEST)


def write_all(site: SiteWriter, db: str | Path | store.Staged, previous: Path | None = None) -> None:
    """data/results.{csv,parquet,json}, data/costs.csv and data/leaderboard.duckdb; `previous`
    is the site being replaced, whose DuckDB file is kept when its content is unchanged.

    The files are exported from the site's DuckDB file by DuckDB's own writers: no Python
    object per value, so the step stays short at 100,000 results. A build's database
    (store.Staged) is copied once its process has written its file; its tables' digests are
    those of the rows it was filled with, and the downloads its process wrote (Preparing) are
    moved in: only those it could not write are exported here."""
    known: dict[str, str | None] = {}
    prepared: Prepared | None = None
    copied_digest = None  # the hash of the site's copy's bytes, when known
    staged = isinstance(db, store.Staged)
    if staged:
        known, outcome, copied_digest = db.digests, db.then_result, db.file_digest
        prepared = outcome if isinstance(outcome, Prepared) else None
        db = db.write_aside()
    target = Path(site.fresh(DATABASE))
    if store.is_url(db):
        _duckdb_copy(target, str(db))
    elif staged:
        # Written in store.STORAGE_VERSION with nothing left in a write-ahead log: its bytes, without
        # opening it to check (a tenth of a second before the first download).
        shutil.copyfile(db, target)
    else:
        _storage_copy(Path(db), target)
    kept: set[str] = set()
    missing = None
    if prepared is not None:
        content = prepared.content  # its tables are every table: the pages' thread set site.tables
        missing = _move_in(site, prepared, kept)
    if missing is None or missing:
        import duckdb  # only here: a build's process never needs it otherwise

        spill = folder_beside(previous if previous is not None else target) / "duckdb-spill"
        config = {"memory_limit": EXPORT_MEMORY, "temp_directory": str(spill)}
        with duckdb.connect(config=config) as connection:
            connection.execute(f"ATTACH {literal(target)} AS site_copy (READ_ONLY)")
            connection.execute("USE site_copy")
            try:
                plan = exports.plan(connection, [name for name, _ in site.data.columns], known)
                content = plan.content
                if not staged:  # a database from elsewhere may lack tables (shipped_tables)
                    site.tables = plan.tables
                if missing is None:  # else _move_in looked for each in the previous site
                    missing = [relative for relative, key in plan.keys.items() if not _kept(site, relative, key, kept)]
                _write_here(connection, site, plan, missing, kept)
            finally:
                connection.execute("USE memory")
                connection.execute("DETACH site_copy")
    _keep_unchanged_database(
        site, target, previous / DATABASE if previous is not None else None, content, copied_digest
    )


def shipped_tables(db: str | Path | store.Staged) -> list[str] | None:
    """The tables whose downloads write_all() ships, known before it runs for a build's database
    (it has every table); None for another."""
    return list(TABLES) if isinstance(db, store.Staged) else None


def _move_in(site: SiteWriter, prepared: Prepared, kept: set[str]) -> list[str]:
    """Each download the previous site's file of, or the database's process wrote, in the site; the
    files neither has, in order (an Arrow file after its Parquet file)."""
    missing = []
    for relative, key in prepared.keys.items():
        if _kept(site, relative, key, kept):
            continue
        source = prepared.from_previous.get(relative)
        if relative in prepared.written and (source is None or source in kept):
            os.replace(prepared.folder / relative, site.fresh(relative))
            _record(site, relative, key, prepared.digests.get(relative))
        else:
            missing.append(relative)
    return missing


def _write_here(
    connection: duckdb.DuckDBPyConnection, site: SiteWriter, plan: exports.Plan, files: list[str], kept: set[str]
) -> None:
    """The downloads `files`, none of which the previous site holds, exported in this process: the
    Arrow files in a process forked for them (exports.write_arrows). `kept`: the downloads kept."""
    arrows = []
    for relative in files:
        if relative in plan.copies:
            exports.write(connection, plan, relative, site.fresh(relative))
            _record(site, relative, plan.keys[relative])
        else:
            parquet = plan.arrows[relative]
            # A kept Parquet file is linked on the writer's thread: read the previous site's, the same bytes.
            source = os.path.join(site.previous, parquet) if parquet in kept else site.file(parquet)
            arrows.append((relative, source, site.fresh(relative)))
    if arrows:
        Forked(exports.write_arrows, [(source, target) for _, source, target in arrows], True).result()
        for relative, _, _ in arrows:
            _record(site, relative, plan.keys[relative])


def _kept(site: SiteWriter, relative: str, key: str, kept: set[str]) -> bool:
    """Whether the previous site's file of a download was made from the same rows; if so, it is
    kept, and added to `kept`."""
    if site.reuse is None or site.previous is None or not site.reuse.unchanged(relative, key):
        return False
    site.keep(relative)
    kept.add(relative)
    return True


def _record(site: SiteWriter, relative: str, key: str, content_digest: str | None = None) -> None:
    """A download written into the site, recorded in the page manifest; `content_digest`: the hash
    of its bytes, when known (else they are read)."""
    if site.reuse is not None:
        target = site.path(relative)
        site.reuse.record(relative, key, b"" if content_digest else target.read_bytes(), target, content_digest)


def database_digest(path: Path) -> str:
    """A hash of every table of a DuckDB file (see exports.table_digests)."""
    import duckdb

    with duckdb.connect() as connection:
        connection.execute(f"ATTACH {literal(path)} AS digested (READ_ONLY)")
        connection.execute("USE digested")
        try:
            return exports.combined(exports.table_digests(connection))
        finally:
            connection.execute("USE memory")
            connection.execute("DETACH digested")


def _keep_unchanged_database(
    site: SiteWriter, target: Path, previous: Path | None, content: str, target_digest: str | None = None
) -> None:
    """DuckDB writes random identifiers into every new file, so the same data never gives the
    same bytes: when the previous site's file holds exactly the same tables and rows, ship
    its bytes again, so a rebuild from unchanged input leaves the site byte-identical. The
    previous file's content hash comes from the page manifest when recorded there;
    `target_digest`: the hash of `target`'s bytes, when known (else they are read)."""
    if site.reuse is None or previous is None:
        return
    key = f"database {content}"
    try:
        if site.reuse.unchanged(DATABASE, key):
            target.unlink()
            site.keep(DATABASE)
            return
        # (`content` may hold digests of rows as loaded: both files are hashed by DuckDB here.)
        if DATABASE not in site.reuse.old and previous.is_file() and _same_tables(previous, target):
            shutil.copyfile(previous, target)  # no manifest (first rebuild, cache deleted): compare the files
            target_digest = None
        site.reuse.record(DATABASE, key, b"" if target_digest else target.read_bytes(), target, target_digest)
    except OSError:
        pass  # an unreadable previous file only means a new one is shipped


def _same_tables(previous: Path, target: Path) -> bool:
    """Whether two DuckDB files hold the same tables and rows; False when one cannot be read."""
    import duckdb

    try:
        return database_digest(previous) == database_digest(target)
    except duckdb.Error:
        return False


def _attach_target(connection: duckdb.DuckDBPyConnection, target: Path) -> None:
    target.unlink(missing_ok=True)
    connection.execute(f"ATTACH {literal(target)} AS site_target (STORAGE_VERSION {literal(store.STORAGE_VERSION)})")


def _storage_copy(db: Path, target: Path) -> None:
    """The database file again, every table and key, in store.STORAGE_VERSION's format: its bytes
    when it is already in that format with nothing left in a write-ahead log (as every file a
    build writes is), else copied table by table by DuckDB."""
    import duckdb

    with duckdb.connect() as connection:
        connection.execute(f"ATTACH {literal(db)} AS site_source (READ_ONLY)")
        (tags,) = connection.execute(
            "SELECT tags FROM duckdb_databases() WHERE database_name = 'site_source'"
        ).fetchone()
        if tags.get("storage_version") == store.STORAGE_VERSION + "+" and not Path(f"{db}.wal").exists():
            connection.execute("DETACH site_source")
            target.unlink(missing_ok=True)
            shutil.copyfile(db, target)
            return
        _attach_target(connection, target)
        connection.execute("COPY FROM DATABASE site_source TO site_target")
        connection.execute("DETACH site_target")


def before_thread(db: str | Path) -> None:
    """Import, in the calling thread, what write_all() imports for `db`, before write_all() runs on
    a thread of its own: a server database's copy goes through Arrow tables built from Python
    values, for which pyarrow imports pandas. (The Arrow files are written in a process of their own:
    exports.write_arrows.)"""
    if store.is_url(db):
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401


def _duckdb_copy(target: Path, db: str) -> None:
    """A server database has no file to ship: copy every table into a DuckDB file."""
    import duckdb
    import pyarrow as pa

    with store.reading(db) as query, duckdb.connect() as connection:
        _attach_target(connection, target)
        connection.execute("USE site_target")
        for name in TABLES:
            table = store.metadata.tables[name]
            _names, rows = query(f"SELECT * FROM {identifier(name)}")
            columns = [c.name for c in table.columns]
            incoming = pa.Table.from_pydict(  # noqa: F841 (read by DuckDB by name)
                {c: [row[i] for row in rows] for i, c in enumerate(columns)}, schema=loading.arrow_schema(table)
            )
            connection.execute(f"CREATE TABLE {identifier(name)} AS SELECT * FROM incoming")
        connection.execute(costs_at.duckdb_sql())  # the download answers costs_at(...) as the source database does
        connection.execute("USE memory")
        connection.execute("DETACH site_target")


def board_script(board: Board) -> str:
    """The board's results for the compare page, as a script that registers them."""
    rows = [
        {
            "entry_id": r["entry_id"],
            "path": r["path"],
            "round": board.round["name"],
            "benchmark": board.benchmark["name"],
            "division": r["division"],
            "availability": r["availability"],
            "submitter": r["submitter"],
            "system": r["system"],
            "accelerator": r["accelerator_name"],
            "chips": r["chips"],
            "minutes": r["minutes"],
            "models": r["models"],
            "models_per_minute": r["models_per_minute"],
            "chip_hours": r["chip_hours"],
            "costs": r["cost_by_tier"],
            # Each cost's marks (a later price and its gap, an estimate) and the costs at the
            # catalog's latest prices, for the boards' price toggle (render/prices.py).
            "marks": {tier: "; ".join(cost["marks"]) for tier, cost in r["costs"].items()},
            "latest_costs": r["latest_costs"],
            "latest_marks": {tier: "; ".join(marks) for tier, marks in r["latest_marks"].items()},
            # What each cost rests on ("$2.48/chip-hour, AWS"), shown under it (render/prices.py).
            "bases": {tier: cost["basis"] for tier, cost in r["costs"].items()},
            "latest_bases": r["latest_bases"],
            # Why a tier has no cost, where it has none (shown behind an "n/a" disclosure).
            "cost_notes": {t: c["note"] for t, c in r["costs"].items() if c["cost_usd"] is None and c.get("note")},
            "quality": r["quality"],
            "quality_target": r["quality_target"],
            "rank": r["board_rank"],
            "ranked": bool(r.get("ranked", True)),
            "date": r["date"],
            "model": r["model_name"],
            "model_parameters": r["model_parameters"],
            "model_text": r["model_text"],
            "verified": r["verified"],
            "source_url": r["source_url"],
            # What a leaderboard page needs to draw the row (site.js), formatted as the templates do.
            "accelerator_id": r["accelerator"],
            "accelerator_path": r["accelerator_path"],
            "submitter_path": r["submitter_path"],
            "source_citation": r["source_citation"],
            "verified_note": r["verified_note"],
            "republished_note": r.get("republished_note"),
            "republished_path": r.get("republished_path"),
            "estimated": bool(r["estimated"]),
            "quality_text": None if r["quality"] is None else f"{r['quality']:.4g}",
            "target_text": None if r["quality_target"] is None else f"{r['quality_target']:.4g}",
            "search": " ".join(
                [r["submitter"], r["system"], r["accelerator_name"], r["model_name"] or "", r["framework"] or ""]
            ).lower(),
        }
        for r in board.rows
    ]
    payload = {
        "key": board.key,
        "title": board.title,
        "rank_metric": board.rank_metric,
        "reference_model": board.benchmark.get("reference_model"),
        "rows": rows,
    }
    text = json.dumps(payload, ensure_ascii=True, sort_keys=True, separators=(",", ":")).replace("<", "\\u003c")
    return f"(window.leaderboardBoards = window.leaderboardBoards || {{}})[{json.dumps(board.key)}] = {text};\n"
