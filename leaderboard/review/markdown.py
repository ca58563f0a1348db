"""Text from a pull request, made safe for the Markdown of the bot's comment: shown as written,
never rendered as links, HTML or formatting, never notifying anyone.
"""

from __future__ import annotations

import re
import unicodedata

# CommonMark: "any ASCII punctuation character may be backslash-escaped" and then stands for
# itself. Escaped anywhere: the characters that mean something inside a line (emphasis, code,
# links and images, HTML and entities, table pipes, strikethrough, GitHub's $math$).
INLINE = frozenset("\\`*_[]()<>&|~$!{}")
# At the start of a line these begin a heading, list, quote or rule; text put at the start of a
# line (newlines become spaces, so only its first character can be) has that one escaped too.
LINE_START = frozenset("#-+=>*_")
_NUMBERED = re.compile(r" *\d{1,9}(?=[.)])")  # "1." or "1)" at the start of a line: a list

# GitHub finds @mentions, team mentions and #123 references in the rendered text, after the
# backslashes are gone, so escaping cannot stop them; a zero-width space right after the sign
# does (the name or number no longer follows it), and the text still reads the same. Dependabot
# and Renovate defuse mentions in release notes this way. Written as an entity so the comment's
# source shows it.
ZERO_WIDTH_SPACE = "&#8203;"
# GitHub's autolinks (https://..., www....) are found in the text too; the same space breaks them.
_AUTOLINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=\bwww)(?=\.)|(?<=\bGH)(?=-\d)")


def _visible(char: str) -> str | None:
    """How an invisible, control or bidirectional character is shown: as its code point, so that
    it can neither hide nor reorder the text around it. None for an ordinary character."""
    if char in "\r\n\t":
        return " "
    if unicodedata.category(char) in ("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"):
        return f"\\u{ord(char):04x}"
    return None


def escape(text: str) -> str:
    """`text` as Markdown that shows exactly it, on one line (so in a table cell too)."""
    first = len(text) - len(text.lstrip(" "))  # the character a line would start with
    numbered = _NUMBERED.match(text)
    out = []
    for index, char in enumerate(text):
        shown = _visible(char)
        if shown is not None:
            out.append(shown.replace("\\", "\\\\"))
        elif char in "@#":
            out.append(f"\\{char}{ZERO_WIDTH_SPACE}")
        elif char in INLINE or (index == first and char in LINE_START) or (numbered and index == numbered.end()):
            out.append(f"\\{char}")
        else:
            out.append(char)
        if _AUTOLINK.match(text, index + 1):
            out.append(ZERO_WIDTH_SPACE)
    return "".join(out)


def code(text: str, table: bool = False) -> str:
    """`text` as an inline code span that shows exactly it: fenced by more backticks than it holds
    in a row, so a backtick inside cannot close it. Markdown, HTML and mentions are not read inside
    code; in a table (`table`), a pipe still ends the cell unless escaped, which GFM allows there."""
    if not text:
        return ""
    text = "".join(_visible(c) or c for c in text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    if table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"
