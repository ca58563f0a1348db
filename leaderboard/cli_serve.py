"""The `serve` command: the built site on 127.0.0.1 for a quick look (beside cli.py, which is at
its size limit; cli.py registers it)."""

from __future__ import annotations

import errno
from pathlib import Path

import click

from leaderboard.cli_common import Failure


@click.command()
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free one).")
@click.option(
    "--dir", "folder", default="site", show_default=True, type=click.Path(path_type=Path), help="Site folder to serve."
)
def serve(port: int, folder: Path) -> None:
    """Serve the built site on 127.0.0.1 for a quick look (Ctrl-C stops)."""
    from leaderboard.render.serve import make_server

    try:
        server = make_server(folder, port)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise Failure(
                f"port {port} is in use (another server?): stop it, or pick another port with --port, "
                "or --port 0 for any free one"
            ) from None
        raise Failure(str(error)) from None
    host, bound = server.server_address[:2]
    click.echo(f"serving {folder.resolve()} at http://{host}:{bound}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    finally:
        server.server_close()
