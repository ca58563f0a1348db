"""Reading a log in blocks of whole lines, with memory flat in the log's size.

Every log reader of the importer (one per log format) scans a binary stream the same way: it
reads fixed-size chunks, carries an unfinished last line over to the next chunk, and drops any
line longer than MAX_LINE_BYTES without keeping its bytes. `line_blocks` does that once for all
of them; a reader then runs its regular expression over each block.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

CHUNK_BYTES = 1 << 20
MAX_LINE_BYTES = 4 << 20  # a longer line is no log record; its bytes are not kept


def line_blocks(stream: BinaryIO, marker: bytes) -> Iterator[tuple[bytes | None, int]]:
    """(block, lines before it) for each block of whole lines of the stream, the last one
    possibly without its newline. A line over MAX_LINE_BYTES is dropped; when its kept part
    held `marker` (it looked like a record) the generator yields (None, its line number), so
    that the reader can fail the run. CHUNK_BYTES and MAX_LINE_BYTES are read at each call
    (tests set them small to put chunk boundaries anywhere)."""
    chunk_bytes, max_line = CHUNK_BYTES, MAX_LINE_BYTES
    lines_before = 0  # complete lines before the current block
    carry = b""
    overlong = False  # inside a line longer than max_line: its bytes are dropped
    while True:
        chunk = stream.read(chunk_bytes)
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
        if end:
            yield block[:end], lines_before
            lines_before += block.count(b"\n", 0, end)
        if len(carry) > max_line:
            if marker in carry:
                yield None, lines_before + 1
            carry, overlong = b"", True
    if carry:
        yield carry, lines_before
