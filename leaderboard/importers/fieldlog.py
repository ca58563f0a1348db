"""The scanning that the v0.5 and v0.6 log readers share: lines of `<marker> <fields>`, each a
record with a time in unix seconds and a key, read in blocks of whole lines (chunks.py).

A reader names its marker and field pattern and says what one record means (`record`); this
class finds the records, drops a record printed twice in a row, times them and fails the run
on a record it cannot read.
"""

from __future__ import annotations

import re
from typing import BinaryIO

from leaderboard.importers import chunks
from leaderboard.importers.runlog import RunLog, RunReader, Targets


class FieldLogReader:
    """Subclasses set MARKER, FIELDS (a pattern of the text after the marker), the groups of
    FIELDS holding the time, the key and the payload, READ (keys it reads) and MUST_READ (keys
    whose unreadable record fails the run; the others are skipped)."""

    MARKER: bytes = b""
    FIELDS: re.Pattern
    TIME_GROUP = KEY_GROUP = PAYLOAD_GROUP = 0
    READ: frozenset[str] = frozenset()
    MUST_READ: frozenset[str] = frozenset()
    FORMAT = ""  # the format's name, for messages

    def __init__(self, targets: Targets):
        self.runs = RunReader(targets)
        self.run = self.runs.run
        self.previous: bytes | None = None

    @classmethod
    def read_run(cls, stream: BinaryIO, targets: Targets) -> RunLog:
        """Score-relevant facts of one log, read from a binary stream in blocks of whole lines."""
        reader = cls(targets)
        record = re.compile(re.escape(cls.MARKER) + rb"([^\n]*)")
        for block, lines_before in chunks.line_blocks(stream, cls.MARKER):
            if block is None:
                reader.runs.fail(f"line {lines_before}: {cls.FORMAT} line longer than {chunks.MAX_LINE_BYTES:,} bytes")
            else:
                reader.scan(record, block, lines_before)
        return reader.run

    def scan(self, record: re.Pattern, block: bytes, lines_before: int) -> None:
        for match in record.finditer(block):
            self.run.records += 1
            text = match.group(1)
            fields = self.FIELDS.fullmatch(text)
            if fields is None:
                continue  # a line with the marker that is no record (other output written into it)
            key = fields.group(self.KEY_GROUP).decode("ascii")
            if key not in self.READ or text == self.previous:
                continue
            self.previous = text
            seconds = fields.group(self.TIME_GROUP)
            try:
                time_ms = float(seconds) * 1000.0
            except ValueError:
                problem = f"{key} time {seconds.decode('utf-8', 'replace')!r} is not a number"
            else:
                problem = self.record(key, time_ms, fields.group(self.PAYLOAD_GROUP))
            if problem is not None and self.run.error is None and key in self.MUST_READ:
                line_number = lines_before + block.count(b"\n", 0, match.start()) + 1
                self.runs.fail(f"line {line_number}: {problem}")

    def record(self, key: str, time_ms: float, payload: bytes | None) -> str | None:
        """Take in one record of a key in READ; a problem that fails the run, or None."""
        raise NotImplementedError
