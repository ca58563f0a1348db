"""Charts as the site writes them and a rebuild remembers them: each spec as JSON text, kept in
the cache by its hash (.leaderboard-cache/specs/<sha256>.json) and read only when a page that
shows it is drawn again, or its spec file or SVG written again.

A rebuild reuses most pages as they were: their charts' specs (10 MB) are then neither read,
parsed, written out nor hashed; a page's reuse key holds a chart by the hash of its spec file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import orjson

from leaderboard import cache
from leaderboard.render.charts import Chart

SPECS = "specs"  # the folder of spec texts, in the cache folder


class KeptChart:
    """A chart: its name, title and description, and its spec as JSON text (keys sorted), given
    by `load` the first time it is asked for when it is not given; `file_digest`, the hash of its
    spec file (charts/<name>.vl.json); `json_digest`, the hash of its text."""

    __slots__ = ("name", "title", "description", "file_digest", "json_digest", "_text", "_spec", "_load")

    def __init__(
        self,
        name: str,
        title: str,
        description: str,
        file_digest: str,
        json_digest: str,
        text: str | None = None,
        load: Callable[[KeptChart], str] | None = None,
    ) -> None:
        if not all(isinstance(v, str) for v in (name, title, description, file_digest, json_digest)):
            raise TypeError("a kept chart's fields are text")
        self.name, self.title, self.description = name, title, description
        self.file_digest, self.json_digest = file_digest, json_digest
        self._text, self._spec, self._load = text, None, load

    @classmethod
    def of(cls, chart: Chart) -> KeptChart:
        """`chart`, its spec as JSON gives it back (the SVG is drawn from that too)."""
        text = orjson.dumps(chart.spec, option=orjson.OPT_SORT_KEYS).decode()
        kept = cls(chart.name, chart.title, chart.description, "", cache.digest(text), text)
        kept._spec = chart.spec  # the same JSON, not parsed again
        kept.file_digest = cache.digest(kept.spec_file())
        return kept

    @property
    def spec_json(self) -> str:
        if self._text is None:
            if self._load is None:
                raise RuntimeError(f"chart {self.name}: its spec is neither given nor can be loaded")
            self._text = self._load(self)
        return self._text

    @property
    def spec(self) -> dict:
        if self._spec is None:
            self._spec = orjson.loads(self.spec_json)
        return self._spec

    def spec_file(self) -> bytes:
        """The bytes of charts/<name>.vl.json."""
        return orjson.dumps(self.spec, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)

    def fields(self) -> list[str]:
        """What a rebuild remembers of it (KeptChart(*fields) gives it back, its text to load)."""
        return [self.name, self.title, self.description, self.file_digest, self.json_digest]


class SpecStore:
    """The spec texts of a site's charts, by hash, in `folder` (None: kept in memory only). Only
    ever saves time: a text missing or not of its hash is read as missing."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.used: set[str] = set()  # the hashes the new site's charts have

    def keep(self, chart: KeptChart, replace: bool = False) -> bool:
        """Store the chart's text, once per text unless `replace` (a file found spoilt); whether
        it is stored. A file spoilt since is found so when read (text()), and stored again."""
        self.used.add(chart.json_digest)
        if self.folder is None:
            return False
        path = self.folder / f"{chart.json_digest}.json"
        if path.is_file() and not replace:
            return True
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            temporary = self.folder / f".{chart.json_digest}.{os.getpid()}.tmp"
            temporary.write_text(chart.spec_json, encoding="utf-8")
            os.replace(temporary, path)
        except OSError:
            return False
        return True

    def text(self, json_digest: str) -> str | None:
        """The text of this hash, when it is stored intact."""
        if self.folder is None:
            return None
        try:
            data = (self.folder / f"{json_digest}.json").read_bytes()
        except (OSError, ValueError):
            return None
        return data.decode("utf-8") if cache.digest(data) == json_digest else None

    def prune(self) -> None:
        """Remove the texts no chart of the new site has (best effort)."""
        if self.folder is None:
            return
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if name.removesuffix(".json") not in self.used:
                try:
                    os.unlink(self.folder / name)
                except OSError:
                    pass
