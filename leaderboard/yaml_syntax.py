"""A YAML parse error explained where the writer can act on it: its message, line, column and
hint (files.py raises it as the file's problem)."""

from __future__ import annotations

import yaml

Explained = tuple[str, int | None, int | None, str | None]  # message, line, column, hint


def explain(error: yaml.MarkedYAMLError, text: str, loader: type) -> Explained:
    """A parse error where the writer can act on it. YAML says where it gave up (the problem
    mark) and what it was reading then (the context mark). A quote left open is the usual cause
    of an error far from its mistake: YAML reads on to the end of the file, or to the next quote
    and fails there; either way the error is placed where the quote opens. Any other context is
    named with its place."""
    problem, context = error.problem or error.context, error.context
    at, start = error.problem_mark or error.context_mark, error.context_mark
    if context == "while scanning a quoted scalar" and start is not None and "end of stream" in (problem or ""):
        return (
            "YAML does not parse: the quoted value that opens here is never closed (the file ends inside it)",
            start.line + 1,
            start.column + 1,
            CLOSE_THE_QUOTE,
        )
    opened = _quote_closed_near(text, at.line, loader) if at is not None else None
    if opened is not None:
        return (
            f"YAML does not parse: the quoted value that opens here runs on to line {at.line + 1}, "
            f"where YAML stops ({problem}): is its closing quote missing?",
            *opened,
            CLOSE_THE_QUOTE,
        )
    message = f"YAML does not parse: {problem}"
    if context and start is not None and at is not None and (start.line, start.column) != (at.line, at.column):
        message += f" ({context} that starts at line {start.line + 1}, column {start.column + 1})"
    return message, at.line + 1 if at else None, at.column + 1 if at else None, _hint(problem, text, at)


def _hint(problem: str | None, text: str, at) -> str | None:
    """What to do about the parse errors people meet most: a tab, an unquoted ': ' in a value."""
    line = text.splitlines()[at.line] if at is not None and at.line < len(text.splitlines()) else ""
    if "\t" in line[: at.column + 1 if at is not None else 0] or "'\\t'" in (problem or ""):
        return "indent with spaces: YAML does not allow a tab in indentation"
    if problem and problem.startswith("mapping values are not allowed"):
        return 'a value that holds ": " is quoted: note: "ratio: 2"'
    return None


CLOSE_THE_QUOTE = (
    "close the quote on this line; inside single quotes write a ' as '', inside double quotes a \" as \\\""
)


def _quote_closed_near(text: str, line: int, loader: type) -> tuple[int, int] | None:
    """Where a quoted value opens (line, column) when it spans lines and closes on `line`, the
    line YAML gave up on: the sign of a closing quote forgotten earlier in the file."""
    try:
        for token in yaml.scan(text, Loader=loader):
            if (
                isinstance(token, yaml.ScalarToken)
                and token.style in ("'", '"')
                and token.start_mark.line < token.end_mark.line == line
            ):
                return token.start_mark.line + 1, token.start_mark.column + 1
    except yaml.YAMLError:
        pass  # the scan stops where the parse failed; every token before it was seen
    return None
