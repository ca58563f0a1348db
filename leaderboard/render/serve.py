"""A local web server for the built site: 127.0.0.1 only, for a quick look (any static host works).

The standard library's http.server is enough: static files, no state.
"""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOST = "127.0.0.1"


class _QuietHandler(SimpleHTTPRequestHandler):
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".arrow": "application/vnd.apache.arrow.file",  # IPC files (downloads._write_arrow), not streams
        ".yaml": "text/plain; charset=utf-8",
        ".yml": "text/plain; charset=utf-8",
        ".json": "application/json",
        ".xml": "application/atom+xml",
        ".parquet": "application/octet-stream",
        ".duckdb": "application/octet-stream",
    }

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the standard library's name)
        pass


def make_server(folder: Path, port: int = 8000) -> ThreadingHTTPServer:
    """A server for `folder` on 127.0.0.1:`port` (0 picks a free port); call serve_forever()."""
    if not (Path(folder) / "index.html").is_file():
        raise FileNotFoundError(f"no site at {folder}: run 'leaderboard build' first")
    handler = functools.partial(_QuietHandler, directory=str(Path(folder).resolve()))
    return ThreadingHTTPServer((HOST, port), handler)
