"""Altair, imported when a chart is first built, not before: most of a rebuild's charts are
reused as last built (PageReuse.charts), and a rebuild that builds none never imports Altair
(0.18 s of a 3-second one-file rebuild). The chart modules use `alt` as they would the module."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from types import ModuleType


class _Altair:
    """Stands for the altair module: the first attribute asked for imports it."""

    def __getattr__(self, name: str) -> object:
        return getattr(_module(), name)


alt = _Altair()

_unchecked = 0  # how many unchecked() blocks are open
_debug_off: AbstractContextManager | None = None  # Altair's debug_mode(False), entered for them


def _module() -> ModuleType:
    import altair

    global _debug_off
    if _unchecked and _debug_off is None:
        from altair.utils.schemapi import debug_mode

        _debug_off = debug_mode(False)
        _debug_off.__enter__()
    return altair


@contextmanager
def unchecked() -> Iterator[None]:
    """While charts are built: Altair's debug mode checks every object against the Vega-Lite
    schema as it is made, seconds of a build. The tests check every spec the site writes. Turned
    off when Altair is first used inside the block (not imported for it), and back on after."""
    global _unchecked, _debug_off
    _unchecked += 1
    try:
        yield
    finally:
        _unchecked -= 1
        if not _unchecked and _debug_off is not None:
            restore, _debug_off = _debug_off, None
            restore.__exit__(None, None, None)
