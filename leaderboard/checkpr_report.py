"""check-pr's report of a PullRequestCheck in its three formats: text for a terminal, GitHub
workflow commands (annotations on the files' lines), and the Markdown of the bot's comment (cut to
what GitHub takes, the paths a code owner reviews, a catalog change's effect and the problems first).
"""

from __future__ import annotations

from leaderboard.checkpr import Preview, PullRequestCheck
from leaderboard.problems import plural
from leaderboard.review import catalog_effect, changes, markdown, neighbours, plausibility
from leaderboard.validate import UNCHECKED
from leaderboard.verification import NO_FIELD_CHANGED, EntryDiff, shown


def _unranked_text(p: Preview) -> str:
    return f"not ranked on its board: {p.unranked}"


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


SPEAKS_FOR_HINT = "a maintainer confirms that the pull request's author speaks for this submitter before merging"


def _speaks_for(check: PullRequestCheck) -> list[tuple[str, str]]:
    """The added results under submitters already on the boards, but those a closed round refuses."""
    refused = {p.file for p in check.verified_changes}
    return [(file, who) for file, who in check.speaks_for if file not in refused]


def _speaks_for_text(submitter: str) -> str:
    return f"adds a result under {submitter}, a submitter already on the boards"


def _existing_text(diff: EntryDiff) -> str:
    what = "deleted" if diff.status == "deleted" else "changed: " + ", ".join(c.path for c in diff.fields)
    return f"{what} (submitted by {diff.submitter or 'an unnamed submitter'})"


def as_text(check: PullRequestCheck) -> str:
    review_first, other_paths = changes.text_lines(check.paths)
    lines = list(review_first)
    lines += [f"changes a result already on the boards, {_existing_text(d)}: {d.file}" for d in _existing(check)]
    lines += [f"{_speaks_for_text(who)} ({SPEAKS_FOR_HINT}): {file}" for file, who in _speaks_for(check)]
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
        lines.append(f"  {neighbours.rank_text(p.placement, bool(p.unranked))}")
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
    lines += [
        f"::warning file={_escape_property(file)},title=A submitter already on the boards::"
        + _escape_data(f"{_speaks_for_text(who)}: {SPEAKS_FOR_HINT}")
        for file, who in _speaks_for(check)
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
                f"{p.group}: {neighbours.rank_text(p.placement, bool(p.unranked))}; {p.chip_hours:,.2f} chip-hours, {cost_text(p)}"
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
    if check.catalog_effect is not None:  # what a catalog change moves: first, whatever else changes
        out += catalog_effect.markdown_lines(check.catalog_effect, check.base, _cell)
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
    adds = _speaks_for(check)
    if adds:
        out += [
            "",
            f"### ⚠️ Adds {plural(len(adds), 'result')} under a submitter already on the boards",
            "",
            f"They do not fail this check: {_cell(SPEAKS_FOR_HINT)}.",
            "",
            "| file | submitter |",
            "|---|---|",
        ]
        out += [f"| {_code(file)} | {_cell(who)} |" for file, who in adds]
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
    out += review_first  # at most PATHS_LISTED rows, the catalog's files first
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
                f"{p.chip_hours:,.2f} | {_cell(cost)} | {neighbours.ranking_text(p.placement, bool(p.unranked))} | "
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
    out += ["", "Chip-hours and cost are derived numbers, not official MLPerf metrics."]
    return _within_limit(out)


# GitHub refuses a comment over 65,536 characters; the workflow posts at most this many. What a
# reviewer must see (the paths needing a code owner, a catalog change's effect, the problems)
# comes first, so only the later sections of a very large pull request are cut, and saying so.
COMMENT_LIMIT = 60_000


def _within_limit(lines: list[str], limit: int = COMMENT_LIMIT) -> str:
    """The comment's lines joined, cut at a line's end before `limit` characters with a last line
    saying how much is left out and where to read all of it."""
    text = "\n".join(lines) + "\n"
    if len(text) <= limit:
        return text
    kept, size = [], 0
    for line in lines:
        if size + len(line) + 1 > limit - 400:  # room for the closing note
            break
        kept.append(line)
        size += len(line) + 1
    left = len(lines) - len(kept)
    note = (
        f"**This comment is cut short**: {left:,} more lines ({len(text) - size:,} characters) do not fit in a "
        "comment. A catalog change's effect, the changes to results already on the boards, the problems and "
        "the paths a code owner reviews come first, in that order. Run `leaderboard check-pr` on the branch "
        "to read all of it."
    )
    return "\n".join([*kept, "", note]) + "\n"
