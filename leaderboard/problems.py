"""The one shape of every error a user sees: file, line, column, JSON path, message, hint.

Validation collects these as values; the CLI prints them as text, JSON or annotations.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """A problem with no place of its own (a missing file, an empty one, a duplicate entry) is
    given as line and col None and sits at 1:1, so every problem lands on a line."""

    file: str
    line: int
    col: int
    json_path: str
    message: str
    hint: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "line", self.line or 1)  # frozen: set once, here
        object.__setattr__(self, "col", self.col or 1)

    def format(self) -> str:
        text = f"{self.file}:{self.line}:{self.col}: {self.json_path}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def as_dict(self) -> dict:
        return asdict(self)


def did_you_mean(value: object, choices: Iterable[str]) -> str | None:
    """A 'did you mean ...' hint for an unknown id, or None when nothing is close."""
    choices = sorted(set(choices))
    close = difflib.get_close_matches(str(value), choices, n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    if len(choices) <= 12:
        return "known: " + ", ".join(choices)
    return None


def _folded(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def closest(value: str, choices: Mapping[str, Iterable[str]], limit: int = 3) -> list[str]:
    """The ids of `choices` (id -> its other names: name, aliases) most like `value`, best first:
    those whose id or a name contains it (or it them), case and punctuation aside ('H100' ->
    the H100s, not 'v100'), then by difflib's similarity ratio (at least 0.6). difflib, not a
    fuzzy-matching library: a few hundred short names, and no new dependency."""
    query = _folded(str(value))
    scored = []
    for id_, names in choices.items():
        best = (False, 0.0)
        for name in (id_, *names):
            folded = _folded(name)
            contains = bool(query) and bool(folded) and (query in folded or folded in query)
            best = max(best, (contains, difflib.SequenceMatcher(None, query, folded).ratio()))
        if best[0] or best[1] >= 0.6:
            scored.append((not best[0], -best[1], id_))
    return [id_ for *_, id_ in sorted(scored)[:limit]]


def suggestion(value: str, choices: Mapping[str, Iterable[str]]) -> str | None:
    """'did you mean ...?' naming the closest ids (by id, name and aliases), or the few known ones."""
    close = closest(value, choices)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    return "known: " + ", ".join(sorted(choices)) if len(choices) <= 12 else None


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 file', '2 files', '0 files': every count the command line prints."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def json_path(parts: Iterable[str | int]) -> str:
    """('system', 'count') -> '$.system.count'; list indexes as [i]."""
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text
