"""Leaderboard pages (one per round x benchmark, split by division, paged) and round pages."""

from __future__ import annotations

from dataclasses import astuple
from functools import partial

from leaderboard.families import family
from leaderboard.render import charts as chart_specs
from leaderboard.render import left_off, likeness, model, progress
from leaderboard.render import prices as site_prices
from leaderboard.render.chart_points import result_points
from leaderboard.render.model import Board
from leaderboard.render.writer import SiteWriter


def write_pages(site: SiteWriter, colours: dict) -> None:
    for board in site.data.boards:
        _board_page(site, board, colours)
    for round_ in site.data.rounds:
        _round_page(site, round_, colours)


def _division_context(board: Board, division: str) -> str:
    return f"{board.benchmark['name']}, {board.round['name']}, {division} division"


def board_page_count(board: Board, page_rows: int) -> int:
    return max(1, max((-(-len(rows) // page_rows) for rows in board.divisions.values()), default=1))


def board_page_path(board: Board, page: int) -> str:
    """Page 0 is the board's own path; later pages sit in a folder named after it."""
    if page == 0:
        return board.path
    return f"boards/{board.round['id']}/{board.benchmark['id']}/page-{page + 1}.html"


def accelerator_groups(data: model.SiteData) -> list[set[str]]:
    """The accelerator ids each accelerator-coloured chart may show together: a board's
    division, a round page (all its boards)."""
    divisions = [{r["accelerator"] for r in rows} for b in data.boards for rows in b.divisions.values()]
    rounds = [
        {r["accelerator"] for b in data.boards if b.round["id"] == round_["id"] for r in b.rows}
        for round_ in data.rounds
    ]
    return [group for group in divisions + rounds if group]


def division_charts(board: Board, division: str, styles: dict, points: list[dict]) -> list[chart_specs.Chart]:
    """A board division's charts: minutes against chips (rounds with rules), cost, chip-hours;
    drawn from `points`, the division's results as result_points gives them (all a chart shows
    of a result: a change to anything else, a result's framework or its source, builds no chart)."""
    if board.rank_metric == "models_per_minute":
        # Weak scaling: each result trained its own number of models, so its minutes, chip-hours
        # and cost cover all of them. Charted raw, a result that trained more models would look
        # worse: the benchmark's page charts them per model (lineages.py).
        return []
    context = _division_context(board, division)
    stem = f"{board.round['id']}--{board.benchmark['id']}--{division}"
    charts = []
    kind = family(board.round["kind"])
    if kind.round_rules:
        charts.append(chart_specs.scaling(f"{stem}--scaling", points, context, styles))
    # On an MLPerf board (its family's results are recomputed from MLCommons' logs), the charts
    # say that chip-hours and cost are not official MLPerf metrics.
    derived = chart_specs.DERIVED_MLPERF if kind.verifiable else chart_specs.DERIVED
    charts.append(chart_specs.cost_frontier(f"{stem}--cost", points, context, styles, derived))
    charts.append(chart_specs.chip_hours_bars(f"{stem}--chip-hours", points, context, styles, derived, kind.model_runs))
    return [c for c in charts if c]


def _board_page(site: SiteWriter, board: Board, colours) -> None:
    root = "../" * board.path.count("/")
    charts_by_division = {}
    for division, rows in board.divisions.items():
        context = _division_context(board, division)
        stem = f"{board.round['id']}--{board.benchmark['id']}--{division}"
        # The looks of the division's accelerators, as plain values (the reuse key hashes them).
        looks = {n: astuple(colours[n]) for n in sorted({r["accelerator_name"] for r in rows}) if n in colours}
        # The key of its charts: the points they are drawn from, not the rows (a change no chart
        # shows builds none, and leaves Altair unimported).
        points = result_points(rows, root)
        inputs = [stem, board.round["kind"], points, context, looks]
        charts = site.chart_specs(stem, inputs, partial(division_charts, board, division, colours, points))
        charts_by_division[division] = [site.chart(c) for c in charts]
    rows = board.rows
    count = board_page_count(board, site.page_rows)
    pages = [{"number": k + 1, "path": board_page_path(board, k)} for k in range(count)]
    left_off_rows = [s for s in site.data.skipped.get(board.round["id"], []) if s["benchmark"] == board.benchmark["id"]]
    cpu_rows = [r for r in rows if r["cpu_only"]]
    filters = {
        "accelerators": sorted({(r["accelerator"], r["accelerator_name"]) for r in rows}, key=lambda a: (a[1], a[0])),
        "submitters": sorted({r["submitter"] for r in rows}, key=lambda name: (name.casefold(), name)),
        "availabilities": [a for a in model.AVAILABILITIES if any(r["availability"] == a for r in rows)],
        "unverified": sum(1 for r in rows if not r["verified"]),
        "later_prices": site_prices.later_price_count(rows),
        "prices_as_of": site.data.prices_as_of,
        # What the round's importer read for this benchmark and put on no board, with why.
        "left_off_rows": left_off_rows,
        "left_off_sentence": left_off.board_sentence(board.round["kind"], len(left_off_rows)),
        # Systems of processors alone count CPUs, not chips (results.cpu_only): the board says so,
        # and site.js draws their rows so from the board's data file (by accelerator).
        "cpu_results": len(cpu_rows),
        "cpu_parts": sorted({r["accelerator_name"] for r in cpu_rows}),
        "cpu_accelerators": sorted({r["accelerator"] for r in cpu_rows}),
    }
    for k, page in enumerate(pages):
        first = k * site.page_rows
        sections = [
            {
                "division": division,
                "rows": division_rows[first : first + site.page_rows],
                "first": first + 1,
                "size": len(division_rows),
                "ranked": board.ranked[division],
                # The charts draw every row of the division: they sit on the first page only.
                "charts": charts_by_division[division] if k == 0 else [],
                # Open divisions whose results train different models say so above their table
                # (not published runs: each trains its own model, and the board says so).
                "model_notice": likeness.open_division_notice(division_rows, board.benchmark.get("reference_model"))
                if division == "open" and not family(board.round["kind"]).model_runs
                else None,
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


def round_points(data: model.SiteData, round_: dict, root: str = "../") -> tuple[list[dict], list[dict]]:
    """All a round page's charts show of its results: each as a chart's point, and those with a
    cost their submitter reported as the reported-cost chart's."""
    rows = [r for b in data.boards if b.round["id"] == round_["id"] for r in b.rows]
    return result_points(rows, root), progress.reported_points(rows)


def round_charts(
    data: model.SiteData, round_: dict, colours: dict, points: list[dict], reported: list[dict]
) -> list[chart_specs.Chart]:
    """A round page's charts: published runs over time, our cost against Epoch AI's and
    against the cost submitters reported; drawn from round_points (an edit no chart shows
    builds none of them)."""
    charts = []
    if family(round_["kind"]).model_runs and points:
        for metric in ("chip_hours", "cost"):
            charts.append(
                chart_specs.over_time(f"{round_['id']}--{metric}-over-time", points, metric, round_["name"], colours)
            )
        if data.epoch_comparison:
            charts.append(
                chart_specs.epoch_comparison(
                    f"{round_['id']}--epoch-cost", data.epoch_comparison, {p["entry_id"]: p for p in points}
                )
            )
    # Where submitters reported what they paid (DAWNBench): our cost against theirs.
    charts.append(progress.reported_cost_chart(f"{round_['id']}--reported-cost", reported, round_["name"], colours))
    return [c for c in charts if c]


def _round_page(site: SiteWriter, round_: dict, colours) -> None:
    data = site.data
    path = f"rounds/{round_['id']}.html"
    boards = [b for b in data.boards if b.round["id"] == round_["id"]]
    rows = [r for b in boards for r in b.rows]
    points, reported = round_points(data, round_)
    # As last built from the same inputs (everything round_charts reads), else built afresh.
    charts = site.chart_specs(
        f"round--{round_['id']}",
        [round_, points, reported, data.epoch_comparison, colours],
        partial(round_charts, data, round_, colours, points, reported),
    )
    site.page(
        path,
        "round.html",
        round=round_,
        boards=[b.summary for b in boards],
        charts=[site.chart(c) for c in charts],
        cost_check=progress.cost_check(rows),
        counts=left_off.counts_sentence(round_["kind"], len(rows), round_.get("left_off")),
        left_off_rows=data.skipped.get(round_["id"], []),
    )
