"""Reading one MLLOG log (`:::MLLOG {json}`, MLPerf Training v0.7 on) into the run record of runlog.py.

Streams the log in fixed-size chunks (memory does not grow with its size), works on bytes,
and parses only the JSON after each `:::MLLOG ` marker, wherever the marker sits in the line.
"""

from __future__ import annotations

import json
import re
from typing import BinaryIO

from leaderboard.importers.runlog import KEYS, RunLog, RunReader, Targets

try:  # orjson parses the million MLLOG lines of a round several times faster than json
    from orjson import JSONDecodeError as _FastError
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover
    _fast_loads, _FastError = json.loads, ValueError

MARKER = b":::MLLOG "
CHUNK_BYTES = 1 << 20
MAX_LINE_BYTES = 4 << 20  # a longer line is not an MLLOG record; its bytes are not kept


def _parse(payload: bytes) -> object:
    try:
        return _fast_loads(payload)
    except _FastError:
        # Not strict JSON for orjson: invalid UTF-8 (replaced) or NaN, which Python's json reads.
        return json.loads(payload.decode("utf-8", errors="replace"))


def read_run(stream: BinaryIO, targets: Targets) -> RunLog:
    """Score-relevant facts of one log, read from a binary stream in chunks."""
    reader = RunReader(targets)
    run = reader.run
    lines_before = 0  # complete lines before the current block
    carry = b""
    overlong = False  # inside a line longer than MAX_LINE_BYTES: its bytes are dropped
    while True:
        chunk = stream.read(CHUNK_BYTES)
        if not chunk:
            break
        if overlong:
            newline = chunk.find(b"\n")
            if newline < 0:
                continue
            chunk, overlong, lines_before = chunk[newline + 1 :], False, lines_before + 1
        block = carry + chunk
        end = block.rfind(b"\n") + 1
        carry = block[end:]
        _scan(reader, block[:end], lines_before)
        lines_before += block.count(b"\n", 0, end)
        if len(carry) > MAX_LINE_BYTES:
            if MARKER in carry and run.error is None:
                run.error = f"line {lines_before + 1}: MLLOG line longer than {MAX_LINE_BYTES:,} bytes"
            carry, overlong = b"", True
    if carry:
        _scan(reader, carry, lines_before)
    return run


# Every MLLOG record is parsed (a malformed one fails the run); only those of runlog.KEYS are kept.
_RECORD = re.compile(re.escape(MARKER) + rb"([^\n]*)")


def _scan(reader: RunReader, block: bytes, lines_before: int) -> None:
    """Every MLLOG record in a block of whole lines. The regular expression finds the markers in
    C, so the many lines without one cost nothing in Python."""
    run = reader.run
    for match in _RECORD.finditer(block):
        run.records += 1
        try:
            record = _parse(match.group(1))
        except (ValueError, RecursionError):
            record = None
        if type(record) is not dict:
            problem = "MLLOG line is not a JSON object"
        else:
            key = record.get("key")
            if key not in KEYS:
                continue
            problem = reader.record(record, key)
            if problem is None:
                continue
        if run.error is None:
            line_number = lines_before + block.count(b"\n", 0, match.start()) + 1
            reader.fail(f"line {line_number}: {problem}")
