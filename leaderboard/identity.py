"""How files and sources are named and recognized: a submission's file name from free text, and
one key per paper whatever link names it (shared by the importers, `new` and the tree checks)."""

from __future__ import annotations

import re

from leaderboard.normalize import slug

MAX_SLUG = 100
# Query parameters that say how a page is shown or who linked it, never which paper it is
# (?tab=readme on GitHub or Hugging Face; utm_* of any campaign); others (openreview's ?id=) stay.
VIEW_PARAMETERS = frozenset(
    {"tab", "ref", "ref_src", "ref_type", "source", "fbclid", "gclid", "spm", "usp", "si", "sharing"}
)


def name_key(name: str) -> str:
    """One key for the ways people write one model's name: 'BERT-Large', 'BERT Large' and
    'bert_large' (case, spaces, hyphens and underscores aside)."""
    return "".join(c for c in name.casefold() if not c.isspace() and c not in "-_")


def paper_key(url: str | None) -> str | None:
    """Two links to the same paper give the same key: arXiv abs/pdf/version differences, the
    fragment and the query parameters that only say how the page is shown aside."""
    if not url:
        return None
    match = re.search(r"arxiv\.org/(?:abs|pdf)/([0-9]{4}\.[0-9]{4,5}|[a-z-]+/[0-9]{7})", url, re.IGNORECASE)
    if match:
        return f"arxiv:{match.group(1).lower()}"
    address, _, _fragment = url.strip().partition("#")  # a place in the page, not another page
    address, _, query = address.partition("?")
    kept = sorted(
        part
        for part in query.split("&")
        if part and part.split("=", 1)[0].lower() not in VIEW_PARAMETERS and not part.lower().startswith("utm_")
    )
    stripped = re.sub(r"^https?://(www\.)?", "", address.lower()).rstrip("/").removesuffix(".pdf")
    return stripped + ("?" + "&".join(kept) if kept else "")


def file_slug(text: str, fallback: str) -> str:
    """A file or folder name from free text: its slug, at most MAX_SLUG characters, else fallback."""
    return slug(text)[:MAX_SLUG].strip("-") or fallback
