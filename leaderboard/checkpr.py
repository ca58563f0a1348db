"""What a pull request changes in submissions/: validation of the changed files only, and
where each new or changed entry would rank if merged. Git is read, never written.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from leaderboard.files import SUFFIXES
from leaderboard.normalize import competition_ranks
from leaderboard.problems import Problem
from leaderboard.rows import table_rows
from leaderboard.validate import validate_paths

RANK_KEYS = (("minutes", "minutes"), ("chip_hours", "chip-hours"), ("cost_usd", "cost"))


class GitError(RuntimeError):
    """git could not answer (not a repository, unknown ref)."""


@dataclass
class Change:
    status: str  # added | modified | deleted
    file: str


@dataclass
class Preview:
    entry_id: str
    file: str
    status: str
    group: str  # round / benchmark / division
    chips: float
    minutes: float
    chip_hours: float
    cost_usd: float | None
    ranks: dict[str, tuple[int | None, int]]  # key -> (rank, out of)


@dataclass
class PullRequestCheck:
    base: str
    changes: list[Change] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    previews: list[Preview] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if done.returncode != 0:
        raise GitError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"git {args[0]} failed")
    return done.stdout


def default_base(repo: Path) -> str:
    """origin/main when the repository has it (CI clones), else main."""
    try:
        _git(repo, "rev-parse", "--verify", "--quiet", "origin/main")
        return "origin/main"
    except GitError:
        return "main"


def changed_files(repo: Path, base: str) -> list[Change]:
    """Files changed between the merge base with `base` and the working tree, plus untracked ones."""
    merge_base = _git(repo, "merge-base", base, "HEAD").strip()
    changes = []
    output = _git(repo, "diff", "--name-status", "--no-renames", "-z", merge_base)
    parts = [p for p in output.split("\0") if p]
    for status, name in zip(parts[::2], parts[1::2], strict=True):
        kind = {"A": "added", "D": "deleted"}.get(status[0], "modified")
        changes.append(Change(kind, name))
    for name in _git(repo, "ls-files", "--others", "--exclude-standard", "-z").split("\0"):
        if name:
            changes.append(Change("added", name))
    return sorted(changes, key=lambda c: c.file)


def _is_data(name: str, folder: str) -> bool:
    path = Path(name)
    return path.parts[:1] == (folder,) and path.suffix.lower() in SUFFIXES


def check_pull_request(
    repo: Path, base: str, submissions: str = "submissions", catalog: str = "catalog", today: dt.date | None = None
) -> PullRequestCheck:
    result = PullRequestCheck(base)
    for change in changed_files(repo, base):
        if _is_data(change.file, submissions) or _is_data(change.file, catalog):
            result.changes.append(change)
        else:
            result.ignored.append(change.file)
    touched = {c.file for c in result.changes if c.status != "deleted"}
    result.deleted = [c.file for c in result.changes if c.status == "deleted" and _is_data(c.file, submissions)]

    validation = validate_paths([repo / submissions], repo / catalog, today=today)
    for problem in validation.problems:
        name = _relative(problem.file, repo)
        if name in touched or _involves(problem, touched):
            result.problems.append(
                Problem(name, problem.line, problem.col, problem.json_path, problem.message, problem.hint)
            )
    if validation.catalog is None or validation.catalog.problems:
        return result
    rows = table_rows(validation.entries, validation.catalog, base=repo).results
    status = {c.file: c.status for c in result.changes}
    result.previews = [_preview(row, rows, status[row["file"]]) for row in rows if row["file"] in touched]
    return result


def _involves(problem: Problem, touched: set[str]) -> bool:
    """A duplicate reported on an unchanged file that names a changed one is the change's problem too."""
    return any(name in problem.message for name in touched) and problem.message.startswith("duplicate entry")


def _relative(file: str, repo: Path) -> str:
    try:
        return Path(file).resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return file


def _preview(row: dict, rows: list[dict], status: str) -> Preview:
    group = [
        r
        for r in rows
        if (r["round"], r["benchmark"], r["division"]) == (row["round"], row["benchmark"], row["division"])
    ]
    ranks = {}
    for key, label in RANK_KEYS:
        values = [r[key] for r in group]
        ranked = competition_ranks(values)
        ranks[label] = (ranked[group.index(row)], sum(v is not None for v in values))
    return Preview(
        row["entry_id"],
        row["file"],
        status,
        f"{row['round']} / {row['benchmark']} / {row['division']}",
        row["chips"],
        row["minutes"],
        row["chip_hours"],
        row["cost_usd"],
        ranks,
    )


# ---- output ------------------------------------------------------------------------------


def _rank_text(rank: tuple[int | None, int]) -> str:
    return "no cost (no price)" if rank[0] is None else f"{rank[0]} of {rank[1]}"


def _money(value: float | None) -> str:
    return "n/a (no price)" if value is None else f"${value:,.2f}"


def as_text(check: PullRequestCheck) -> str:
    lines = []
    for problem in check.problems:
        lines.append(problem.format())
    for name in check.deleted:
        lines.append(f"deleted: {name}")
    for name in check.ignored:
        lines.append(f"ignored (not a submission or catalog file): {name}")
    for p in check.previews:
        lines.append(f"{p.status}: {p.entry_id} ({p.file})")
        lines.append(
            f"  {p.group}: {p.chips:g} chips, {p.minutes:g} minutes, {p.chip_hours:,.2f} chip-hours, "
            f"cost {_money(p.cost_usd)} on demand"
        )
        lines.append("  would rank " + ", ".join(f"{label} {_rank_text(rank)}" for label, rank in p.ranks.items()))
    n = len([c for c in check.changes if c.status != "deleted"])
    lines.append(
        f"{n} changed files checked against {check.base}: "
        + ("all valid" if check.ok else f"{len(check.problems)} problems")
    )
    return "\n".join(lines) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def as_github(check: PullRequestCheck) -> str:
    """GitHub workflow commands: each problem as an error annotation on its file, line and column."""
    lines = []
    for problem in check.problems:
        props = [
            f"file={_escape_property(problem.file)}",
            f"line={problem.line}",
            f"col={problem.col}",
            f"title={_escape_property(problem.json_path)}",
        ]
        message = problem.message + (f" (hint: {problem.hint})" if problem.hint else "")
        lines.append(f"::error {','.join(props)}::{_escape_data(message)}")
    for name in check.deleted:
        lines.append(f"::notice file={_escape_property(name)}::{_escape_data('entry deleted by this pull request')}")
    for p in check.previews:
        summary = "; ".join(f"{label} {_rank_text(rank)}" for label, rank in p.ranks.items())
        lines.append(
            f"::notice file={_escape_property(p.file)},title=Rank preview::"
            + _escape_data(
                f"{p.group}: would rank {summary}; {p.chip_hours:,.2f} chip-hours, {_money(p.cost_usd)} on demand"
            )
        )
    return "\n".join(lines) + ("\n" if lines else "")


MARKER = "<!-- leaderboard-check-pr -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")


def as_markdown(check: PullRequestCheck) -> str:
    """A pull-request comment body; the marker lets the workflow update its earlier comment."""
    out = [MARKER, "## Leaderboard check", ""]
    if check.ok:
        out.append(f"All {len([c for c in check.changes if c.status != 'deleted'])} changed files are valid.")
    else:
        out += [
            f"**{len(check.problems)} problems** must be fixed before merging:",
            "",
            "| file | line | field | problem |",
            "|---|---|---|---|",
        ]
        for p in check.problems:
            message = p.message + (f" (hint: {p.hint})" if p.hint else "")
            out.append(f"| `{_cell(p.file)}` | {p.line} | `{_cell(p.json_path)}` | {_cell(message)} |")
    if check.previews:
        out += [
            "",
            "### Where the entries would rank",
            "",
            "| entry | round / benchmark / division | chips | minutes | chip-hours | cost (on demand) | rank by minutes | by chip-hours | by cost |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for p in check.previews:
            out.append(
                f"| `{_cell(p.entry_id)}` ({p.status}) | {_cell(p.group)} | {p.chips:g} | {p.minutes:g} | "
                f"{p.chip_hours:,.2f} | {_money(p.cost_usd)} | {_rank_text(p.ranks['minutes'])} | "
                f"{_rank_text(p.ranks['chip-hours'])} | {_rank_text(p.ranks['cost'])} |"
            )
    if check.deleted:
        out += ["", "### Deleted entries", ""] + [f"- `{_cell(name)}`" for name in check.deleted]
    out += ["", "Chip-hours and cost are derived numbers, not official MLPerf metrics."]
    return "\n".join(out) + "\n"
