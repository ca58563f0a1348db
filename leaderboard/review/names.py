"""Names a reader can trust at a glance: submitter, system and model names in one Unicode form, with
no invisible, bidirectional or look-alike characters, and no submitter passing for another.

Look-alikes are judged by ICU's SpoofChecker, the reference implementation of Unicode TR39.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import icu

from leaderboard.files import Document
from leaderboard.normalize import slug
from leaderboard.problems import Problem
from leaderboard.tree import Entry

NAME_FIELDS = (("submitter",), ("system", "name"), ("model", "name"))
LABELS = {("submitter",): "submitter", ("system", "name"): "system name", ("model", "name"): "model name"}

# Unicode's bidirectional formatting characters: each can reorder the text shown around it.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
NEUTRAL_SCRIPTS = ("Common", "Inherited", "Unknown")  # punctuation, digits, combining marks

_CHECKER = icu.SpoofChecker()


@dataclass(frozen=True)
class NameFault:
    """What is wrong with one name; `position` is the 1-based character it is at, if any."""

    message: str
    hint: str | None = None
    position: int | None = None


@dataclass(frozen=True)
class Clash:
    """A submitter name that passes for another name already in the tree."""

    name: str
    other: str
    other_file: str
    how: str  # "skeleton" (TR39 confusable) | "folder" (the same slug)


def character(char: str) -> str:
    """'U+200B ZERO WIDTH SPACE': a character named so that a reader can find it."""
    return f"U+{ord(char):04X} {icu.Char.charName(char, icu.UCharNameChoice.EXTENDED_CHAR_NAME)}"


def skeleton(name: str) -> str:
    """The Unicode TR39 confusable skeleton: two names with one skeleton look alike."""
    return _CHECKER.getSkeleton(0, unicodedata.normalize("NFC", name))


def odd_character(char: str) -> str | None:
    """Why a character has no place in a name (invisible, reordering, a space that is not a
    space, a control), or None for an ordinary character."""
    category = unicodedata.category(char)
    if char in BIDI_CONTROLS:
        return "a bidirectional control (it reorders the text shown around it)"
    if category == "Zs" and char != " ":
        return "a space other than the plain space U+0020"
    if category in ("Zl", "Zp"):
        return "a line or paragraph separator"
    if category == "Cc":
        return "a control character"
    if category == "Cf" or icu.Char.hasBinaryProperty(char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT):
        return "an invisible character"
    if category == "Co":
        return "a private-use character (it has no agreed look)"
    if category in ("Cn", "Cs"):
        return "not an assigned character"
    return None


def name_faults(name: str) -> list[NameFault]:
    """Everything wrong with one name, in the order of its characters (empty when it is fine)."""
    faults: list[NameFault] = []
    if name.isascii() and name.isprintable():  # most names: nothing for Unicode to hide
        return _space_faults(name)
    composed = unicodedata.normalize("NFC", name)
    if composed != name:
        at = next(
            (i for i, (a, b) in enumerate(zip(name, composed, strict=False)) if a != b), min(len(name), len(composed))
        )
        written = " ".join(f"U+{ord(c):04X}" for c in name[at : at + 2])
        faults.append(
            NameFault(
                f"is not in Unicode normalization form C: at character {at + 1} it is written decomposed "
                f"({written}), and looks the same as a different name",
                f"write it in composed form (NFC): {composed!r}",
                at + 1,
            )
        )
    for position, char in enumerate(name, 1):
        why = odd_character(char)
        if why:
            faults.append(
                NameFault(
                    f"holds {character(char)}, {why}, at character {position}",
                    "write the plain space U+0020" if "space" in why or "separator" in why else "delete it",
                    position,
                )
            )
    faults += _space_faults(name)
    if not faults:
        faults += mixed_script_faults(name)
    return faults


def _space_faults(name: str) -> list[NameFault]:
    """Spaces that make two names of one: at either end, or two in a row."""
    faults = []
    if name != name.strip(" "):
        faults.append(NameFault("begins or ends with a space", f"write {name.strip(' ')!r}"))
    if "  " in name:
        faults.append(NameFault("holds two spaces in a row", f"write {re.sub(' +', ' ', name).strip()!r}"))
    return faults


def mixed_script_faults(name: str) -> list[NameFault]:
    """Letters of another script mixed into a name that look like letters of its main script
    (a Cyrillic 'а' in "NVIDIA"). Another script whose letters cannot be mistaken ("PanGu-Σ",
    "Huawei 华为") is fine."""
    scripts = [_script(c) for c in name]
    counts = Counter(s for s in scripts if s not in NEUTRAL_SCRIPTS)
    if len(counts) < 2:
        return []
    main = max(counts, key=lambda s: (counts[s], -scripts.index(s)))
    faults = []
    for position, (char, script) in enumerate(zip(name, scripts, strict=True), 1):
        if script in NEUTRAL_SCRIPTS or script == main:
            continue
        twins = _letters_by_skeleton(main).get(skeleton(char))
        if twins:
            faults.append(
                NameFault(
                    f"holds {character(char)} ({script}) at character {position}, which looks like the {main} "
                    f"{twins[0]!r} ({character(twins[0])}): a look-alike from another script",
                    f"type the {main} letter: {name[: position - 1] + twins[0] + name[position:]!r}",
                    position,
                )
            )
    return faults


def _script(char: str) -> str:
    return icu.Script.getScript(char).getName()


@functools.cache
def _letters_by_skeleton(script: str) -> dict[str, list[str]]:
    """The characters of `script` recommended for identifiers (TR39), by their skeleton."""
    letters = icu.UnicodeSet(f"[:Script={script}:]")
    letters.retainAll(_CHECKER.getRecommendedUnicodeSet())
    found: dict[str, list[str]] = {}
    for char in letters:
        found.setdefault(skeleton(char), []).append(char)
    return found


def submitter_clashes(submitters: list[tuple[str, str]]) -> dict[int, list[Clash]]:
    """For each (submitter, file) by index, the other names it passes for: the same TR39
    skeleton, or the same folder (slug) and so the same submitter page. A name is reported
    against one that is at least as common, so the new name is the one told to change."""
    counts = Counter(name for name, _ in submitters)
    example: dict[str, str] = {}
    for name, file in submitters:
        example.setdefault(name, file)
    groups: dict[tuple[str, str], set[str]] = {}
    for name in counts:
        groups.setdefault(("skeleton", skeleton(name)), set()).add(name)
        groups.setdefault(("folder", slug(name)), set()).add(name)
    clashes: dict[int, list[Clash]] = {}
    for index, (name, _) in enumerate(submitters):
        seen: set[str] = set()
        for how in ("skeleton", "folder"):
            key = skeleton(name) if how == "skeleton" else slug(name)
            for other in sorted(groups[(how, key)] - {name} - seen):
                if counts[other] >= counts[name]:
                    seen.add(other)
                    clashes.setdefault(index, []).append(Clash(name, other, example[other], how))
    return clashes


# ---- as problems ------------------------------------------------------------------------------


def name_problems(doc: Document) -> Iterator[Problem]:
    """The problems of one submission's names, each on its field."""
    data = doc.data
    for path in NAME_FIELDS:
        value = data
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if not isinstance(value, str):
            continue
        for fault in name_faults(value):
            yield doc.problem(path, f"{LABELS[path]} {value!r} {fault.message}", fault.hint)
    submitter = data.get("submitter")
    if isinstance(submitter, str) and not slug(submitter):
        yield doc.problem(
            ("submitter",),
            f"submitter {submitter!r} has no letter a-z or digit to name its folder",
            "add the name in Latin letters, e.g. 'Huawei (华为)'",
        )


def clash_problems(
    entries: Iterable[tuple[Entry, bool]],
    shown: Callable[[str], str] = str,
    as_published: Callable[[Entry], bool] = lambda entry: False,
) -> list[Problem]:
    """Look-alike submitters among valid entries (tree.Entry, and whether it is one to report
    on): a problem on the submitter of each reported entry whose name passes for another.
    An entry `as_published` (byte for byte what an importer wrote from the published record:
    MLCommons' own 'SUPERMICRO' beside its 'Supermicro') keeps the name it was published under."""
    entries = list(entries)
    clashes = submitter_clashes([(entry.data["submitter"], entry.file) for entry, _ in entries])
    problems = []
    for index, found in sorted(clashes.items()):
        entry, named = entries[index]
        if not named or as_published(entry):
            continue
        for clash in found:
            where = shown(clash.other_file)
            if clash.how == "skeleton":
                message = (
                    f"submitter {clash.name!r} looks like the existing submitter {clash.other!r} ({where}): "
                    "the two have the same confusable skeleton (Unicode TR39)"
                )
            else:
                message = (
                    f"submitter {clash.name!r} would share the folder {slug(clash.name)!r} and its submitter "
                    f"page with the existing submitter {clash.other!r} ({where})"
                )
            hint = f"use exactly {clash.other!r} if it is that organization; else a name that cannot be mistaken for it"
            problems.append(entry.document().problem(("submitter",), message, hint))
    return problems
