"""The submissions folder as a whole: each entry in its place (<round>/<submitter-slug>/<file>),
no entry held by two files, and files named from the project folder in every message.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from leaderboard.catalog import Catalog
from leaderboard.families import family
from leaderboard.files import Document, load
from leaderboard.identity import name_key, paper_key
from leaderboard.manifest import holds
from leaderboard.normalize import chips, slug
from leaderboard.problems import Problem

DUPLICATE = "duplicate entry"  # how every message about two files holding one entry starts
NOT_DATA = "not .yaml, .yml or .json"


class FileChanged(RuntimeError):
    """A submission file is no longer the bytes its result was read from (edited during a build)."""


@dataclass
class Entry:
    """One valid submission, ready to normalize and store."""

    entry_id: str
    file: str
    data: dict
    doc: Document | None  # None when taken from the validation cache (parsed again on demand)
    sha256: str | None = None  # of the bytes `data` was parsed from (hex): results.file_sha256

    def read_from(self, sha256: str) -> bool | None:
        """Whether the entry was read from bytes whose SHA-256 is `sha256` (a manifest's digest):
        the bytes validation parsed, else (an entry made elsewhere) the file's now; None when
        the file cannot be read."""
        if self.sha256 is not None:
            return self.sha256 == sha256
        return holds(self.file, sha256)

    def document(self) -> Document:
        """The parsed file (a cached entry parses it again only when a problem needs a line)."""
        if self.doc is None:
            self.doc = load(Path(self.file))
        return self.doc


def project_root(catalog_dir: Path | None = None, start: Path | None = None) -> Path:
    """The project folder, which holds catalog/ and submissions/: the one of `catalog_dir` when
    given, else `start` (the working folder) or the nearest folder above it with a catalog."""
    if catalog_dir is not None:
        return Path(os.path.abspath(catalog_dir)).parent
    here = Path(os.path.abspath(start or Path.cwd()))
    for folder in (here, *here.parents):
        if (folder / "catalog" / "rounds.yaml").is_file():
            return folder
    return here


def shown_relative_to(root: Path | None) -> Callable[[str], str]:
    """How a file is named in messages: relative to the project folder when inside it (so always
    with its round folder), else as given."""
    if root is None:
        return lambda name: name
    base = os.path.abspath(root)

    def shown(name: str) -> str:
        absolute = os.path.abspath(name)
        return os.path.relpath(absolute, base).replace(os.sep, "/") if absolute.startswith(base + os.sep) else name

    return shown


def not_a_submission_file(path: Path, tree_name: str = "submissions") -> Problem:
    """A file in the submissions folder that no check reads: it would slip through unchecked."""
    return Problem(
        str(path),
        None,
        None,
        "$",
        f"not a submission file: {tree_name}/ holds only entries, as .yaml, .yml or .json files",
        f"give it the .yaml extension if it is an entry; else keep it out of {tree_name}/",
    )


def placement_problem(entry: Entry, tree: str | None) -> Problem | None:
    """An entry lives at <round>/<submitter-slug>/<name> of the submissions folder (`tree`, an
    absolute path); without one, the file's own last three path parts are compared."""
    data = entry.data
    expected = f"{data['round']}/{slug(data['submitter'])}/{os.path.basename(entry.file)}"
    absolute = os.path.abspath(entry.file)
    tree_name = os.path.basename(tree) if tree is not None else "submissions"
    if tree is None:
        where = "/".join(absolute.split(os.sep)[-3:])
    elif absolute.startswith(tree + os.sep):
        # Both normalized (abspath): the part after the tree is the relative path.
        where = absolute[len(tree) + 1 :].replace(os.sep, "/")
    else:
        where = None
    if where == expected:
        return None
    place = f"file is at {where}" if where is not None else f"file is outside {tree_name}/"
    return entry.document().problem(
        (), f"{place} but its content says {expected}", f"move it to {tree_name}/{expected}"
    )


def identity(data: dict) -> tuple:
    # The model name is part of the identity too: two published models trained on the same
    # hardware by one organization are two entries.
    fields = (data["round"], data["submitter"], data["system"]["name"], data["benchmark"], data["division"])
    return (*(" ".join(str(v).casefold().split()) for v in fields), model_key(data))


def model_key(data: dict) -> str:
    """A model's name as two files that mean one model may write it (identity.name_key)."""
    return name_key(str((data.get("model") or {}).get("name", "")))


def paper_and_model(data: dict, catalog: Catalog) -> tuple[str, str] | None:
    """What makes two published runs one: the same paper (however its link is written) and model."""
    round_ = catalog.rounds.get(data["round"])
    paper = paper_key(data["source"].get("url")) if round_ is not None and family(round_.kind).model_runs else None
    if paper is None:
        return None
    return paper, model_key(data)


def notes_tell_apart(first: dict, second: dict, catalog: Catalog) -> bool:
    """Two runs of one paper and model are two entries when each says in source.note how it
    differs, and the notes differ, and so does what they measured: the same part, chip count and
    minutes are one run, whatever the notes say (a copy under another system name and note)."""
    notes = [" ".join(str(d["source"].get("note") or "").casefold().split()) for d in (first, second)]
    return all(notes) and notes[0] != notes[1] and measured(first, catalog) != measured(second, catalog)


def measured(data: dict, catalog: Catalog) -> tuple:
    """What a published run measured: its part, how many chips (however counted: 16 devices of
    4 chips are 64 chips), and its minutes."""
    system = data["system"]
    accelerator = catalog.accelerators.get(system["accelerator"])
    try:
        count = chips(system["count"], system.get("unit", "chip"), accelerator) if accelerator else system["count"]
    except ValueError:  # a unit the part is not counted in: reported by validate
        count = system["count"]
    return (system["accelerator"], float(count), float(data["result"]["minutes"]))


def set_aside_duplicates(
    valid: list[tuple[Entry, bool]], catalog: Catalog, shown: Callable[[str], str], elsewhere: Sequence[Entry] = ()
) -> tuple[list[Entry], list[Entry], list[Problem]]:
    """The entries kept, those set aside because two files hold one entry, and a problem on each
    file of such a pair where either file is one to report on (the bool beside each entry).
    One entry: the same round, submitter, system, benchmark, division and model; or a published
    run from the same paper (source.url) with the same model name, unless notes tell them apart.
    Files in the wrong place (`elsewhere`, to report on) are compared with the valid ones too: a
    copy of another's result says so before it is moved."""
    pairs: list[tuple[Entry, Entry, str, str]] = []  # (first, second, what they share, hint)
    named = {id(entry): is_named for entry, is_named in valid}
    seen: dict[tuple, Entry] = {}
    for entry, _ in valid:
        key = identity(entry.data)
        if key in seen:
            what = "same round, submitter, system, benchmark, division and model"
            pairs.append((seen[key], entry, what, "merge the two files or correct one of them"))
        else:
            seen[key] = entry
    papers: dict[tuple, list[Entry]] = {}
    for entry in seen.values():
        key = paper_and_model(entry.data, catalog)
        if key is None:
            continue
        for other in papers.get(key, []):
            if not notes_tell_apart(other.data, entry.data, catalog):
                what = "a published run from the same paper (source.url) with the same model"
                hint = "if it is another run, say in the source.note of each how it differs; else keep one file"
                if measured(other.data, catalog) == measured(entry.data, catalog):
                    what += ", on the same part, chip count and minutes"
                    hint = "the two measured the same, so they are one run whatever their notes say: keep one file"
                pairs.append((other, entry, what, hint))
        papers.setdefault(key, []).append(entry)
    problems: list[Problem] = []
    set_aside: dict[int, Entry] = {}
    for first, second, what, hint in pairs:
        set_aside[id(first)], set_aside[id(second)] = first, second
        if named[id(first)] or named[id(second)]:
            problems.append(second.document().problem((), f"{DUPLICATE}: {what} as {shown(first.file)}", hint))
            problems.append(first.document().problem((), f"{DUPLICATE}: {what} as {shown(second.file)}", hint))
    kept = [entry for entry, _ in valid if id(entry) not in set_aside]
    problems += [p for entry in elsewhere for p in duplicate_problems(entry, [e for e, _ in valid], catalog, shown)]
    return kept, list(set_aside.values()), problems


def duplicate_problems(
    entry: Entry, others: list[Entry], catalog: Catalog, shown: Callable[[str], str] = str
) -> list[Problem]:
    """The problems of `entry` as a second file of an entry among `others`."""
    _, _, problems = set_aside_duplicates([(other, False) for other in others] + [(entry, True)], catalog, shown)
    return [problem for problem in problems if problem.file == entry.file]


@functools.lru_cache(maxsize=4096)
def real_folder(folder: str) -> str:
    """A folder's real path, resolved once per folder, not once per file (thousands of files
    share a few hundred folders). A build clears it first: folders may have moved since the last
    build in this process."""
    return os.path.realpath(folder)
