"""Render the static site from the database into a folder, atomically (build aside, swap in).

Pages are Jinja2 templates with autoescaping; the site works from file:// with no network.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import jinja2

from leaderboard import store
from leaderboard.catalog import Catalog

TEMPLATES = Path(__file__).parent / "templates"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["num"] = _number
    env.filters["usd"] = lambda v: "" if v is None else f"${v:,.0f}" if v >= 100 else f"${v:,.2f}"
    return env


def _number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return ""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def render_site(db: str | Path, out: Path, catalog: Catalog) -> None:
    names, rows = store.run_query(db, "SELECT * FROM results ORDER BY round, benchmark, division, rank, entry_id")
    results = [dict(zip(names, row)) for row in rows]
    env = environment()
    staging = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        page = env.get_template("index.html").render(results=results, rounds=catalog.rounds)
        (staging / "index.html").write_text(page, encoding="utf-8")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _swap(staging, out)


def _swap(staging: Path, out: Path) -> None:
    """Replace `out` by `staging` with two renames, so `out` is never half written."""
    old = out.with_name(f".{out.name}.{os.getpid()}.old")
    if out.exists():
        os.replace(out, old)
    os.replace(staging, out)
    shutil.rmtree(old, ignore_errors=True)
