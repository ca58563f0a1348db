"""What a pull request changes: every changed file accounted for (validated, failed, reported
as misplaced, or named with its kind), and where each new or changed entry would rank if
merged. Git is read, never written.
"""

from __future__ import annotations

import datetime as dt
import difflib
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path

from leaderboard.catalog import Catalog
from leaderboard.files import SUFFIXES, load
from leaderboard.normalize import cost_marks, rank_metric
from leaderboard.organizations import canonical_names, name_key
from leaderboard.problems import Problem
from leaderboard.review import catalog_effect, changes, closed, neighbours, plausibility
from leaderboard.rows import UNRANKED_REASONS, table_rows
from leaderboard.validate import validate_paths
from leaderboard.verification import EntryDiff, entry_diffs


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
    # its rank by the board's ranking and its place under the other sorts, the results above and below, the board
    placement: neighbours.Placement
    cost_mark: str = ""  # " (price dated N days later)" when the on-demand price postdates the result
    no_cost: str | None = None  # why it has no on-demand cost, as the site says it (rows' cost_missing_reason)
    unranked: str | None = None  # why the board lists it without a rank (rows.UNRANKED_REASONS), else None


@dataclass
class Misplaced:
    """A changed file outside submissions/ and catalog/ that looks meant as one of theirs: it is
    not checked, and the site would not show it."""

    file: str
    why: str


@dataclass
class PullRequestCheck:
    """Every output starts with the changed paths a code owner must review, then the results
    already on the boards it changes (flagged, not failed), then the changes to verified
    entries, then the other problems (both fail the check), then the misplaced files
    (reported, not failed)."""

    base: str
    changes: list[Change] = field(default_factory=list)  # the submission and catalog files validated
    # closed rounds and importer-written files (review/closed.py): fail first
    verified_changes: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    misplaced: list[Misplaced] = field(default_factory=list)
    paths: list[changes.ChangedPath] = field(default_factory=list)  # every changed path outside submissions/
    catalog_effect: catalog_effect.CatalogEffect | None = None  # a catalog change: what it moves
    unchecked: int = 0  # submission files not checked (nor the effect computed): a catalog file is unread
    previews: list[Preview] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    diffs: list[EntryDiff] = field(default_factory=list)  # each changed or deleted entry, before -> after
    plausibility: list[plausibility.Verdict] = field(default_factory=list)  # each new or changed result's comparisons
    # (file, submitter) of each added result under a submitter folder already on the boards: flagged
    speaks_for: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No problem, and something checked when a file looks meant as a submission: a pull
        request whose only entry is misplaced is never green."""
        return not self.problems and not self.verified_changes and not self.only_misplaced

    @property
    def only_misplaced(self) -> bool:
        return bool(self.misplaced) and not self.changes

    @property
    def checked(self) -> int:
        return len([c for c in self.changes if c.status != "deleted"])


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if done.returncode != 0:
        raise GitError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"git {args[0]} failed")
    return done.stdout


def repository_root(start: Path, submissions: str = "submissions", catalog: str = "catalog") -> Path:
    """The folder holding catalog/ and submissions/ at or above `start` (check-pr runs from any
    folder of the repository, a submitter's own included); else git's top level; else `start`."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / submissions).is_dir() and (folder / catalog).is_dir():
            return folder
    try:
        return Path(_git(start, "rev-parse", "--show-toplevel").strip())
    except GitError:
        return start


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
    repo: Path,
    base: str,
    submissions: str = "submissions",
    catalog: str = "catalog",
    today: dt.date | None = None,
    reimported: Path | None = None,
) -> PullRequestCheck:
    """Every changed file is validated (a submission or catalog file; any other file under
    submissions/ fails), reported as misplaced (outside, but looks meant as one), or ignored;
    a file in a closed round, or one an importer wrote, or a manifest, passes only as the fresh
    import in `reimported` wrote it (without it, only unchanged: review/closed.py)."""
    result = PullRequestCheck(base)
    others: list[Change] = []
    every_change = changed_files(repo, base)
    merge_base = _git(repo, "merge-base", base, "HEAD").strip()
    result.diffs = entry_diffs(repo, merge_base, [(c.status, c.file) for c in every_change], submissions)
    for change in every_change:
        if _is_data(change.file, submissions) or _is_data(change.file, catalog):
            result.changes.append(change)
        elif Path(change.file).parts[:1] == (submissions,) and change.status != "deleted":
            result.changes.append(change)  # validated: a file there that no check reads is a problem
        else:
            others.append(change)
    touched = {c.file for c in result.changes if c.status != "deleted"}
    result.deleted = [c.file for c in result.changes if c.status == "deleted" and _is_data(c.file, submissions)]

    validation = validate_paths(
        [repo / name for name in sorted(touched)], repo / catalog, today=today, tree=repo / submissions, root=repo
    )
    result.problems = validation.problems
    current = {r.id: r.kind for r in validation.catalog.rounds.values()} if validation.catalog is not None else {}
    kinds = closed.round_kinds(repo, merge_base, catalog, current)
    status_and_file = [(c.status, c.file) for c in every_change]
    result.verified_changes = closed.check(repo, merge_base, status_and_file, submissions, catalog, kinds, reimported)
    # The importer-written files it does not change too: a checkout rule rewrites files without a diff.
    result.verified_changes += closed.tree_problems(repo, status_and_file, submissions, catalog, kinds)
    if validation.catalog is not None:
        mine = [e for e in validation.entries if _relative(e.file, repo) in touched]
        claims = closed.claim_problems(mine, validation.catalog, closed_rounds=False)
        result.problems += [replace(p, file=_relative(p.file, repo)) for p in claims]
    rounds = set(validation.catalog.rounds) if validation.catalog is not None else set()
    for change in others:
        why = _looks_meant_as_data(repo, change, (submissions, catalog), rounds)
        if why:
            result.misplaced.append(Misplaced(change.file, why))
    result.paths = changes.changed_paths(repo, merge_base, submissions)
    result.unchecked = len(validation.unchecked)
    catalog_broken = validation.catalog is None or bool(validation.catalog.unread)
    if any(p.kind == "catalog" for p in result.paths) and not catalog_broken:
        result.catalog_effect = catalog_effect.catalog_effect(repo, merge_base, catalog, submissions, today)
    if validation.catalog is None or validation.catalog.problems:
        return result
    # A duplicate's original stays in the ranking: only the changed file is set aside.
    originals = [e for e in validation.duplicates if _relative(e.file, repo) not in touched]
    rows = table_rows(validation.entries + originals, validation.catalog, base=repo).results
    status = {c.file: c.status for c in result.changes}
    result.previews = [
        preview(row, rows, status[row["file"]], validation.catalog) for row in rows if row["file"] in touched
    ]
    result.speaks_for = _under_known_submitters(repo, merge_base, submissions, rows, status, validation.catalog)
    # The check's own inputs (overrides, compute figures) are the merge base's: a pull request cannot vouch for itself.
    base = catalog_effect.base_catalog_files(repo, merge_base, catalog, plausibility.TRUSTED_FILES)
    result.plausibility = plausibility.check(rows, [p.entry_id for p in result.previews], validation.catalog, base)
    result.problems += [
        _naming_not_applied(_implausible(repo, verdict), verdict) for verdict in result.plausibility if verdict.fails
    ]
    return result


def _under_known_submitters(
    repo: Path, merge_base: str, submissions: str, rows: list[dict], status: dict[str, str], catalog: Catalog
) -> list[tuple[str, str]]:
    """(file, submitter) of each result the pull request adds under a submitter already on the
    boards: its folder, its name or its organization (without case, spaces or punctuation:
    `GoogleAI`, `G.oogle`) that of a submitter folder at the merge base, or a name or alias of
    catalog/organizations.yaml. Anyone can write NVIDIA as a submitter, so a maintainer confirms
    the author speaks for it, as for an edit of its results."""
    listed = _git(repo, "ls-tree", "-r", "--name-only", merge_base, "--", f"{submissions}/")
    folders = {Path(name).parts[2] for name in listed.splitlines() if len(Path(name).parts) > 3}
    known = {name_key(folder) for folder in folders} | set(canonical_names(catalog.organizations))

    def known_submitter(row: dict) -> bool:
        in_folder = Path(row["file"]).parts[2:3]
        names = (row["submitter"], row.get("organization") or "")
        return bool(in_folder) and in_folder[0] in folders or any(name_key(name) in known for name in names)

    return [
        (row["file"], row["submitter"]) for row in rows if status.get(row["file"]) == "added" and known_submitter(row)
    ]


def _naming_not_applied(problem: Problem, verdict: plausibility.Verdict) -> Problem:
    """A failing result's problem, followed by what its pull request adds or changes that would let
    it through (an override, a compute figure): said, not applied, until a code owner merges it."""
    return replace(problem, message="; ".join([problem.message, *verdict.not_applied]))


def _implausible(repo: Path, verdict: plausibility.Verdict) -> Problem:
    """The problem of a result that fails the plausibility check, on its result.minutes line."""
    line, col = load(repo / verdict.file, display=verdict.file).where(("result", "minutes"))
    message = "; ".join(verdict.findings)
    return Problem(verdict.file, line, col, "$.result.minutes", message, plausibility.HINT)


def _looks_meant_as_data(repo: Path, change: Change, folders: tuple[str, ...], rounds: set[str]) -> str | None:
    """Why a changed file outside the data folders looks meant as a submission or catalog file:
    its top folder resembles one of them or is a round, or it reads as a submission."""
    top = Path(change.file).parts[0] if len(Path(change.file).parts) > 1 else None
    if top is not None:
        folded = top.casefold()
        for folder in folders:
            if top != folder and (
                folded.startswith(folder[:-1]) or difflib.SequenceMatcher(None, folded, folder).ratio() >= 0.8
            ):
                return f"{top}/ is not {folder}/"
        if top in rounds:
            return f"{top}/ is a round folder outside {folders[0]}/"
    if change.status != "deleted" and Path(change.file).suffix.lower() in SUFFIXES:
        data = load(repo / change.file).data  # read as data only, with the same limits as any submission
        if isinstance(data, dict) and {"schema_version", "round"} <= set(data):
            return f"it reads as a submission, outside {folders[0]}/"
    return None


def _relative(file: str, repo: Path) -> str:
    try:
        return Path(file).resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return file


def preview(row: dict, rows: list[dict], status: str, catalog: Catalog) -> Preview:
    """`row` (one of `rows`, every result) as its board would show it: where it ranks in its
    board's division by the board's rank metric (and under its other sorts), and its cost or why
    it has none."""
    group = [
        r
        for r in rows
        if (r["round"], r["benchmark"], r["division"]) == (row["round"], row["benchmark"], row["division"])
    ]
    benchmark = catalog.benchmarks.get(row["benchmark"])
    metric = rank_metric(row["round_kind"], benchmark.scaling if benchmark is not None else None)
    return Preview(
        row["entry_id"],
        row["file"],
        status,
        f"{row['round']} / {row['benchmark']} / {row['division']}",
        row["chips"],
        row["minutes"],
        row["chip_hours"],
        row["cost_usd"],
        neighbours.placement(row, group, metric, catalog.base_url),
        _cost_mark(row),
        row["cost_missing_reason"] if row["cost_usd"] is None else None,
        unranked=UNRANKED_REASONS.get(row["unranked_reason"]),
    )


def _cost_mark(row: dict) -> str:
    """The marks of the result's on-demand cost (normalize.cost_marks), as the site shows them."""
    marks = cost_marks(row)
    return f" ({'; '.join(marks)})" if marks else ""


# ---- output ------------------------------------------------------------------------------
