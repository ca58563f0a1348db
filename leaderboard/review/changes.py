"""Every path a pull request changes outside submissions/, named with what kind of path it is
(code, workflow, build, catalog, ...) and how it changed; what needs a code owner comes first.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

import yaml

from leaderboard.catalog import catalog_name
from leaderboard.files import load
from leaderboard.review import markdown

# What kind of path each is: the first row whose pattern matches wins (fnmatch: `*` crosses
# folders). Vendored Python under catalog/ is code, not catalog data, hence code before catalog;
# a file the catalog loader reads is catalog data whatever else its name looks like
# (catalog/prices-pnpm-lock.yaml is a price file: path_kind).
PATH_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("site config", ("catalog/site.yaml", "catalog/site.yml", "catalog/site.json")),
    ("workflow", (".github/workflows/*",)),
    ("repository settings", (".github/*", ".gitattributes", "*/.gitattributes", ".gitmodules", ".gitignore")),
    ("lockfile", ("*.lock", "requirements*.txt", "*package-lock.json", "*yarn.lock", "*pnpm-lock.yaml")),
    ("packaging", ("pyproject.toml", "setup.py", "setup.cfg", "MANIFEST.in", "package.json", "*/package.json")),
    ("build", ("Makefile", "*/Makefile", "*.mk", ".ci/*", "*Dockerfile", ".pre-commit-config.yaml", "tox.ini")),
    ("schema", ("schemas/*",)),
    ("tests", ("tests/*",)),
    ("code", ("leaderboard/*", "benchmarks/*", "web/*", "bin/*", "*.py", "*.sh", "*.js", "*.mjs", "*.cjs", "*.ts")),
    ("catalog", ("catalog/*",)),
    ("docs", ("*.md", "*.rst", "*.txt", "docs/*", "LICENSE*", "NOTICE*")),
)
# Kinds that change what runs, what is trusted or where the site links: never by a pull
# request alone (CODEOWNERS asks their owners; check-pr puts them first).
NEEDS_REVIEW = frozenset(
    {"code", "workflow", "repository settings", "build", "packaging", "lockfile", "schema", "site config", "catalog"}
)
REVIEW_HINT = "a code owner must review this change; it can change what runs or what the checks trust"

REGULAR, EXECUTABLE, SYMLINK, SUBMODULE = "100644", "100755", "120000", "160000"
_MODE_NAMES = {EXECUTABLE: "executable", SYMLINK: "symbolic link", SUBMODULE: "submodule"}
_NO_OBJECT = "0" * 40


@dataclass(frozen=True)
class ChangedPath:
    file: str
    kind: str  # a PATH_KINDS name, or "other"
    change: str  # added | modified | deleted, with what happened to its mode: "modified, made executable"
    detail: str | None = None  # catalog/site.yaml: "base_url https://a/ -> https://b/"

    @property
    def needs_review(self) -> bool:
        return self.kind in NEEDS_REVIEW


def _catalog_file(name: str) -> str | None:
    """The catalog file the loader reads the path as ('prices' for catalog/prices-x.yaml), else None."""
    parts = name.split("/")
    return catalog_name(Path(name)) if len(parts) == 2 and parts[0] == "catalog" else None


def path_kind(name: str) -> str:
    """The kind of a repository path ('leaderboard/rows.py' -> 'code')."""
    if _catalog_file(name) not in (None, "site"):
        return "catalog"
    for kind, patterns in PATH_KINDS:
        if any(fnmatchcase(name, pattern) for pattern in patterns):
            return kind
    return "other"


def change_kind(status: str, old_mode: str, new_mode: str, content_changed: bool = True) -> str:
    """How a path changed, from git's status letter and the modes before and after
    ('M', '100644', '100755' -> 'modified, made executable')."""
    if status == "A":
        return "added" + (f" ({_MODE_NAMES[new_mode]})" if new_mode in _MODE_NAMES else "")
    if status == "D":
        return "deleted" + (f" ({_MODE_NAMES[old_mode]})" if old_mode in _MODE_NAMES else "")
    if old_mode == new_mode:
        return "modified" + (f" ({_MODE_NAMES[new_mode]})" if new_mode in _MODE_NAMES else "")
    if {old_mode, new_mode} == {REGULAR, EXECUTABLE}:
        mode = "made executable" if new_mode == EXECUTABLE else "no longer executable"
    elif new_mode in (SYMLINK, SUBMODULE):
        mode = f"now a {_MODE_NAMES[new_mode]}"
    elif old_mode in (SYMLINK, SUBMODULE):
        mode = f"no longer a {_MODE_NAMES[old_mode]}"
    else:
        mode = f"mode {old_mode} -> {new_mode}"
    return f"modified, {mode}" if content_changed else mode


def parse_raw(output: str) -> list[tuple[str, str, str, bool, str]]:
    """`git diff --raw -z --no-renames` output -> (status, old mode, new mode, content changed,
    path) per path. A working-tree file's new object is all zeros: its content may have changed."""
    parts = output.split("\0")
    found = []
    for header, name in zip(parts[0::2], parts[1::2], strict=False):
        if not header.startswith(":"):
            continue
        old_mode, new_mode, old_object, new_object, status = header[1:].split(" ")
        content_changed = old_object != new_object or new_object == _NO_OBJECT
        found.append((status[0], old_mode, new_mode, content_changed, name))
    return found


def base_url_change(before: object, after: object) -> str | None:
    """'base_url OLD -> NEW' when catalog/site.yaml's base_url differs between two parsed
    versions (None for a missing file or field), else None."""
    old, new = (value.get("base_url") if isinstance(value, dict) else None for value in (before, after))
    if old == new:
        return None
    return f"base_url {old or '(none)'} -> {new or '(none)'}"


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False)


def _untracked_mode(path: Path) -> str:
    """The git mode of an untracked path, from lstat (a link is never followed)."""
    try:
        info = os.lstat(path)
    except OSError:
        return REGULAR
    if stat.S_ISLNK(info.st_mode):
        return SYMLINK
    return EXECUTABLE if info.st_mode & stat.S_IXUSR else REGULAR


def _site_detail(repo: Path, merge_base: str, name: str, status: str) -> str | None:
    shown = _git(repo, "show", f"{merge_base}:{name}") if status != "A" else None
    try:
        before = yaml.safe_load(shown.stdout) if shown is not None and shown.returncode == 0 else None
    except yaml.YAMLError:
        before = None
    if status != "D" and os.path.islink(repo / name):
        return "a symbolic link: not read"
    after = load(repo / name).data if status != "D" else None
    return base_url_change(before, after)


def changed_paths(repo: Path, merge_base: str, submissions: str = "submissions") -> list[ChangedPath]:
    """Every path changed between `merge_base` and the working tree (untracked files too)
    outside `submissions`/: those needing a code owner's review first, then by path."""
    raw = _git(repo, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", merge_base)
    records = parse_raw(raw.stdout.decode("utf-8", errors="replace"))
    untracked = _git(repo, "ls-files", "--others", "--exclude-standard", "-z").stdout.decode("utf-8", "replace")
    records += [("A", "000000", _untracked_mode(repo / name), True, name) for name in untracked.split("\0") if name]
    found = []
    for status, old_mode, new_mode, content_changed, name in records:
        if Path(name).parts[:1] == (submissions,):
            continue
        kind = path_kind(name)
        detail = _site_detail(repo, merge_base, name, status) if kind == "site config" else None
        found.append(ChangedPath(name, kind, change_kind(status, old_mode, new_mode, content_changed), detail))
    return sorted(found, key=lambda p: (not p.needs_review, p.file))


# ---- output (check-pr's three formats) ----------------------------------------------------


def _described(path: ChangedPath) -> str:
    return f"{path.kind}, {path.change}" + (f"; {path.detail}" if path.detail else "")


def text_lines(paths: list[ChangedPath]) -> tuple[list[str], list[str]]:
    """(lines that go first: changes needing a code owner, lines for the other paths)."""
    first = [f"needs a code owner's review ({_described(p)}): {p.file}" for p in paths if p.needs_review]
    rest = [f"changed outside submissions/ ({_described(p)}): {p.file}" for p in paths if not p.needs_review]
    return first, rest


def github_lines(
    paths: list[ChangedPath], prop: Callable[[str], str], data: Callable[[str], str]
) -> tuple[list[str], list[str]]:
    """(a warning annotation per path needing review, a notice per other path); `prop` and
    `data` escape a workflow command's properties and message."""
    first, rest = [], []
    for p in paths:
        if p.needs_review:
            text = f"{_described(p)}: {REVIEW_HINT}"
            first.append(f"::warning file={prop(p.file)},title={prop('Needs a code owner')}::{data(text)}")
        else:
            rest.append(f"::notice file={prop(p.file)},title=Changed outside submissions::{data(_described(p))}")
    return first, rest


# Rows of each path table in the comment: past them, the rest is counted by kind (a pull request
# padded with hundreds of paths cannot push what follows out of a comment GitHub cuts).
PATHS_LISTED = 40


def markdown_lines(paths: list[ChangedPath], cell: Callable[[str], str]) -> tuple[list[str], list[str]]:
    """(the section needing a code owner's review, under a heading that cannot be missed, the
    catalog's files first; the section of other changed paths), each listing at most PATHS_LISTED
    paths and counting the rest by kind; `cell` escapes text for a table cell."""
    review = sorted((p for p in paths if p.needs_review), key=lambda p: (_catalog_file(p.file) is None, p.file))
    others = [p for p in paths if not p.needs_review]
    first: list[str] = []
    if review:
        first = [
            "",
            f"### ⚠️ Needs a code owner's review: {len(review)} changed "
            + ("path" if len(review) == 1 else "paths")
            + " outside submissions/",
            "",
            "These can change what runs, what the checks trust or where the site links. "
            "They do not fail this check; a code owner must review them before merging.",
            "",
            "| path | kind | change |",
            "|---|---|---|",
        ]
        first += _rows(review, cell)
    rest: list[str] = []
    if others:
        rest = ["", "### Other changed paths outside submissions/", "", "| path | kind | change |", "|---|---|---|"]
        rest += _rows(others, cell)
    return first, rest


def _rows(paths: list[ChangedPath], cell: Callable[[str], str]) -> list[str]:
    """A table row for each of the first PATHS_LISTED paths, then one counting the others by kind."""
    rows = [_row(p, cell) for p in paths[:PATHS_LISTED]]
    left = paths[PATHS_LISTED:]
    if left:
        kinds: dict[str, int] = {}
        for p in left:
            kinds[p.kind] = kinds.get(p.kind, 0) + 1
        counted = ", ".join(f"{kind} {count:,}" for kind, count in sorted(kinds.items()))
        rows.append(f"| {len(left):,} more paths | {cell(counted)} | (`leaderboard check-pr` lists every one) |")
    return rows


def _row(path: ChangedPath, cell: Callable[[str], str]) -> str:
    change = path.change + (f"; {path.detail}" if path.detail else "")
    return f"| {markdown.code(path.file)} | {cell(path.kind)} | {cell(change)} |"
