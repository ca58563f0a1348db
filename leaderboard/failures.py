"""Why a run failed, in one small vocabulary: the codes of runs.failure_reason, what each means,
and the importers' reason texts (provenance.failed_runs) they come from (pure, no I/O).
"""

from __future__ import annotations

# Code -> meaning. runs.failure_reason holds a code; runs.failure_detail the importer's words.
FAILURE_REASONS = {
    "aborted": "run_stop's status is not success (logs spell it aborted, abort or fail)",
    "no_status": "run_stop carries no status",
    "missing_record": "the log has no run_start or no run_stop",
    "repeated_record": "run_start or run_stop is logged more than once",
    "malformed_log": "a line that decides the score cannot be read (the detail names the line)",
    "unreadable_log": "the log file itself could not be read",
    "bad_times": "run_stop is not after run_start",
    "slow_initialization": "initialization took the round's limit or longer",
    "target_not_reached": "no evaluation before run_stop reached the quality target",
    "other": "a reason in none of the words above (a self-reported file's own)",
}

# The importers' reason texts (runlog.RunLog.failure, mlperf_hpc.run_failure, the log readers'
# "line N: ..." problems), by how they begin; the first match wins.
_PREFIXES = (
    ("run_stop status is missing", "no_status"),
    ("run_stop has no status", "no_status"),
    ("run_stop status is ", "aborted"),
    ("no run_start", "missing_record"),
    ("no run_stop", "missing_record"),
    ("run_start logged ", "repeated_record"),
    ("run_stop logged ", "repeated_record"),
    ("line ", "malformed_log"),
    ("not read", "unreadable_log"),
    ("run_stop is not after run_start", "bad_times"),
    ("initialization took ", "slow_initialization"),
    ("quality target never reached", "target_not_reached"),
    ("the open division's quality target never reached", "target_not_reached"),
)


def failure_reason(detail: str | None) -> str | None:
    """The code of FAILURE_REASONS for an importer's reason text; None for no text."""
    if detail is None:
        return None
    return next((code for prefix, code in _PREFIXES if detail.startswith(prefix)), "other")
