"""Closed rounds and importer-written files in a pull request: only the importer writes an official
round, and a file an importer wrote changes only into the bytes a fresh import writes.
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from leaderboard.families import Family, family
from leaderboard.files import SUFFIXES, load, read_regular
from leaderboard.manifest import Unmatched, file_digest, unmatched, unmatched_cause, unmatched_text
from leaderboard.problems import Problem
from leaderboard.verification import NO_FIELD_CHANGED, field_changes, shown

REIMPORT_HINT = (
    "an imported result changes only by re-running its importer on the published source; "
    "open an issue if the published result itself is wrong"
)
FRESH_IMPORT = "the trusted job's fresh import (check-pr --reimported)"


@dataclass(frozen=True)
class Manifests:
    """One round's manifest rows (entry id -> row) before, after and in the fresh import."""

    before: dict[str, dict]
    after: dict[str, dict]
    fresh: dict[str, dict] | None  # None: no fresh import of this round at hand


def _git_show(repo: Path, revision: str, name: str) -> bytes | None:
    done = subprocess.run(["git", "show", f"{revision}:{name}"], cwd=repo, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None


def _rows(content: bytes | None) -> dict[str, dict]:
    if content is None:
        return {}
    reader = csv.DictReader(io.StringIO(content.decode("utf-8", errors="replace")))
    return {row.get("entry_id", ""): row for row in reader}


def round_kinds(repo: Path, revision: str, catalog: str, current: Mapping[str, str]) -> dict[str, str]:
    """Round id -> kind, the base branch's kinds first: a pull request cannot open a closed
    round by changing its kind (its own kinds count only for rounds the base lacks)."""
    kinds = dict(current)
    content = _git_show(repo, revision, f"{catalog}/rounds.yaml")
    try:
        data = yaml.safe_load(content) if content else None
    except yaml.YAMLError:
        data = None
    for item in (data or {}).get("rounds", []) if isinstance(data, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(item.get("kind"), str):
            closed_now = family(kinds.get(item["id"], "")).closed
            if not closed_now:
                kinds[item["id"]] = item["kind"]
    return kinds


def _claims(path: Path, name: str, data: object = None) -> tuple[str, int, int, str]:
    """What a submitted file says of its provenance, in words, and where to point (line, col).
    `data`: its content, when already parsed; the file is then read again only to find the line of
    its provenance method, when it names one (`validate` of 10,000 such files had parsed each twice,
    a third of its time)."""
    doc = None
    if data is None:
        doc = load(path, display=name)
        data = doc.data
    data = data if isinstance(data, dict) else {}
    provenance = data.get("provenance") if isinstance(data.get("provenance"), dict) else {}
    source = data.get("source") if isinstance(data.get("source"), dict) else {}
    logs = provenance.get("run_logs")
    words = (
        f"method {shown(provenance.get('method'), 40)}, importer {shown(provenance.get('importer'), 40)}, "
        f"{len(logs) if isinstance(logs, list) else 0} run logs, source {shown(source.get('url'), 100)}"
    )
    if "method" not in provenance:
        return words, 1, 1, "$"
    line, col = (doc or load(path, display=name)).where(("provenance", "method"))
    return words, line or 1, col or 1, "$.provenance.method" if line else "$"


IMPORTER_METHODS = ("computed-from-logs", "imported")


def claim_problems(entries: Sequence, catalog, closed_rounds: bool = True) -> list[Problem]:
    """What `validate` says before check-pr does, of valid entries (validate.Entry): a file in a
    closed round that no importer wrote (its id is not in its family's manifest), or an importer's
    file edited by hand (its bytes are not those the manifest lists), both of which check-pr
    refuses, and a file no importer wrote that claims an importer's provenance, which the database
    does not read (rows.importer_provenance). `closed_rounds` False: the claims only (check() judges
    closed rounds and edits)."""
    kinds = {r.id: r.kind for r in catalog.rounds.values()}
    problems = []
    for entry in entries:
        facts = family(kinds.get(entry.data.get("round"), ""))
        listed = catalog.verified if facts.manifest_folder == "verified" else catalog.imported
        if facts.manifest_folder is None:
            continue
        round_id, method = entry.data["round"], (entry.data.get("provenance") or {}).get("method")
        manifest = f"catalog/{facts.manifest_folder}/{round_id}.csv"
        if entry.entry_id in listed:
            # A file that cannot be read is not judged here: validate has said so already.
            if closed_rounds and entry.read_from(listed[entry.entry_id]) is False:
                message = (
                    f"`{facts.importer}` wrote this file ({manifest} lists its digest), and it has been edited "
                    "since: an importer-written file changes only into what its importer writes"
                )
                problems.append(Problem(str(entry.file), 1, 1, "$", message, f"restore it; {REIMPORT_HINT}"))
            continue
        if facts.closed and closed_rounds:
            what = (
                f"{round_id} is an official round, closed to pull requests: only `{facts.importer}` writes its "
                f"results, and {manifest} does not list this one",
                f"a result you measured yourself goes under submissions/{open_round(kinds)}/<submitter-slug>/, "
                "with one of its benchmarks, as a self-reported result "
                "(CONTRIBUTING.md, 'Official rounds are closed; self-reported results')",
            )
        elif not facts.closed and method in IMPORTER_METHODS:
            what = (
                f"claims provenance method {method!r}, but no importer wrote this file ({manifest} does not list "
                f"it): only `{facts.importer}` writes such files",
                "a result typed from its source is self-reported: remove the provenance block (or write "
                "method: self-reported); the site labels it self-reported whatever it says",
            )
        else:
            continue
        claims, line, col, json_path = _claims(Path(entry.file), str(entry.file), entry.data)
        problems.append(
            Problem(str(entry.file), line, col, json_path, f"{what[0]}. The file claims: {claims}", what[1])
        )
    return problems


def open_round(kinds: Mapping[str, str]) -> str:
    """The round a self-measured result goes to: the first that is neither closed nor verifiable."""
    return next((r for r, k in sorted(kinds.items()) if not family(k).closed and not family(k).verifiable), "published")


def _what(facts: Family) -> str:
    return (
        "a result verified against MLCommons' published logs"
        if facts.verifiable
        else f"a result written by `{facts.importer}`"
    )


def check(
    repo: Path,
    merge_base: str,
    changes: Sequence[tuple[str, str]],  # (status, file)
    submissions: str,
    catalog: str,
    kinds: Mapping[str, str],  # round id -> kind (round_kinds)
    reimported: Path | None = None,
) -> list[Problem]:
    """The problems of a pull request's changes to closed rounds, to importer-written files and
    to the manifests listing them. With `reimported` (a project-shaped folder the trusted job
    imported into from checksummed archives, starting empty), a file passes when it is byte for
    byte the fresh import's, and a manifest when its rows are; without it, only an unchanged
    importer-written file passes."""
    problems: list[Problem] = []
    manifests: dict[str, Manifests] = {}

    def round_manifests(round_id: str, facts: Family) -> Manifests:
        if round_id not in manifests:
            name = f"{catalog}/{facts.manifest_folder}/{round_id}.csv"
            fresh = None
            if reimported is not None:
                content = read_regular(reimported / name)
                fresh = _rows(content) if content is not None else None
            manifests[round_id] = Manifests(
                _rows(_git_show(repo, merge_base, name)), _rows(read_regular(repo / name)), fresh
            )
        return manifests[round_id]

    folders = {family(k).manifest_folder: family(k) for k in kinds.values() if family(k).manifest_folder}
    skipped_folders = {family(k).skipped_folder for k in kinds.values()} - {None}
    for status, name in changes:
        path = Path(name)
        if path.parts[:1] == (catalog,) and len(path.parts) == 3 and path.parts[1] in skipped_folders:
            problems += _skipped_list_problems(repo, name, family(kinds.get(path.stem, "")), reimported)
            continue
        if path.parts[:1] == (catalog,) and len(path.parts) == 3 and path.parts[1] in folders:
            if path.suffix == ".csv":
                problems += _manifest_problems(repo, name, path.stem, folders[path.parts[1]], reimported, submissions)
            continue
        if path.parts[:1] != (submissions,) or len(path.parts) < 3 or path.suffix.lower() not in SUFFIXES:
            continue
        round_id = path.parts[1]
        facts = family(kinds.get(round_id, ""))
        if facts.manifest_folder is None:
            continue
        listed = round_manifests(round_id, facts)
        entry_id = path.relative_to(submissions).with_suffix("").as_posix()
        importer_written = entry_id in listed.before or entry_id in listed.after
        if not (facts.closed or importer_written):
            continue  # a self-reported file in an open round: validated like any other
        content = None if status == "deleted" else read_regular(repo / name)
        if reimported is not None and listed.fresh is not None:
            fresh = read_regular(reimported / name)
            if status == "deleted":
                passes = fresh is None and entry_id not in listed.fresh
            else:
                passes = content is not None and fresh == content
        else:
            passes = (
                status != "deleted" and content is not None and _digest(listed.before, entry_id) == file_digest(content)
            )
        if passes:
            continue
        problems.append(
            _file_problem(repo, merge_base, name, status, round_id, facts, entry_id in listed.before, kinds)
        )
    return problems


def _digest(rows: dict[str, dict], entry_id: str) -> str | None:
    return (rows.get(entry_id) or {}).get("sha256")


def _file_problem(
    repo: Path,
    merge_base: str,
    name: str,
    status: str,
    round_id: str,
    facts: Family,
    listed_before: bool,
    kinds: Mapping[str, str],
) -> Problem:
    if status == "deleted" and listed_before:
        return Problem(name, 1, 1, "$", f"deletes {_what(facts)}", REIMPORT_HINT)
    if status == "deleted":
        return Problem(
            name, 1, 1, "$", f"deletes a file of {round_id}, an official round closed to pull requests", REIMPORT_HINT
        )
    if facts.closed and not listed_before:
        claims, line, col, json_path = _claims(repo / name, name)
        return Problem(
            name,
            line,
            col,
            json_path,
            f"{round_id} is an official round, closed to pull requests: only the importer (`{facts.importer}`) "
            f"writes its results, from the round's published logs, and this file is not one it wrote "
            f"(catalog/{facts.manifest_folder}/{round_id}.csv does not list it). The file claims: {claims}",
            f"a result you measured yourself goes under submissions/{open_round(kinds)}/<submitter-slug>/ as a "
            "self-reported result (CONTRIBUTING.md, 'Official rounds are closed; self-reported results'): it is "
            "labelled self-reported and "
            "takes no rank on a board of verified results",
        )
    old = _git_show(repo, merge_base, name)
    changed = field_changes(old, read_regular(repo / name))
    fields = ", ".join(f"{c.path}: {shown(c.before, 30)} -> {shown(c.after, 30)}" for c in changed[:4])
    return Problem(
        name,
        1,
        1,
        "$",
        (f"changes ({fields}) {_what(facts)}" if fields else f"{NO_FIELD_CHANGED}, yet edits {_what(facts)}")
        + ": an importer-written file changes only into what "
        f"{FRESH_IMPORT} writes",
        REIMPORT_HINT,
    )


def _manifest_problems(
    repo: Path, name: str, round_id: str, facts: Family, reimported: Path | None, submissions: str
) -> list[Problem]:
    """A manifest passes only as the fresh import wrote it. In an open round the fresh import
    may list more: runs whose file in the tree is typed by hand (the importer skips those)."""

    def problem(message: str) -> Problem:
        return Problem(name, 1, 1, "$", message, REIMPORT_HINT)

    what = "makes MLPerf results verified" if facts.verifiable else f"lists the files `{facts.importer}` wrote"
    if reimported is None:
        return [problem(f"changes the manifest that {what}: only a re-import may, confirmed by {FRESH_IMPORT}")]
    ours, theirs = read_regular(repo / name), read_regular(reimported / name)
    if theirs is None:
        return [problem(f"changes the manifest that {what}, and {FRESH_IMPORT} has no manifest of {round_id}")]
    if facts.closed:
        return [] if ours == theirs else [problem(f"is not the manifest {FRESH_IMPORT} wrote for {round_id}")]
    mine, fresh = _rows(ours), _rows(theirs)
    wrong = [e for e, row in mine.items() if fresh.get(e) != row]
    missing = [
        e for e in fresh if e not in mine and not any(read_regular(repo / submissions / f"{e}{s}") for s in SUFFIXES)
    ]
    return [problem(f"lists {shown(e, 100)} other than {FRESH_IMPORT} does") for e in wrong[:5]] + [
        problem(f"lacks {shown(e, 100)}, which {FRESH_IMPORT} lists") for e in missing[:5]
    ]


def _skipped_list_problems(repo: Path, name: str, facts: Family, reimported: Path | None) -> list[Problem]:
    """A list of the result folders an importer left off (catalog/skipped/<round>.csv) passes only
    as the fresh import wrote it: byte for byte, or absent from both."""
    importer = f"`{facts.importer}`" if facts.importer else "an importer"
    what = f"the list of result folders {importer} left off the boards"
    if reimported is None:
        return [
            Problem(
                name, 1, 1, "$", f"changes {what}: only a re-import may, confirmed by {FRESH_IMPORT}", REIMPORT_HINT
            )
        ]
    ours, theirs = read_regular(repo / name), read_regular(reimported / name)
    if ours == theirs:
        return []
    if ours is None:
        message = f"deletes {what}, which {FRESH_IMPORT} writes"
    elif theirs is None:
        message = f"adds {what}, and {FRESH_IMPORT} wrote no such list"
    else:
        message = f"is not {what} as {FRESH_IMPORT} wrote it"
    return [Problem(name, 1, 1, "$", message, REIMPORT_HINT)]


# ---- the working tree against the manifests ----------------------------------------------


def unmatched_files(
    repo: Path, submissions: str, catalog: str, kinds: Mapping[str, str], skip: frozenset[str] = frozenset()
) -> list[Unmatched]:
    """Every file an importer's manifest lists (catalog/verified/, catalog/imported/) whose bytes in
    the working tree differ from its digest, changed or not: a checkout rule (a .gitattributes eol,
    text, filter, ident or working-tree-encoding rule, core.autocrlf) rewrites files without a
    diff git sees. A missing file is left to check() (its deletion is a change), as are `skip`'s."""
    found = []
    for round_id, kind in sorted(kinds.items()):
        folder = family(kind).manifest_folder
        if folder is None:
            continue
        for entry_id, row in _rows(read_regular(repo / catalog / folder / f"{round_id}.csv")).items():
            names = (f"{submissions}/{entry_id}{suffix}" for suffix in (".yaml", ".yml", ".json"))
            name = next((n for n in names if os.path.lexists(repo / n)), None)
            if name is None or name in skip:
                continue
            mismatch = unmatched(round_id, name, read_regular(repo / name), row.get("sha256"))
            if mismatch is not None:
                found.append(mismatch)
    return found


def tree_problems(
    repo: Path, changes: Sequence[tuple[str, str]], submissions: str, catalog: str, kinds: Mapping[str, str]
) -> list[Problem]:
    """One problem when importer-written files that the pull request does not change (its changes
    are check()'s) differ from their manifests in the checked-out tree: what git does on checkout
    (line endings, filters, a .gitattributes rule the pull request adds) would unverify them."""
    found = unmatched_files(repo, submissions, catalog, kinds, skip=frozenset(name for _, name in changes))
    if not found:
        return []
    attributes = sorted(name for _, name in changes if Path(name).name == ".gitattributes")
    message = (
        f"{len(found):,} importer-written {'file differs' if len(found) == 1 else 'files differ'} in the "
        f"checked-out tree from the digest {'its manifest lists' if len(found) == 1 else 'their manifests list'}, "
        f"though this pull request does not change {'it' if len(found) == 1 else 'them'} "
        f"{unmatched_text(found)}; {unmatched_cause(found, attributes)}; a build of this tree would show "
        "those of MLPerf rounds as not verified"
    )
    hint = (
        f"remove the rule in {', '.join(attributes)} that matches {submissions}/: an importer-written file is "
        "checked out byte for byte as committed"
        if attributes
        else f"check {submissions}/ out byte for byte as committed (no .gitattributes rule rewriting it, "
        "core.autocrlf false)"
    )
    return [Problem(attributes[0] if attributes else found[0].file, 1, 1, "$", message, hint)]
