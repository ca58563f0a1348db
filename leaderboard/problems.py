"""The one shape of every error a user sees: file, line, column, JSON path, message, hint.

Validation collects these as values; the CLI prints them as text, JSON or annotations.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
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


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 file', '2 files', '0 files': every count the command line prints."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def json_path(parts: Iterable[str | int]) -> str:
    """('system', 'count') -> '$.system.count'; list indexes as [i]."""
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text
