"""Pages of the previous site reused by a rebuild: a page whose inputs (its template context,
the code and templates) hash the same as last time is copied instead of drawn again.

The manifest (.leaderboard-cache/site-pages.json) records each page's input hash, content
hash and file identity (size, modification time, inode); a page is reused only when the
previous site's file still has that identity, or else still has that content hash. A kept
page is a hard link to the previous file, so it keeps its identity from build to build.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Callable
from pathlib import Path

import orjson

from leaderboard import cache
from leaderboard.render.charts import Chart
from leaderboard.render.kept_charts import SPECS, KeptChart, SpecStore
from leaderboard.render.model import ResultRow

MANIFEST = "site-pages.json"
# Dataclasses (a Board, a Lineage) and result rows go through _stable, which hashes each object
# once; so do subclasses of str, int, dict and list (a result row is one), named by their class.
OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
PLAIN = (str, int, dict, list)


class PageReuse:
    def __init__(self, previous: Path, manifest: Path | None, found: Callable[[], dict[str, list[int]]] | None = None):
        """`found`: the previous site's identities of the manifest's pages (identities_of), worked
        out elsewhere meanwhile (render/clone.py); else, or when it fails, found here."""
        self.previous, self.manifest = previous, manifest
        stored = cache.read_json(manifest)
        self.old: dict = stored.get("pages", {})
        self.new: dict[str, list[str]] = {}
        # Values made from inputs (charts' specs, say), by name: [inputs' hash, JSON text, its hash].
        self.old_values: dict = stored.get("values", {})
        self.new_values: dict[str, list[str]] = {}
        self.specs = SpecStore(manifest.parent / SPECS if manifest is not None else None)
        self.old_sources: dict = stored.get("sources", {})
        self.new_sources: dict[str, list] = {}
        # id -> (the object, kept so that its id is never another's; its stable text)
        self._objects: dict[int, tuple[object, str]] = {}
        self._shared: dict[str, tuple[object, str]] = {}
        self._found = _found_elsewhere(found)
        if self._found is None:
            self._found = _identities(previous, self.old)

    def key(self, relative: str, template: str, context: dict, shared: dict | None = None) -> str | None:
        """The hash of everything the page is drawn from; None when some value has no stable text.
        Values of `shared` (the same object on many pages) stand in the text by their hash."""
        try:
            for name, value in (shared or {}).items():
                if context.get(name) is value:
                    context = {**context, name: self._shared_digest(name, value)}
            # orjson: the keys of 10,000 pages take a tenth of the time json needs.
            text = orjson.dumps([relative, template, context], default=self._stable, option=OPTIONS)
        except (TypeError, ValueError):
            return None
        return cache.digest(text)

    def _shared_digest(self, name: str, value: object) -> str:
        if name not in self._shared or self._shared[name][0] is not value:
            text = orjson.dumps(value, default=self._stable, option=OPTIONS)
            self._shared[name] = (value, f"{name} {cache.digest(text)}")
        return self._shared[name][1]

    def _stable(self, value: object) -> object:
        if value.__class__ is ResultRow and value.frozen:
            # A result is on its entry page, its board, its submitter's and accelerator's pages and
            # more: its columns are hashed once, not on each of them (30 MB a rebuild). A row not
            # yet read-only could still change: it is hashed where it stands, below.
            remembered = self._objects.get(id(value))
            if remembered is not None and remembered[0] is value:
                return remembered[1]
            return self._once(value, lambda: dict(value))
        if value.__class__ is KeptChart:
            # A chart, by its spec file's hash: its 40 KB of spec text, escaped again on each page
            # that shows it, were a tenth of the keys' time.
            return f"chart {value.file_digest}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            # Many pages show the same board or lineage: its fields are hashed once, not once a
            # page. Its properties are worked out from its fields by code the cache's version covers.
            kind = type(value)
            return self._once(
                value,
                lambda: [
                    kind.__module__,
                    kind.__qualname__,
                    {f.name: getattr(value, f.name) for f in dataclasses.fields(value)},
                ],
            )
        for plain in PLAIN:
            if isinstance(value, plain):
                return [f"{type(value).__module__}.{type(value).__qualname__}", plain(value)]
        if isinstance(value, (set, frozenset)):
            return sorted(value, key=repr)
        if callable(value) and hasattr(value, "__qualname__"):
            return f"{value.__module__}.{value.__qualname__}"
        raise TypeError(f"no stable text for {type(value).__name__}")

    def _once(self, value: object, content: Callable[[], object]) -> str:
        """`value`'s stable text, "<class> <hash of content()>", worked out the first time it is
        asked for (the object is kept, so its id is never another's)."""
        remembered = self._objects.get(id(value))
        if remembered is None or remembered[0] is not value:
            text = orjson.dumps(content(), default=self._stable, option=OPTIONS)
            remembered = (value, f"{type(value).__name__} {cache.digest(text)}")
            self._objects[id(value)] = remembered
        return remembered[1]

    def unchanged(self, relative: str, key: str) -> bool:
        """Whether the previous site's file of the page is what inputs hashing to `key` draw:
        the inputs and the file are both as recorded."""
        recorded = self.old.get(relative)
        if not isinstance(recorded, list) or len(recorded) != 3 or recorded[0] != key:
            return False
        try:
            identity = self._found.get(relative)
            if identity is None:
                return False  # gone, or not a regular file
            if identity != recorded[2]:
                if cache.digest((self.previous / relative).read_bytes()) != recorded[1]:
                    return False
                recorded = [key, recorded[1], identity]
        except OSError:
            return False
        self.new[relative] = recorded
        return True

    def record(
        self, relative: str, key: str, content: bytes | str, written: Path, content_digest: str | None = None
    ) -> None:
        """A page drawn afresh: its key, its content's hash (`content_digest` when already
        known) and the identity of the file written."""
        try:
            self.new[relative] = [key, content_digest or cache.digest(content), file_identity(written)]
        except OSError:
            pass

    def charts(self, stem: str, inputs: list, draw: Callable[[], list[Chart]]) -> list[KeptChart] | None:
        """A division's charts as last built from the same rows (building them is a large part of
        a rebuild), their spec texts read when asked for; None when anything differs. A text
        missing or spoilt by then is built again by `draw()`."""
        fields = self.value(stem, inputs)
        if fields is None:
            return None
        again: dict[str, KeptChart] = {}

        def load(chart: KeptChart) -> str:
            text = self.specs.text(chart.json_digest)
            if text is not None:
                return text
            if not again:  # the same inputs, by the same code: the same charts
                again.update((c.name, KeptChart.of(c)) for c in draw())
            built = again.get(chart.name)
            if built is None or built.json_digest != chart.json_digest:
                raise RuntimeError(f"chart {chart.name} was built otherwise from the same inputs")
            self.specs.keep(built, replace=True)
            return built.spec_json

        try:
            if not isinstance(fields, list) or not all(isinstance(chart, list) for chart in fields):
                raise TypeError("not a list of charts")
            charts = [KeptChart(*chart, load=load) for chart in fields]
        except TypeError:
            self.new_values.pop(stem, None)  # not kept for the next build either
            return None
        self.specs.used.update(chart.json_digest for chart in charts)
        return charts

    def record_charts(self, stem: str, inputs: list, charts: list[KeptChart]) -> None:
        for chart in charts:
            self.specs.keep(chart)
        self.record_value(stem, inputs, [chart.fields() for chart in charts])

    def value(self, stem: str, inputs: list) -> object:
        """The value last recorded (record_value) under `stem` for the same `inputs`; None when
        there is none, or anything differs."""
        recorded = self.old_values.get(stem)
        try:
            key, text, text_digest = recorded
            if key is None or key != self._inputs_key(inputs) or cache.digest(text) != text_digest:
                return None
            found = orjson.loads(text)
        except (TypeError, ValueError):
            return None
        self.new_values[stem] = recorded
        return found

    def record_value(self, stem: str, inputs: list, value: object) -> bool:
        """Remember `value` as made from `inputs` (a JSON value orjson gives back exactly: else
        nothing is remembered); whether it was."""
        key = self._inputs_key(inputs)
        if key is None:
            return False
        try:
            text = orjson.dumps(value).decode()
            if orjson.loads(text) != value:
                return False
        except (TypeError, ValueError):
            return False
        self.new_values[stem] = [key, text, cache.digest(text)]
        return True

    def _inputs_key(self, inputs: list) -> str | None:
        try:
            return cache.digest(orjson.dumps(inputs, default=self._stable, option=OPTIONS))
        except (TypeError, ValueError):
            return None

    def source_digest(self, path: Path) -> str:
        """The hash of a file the site copies (DuckDB-WASM's 35 MB, say), as recorded for the file's
        identity when it is the same, else read and hashed: a rebuild keeps the site's copy
        without reading it again."""
        name = os.path.abspath(path)
        identity = file_identity(path, follow_symlinks=True)  # an installed bundle may be linked in
        recorded = self.old_sources.get(name)
        if isinstance(recorded, list) and len(recorded) == 2 and recorded[0] == identity:
            found = recorded[1]
        else:
            found = cache.digest(path.read_bytes())
        self.new_sources[name] = [identity, found]
        return found

    def save(self) -> None:
        """Only once the new site is in place: the manifest describes the site beside it."""
        cache.write_json(self.manifest, {"pages": self.new, "values": self.new_values, "sources": self.new_sources})
        self.specs.prune()


def identities_of(previous: Path, manifest: Path) -> dict[str, list[int]]:
    """_identities() of the pages `manifest` lists, in the previous site `previous`."""
    return _identities(previous, cache.read_json(manifest).get("pages", {}))


def _found_elsewhere(found: Callable[[], dict[str, list[int]]] | None) -> dict[str, list[int]] | None:
    if found is None:
        return None
    try:
        identities = found()
    except Exception:  # noqa: BLE001 - a process that failed: they are found here instead
        return None
    return identities if isinstance(identities, dict) else None


def _identities(previous: Path | None, pages: dict) -> dict[str, list[int]]:
    """The identity of each page of the manifest as the previous site holds it (none where it is
    gone or not a regular file), found all at once when the rebuild starts: thousands of file
    lookups in a row take a few hundredths of a second, while one a page, each waiting for the
    interpreter's lock that the site's other threads hold, took up to half a second."""
    found: dict[str, list[int]] = {}
    if previous is None:  # no previous site: nothing to find
        return found
    # Names joined as text: with path objects, the shipped site's 6,915 took 0.12 s, not 0.03 s.
    folder = os.path.join(previous, "")
    for relative in pages:
        try:
            found[relative] = file_identity(folder + relative)
        except (OSError, ValueError):  # ValueError: a name with a NUL in a corrupt manifest
            pass
    return found


def file_identity(path: Path | str, follow_symlinks: bool = False) -> list[int]:
    """What changes when a file is written or replaced: size, modification time, inode.
    Anything but a regular file (a link put in the site, say) is never reused; `follow_symlinks`:
    a link's target's."""
    info = os.stat(path, follow_symlinks=follow_symlinks)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(f"not a regular file: {path}")
    return [info.st_size, info.st_mtime_ns, info.st_ino]
