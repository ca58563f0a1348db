"""Reading one MLLOG log (`:::MLLOG {json}`, MLPerf Training v0.7 on) into the run record of runlog.py.

Streams the log in blocks of whole lines (chunks.py: memory does not grow with its size), works
on bytes, and parses only the JSON after each `:::MLLOG ` marker, wherever it sits in the line.
"""

from __future__ import annotations

import json
import re
from typing import BinaryIO

from leaderboard.importers import chunks
from leaderboard.importers.chunks import line_blocks
from leaderboard.importers.runlog import KEYS, RunLog, RunReader, Targets

try:  # orjson parses the million MLLOG lines of a round several times faster than json
    from orjson import JSONDecodeError as _FastError
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover
    _fast_loads, _FastError = json.loads, ValueError

MARKER = b":::MLLOG "
# Every MLLOG record is parsed (a malformed one fails the run); only those of runlog.KEYS are kept.
RECORD = re.compile(re.escape(MARKER) + rb"([^\n]*)")


def parse_record(payload: bytes) -> object:
    """The JSON after the marker (ValueError when it is none)."""
    try:
        return _fast_loads(payload)
    except _FastError:
        # Not strict JSON for orjson: invalid UTF-8 (replaced) or NaN, which Python's json reads.
        return json.loads(payload.decode("utf-8", errors="replace"))


def read_run(stream: BinaryIO, targets: Targets) -> RunLog:
    """Score-relevant facts of one log, read from a binary stream in blocks of whole lines."""
    reader = RunReader(targets)
    for block, lines_before in line_blocks(stream, MARKER):
        if block is None:
            reader.fail(f"line {lines_before}: MLLOG line longer than {chunks.MAX_LINE_BYTES:,} bytes")
        else:
            _scan(reader, block, lines_before)
    return reader.run


BATCH = 2048  # records parsed by one JSON call: fewer steps in Python, memory still bounded


def parse_records(payloads: list[bytes]) -> list | None:
    """The records of many lines parsed by one call, as a JSON array of them; None when that
    does not give one JSON object per line (then each is parsed alone, to name the bad one)."""
    try:
        records = _fast_loads(b"[" + b",".join(payloads) + b"]")
    except (_FastError, RecursionError):
        return None
    if len(records) != len(payloads) or any(type(record) is not dict for record in records):
        return None
    return records


def _scan(reader: RunReader, block: bytes, lines_before: int) -> None:
    """Every MLLOG record in a block of whole lines. The regular expression finds the markers in
    C, so the many lines without one cost nothing in Python, and the records are parsed by one
    JSON call per batch."""
    run = reader.run
    payloads = RECORD.findall(block)
    run.records += len(payloads)
    for begin in range(0, len(payloads), BATCH):
        batch = payloads[begin : begin + BATCH]
        records = parse_records(batch)
        for index, payload in enumerate(batch):
            if records is not None:
                record = records[index]
            else:
                try:
                    record = parse_record(payload)
                except (ValueError, RecursionError):
                    record = None
            if type(record) is not dict:
                problem = "MLLOG line is not a JSON object"
            else:
                key = record.get("key")
                if type(key) is not str or key not in KEYS:
                    continue
                problem = reader.record(record, key)
                if problem is None:
                    continue
            if run.error is None:
                reader.fail(f"line {_line_of(block, lines_before, begin + index)}: {problem}")


def _line_of(block: bytes, lines_before: int, index: int) -> int:
    """The line of the index-th record of a block (worked out only for a message)."""
    for number, match in enumerate(RECORD.finditer(block)):
        if number == index:
            return lines_before + block.count(b"\n", 0, match.start()) + 1
    return lines_before + 1  # pragma: no cover - the index comes from the same block
