"""Each unchanged entry's rows as the last build made them (rows.table_rows): its results row
(before the ranks and republications, which compare entries), cost rows, run rows and progress
rows, kept in .leaderboard-cache/rows.marshal. Making them took a one-file rebuild 0.26 s of its
0.8 s before the database's process starts; reading them back takes two fifths of that.

An entry's rows are kept by its file (entry id, path and the SHA-256 of its bytes); the whole
file by what every entry's rows are also made from: the catalog's files, the importers'
manifests (catalog/verified/, catalog/imported/), the project's folder, the working folder,
the code and the interpreter. Anything else, and any file that does not read back whole, is
made again.

marshal, not JSON: it gives back exactly the values it was given (a NaN, a float that holds a
whole number) and reads them back in three fifths of orjson's time. Like every cache of a build it is written
by the build alone (atomically) and never committed (build.check_cache_not_committed); its
content is checked against the hash written with it before marshal reads it.
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
from pathlib import Path

import orjson

from leaderboard.cache import code_version, digest, write_whole
from leaderboard.tree import Entry

KEPT_ROWS = "rows.marshal"
FORMAT = "leaderboard kept rows 1"
Rows = tuple[dict, list[dict], list[dict], list[dict]]


class KeptRows:
    def __init__(self, path: Path | None, inputs: str):
        """`inputs`: a digest of what every entry's rows are made from besides the entry
        (inputs_digest())."""
        self.path = path
        self.inputs = f"{inputs} {code_version()} {sys.version} {marshal.version}"
        self.old = _read(path, self.inputs)
        self.new: dict[str, bytes] = {}

    @staticmethod
    def key(entry: Entry) -> str | None:
        # An entry made elsewhere than by validation has no digest of its bytes: never kept.
        return None if entry.sha256 is None else f"{entry.entry_id}\0{entry.file}\0{entry.sha256}"

    def get(self, entry: Entry) -> Rows | None:
        """The entry's rows as kept, when they are (as fresh objects: the caller may change them)."""
        key = self.key(entry)
        kept = self.old.get(key) if key is not None else None
        if kept is None:
            return None
        try:
            rows = marshal.loads(kept)
        except (EOFError, ValueError, TypeError):
            return None
        self.new[key] = kept
        return rows

    def put(self, entry: Entry, rows: Rows) -> None:
        """Keep the entry's rows as made (call before anything changes them)."""
        key = self.key(entry)
        if key is None:
            return
        try:
            self.new[key] = marshal.dumps(rows)
        except ValueError:  # a value marshal has no form for: made again next time
            pass

    def save(self) -> None:
        """The rows of this build's entries (no others), atomically; best effort."""
        if self.path is None:
            return
        body = marshal.dumps(self.new)
        header = orjson.dumps({"format": FORMAT, "inputs": self.inputs, "digest": digest(body)})
        write_whole(self.path, [header + b"\n", body])

    def save_meanwhile(self) -> threading.Thread:
        """save() on a thread of its own, started (join it): hashing and writing 15 MB let go of
        the interpreter's lock, and the build's process goes on."""
        saving = threading.Thread(target=self.save, name="kept-rows")
        saving.start()
        return saving


def inputs_digest(catalog_digest: str, verified: dict[str, str], imported: dict[str, str], base: Path | None) -> str:
    """What every entry's rows are made from besides the entry: the catalog's files (their
    digest), the manifests' digests by entry id, the project folder and the working folder
    (the rows show paths relative to the one, found from the other)."""
    manifests = orjson.dumps({"verified": verified, "imported": imported}, option=orjson.OPT_SORT_KEYS)
    return digest(f"{catalog_digest}\0{digest(manifests)}\0{base}\0{os.getcwd()}")


def _read(path: Path | None, inputs: str) -> dict[str, bytes]:
    """The kept rows by entry key, when the file holds rows kept for `inputs`, whole (its body's
    hash checked before marshal reads it); else none."""
    if path is None:
        return {}
    try:
        data = path.read_bytes()
        cut = data.index(b"\n")
        header, body = data[:cut], memoryview(data)[cut + 1 :]  # the body not copied
        stored = orjson.loads(header)
        if stored != {"format": FORMAT, "inputs": inputs, "digest": digest(body)}:
            return {}
        kept = marshal.loads(body)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return kept if isinstance(kept, dict) else {}
