"""catalog/archives.yaml and `leaderboard fetch-archives`: every archive the importers read, fetched
(copied or downloaded) and kept only when its size and SHA-256 are the listed ones."""

from __future__ import annotations

import functools
import hashlib
import http.server
import threading
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, run_cli

from leaderboard import archives
from leaderboard.catalog import load_catalog

SHIPPED = archives.read(ROOT / "catalog")[0]


# ---- the list -----------------------------------------------------------------------------------


def test_the_shipped_list_loads_with_the_catalog_and_feeds_every_round_with_published_logs():
    catalog = load_catalog(ROOT / "catalog")
    assert catalog.problems == []
    assert catalog.archives == SHIPPED
    fed = {round_id for archive in SHIPPED.archives for round_id in archive.feeds}
    assert {r.id for r in catalog.rounds.values() if r.results_repository} <= fed
    names = [a.file for a in SHIPPED.archives]
    assert len(names) == len(set(names))
    # The 13 MLPerf Training rounds, the four HPC rounds, DAWNBench and Epoch AI's tables.
    assert sum(n.startswith("mlperf-training-v") for n in names) == 13
    assert sum(n.startswith("mlperf-hpc-v") for n in names) == 4
    assert {"dawnbench.tar.xz", "epoch-ai-models.csv", "epoch-hardware-prices.csv"} <= set(names)


def write_listing(catalog: Path, items: list[dict], template: str = "{repository}/releases/download/data-v1/{file}"):
    catalog.mkdir(parents=True, exist_ok=True)
    (catalog / "archives.yaml").write_text(yaml.safe_dump({"release_asset": template, "archives": items}))


def item(name: str, content: bytes, **extra) -> dict:
    return {
        "file": name,
        "bytes": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
        "feeds": ["published"],
        "source": {"url": "https://example.org/data"},
        **extra,
    }


def test_a_round_with_published_logs_and_no_archive_is_a_catalog_problem(project):
    listing = yaml.safe_load((project / "catalog" / "archives.yaml").read_text())
    listing["archives"] = [a for a in listing["archives"] if a["feeds"] != ["mlperf-training-v5.0"]]
    (project / "catalog" / "archives.yaml").write_text(yaml.safe_dump(listing, sort_keys=False))
    problems = load_catalog(project / "catalog").problems
    assert [p.message for p in problems] == [
        "round mlperf-training-v5.0 publishes its results (results_repository in rounds.yaml), but no archive feeds it"
    ]
    assert problems[0].file.endswith("archives.yaml") and problems[0].line > 1
    assert "feeds: [mlperf-training-v5.0]" in problems[0].hint


@pytest.mark.parametrize(
    "change, message",
    [
        ({"sha256": "ABC"}, "does not match"),
        ({"bytes": 0}, "must be at least 1"),
        ({"file": "../etc/passwd"}, "does not match"),
        ({"path": "/etc/passwd"}, "does not match"),
        ({"feeds": []}, "should be non-empty"),
        ({"checksum": "x"}, "unknown field 'checksum'"),
    ],
)
def test_schema_refuses_a_bad_listing(tmp_path, change, message):
    write_listing(tmp_path, [{**item("a.csv", b"a"), **change}])
    listing, problems = archives.read(tmp_path)
    assert listing is None and len(problems) == 1 and message in problems[0].message
    assert problems[0].json_path.startswith("$.archives[0]") and problems[0].line > 1  # on the listing's line


def test_an_archive_listed_twice_is_refused(tmp_path):
    write_listing(tmp_path, [item("a.csv", b"a"), item("a.csv", b"a")])
    listing, problems = archives.read(tmp_path)
    assert listing is None and [p.message for p in problems] == ["'a.csv' is listed twice"]


@pytest.mark.parametrize(
    "repository, url",
    [
        ("https://github.com/o/leaderboard", "https://github.com/o/leaderboard/releases/download/data-v1/x.tar.xz"),
        ("https://github.com/o/leaderboard/", "https://github.com/o/leaderboard/releases/download/data-v1/x.tar.xz"),
        ("http://127.0.0.1:8000/o/r", "http://127.0.0.1:8000/o/r/releases/download/data-v1/x.tar.xz"),
        ("file:///etc", None),
        ("github.com/o/leaderboard", None),
        ("https://github.com/o/r?x=1", None),
        ("https:///o/r", None),
    ],
)
def test_asset_url(repository, url):
    template = "{repository}/releases/download/data-v1/{file}"
    if url is None:
        with pytest.raises(ValueError, match="is not an https:// URL"):
            archives.asset_url(template, repository, "x.tar.xz")
    else:
        assert archives.asset_url(template, repository, "x.tar.xz") == url


# ---- fetching from a local folder ---------------------------------------------------------------


def test_every_listed_archive_in_the_shared_data_matches(shared_data, tmp_path):
    run = run_cli("fetch-archives", "--from", shared_data, "--to", tmp_path / "archives", cwd=ROOT)
    present = [a for a in SHIPPED.archives if (shared_data / (a.path or a.file)).is_file()]
    assert present, "no listed archive is in the shared data"
    for archive in present:
        assert f"ok  {archive.file}: from {shared_data / (archive.path or archive.file)}" in run.out
        assert (tmp_path / "archives" / archive.file).stat().st_size == archive.bytes
    assert run.code == (0 if len(present) == len(SHIPPED.archives) else 1), run.out
    # Files the list does not name (reference scores, the README) are left alone, and said so.
    assert "left alone (not in catalog/archives.yaml): README.md" in run.out
    again = run_cli("fetch-archives", "--from", shared_data, "--to", tmp_path / "archives", cwd=ROOT)
    assert again.out.count("already there, of the size and SHA-256 listed") == len(present)


def test_a_corrupted_copy_of_a_real_archive_is_refused_and_never_stored(shared_data, tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    content = bytearray((shared_data / "dawnbench.tar.xz").read_bytes())
    content[len(content) // 2] ^= 0xFF
    (source / "dawnbench.tar.xz").write_bytes(bytes(content))
    run = run_cli("fetch-archives", "--from", source, "--to", tmp_path / "archives", cwd=ROOT)
    assert run.code == 1
    listed = next(a for a in SHIPPED.archives if a.file == "dawnbench.tar.xz")
    digest = hashlib.sha256(content).hexdigest()
    assert (
        f"FAILED  dawnbench.tar.xz: refused: {source / 'dawnbench.tar.xz'}: SHA-256 {digest}, "
        f"where catalog/archives.yaml lists {listed.sha256}"
    ) in run.out
    # Nothing is skipped silently: every other archive is named as missing.
    assert run.out.count("FAILED  ") == len(SHIPPED.archives)
    assert f"FAILED  mlperf-training-v5.0.tar.xz: missing: not in {source}" in run.out
    assert list((tmp_path / "archives").iterdir()) == []  # no half-written or refused file


@pytest.fixture
def small(tmp_path) -> dict:
    """A catalog listing three small files, and a source folder holding them (one under reference/)."""
    files = {"a.tar.xz": b"archive a\n" * 1000, "b.csv": b"b,c\n1,2\n", "c.csv": b"c\n"}
    catalog = tmp_path / "catalog"
    write_listing(
        catalog,
        [item("a.tar.xz", files["a.tar.xz"]), item("b.csv", files["b.csv"], path="reference/b.csv")]
        + [item("c.csv", files["c.csv"])],
    )
    source = tmp_path / "source"
    (source / "reference").mkdir(parents=True)
    (source / "a.tar.xz").write_bytes(files["a.tar.xz"])
    (source / "reference" / "b.csv").write_bytes(files["b.csv"])
    (source / "c.csv").write_bytes(files["c.csv"])
    return {"catalog": catalog, "source": source, "to": tmp_path / "archives", "files": files, "root": tmp_path}


def fetch(small: dict, *args) -> object:
    return run_cli("fetch-archives", "--catalog", small["catalog"], "--to", small["to"], *args, cwd=small["root"])


def test_an_extra_unknown_archive_in_the_source_folder_breaks_nothing(small):
    # CI gets a new archive before the code knows it.
    (small["source"] / "mlperf-training-v6.0.tar.xz").write_bytes(b"new")
    (small["source"] / "reference" / "epoch-new.csv").write_bytes(b"new")
    run = fetch(small, "--from", small["source"])
    assert run.code == 0, run.out
    assert "left alone (not in catalog/archives.yaml): mlperf-training-v6.0.tar.xz, reference/epoch-new.csv" in run.out
    assert sorted(p.name for p in small["to"].iterdir()) == ["a.tar.xz", "b.csv", "c.csv"]
    assert all((small["to"] / name).read_bytes() == content for name, content in small["files"].items())
    assert run.out.splitlines()[-1] == f"3 archives in {small['to']}, each of the size and SHA-256 listed"


@pytest.mark.parametrize(
    "content, message",
    [
        (b"c\n\n", "3 bytes or more, where catalog/archives.yaml lists 2"),
        (b"", "0 bytes, where catalog/archives.yaml lists 2"),
        (b"d\n", "SHA-256 " + hashlib.sha256(b"d\n").hexdigest()),
    ],
)
def test_a_copy_of_another_size_or_digest_is_refused(small, content, message):
    (small["source"] / "c.csv").write_bytes(content)
    run = fetch(small, "--from", small["source"])
    assert run.code == 1
    assert f"FAILED  c.csv: refused: {small['source'] / 'c.csv'}: {message}" in run.out
    assert run.out.splitlines()[-1] == "1 archive of 3 failed: see above"
    assert sorted(p.name for p in small["to"].iterdir()) == ["a.tar.xz", "b.csv"]


def test_a_copy_in_the_folder_that_differs_is_replaced_and_a_missing_one_removes_it(small):
    small["to"].mkdir()
    (small["to"] / "a.tar.xz").write_bytes(b"tampered")
    (small["to"] / "c.csv").write_bytes(b"tampered")
    (small["source"] / "c.csv").unlink()
    (small["to"] / ".a.tar.xz.x1y2.partial").write_bytes(b"left by a killed run")
    run = fetch(small, "--from", small["source"])
    assert run.code == 1
    assert "ok  a.tar.xz: from" in run.out and "replaced a copy that differed" in run.out
    assert f"FAILED  c.csv: missing: not in {small['source']} (looked for c.csv); replaced a copy" in run.out
    assert "removed unfinished downloads: .a.tar.xz.x1y2.partial" in run.out
    assert sorted(p.name for p in small["to"].iterdir()) == ["a.tar.xz", "b.csv"]


def test_a_file_in_the_folder_the_list_does_not_name_fails_the_fetch(small):
    # Importers read the folder by pattern: an unlisted archive there would be read unchecked.
    small["to"].mkdir()
    (small["to"] / "mlperf-training-v9.9.tar.xz").write_bytes(b"forged")
    run = fetch(small, "--from", small["source"])
    assert run.code == 1
    assert f"FAILED  mlperf-training-v9.9.tar.xz: in {small['to']} but not in catalog/archives.yaml" in run.out


def test_a_link_in_the_source_is_followed_only_to_be_checked(small):
    elsewhere = small["root"] / "elsewhere.csv"
    elsewhere.write_bytes(b"x\n")
    (small["source"] / "c.csv").unlink()
    (small["source"] / "c.csv").symlink_to(elsewhere)
    run = fetch(small, "--from", small["source"])
    assert run.code == 1 and "FAILED  c.csv: refused:" in run.out
    assert not (small["to"] / "c.csv").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give --from FOLDER or --repository URL"),
        (["--from", ".", "--repository", "https://github.com/o/r"], "give --from FOLDER or --repository URL"),
        (["--repository", "file:///etc"], "is not an https:// URL"),
    ],
)
def test_usage_errors(small, args, message):
    run = fetch(small, *args)
    assert run.code == 2 and message in run.err and "Traceback" not in run.err


def test_a_broken_listing_is_reported_with_its_line(small):
    (small["catalog"] / "archives.yaml").write_text("release_asset: x\narchives: []\n")
    run = fetch(small, "--from", small["source"])
    assert run.code == 1
    assert "archives.yaml:1:16: $.release_asset:" in run.out and "cannot be read: fix it first" in run.err
    assert not small["to"].exists()


# ---- downloading from a release -----------------------------------------------------------------


@pytest.fixture
def release(small):
    """A release of owner/leaderboard served on 127.0.0.1 from a folder (no network)."""
    served = small["root"] / "served"
    assets = served / "owner" / "leaderboard" / "releases" / "download" / "data-v1"
    assets.mkdir(parents=True)
    for name, content in small["files"].items():
        (assets / name).write_bytes(content)
    handler = functools.partial(QuietHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"repository": f"http://127.0.0.1:{server.server_address[1]}/owner/leaderboard", "assets": assets}
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def test_archives_are_downloaded_from_the_release_and_checked(small, release):
    run = fetch(small, "--repository", release["repository"])
    assert run.code == 0, run.out
    assert f"ok  a.tar.xz: from {release['repository']}/releases/download/data-v1/a.tar.xz: 10,000 bytes" in run.out
    assert all((small["to"] / name).read_bytes() == content for name, content in small["files"].items())


def test_a_missing_or_tampered_release_asset_is_refused(small, release):
    (release["assets"] / "b.csv").unlink()
    (release["assets"] / "a.tar.xz").write_bytes(b"archive a\n" * 2000)  # larger: read no further than listed
    run = fetch(small, "--repository", release["repository"])
    assert run.code == 1
    assert f"FAILED  b.csv: missing: {release['repository']}/releases/download/data-v1/b.csv: HTTP 404" in run.out
    assert "FAILED  a.tar.xz: refused:" in run.out and "10,001 bytes or more, where" in run.out
    assert sorted(p.name for p in small["to"].iterdir()) == ["c.csv"]


def test_an_unreachable_release_fails_each_archive_with_its_url(small):
    with_nothing = "http://127.0.0.1:9/owner/leaderboard"  # the discard port: nothing listens
    run = fetch(small, "--repository", with_nothing)
    assert run.code == 1
    assert run.out.count(f"missing: {with_nothing}/releases/download/data-v1/") == 3


def test_fetching_copies_nothing_it_has_not_checked(small):
    """In the library: a failing stream leaves no temporary file behind."""

    class Broken:
        def read(self, size):
            raise OSError("connection reset")

        def __enter__(self):
            return self

        def __exit__(self, *args):
            return False

    listing = archives.read(small["catalog"])[0]
    small["to"].mkdir()
    fetched = archives.fetch_one(listing.archives[0], small["to"], lambda a: (Broken(), "somewhere"))
    assert not fetched.ok and "could not be fetched from somewhere" in fetched.message
    assert list(small["to"].iterdir()) == []


# ---- what make reimport imports -------------------------------------------------------------------


def listed(file: str, feeds: list[str], importer: str | None) -> archives.Archive:
    return archives.Archive(file, 1, "0" * 64, tuple(feeds), "https://example.org", importer=importer)


@pytest.mark.parametrize(
    "archive, chosen, why",
    [
        (listed("r1.tar.xz", ["r1"], "leaderboard import-mlperf"), True, None),
        (listed("r9.tar.xz", ["r9"], "leaderboard import-mlperf"), False, "feeds r9, which catalog/rounds.yaml"),
        (listed("r12.tar.xz", ["r1", "r2"], "leaderboard import-mlperf"), False, "feeds r2, which"),
        (listed("p.csv", ["r1"], "leaderboard import-epoch"), None, None),
        (listed("h.tar.xz", ["r1"], None), None, None),
    ],
)
def test_importable(archive, chosen, why):
    got, left = archives.importable(archives.ArchiveList("t", (archive,)), "leaderboard import-mlperf", ["r1"])
    if chosen is None:  # another importer's, or nobody's: neither imported nor reported
        assert got == [] and left == []
    elif chosen:
        assert got == [archive] and left == []
    else:
        assert got == [] and left[0][0] == archive and left[0][1].startswith(why)


def test_importable_archives_names_the_fetched_files_of_the_rounds_the_catalog_holds(project, tmp_path):
    listing = yaml.safe_load((project / "catalog" / "archives.yaml").read_text())
    listing["archives"].append({**item("mlperf-training-v9.9.tar.xz", b"x"), "importer": "leaderboard import-mlperf"})
    listing["archives"][-1]["feeds"] = ["mlperf-training-v9.9"]
    (project / "catalog" / "archives.yaml").write_text(yaml.safe_dump(listing, sort_keys=False))
    folder = tmp_path / "fetched"
    folder.mkdir()
    for archive in SHIPPED.archives:
        (folder / archive.file).write_bytes(b"")  # only the names matter here: fetch-archives checked them
    run = run_cli("importable-archives", "import-mlperf", "--in", folder, cwd=project)
    assert run.code == 0, run.err
    assert f"{folder / 'mlperf-training-v5.0.tar.xz'}\n" in run.out and "v9.9" not in run.out
    assert "not imported: mlperf-training-v9.9.tar.xz: feeds mlperf-training-v9.9, which catalog/rounds.yaml" in run.err
    # import-mlperf reads both MLPerf families: Training and HPC rounds.
    assert all(line.startswith(str(folder / "mlperf-")) for line in run.out.splitlines())
    assert f"{folder / 'mlperf-hpc-v3.0.tar.xz'}\n" in run.out
    (folder / "mlperf-training-v5.0.tar.xz").unlink()
    run = run_cli("importable-archives", "import-mlperf", "--in", folder, cwd=project)
    assert run.code == 1 and f"error: not in {folder}: mlperf-training-v5.0.tar.xz" in run.err
    run = run_cli("importable-archives", "import-epoch", "--in", folder, cwd=project)
    assert run.out == f"{folder / 'epoch-ai-models.csv'}\n"
