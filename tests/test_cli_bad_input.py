"""Awkward input as an analyst meets it on the command line: control characters in a query's
values (escaped in the table only), a NUL in the SQL (refused, with its place), a file name that is
not UTF-8 in a refusal of the machine (\\xff, never \\udcff), and `serve` on a port it may not open
(one line with a hint, never Python's "[Errno 13]")."""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import subprocess
import sys
from http.server import ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from conftest import run_cli
from test_new import PUBLISHED_FLAGS

from leaderboard import cli, tables
from leaderboard.machine_errors import describe
from leaderboard.render import serve as served
from leaderboard.statements import NulInQuery, single_statement


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A DuckDB file for queries that read no table."""
    path = tmp_path / "any.duckdb"
    duckdb.connect(str(path)).close()
    return path


# ---- control characters in the table ------------------------------------------------------------------

# A tab in a name; a tab, a line break, a NUL, an escape sequence, a carriage return, DEL, a C1
# control (NEL) and the Unicode line separator in values.
CONTROLS = (
    "SELECT 'tab' || chr(9) || 'x' AS \"a\tb\", 'a' || chr(10) || 'b' AS nl, 'n' || chr(0) AS nul, "
    "chr(27) || '[31mred' AS esc, chr(13) || chr(127) || chr(133) || chr(8232) AS more, 7 AS n"
)
CONTROL_CHARACTERS = {*map(chr, range(0x20)), *map(chr, range(0x7F, 0xA0)), "\u2028", "\u2029"}
EXACT = {"a\tb": "tab\tx", "nl": "a\nb", "nul": "n\0", "esc": "\x1b[31mred", "more": "\r\x7f\x85\u2028", "n": 7}


def test_control_characters_print_escaped_and_the_table_stays_aligned(db, tmp_path):
    done = run_cli("query", CONTROLS, "--db", db, cwd=tmp_path)
    assert (done.code, done.err) == (0, "1 row\n")
    assert done.out == (
        "┏━━━━━━━━┳━━━━━━┳━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━┳━━━┓\n"
        "┃ a\\tb   ┃ nl   ┃ nul ┃ esc         ┃ more             ┃ n ┃\n"
        "┡━━━━━━━━╇━━━━━━╇━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━╇━━━┩\n"
        "│ tab\\tx │ a\\nb │ n\\0 │ \\x1b[31mred │ \\r\\x7f\\x85\\u2028 │ 7 │\n"
        "└────────┴──────┴─────┴─────────────┴──────────────────┴───┘\n"
    )


def test_a_wrapped_value_with_control_characters_keeps_its_columns(db, tmp_path):
    """Narrower than its values: each escape is text, wrapped like any other."""
    done = run_cli("query", CONTROLS, "--db", db, "--max-width", "40", cwd=tmp_path)
    assert done.code == 0, done.err
    assert not CONTROL_CHARACTERS & set(done.out.replace("\n", ""))
    # Every line the same width, every border in the same place.
    lines = done.out.splitlines()
    assert len({len(line) for line in lines}) == 1, done.out
    borders = {tuple(i for i, c in enumerate(line) if c in "┃│┏┓┳┡┩╇└┘┴") for line in lines}
    assert len(borders) == 1, done.out


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_other_formats_keep_the_exact_value(db, tmp_path, fmt):
    done = subprocess.run(  # read as bytes: text mode would turn the value's \r into \n
        [sys.executable, "-m", "leaderboard", "query", CONTROLS, "--db", str(db), "--format", fmt],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    if fmt == "json":
        assert json.loads(out) == [EXACT]
    else:
        header, row = csv.reader(io.StringIO(out, newline=""))
        assert dict(zip(header, row, strict=True)) == {k: str(v) for k, v in EXACT.items()}


@pytest.mark.parametrize(
    "text, shown",
    [
        ("plain, ünïcödé and 漢字", "plain, ünïcödé and 漢字"),
        ("a\tb", "a\\tb"),
        ("line\nbreak\r\n", "line\\nbreak\\r\\n"),
        ("nul\0", "nul\\0"),
        ("\x1b[1mbold\x1b[0m", "\\x1b[1mbold\\x1b[0m"),
        ("\x07\x08\x0b\x0c\x7f", "\\x07\\x08\\x0b\\x0c\\x7f"),
        ("\x85\x9f", "\\x85\\x9f"),  # C1 controls
        ("a\u2028b\u2029", "a\\u2028b\\u2029"),  # Unicode's line and paragraph separators
        ("C:\\temp", "C:\\temp"),  # a backslash is left as it is
    ],
)
def test_table_text_escapes_control_characters(text, shown):
    assert tables.table_text(text) == shown


# ---- a NUL in the SQL -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stdin, place",
    [
        (b"SELECT 1 AS a\0, 2 AS b", "line 1, column 14"),
        (b"SELECT 1\0; DELETE FROM t", "line 1, column 9"),
        ("-- café\nSELECT 1,\n  'a\0b' AS s".encode(), "line 3, column 5"),  # columns in characters
    ],
)
def test_sql_holding_a_nul_is_refused_with_its_line_and_column(db, tmp_path, stdin, place):
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", "query", "-", "--db", str(db)],
        cwd=tmp_path,
        input=stdin,
        capture_output=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == (
        f"error: the SQL holds a NUL character (\\0) at {place}, where the database may stop reading it: "
        "remove it (chr(0) gives the character in a value)\n"
    )
    bad_sql = run_cli("query", "SELEC 1", "--db", db, cwd=tmp_path)
    assert bad_sql.code == done.returncode  # the exit code of any other bad SQL


def test_single_statement_refuses_a_nul():
    with pytest.raises(NulInQuery, match=r"at line 2, column 1,"):
        single_statement("SELECT 1\n\0")


# ---- a file name that is not UTF-8 in a refusal of the machine ---------------------------------------


@pytest.mark.parametrize(
    "error, said",
    [
        (
            OSError(errno.EROFS, "Read-only file system", b"/srv/caf\xe9/x.yaml"),
            "/srv/caf\\xe9/x.yaml: Read-only file system (the folder is on a read-only file system)",
        ),
        (
            OSError(errno.ENOSPC, "No space left on device", os.fsdecode(b"site/\xff.html")),
            "site/\\xff.html: No space left on device (free some disk space and run it again)",
        ),
        (
            Exception('Could not write file "/p/\udcff.duckdb": No space left on device'),
            "/p/\\xff.duckdb: No space left on device (free some disk space and run it again)",
        ),
    ],
)
def test_a_name_that_is_not_utf8_is_said_as_bytes(error, said):
    assert describe(error) == said


def test_the_command_line_names_a_refused_folder_that_is_not_utf8_as_bytes(tmp_path):
    """`new --submissions` into a folder the machine refuses (/sys: no one may make a folder
    there), named in bytes that are not UTF-8: the line says \\xff, as every other line does."""
    folder = b"/sys/leaderboard-test-\xff"
    try:
        os.mkdir(folder)
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.EACCES, errno.EROFS):
            pytest.skip(f"/sys refuses a new folder with {errno.errorcode.get(error.errno)}, not a permission")
    else:
        os.rmdir(folder)
        pytest.skip("/sys takes a new folder here")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "leaderboard",
            "new",
            *PUBLISHED_FLAGS,
            "--model",
            "Acme-LM 7B",
            "--parameters",
            "7e9",
            "--minutes",
            "100",
            "--submissions",
            os.fsdecode(folder),
            "--catalog",
            str(Path(__file__).parents[1] / "catalog"),
        ],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (1, b"")
    line = done.stderr.decode()
    assert line.startswith("error: /sys/leaderboard-test-\\xff") and line.count("\n") == 1, line
    assert "(check the folder's owner and permissions)" in line or "read-only" in line, line
    assert "udcff" not in line and "Traceback" not in line


# ---- serve on a port it may not open ------------------------------------------------------------------


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<title>the board</title>")
    return tmp_path / "site"


def _serve(site: Path, port: int):
    return CliRunner().invoke(cli.main, ["serve", "--port", str(port), "--dir", str(site)])


def _refused(error: OSError):
    def server_bind(self):
        raise error

    return server_bind


def test_serve_on_a_privileged_port_says_who_may_open_it(site, monkeypatch):
    """Root here may open port 80, so the system's refusal is simulated, as a user meets it."""
    monkeypatch.setattr(
        ThreadingHTTPServer, "server_bind", _refused(PermissionError(errno.EACCES, "Permission denied"))
    )
    done = _serve(site, 80)
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr == (
        "error: port 80 is below 1024, which only an administrator may open (Permission denied): pick a "
        "port from 1024 up with --port (8000 by default), or --port 0 for any free one\n"
    )
    assert done.exception is None or isinstance(done.exception, SystemExit)


def test_serve_refused_another_port_says_so(site, monkeypatch):
    monkeypatch.setattr(
        ThreadingHTTPServer, "server_bind", _refused(PermissionError(errno.EACCES, "Permission denied"))
    )
    done = _serve(site, 8080)
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr == (
        "error: not allowed to open port 8080 on 127.0.0.1 (Permission denied): pick another port with "
        "--port, or --port 0 for any free one\n"
    )


def test_serve_on_an_address_this_machine_lacks_says_so(site, monkeypatch):
    """203.0.113.1 (TEST-NET-3, for documentation) is no address of this machine: the system refuses it."""
    monkeypatch.setattr(served, "HOST", "203.0.113.1")
    done = _serve(site, 0)
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr == (
        "error: cannot serve on 203.0.113.1: it is not an address of this machine (Cannot assign requested "
        "address): check the machine's network interfaces (`ip address`)\n"
    )


def test_serve_on_a_host_name_that_does_not_resolve_says_so(site, monkeypatch):
    """A name under .invalid never resolves (RFC 6761)."""
    monkeypatch.setattr(served, "HOST", "no-such-host.invalid")
    done = _serve(site, 0)
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr.startswith("error: cannot serve on no-such-host.invalid: the host name does not resolve (")
    assert done.stderr.endswith("): check its spelling and the machine's name service (/etc/hosts, DNS)\n")
    assert "Errno" not in done.stderr and done.stderr.count("\n") == 1


def test_any_other_refusal_is_said_in_words(site, monkeypatch):
    monkeypatch.setattr(
        ThreadingHTTPServer, "server_bind", _refused(OSError(errno.EAFNOSUPPORT, os.strerror(errno.EAFNOSUPPORT)))
    )
    done = _serve(site, 8080)
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr == f"error: cannot serve on 127.0.0.1:8080: {os.strerror(errno.EAFNOSUPPORT)}\n"
