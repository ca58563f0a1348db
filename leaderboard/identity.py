"""How files and sources are named and recognized: a submission's file name from free text, and
one key per paper whatever link names it (shared by the importers, `new` and the tree checks)."""

from __future__ import annotations

import re

from leaderboard.normalize import slug

MAX_SLUG = 100


def name_key(name: str) -> str:
    """One key for the ways people write one model's name: 'BERT-Large', 'BERT Large' and
    'bert_large' (case, spaces, hyphens and underscores aside)."""
    return "".join(c for c in name.casefold() if not c.isspace() and c not in "-_")


def paper_key(url: str | None) -> str | None:
    """Two links to the same paper give the same key (arXiv abs/pdf/version differences ignored)."""
    if not url:
        return None
    match = re.search(r"arxiv\.org/(?:abs|pdf)/([0-9]{4}\.[0-9]{4,5}|[a-z-]+/[0-9]{7})", url, re.IGNORECASE)
    if match:
        return f"arxiv:{match.group(1).lower()}"
    stripped = re.sub(r"^https?://(www\.)?", "", url.strip().lower()).rstrip("/")
    return stripped.removesuffix(".pdf")


def file_slug(text: str, fallback: str) -> str:
    """A file or folder name from free text: its slug, at most MAX_SLUG characters, else fallback."""
    return slug(text)[:MAX_SLUG].strip("-") or fallback
