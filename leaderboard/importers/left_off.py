"""What an MLPerf import leaves off: each result folder of a source that reaches no board (its logs
absent from the public copy as MISSING.txt lists them, too few runs, failed runs), as skipped rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from leaderboard.catalog import Catalog, Round
from leaderboard.importers.entries import source_url
from leaderboard.importers.layouts import Layout, ResultDir, in_source
from leaderboard.skipped import SkippedResult

MISSING_FILE = "MISSING.txt"  # the public copy's list of the published files it lacks, one path a line
MAX_MISSING_BYTES = 1 << 20


def is_missing_list(path: str) -> bool:
    """MISSING.txt at the top of a source (an archive's top folder, or a folder's own name)."""
    return path.rsplit("/", 1)[-1] == MISSING_FILE and path.count("/") <= 1


def read_missing(text: str, list_path: str, layout: Layout) -> dict[ResultDir, list[str]]:
    """The run logs MISSING.txt lists, by result folder (paths in the list are the repository's,
    under the list's own folder). Lines that name no run log (a header, another file) are not counted."""
    top = list_path.rsplit("/", 1)[0] if "/" in list_path else ""
    missing: dict[ResultDir, list[str]] = {}
    for line in text.splitlines():
        name = line.strip()
        if not name or name.startswith("#"):
            continue
        log = layout.log_file(in_source(top, name))
        if log is not None and log.kind == "run":
            missing.setdefault(log.result, []).append(log.name)
    return missing


def absent_reason(names: Sequence[str]) -> str:
    """Why a result folder the public copy lacks altogether is on no board."""
    return f"the public copy has none of its logs: {MISSING_FILE} lists {len(names)} ({_names(names)})"


def short_reason(reason: str, names: Sequence[str]) -> str:
    """A skip reason, with the logs MISSING.txt says the public copy lacks where it lists any."""
    if not names:
        return reason
    return f"{reason}; {MISSING_FILE} lists {len(names)} more absent from the public copy ({_names(names)})"


def _names(names: Sequence[str]) -> str:
    ordered = sorted(names, key=lambda n: (len(n), n))
    return ", ".join(ordered) if len(ordered) <= 3 else f"{ordered[0]} to {ordered[-1]}"


def _described(result: ResultDir, systems: Mapping[str, Any]) -> tuple[str, str]:
    """(submitter, system name) as the folder's system description gives them, else its folders."""
    for name in result.system_files:
        desc = systems.get(in_source(result.top, name))
        if isinstance(desc, dict):
            submitter, system = desc.get("submitter"), desc.get("system_name")
            return (
                " ".join(str(submitter).split()) if submitter else result.org,
                " ".join(str(system).split()) if system else result.system,
            )
    return result.org, result.system


def skipped_rows(
    round_: Round,
    catalog: Catalog,
    skipped: Sequence[tuple[ResultDir, str]],
    found: Mapping[ResultDir, int],
    missing: Mapping[ResultDir, list[str]],
    systems: Mapping[str, Any],
) -> list[SkippedResult]:
    """One row per result folder left off: those skipped (with their reason), and those
    MISSING.txt lists whose folder the source lacks altogether."""
    reasons = {result: short_reason(reason, missing.get(result, ())) for result, reason in skipped}
    for result, names in missing.items():
        if found.get(result, 0) == 0 and result not in reasons:
            reasons[result] = absent_reason(names)
    rows = []
    for result, reason in sorted(reasons.items()):
        benchmark = catalog.benchmarks.get(round_.benchmark_of_folder(result.folder))
        rules = benchmark.rounds.get(round_.id) if benchmark else None
        submitter, system = _described(result, systems)
        rows.append(
            SkippedResult(
                round=round_.id,
                folder=result.repo_path,
                submitter=submitter,
                system=system,
                benchmark=benchmark.id if rules is not None else result.folder,
                reason=reason,
                logs_found=found.get(result, 0),
                logs_needed=rules.runs if rules is not None else None,
                logs_missing=len(missing.get(result, ())),
                source_url=source_url(round_, result),
            )
        )
    return rows
