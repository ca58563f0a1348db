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
from leaderboard.problems import Problem, plural
from leaderboard.review import catalog_effect, changes, closed, markdown, neighbours, plausibility
from leaderboard.rows import UNRANKED_REASONS, table_rows
from leaderboard.validate import UNCHECKED, validate_paths
from leaderboard.verification import NO_FIELD_CHANGED, EntryDiff, entry_diffs, shown


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
    result.verified_changes = closed.check(
        repo,
        merge_base,
        [(c.status, c.file) for c in every_change],
        submissions,
        catalog,
        closed.round_kinds(repo, merge_base, catalog, current),
        reimported,
    )
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
    result.plausibility = plausibility.check(rows, [p.entry_id for p in result.previews], validation.catalog)
    result.problems += [_implausible(repo, verdict) for verdict in result.plausibility if verdict.fails]
    return result


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


def _unranked_text(p: Preview) -> str:
    return f"not ranked on its board: {p.unranked} (the ranks above only place it among the others)"


def cost_text(p: Preview) -> str:
    """'cost $19.68 on demand', or why there is none in the site's words: the accelerator's
    no_price_reason, else that the catalog has no on-demand price for it."""
    if p.cost_usd is None:
        return f"no on-demand cost: {p.no_cost}"
    return f"cost ${p.cost_usd:,.2f} on demand{p.cost_mark}"


MISPLACED_HINT = "move it to submissions/<round>/<submitter-slug>/ (or catalog/) to have it checked"


def _summary(check: PullRequestCheck) -> str:
    failures = len(check.verified_changes) + len(check.problems)
    if check.only_misplaced and not failures:
        return (
            f"no changed file checked against {check.base}: {plural(len(check.misplaced), 'file')} that look"
            f"{'s' if len(check.misplaced) == 1 else ''} meant as a submission, misplaced ({MISPLACED_HINT})"
        )
    unchecked = (
        f"; {UNCHECKED.format(plural(check.unchecked, 'submission file'))}, nor the catalog change's effect computed"
        if check.unchecked
        else ""
    )
    return (
        f"{plural(check.checked, 'changed file')} checked against {check.base}: "
        + ("all valid" if check.ok else plural(failures, "problem"))
        + unchecked
    )


NO_SUBMISSION_CHANGES = "This pull request changes no submission or catalog file: nothing to validate or rank."


def _no_submission_changes(check: PullRequestCheck) -> bool:
    """A code-only pull request (the workflow runs on every one, so it is checked, and says so)."""
    return not check.changes and not check.misplaced and not check.verified_changes and not check.problems


EXISTING_HINT = (
    "a maintainer confirms that the pull request's author speaks for its submitter before merging; "
    "a correction of another's result cites its source"
)


def _existing(check: PullRequestCheck) -> list[EntryDiff]:
    """The results already on the boards that the pull request changes or deletes, in rounds
    open to pull requests (a closed round's are refused, under verified_changes)."""
    refused = {p.file for p in check.verified_changes}
    return [d for d in check.diffs if d.changes_a_result and d.file not in refused]


def _existing_text(diff: EntryDiff) -> str:
    what = "deleted" if diff.status == "deleted" else "changed: " + ", ".join(c.path for c in diff.fields)
    return f"{what} (submitted by {diff.submitter or 'an unnamed submitter'})"


def as_text(check: PullRequestCheck) -> str:
    review_first, other_paths = changes.text_lines(check.paths)
    lines = list(review_first)
    lines += [f"changes a result already on the boards, {_existing_text(d)}: {d.file}" for d in _existing(check)]
    for problem in check.verified_changes:
        lines.append(problem.format())
    for problem in check.problems:
        lines.append(problem.format())
    for m in check.misplaced:
        lines.append(f"not checked (looks misplaced: {m.why}): {m.file} (hint: {MISPLACED_HINT})")
    for name in check.deleted:
        lines.append(f"deleted: {name}")
    for diff in check.diffs:
        lines.append(f"{diff.status}: {diff.file}")
        lines += [f"  {c.path}: {shown(c.before)} -> {shown(c.after)}" for c in diff.fields]
        lines += [] if diff.fields else [f"  {NO_FIELD_CHANGED}"]
    lines += other_paths
    for p in check.previews:
        lines.append(f"{p.status}: {p.entry_id} ({p.file})")
        lines.append(
            f"  {p.group}: {p.chips:g} chips, {p.minutes:g} minutes, {p.chip_hours:,.2f} chip-hours, {cost_text(p)}"
        )
        lines.append(f"  {neighbours.rank_text(p.placement)}")
        lines += [f"  {_unranked_text(p)}"] if p.unranked else []
        lines += [f"  {line}" for line in neighbours.text_lines(p.placement)]
        lines += [f"  {line}" for v in check.plausibility if v.entry_id == p.entry_id for line in v.lines()]
    for verdict in _overridden(check):
        lines.append(f"plausibility override: {verdict.entry_id} ({verdict.file})")
        lines += [f"  {finding}" for finding in verdict.findings]
        lines.append(f"  let through: {verdict.override.reason} (approved by {verdict.override.approved_by})")
    if check.catalog_effect is not None:
        lines += catalog_effect.text_lines(check.catalog_effect, check.base)
    lines += [NO_SUBMISSION_CHANGES] if _no_submission_changes(check) else []
    lines.append(_summary(check))
    return "\n".join(lines) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def as_github(check: PullRequestCheck) -> str:
    """GitHub workflow commands: each problem as an error annotation on its file, line and column."""
    review_first, other_paths = changes.github_lines(check.paths, _escape_property, _escape_data)
    lines = list(review_first)
    lines += [
        f"::warning file={_escape_property(d.file)},title=Changes an existing result::"
        + _escape_data(f"{_existing_text(d)}: {EXISTING_HINT}")
        for d in _existing(check)
    ]
    for problem in check.verified_changes + check.problems:
        props = [
            f"file={_escape_property(problem.file)}",
            f"line={problem.line}",
            f"col={problem.col}",
            f"title={_escape_property(problem.json_path)}",
        ]
        message = problem.message + (f" (hint: {problem.hint})" if problem.hint else "")
        lines.append(f"::error {','.join(props)}::{_escape_data(message)}")
    for m in check.misplaced:
        text = f"not checked: looks misplaced ({m.why}); {MISPLACED_HINT}"
        lines.append(f"::warning file={_escape_property(m.file)},title=Not checked::{_escape_data(text)}")
    for name in check.deleted:
        lines.append(f"::notice file={_escape_property(name)}::{_escape_data('entry deleted by this pull request')}")
    lines += other_paths
    for p in check.previews:
        lines.append(
            f"::notice file={_escape_property(p.file)},title=Rank preview::"
            + _escape_data(
                f"{p.group}: {neighbours.rank_text(p.placement)}; {p.chip_hours:,.2f} chip-hours, {cost_text(p)}"
                + (f"; {_unranked_text(p)}" if p.unranked else "")
                + "".join(f"; {line}" for line in neighbours.text_lines(p.placement))
            )
        )
    for verdict in _overridden(check):
        text = "; ".join(verdict.findings) + f"; let through: {verdict.override.reason}"
        lines.append(
            f"::warning file={_escape_property(verdict.file)},title=Plausibility override::{_escape_data(text)}"
        )
    if check.catalog_effect is not None:
        files = [p.file for p in check.paths if p.kind == "catalog"]
        lines += catalog_effect.github_lines(check.catalog_effect, check.base, files, _escape_property, _escape_data)
    return "\n".join(lines) + ("\n" if lines else "")


def _overridden(check: PullRequestCheck) -> list[plausibility.Verdict]:
    """Implausible results that an override lets through: shown with its reason, never silently."""
    return [v for v in check.plausibility if v.findings and v.override is not None]


MARKER = "<!-- leaderboard-check-pr -->"


def _cell(text: str) -> str:
    """Any text from the pull request, safe in a table cell or list item (review/markdown.py)."""
    return markdown.escape(text)


def _code(text: str, table: bool = True) -> str:
    """Text from the pull request as inline code: a backtick in it cannot close the span."""
    return markdown.code(text, table=table)


def as_markdown(check: PullRequestCheck) -> str:
    """A pull-request comment body; the marker lets the workflow update its earlier comment."""
    out = [MARKER, "## Leaderboard check", "", _summary(check) + "."]
    out += ["", NO_SUBMISSION_CHANGES] if _no_submission_changes(check) else []
    review_first, other_paths = changes.markdown_lines(check.paths, _cell)
    out += review_first
    existing = _existing(check)
    if existing:
        out += [
            "",
            f"### ⚠️ Changes {plural(len(existing), 'result')} already on the boards",
            "",
            f"They do not fail this check: {_cell(EXISTING_HINT)}. Field by field below.",
            "",
            "| file | submitted by | change |",
            "|---|---|---|",
        ]
        out += [
            f"| {_code(d.file)} | {_cell(d.submitter or '(none)')} | "
            + _cell("deleted" if d.status == "deleted" else ", ".join(c.path for c in d.fields))
            + " |"
            for d in existing
        ]
    sections = (
        ("Closed rounds and importer-written results", check.verified_changes),
        ("Problems to fix before merging", check.problems),
    )
    for title, problems in sections:
        if not problems:
            continue
        out += ["", f"### {title}", "", "| file | line | field | problem |", "|---|---|---|---|"]
        for p in problems:
            message = p.message + (f" (hint: {p.hint})" if p.hint else "")
            out.append(f"| {_code(p.file)} | {p.line} | {_code(p.json_path)} | {_cell(message)} |")
    if check.misplaced:
        out += [
            "",
            "### Not checked: files that look misplaced",
            "",
            "Move each to submissions/<round>/<submitter-slug>/ (or catalog/) to have it checked.",
            "",
        ]
        out += [f"- {_code(m.file, table=False)}: {_cell(m.why)}" for m in check.misplaced]
    if check.previews:
        out += [
            "",
            "### Where the entries would rank",
            "",
            "| entry | round / benchmark / division | chips | minutes | chip-hours | cost (on demand) | rank (the board's ranking) | sorted instead |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for p in check.previews:
            cost = f"${p.cost_usd:,.2f}{p.cost_mark}" if p.cost_usd is not None else f"none: {p.no_cost}"
            out.append(
                f"| {_code(p.entry_id)} ({p.status}{'; ' + _cell(_unranked_text(p)) if p.unranked else ''}) | {_cell(p.group)} | {p.chips:g} | {p.minutes:g} | "
                f"{p.chip_hours:,.2f} | {_cell(cost)} | {neighbours.ranking_text(p.placement)} | "
                f"{neighbours.sorted_text(p.placement)} |"
            )
    if check.previews:
        out += [
            "",
            "### Neighbours on the board",
            "",
            "| entry | just above | just below | board |",
            "|---|---|---|---|",
        ]
        for p in check.previews:
            place = p.placement
            above, below = (
                neighbours.neighbour_text(n, place.metric, where).split(": ", 1)[1]
                for n, where in ((place.above, "above"), (place.below, "below"))
            )
            out.append(f"| {_code(p.entry_id)} | {_cell(above)} | {_cell(below)} | {_code(place.board)} |")
    if any(v.lines() for v in check.plausibility):
        out += ["", "### Plausibility: what each result was compared with", ""]
        out += [
            f"- {_code(v.entry_id, table=False)}: {_cell('; '.join(v.lines()))}"
            for v in check.plausibility
            if v.lines()
        ]
    if _overridden(check):
        out += ["", "### Let through by a plausibility override", "", "| entry | finding | reason | approved by |"]
        out += ["|---|---|---|---|"]
        for v in _overridden(check):
            out.append(
                f"| {_code(v.entry_id)} | {_cell('; '.join(v.findings))} | {_cell(v.override.reason)} | "
                f"{_cell(v.override.approved_by)} |"
            )
    if check.deleted:
        out += ["", "### Deleted entries", ""] + [f"- {_code(name, table=False)}" for name in check.deleted]
    if check.diffs:
        out += ["", "### Changed entries, before → after", "", "| file | field | before | after |", "|---|---|---|---|"]
        for diff in check.diffs:
            for c in diff.fields:
                out.append(
                    f"| {_code(diff.file)} | {_code(c.path)} | {_cell(shown(c.before))} | {_cell(shown(c.after))} |"
                )
            if not diff.fields:
                out.append(f"| {_code(diff.file)} | {_cell(NO_FIELD_CHANGED)} | | |")
    out += other_paths
    if check.catalog_effect is not None:
        out += catalog_effect.markdown_lines(check.catalog_effect, check.base, _cell)
    out += ["", "Chip-hours and cost are derived numbers, not official MLPerf metrics."]
    return "\n".join(out) + "\n"
