"""What a chart's points hold and what their tooltips say: a result as a point (its link, its
rank or why it has none, the price behind its cost) and the units of its count, chips or CPUs."""

from __future__ import annotations

from leaderboard.render import vega_lite as alt
from leaderboard.rows import UNRANKED_REASONS


def units(rows: list[dict]) -> tuple[str, str]:
    """What a chart of `rows` calls their count and their hours: chips and chip-hours; CPUs and
    processor-hours where every result is of a system of processors alone (results.cpu_only, as
    the tables say), both where the chart shows both kinds."""
    cpu = {bool(r.get("cpu_only")) for r in rows}
    if cpu == {True}:
        return "CPUs", "Processor-hours"
    if cpu == {True, False}:
        return "Chips or CPUs", "Chip- or processor-hours"
    return "Chips", "Chip-hours"


def units_note(rows: list[dict]) -> str:
    """The sentence a chart of both kinds adds (units): which results count CPUs."""
    if units(rows)[0] != "Chips or CPUs":
        return ""
    return " Systems of processors alone count CPUs, not chips, and their hours are processor-hours."


def board_tooltip(rows: list[dict], cost_title: str = "Cost, on-demand (USD)") -> list[alt.Tooltip]:
    count, hours = units(rows)
    return [
        alt.Tooltip("submitter:N", title="Submitter"),
        alt.Tooltip("system:N", title="System"),
        alt.Tooltip("accelerator:N", title="Accelerator"),
        alt.Tooltip("chips:Q", title=count, format=",.4~f"),
        alt.Tooltip("minutes:Q", title="Minutes", format=",.4~f"),
        alt.Tooltip("chip_hours:Q", title=hours, format=",.1f"),
        alt.Tooltip("cost:Q", title=cost_title, format="$,.2f"),
        alt.Tooltip("price:N", title="Price used"),
        alt.Tooltip("division:N", title="Division"),
        alt.Tooltip("availability:N", title="Availability"),
        alt.Tooltip("rank:N", title="Rank"),
    ]


def price_mark(row: dict) -> str:
    """What a tooltip says of the on-demand price behind a cost: its marks (a later price and the
    gap in days, an estimate), else that it was in force at the result's date."""
    if row.get("cost_usd") is None:
        return "none"
    marks = ((row.get("costs") or {}).get("on-demand") or {}).get("marks") or []
    return "; ".join(marks) or "in force at the result's date"


def result_points(rows: list[dict], root: str) -> list[dict]:
    """Each result of `rows` as a chart's point: what its marks, tooltip and link need."""
    return [
        {
            "entry_id": row["entry_id"],
            "submitter": row["submitter"],
            "system": row["system"],
            "accelerator": row["accelerator_name"],
            "chips": row["chips"],
            "cpu_only": bool(row.get("cpu_only")),  # its chips are CPUs (units)
            "minutes": row["minutes"],
            "chip_hours": row["chip_hours"],
            "cost": row["cost_usd"],
            "price": price_mark(row),
            "division": row["division"],
            "availability": row["availability"],
            "date": row["date"],
            "model": row["model_name"],
            "url": root + row["path"],
            "ranked": bool(row.get("ranked", True)),
            "unranked_reason": None if row.get("ranked", True) else row.get("unranked_reason"),
            "rank": rank_text(row),
        }
        for row in rows
    ]


def rank_text(row: dict) -> str:
    """What a tooltip says of the result's rank on its board."""
    if row.get("ranked", True):
        return str(row["board_rank"]) if row.get("board_rank") is not None else "ranked"
    reason = row.get("unranked_reason")
    return f"none: {UNRANKED_REASONS[reason]}" if reason in UNRANKED_REASONS else "none"
