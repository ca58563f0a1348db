"""The SQL page: DuckDB-WASM in the reader's browser over the site's copy of the database,
attached read-only, with worked examples. The WebAssembly files come from `make wasm`
(web/, pinned by its package-lock.json) and are copied into static/duckdb/ at build time.
"""

from __future__ import annotations

import os
from pathlib import Path

from leaderboard.render.writer import SiteWriter

# Where `make wasm` leaves the bundle (web/build/duckdb/), or $LEADERBOARD_DUCKDB_WASM.
WASM_BUILD = Path(__file__).resolve().parents[2] / "web" / "build" / "duckdb"
WASM_FILES = ("duckdb.mjs", "duckdb-browser-eh.worker.js", "duckdb-eh.wasm", "LICENSE-apache-arrow.txt")
RESULT_ROWS_SHOWN = 1_000  # the table shows the first rows; the CSV download holds them all
RESULT_ROWS_LIMIT = 100_000  # a larger result stops with a message
SLOW_QUERY_SECONDS = 30  # past this the page offers to cancel

# Each example a reader can run with one click; tests run them against leaderboard.duckdb too.
EXAMPLES = [
    (
        "The cheapest on-demand BERT result per accelerator",
        """SELECT accelerator_name, round, submitter, system, chips, minutes, cost_usd
FROM results
WHERE benchmark = 'bert' AND cost_usd IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY accelerator_name ORDER BY cost_usd, entry_id) = 1
ORDER BY cost_usd""",
    ),
    (
        "Chip-hours of the fastest closed ResNet-50 result per round",
        """SELECT r.name AS round, x.submitter, x.system, x.chips, x.minutes, x.chip_hours
FROM results x JOIN rounds r ON r.id = x.round
WHERE x.benchmark = 'resnet' AND x.division = 'closed'
QUALIFY row_number() OVER (PARTITION BY x.round ORDER BY x.minutes, x.entry_id) = 1
ORDER BY r.date""",
    ),
    (
        "Published runs that cost over $1M in today's dollars",
        """SELECT model_name, submitter, accelerator_name, chips, chip_hours,
       round(cost_usd_today) AS cost_usd_today, cost_usd_today_basis
FROM results
WHERE round = 'published' AND cost_usd_today > 1e6
ORDER BY cost_usd_today DESC, entry_id""",
    ),
    (
        "Results per submitter per round",
        """SELECT submitter, round, count(*) AS results
FROM results
WHERE round_kind = 'mlperf-training'
GROUP BY submitter, round
ORDER BY round DESC, results DESC, submitter""",
    ),
]


def wasm_folder() -> Path:
    return Path(os.environ.get("LEADERBOARD_DUCKDB_WASM") or WASM_BUILD)


def write_page(site: SiteWriter) -> None:
    """sql.html over the database file downloads.write_all shipped, and the DuckDB-WASM files beside it
    when `make wasm` has built them (else the page says how to get them; every other page works)."""
    folder = wasm_folder()
    available = all((folder / name).is_file() for name in WASM_FILES)
    if available:
        for name in WASM_FILES:
            site.copy_file(f"static/duckdb/{name}", folder / name)
    site.page(
        "sql.html",
        "sql.html",
        tables=site.tables,
        examples=EXAMPLES,
        available=available,
        shown=RESULT_ROWS_SHOWN,
        limit=RESULT_ROWS_LIMIT,
        slow=SLOW_QUERY_SECONDS,
    )
