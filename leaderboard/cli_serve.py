"""The `serve` command: the built site on 127.0.0.1 for a quick look (beside cli.py, which is at
its size limit; cli.py registers it)."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

import click

from leaderboard.cli_common import Failure

# The port `serve` opens when none is given.
DEFAULT_PORT = 8000


@click.command()
@click.option(
    "--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free one)."
)
@click.option(
    "--dir", "folder", default="site", show_default=True, type=click.Path(path_type=Path), help="Site folder to serve."
)
def serve(port: int, folder: Path) -> None:
    """Serve the built site on 127.0.0.1 for a quick look (Ctrl-C stops)."""
    from leaderboard.render import serve as served

    try:
        server = served.make_server(folder, port)
    except OSError as error:
        raise Failure(_cannot_serve(error, served.HOST, port)) from None
    host, bound = server.server_address[:2]
    click.echo(f"serving {folder.resolve()} at http://{host}:{bound}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    finally:
        server.server_close()


# The ports only an administrator may open (Linux's net.ipv4.ip_unprivileged_port_start, and BSD's).
PRIVILEGED_BELOW = 1024


def _cannot_serve(error: OSError, host: str, port: int) -> str:
    """Why the server could not open `host`:`port`, in one line with what to do: the system's
    reason in words, never Python's "[Errno 13]" notation."""
    reason = error.strerror or str(error)
    if isinstance(error, socket.gaierror):  # its errno is the resolver's (EAI_NONAME), not errno's
        return (
            f"cannot serve on {host}: the host name does not resolve ({reason}): check its spelling and "
            "the machine's name service (/etc/hosts, DNS)"
        )
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} is in use (another server?): stop it, or pick another port with --port, "
            "or --port 0 for any free one"
        )
    if error.errno in (errno.EACCES, errno.EPERM) and 0 < port < PRIVILEGED_BELOW:
        return (
            f"port {port} is below {PRIVILEGED_BELOW}, which only an administrator may open ({reason}): "
            f"pick a port from {PRIVILEGED_BELOW} up with --port ({DEFAULT_PORT} by default), or --port 0 for any free one"
        )
    if error.errno in (errno.EACCES, errno.EPERM):
        return (
            f"not allowed to open port {port} on {host} ({reason}): pick another port with --port, "
            "or --port 0 for any free one"
        )
    if error.errno == errno.EADDRNOTAVAIL:
        return (
            f"cannot serve on {host}: it is not an address of this machine ({reason}): check the "
            "machine's network interfaces (`ip address`)"
        )
    if error.errno is None:  # make_server's own message (no site built yet)
        return str(error)
    return f"cannot serve on {host}:{port}: {reason}"
