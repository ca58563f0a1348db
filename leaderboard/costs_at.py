"""costs_at(at_date, at_tier): every result priced at one chosen date and tier, a table macro in
DuckDB and a set-returning function in PostgreSQL, both created with the database.

The rule is normalize.price_in_force's, in SQL: per provider its latest price dated on or before
the date (the lowest amount that day, then the first price_id); among providers the lowest per
chip-hour (per chip for purchase), then the first provider, then the first price_id. When no
price is that old, the earliest later ones compete the same way, and the cost is flagged with
the gap in days. at_date NULL prices every result at its own date: the `costs` table's choice.
A tier outside normalize.TIERS is an error in both engines, never a table of NULL costs.

    SELECT * FROM costs_at(DATE '2025-01-01', 'on-demand');   -- every result at 2025's prices
    SELECT * FROM costs_at(NULL, '1-year');                   -- each at its own date (= costs)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard.normalize import TIERS

if TYPE_CHECKING:
    import sqlalchemy as sa

# (name, PostgreSQL type) of what costs_at returns, in order; README documents each.
COLUMNS = (
    ("entry_id", "text"),
    ("tier", "text"),
    ("priced_at", "date"),
    ("price_id", "text"),
    ("provider", "text"),
    ("usd_per_chip_hour", "double precision"),
    ("cost_usd", "double precision"),
    ("price_date", "date"),
    ("price_source", "text"),
    ("price_origin", "text"),
    ("price_after_date", "boolean"),
    ("price_after_date_days", "integer"),
    ("price_estimate", "boolean"),
)
COLUMN_DOCS = {
    "entry_id": "The result (results.entry_id); every result, priced or not.",
    "tier": "The tier asked for.",
    "priced_at": "The date prices were taken at: at_date, or the result's own date when at_date is NULL.",
    "price_id": "The price used (prices.price_id); NULL when the part has no price of the tier.",
    "provider": "Its provider.",
    "usd_per_chip_hour": "Its amount per chip-hour; NULL for purchase.",
    "cost_usd": "chip_hours x usd_per_chip_hour (purchase: chips x price per chip).",
    "price_date": "The price's date.",
    "price_source": "The price's source.",
    "price_origin": "prices.origin: 'catalog' or 'epoch'.",
    "price_after_date": "true when no price was dated on or before priced_at, so the earliest later one is used.",
    "price_after_date_days": "Days from priced_at to price_date when price_after_date; NULL otherwise.",
    "price_estimate": "true when the price is an estimate.",
}

# {collate} orders text as Python does (by code point): DuckDB's default, PostgreSQL's "C".
_BODY = """
WITH asked AS (
    SELECT r.entry_id, r.accelerator, r.chips, r.chip_hours, COALESCE(CAST(at_date AS DATE), r.date) AS priced_at
    FROM results r{guard}
),
candidates AS (
    SELECT a.entry_id, p.price_id, p.provider, p.usd, p.date AS price_date,
           COALESCE(p.usd_per_chip_hour, p.usd) AS amount, p.date <= a.priced_at AS in_force
    FROM asked a JOIN prices p ON p.accelerator = a.accelerator AND p.tier = at_tier
),
provider_latest AS (
    SELECT entry_id, price_id, provider, amount,
           ROW_NUMBER() OVER (
               PARTITION BY entry_id, provider ORDER BY price_date DESC, usd, price_id{collate}
           ) AS position
    FROM candidates WHERE in_force
),
later AS (
    SELECT entry_id, price_id, provider, amount, price_date,
           MIN(price_date) OVER (PARTITION BY entry_id) AS first_date
    FROM candidates c
    WHERE NOT EXISTS (SELECT 1 FROM candidates f WHERE f.entry_id = c.entry_id AND f.in_force)
),
pool AS (
    SELECT entry_id, price_id, provider, amount FROM provider_latest WHERE position = 1
    UNION ALL
    SELECT entry_id, price_id, provider, amount FROM later WHERE price_date = first_date
),
chosen AS (
    SELECT entry_id, price_id,
           ROW_NUMBER() OVER (
               PARTITION BY entry_id ORDER BY amount, provider{collate}, price_id{collate}
           ) AS position
    FROM pool
)
SELECT a.entry_id, CAST(at_tier AS TEXT) AS tier, a.priced_at, p.price_id, p.provider, p.usd_per_chip_hour,
       CASE WHEN p.tier = 'purchase' THEN a.chips * p.usd ELSE a.chip_hours * p.usd_per_chip_hour END AS cost_usd,
       p.date AS price_date, p.source AS price_source, p.origin AS price_origin,
       CASE WHEN p.price_id IS NOT NULL THEN p.date > a.priced_at END AS price_after_date,
       CAST(CASE WHEN p.date > a.priced_at THEN p.date - a.priced_at END AS INTEGER) AS price_after_date_days,
       p.estimate AS price_estimate
FROM asked a
LEFT JOIN chosen c ON c.entry_id = a.entry_id AND c.position = 1
LEFT JOIN prices p ON p.price_id = c.price_id
"""


def unknown_tier_message(tier: str) -> str:
    return f"costs_at: unknown tier '{tier}'; the tiers are " + ", ".join(TIERS)


_TIER_LIST = ", ".join(f"'{tier}'" for tier in TIERS)


def _message_sql(tier_text: str) -> str:
    """unknown_tier_message as an SQL expression around the tier's text (no %: a driver reads it)."""
    before, after = (part.replace("'", "''") for part in unknown_tier_message("\0").split("\0"))
    return f"'{before}' || {tier_text} || '{after}'"


def duckdb_sql() -> str:
    # error() stops the query at the first row that reaches it: a tier outside TIERS, or NULL.
    message = _message_sql("COALESCE(CAST(at_tier AS TEXT), 'NULL')")
    guard = f"\n    WHERE CASE WHEN CAST(at_tier AS TEXT) IN ({_TIER_LIST}) THEN TRUE ELSE error({message}) END"
    return f"CREATE OR REPLACE MACRO costs_at(at_date, at_tier) AS TABLE {_BODY.format(collate='', guard=guard)}"


def postgresql_sql() -> str:
    returns = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
    body = _BODY.format(collate=' COLLATE "C"', guard="")
    message = _message_sql("COALESCE(at_tier, 'NULL')")
    # PL/pgSQL, to raise the unknown tier's error; #variable_conflict use_column makes a column's
    # name win over an OUT parameter's of the same name, so the body reads as in DuckDB.
    return (
        f"CREATE OR REPLACE FUNCTION costs_at(at_date date, at_tier text) RETURNS TABLE ({returns}) "
        "LANGUAGE plpgsql STABLE AS $body$\n#variable_conflict use_column\nBEGIN\n"
        f"IF at_tier IS NULL OR at_tier NOT IN ({_TIER_LIST}) THEN\n"
        f"  RAISE EXCEPTION USING MESSAGE = {message};\nEND IF;\n"
        f"RETURN QUERY {body};\nEND\n$body$"
    )


def create(connection: sa.Connection) -> None:
    """Create costs_at in the database `connection` writes (DuckDB or PostgreSQL)."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(postgresql_sql())
    else:
        connection.exec_driver_sql(duckdb_sql())
