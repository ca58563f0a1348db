"""Reviewing a pull request: what it may change, checked by trusted code (names, closed rounds,
plausibility, the catalog's effect, the Markdown it writes)."""
