"""What is left off the boards (issue 23, point 2): every result folder of a shipped archive is on a
board or in skipped_results with why, each round page says so, and only the importer writes the lists."""

from __future__ import annotations

import re
import shutil
import tarfile
from pathlib import Path
from urllib.parse import unquote

import duckdb
import pytest
from conftest import ROOT
from test_closed import check, commit, repo  # noqa: F401 - repo is a fixture
from test_site import Page

from leaderboard.build import build
from leaderboard.catalog import load_catalog
from leaderboard.families import family
from leaderboard.importers.layouts import LAYOUTS, ResultDir
from leaderboard.importers.left_off import (
    absent_reason,
    is_missing_list,
    read_missing,
    short_reason,
    skipped_rows,
)
from leaderboard.render.left_off import board_sentence, by_round, counts_sentence, logs_cell
from leaderboard.skipped import SkippedResult, from_csv, load_skipped, to_csv

CATALOG = load_catalog(ROOT / "catalog")
SKIPPED_DIR = ROOT / "catalog" / "skipped"
# Every shipped round an importer lists what it left off of (a file under catalog/skipped/).
LISTED = sorted(p.stem for p in SKIPPED_DIR.glob("*.csv"))
MLPERF = [r for r in LISTED if CATALOG.rounds[r].kind.startswith("mlperf")]


# ---- pure functions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, listed",
    [
        ("mlperf-training-v1.0/MISSING.txt", True),  # an archive's top folder
        ("MISSING.txt", True),
        ("mlperf-training-v1.0/NVIDIA/MISSING.txt", False),  # not at the top: some file of a submitter
        ("mlperf-training-v1.0/MISSING.txt.orig", False),
        ("mlperf-training-v1.0/missing.txt", False),
    ],
)
def test_is_missing_list(path, listed):
    assert is_missing_list(path) is listed


def test_read_missing_groups_run_logs_by_result_folder_under_the_lists_folder():
    text = (
        "Files of the published repository that this copy lacks:\n"
        "Dell/results/XE8545x4A100-SXM-80GB/bert/result_1.txt\n"
        "Dell/results/XE8545x4A100-SXM-80GB/bert/result_2.txt\n"
        "\n"
        "NVIDIA/results/dgx/resnet/result_0.txt\n"
        "NVIDIA/results/dgx/resnet/power/result_0/node_1.txt\n"  # a power log: not a run log
        "NVIDIA/systems/dgx.json\n"
    )
    missing = read_missing(text, "mlperf-training-v1.0/MISSING.txt", LAYOUTS["org-systems"])
    assert {r.path: names for r, names in missing.items()} == {
        "mlperf-training-v1.0/Dell/results/XE8545x4A100-SXM-80GB/bert": ["result_1.txt", "result_2.txt"],
        "mlperf-training-v1.0/NVIDIA/results/dgx/resnet": ["result_0.txt"],
    }


def test_read_missing_in_the_v05_layout_counts_only_run_logs():
    text = (
        "v0.5.0/nvidia/submission/results/dgx1_ngc18.11_pytorch/maskrcnn/result_0.txt\n"
        "v0.5.0/intel/intel_resnet_submission/results/skx_8180_2s_1x/resnet/intel_caffe_result_0.txt\n"
    )
    missing = read_missing(text, "mlperf-training-v0.5/MISSING.txt", LAYOUTS["v0.5-entries"])
    assert [r.repo_path for r in missing] == ["v0.5.0/nvidia/submission/results/dgx1_ngc18.11_pytorch/maskrcnn"]


@pytest.mark.parametrize(
    "reason, names, expected",
    [
        ("22 logs; 3D U-Net needs 40 runs", [], "22 logs; 3D U-Net needs 40 runs"),
        (
            "1 logs; BERT needs 10 runs",
            ["result_9.txt", "result_10.txt", "result_1.txt"],
            "1 logs; BERT needs 10 runs; MISSING.txt lists 3 more absent from the public copy "
            "(result_1.txt, result_9.txt, result_10.txt)",
        ),
        (
            "1 logs; BERT needs 10 runs",
            [f"result_{i}.txt" for i in range(1, 10)],
            "1 logs; BERT needs 10 runs; MISSING.txt lists 9 more absent from the public copy "
            "(result_1.txt to result_9.txt)",
        ),
    ],
)
def test_short_reason(reason, names, expected):
    assert short_reason(reason, names) == expected


def test_absent_reason():
    assert absent_reason(["result_0.txt", "result_1.txt"]) == (
        "the public copy has none of its logs: MISSING.txt lists 2 (result_0.txt, result_1.txt)"
    )


def _result(folder: str, system: str = "sys") -> ResultDir:
    repo_path = f"ACME/results/{system}/{folder}"
    return ResultDir(repo_path, "top", "ACME", system, folder, (f"ACME/systems/{system}.json",))


def test_skipped_rows_cover_the_skipped_and_the_absent_folders():
    round_ = CATALOG.rounds["mlperf-training-v1.0"]
    short, absent, unknown = _result("bert"), _result("resnet", "other"), _result("chess")
    systems = {"top/ACME/systems/sys.json": {"submitter": "Acme  Labs", "system_name": "Acme 1"}}
    rows = skipped_rows(
        round_,
        CATALOG,
        [(short, "1 logs; BERT needs 10 runs"), (unknown, "benchmark folder 'chess' is not a benchmark")],
        {short: 1, unknown: 5},
        {short: ["result_1.txt"], absent: ["result_0.txt", "result_1.txt"]},
        systems,
    )
    assert [
        (r.folder, r.submitter, r.system, r.benchmark, r.logs_found, r.logs_needed, r.logs_missing) for r in rows
    ] == [
        ("ACME/results/other/resnet", "ACME", "other", "resnet", 0, 5, 2),
        ("ACME/results/sys/bert", "Acme Labs", "Acme 1", "bert", 1, 10, 1),
        ("ACME/results/sys/chess", "Acme Labs", "Acme 1", "chess", 5, None, 0),
    ]
    assert rows[0].reason.startswith("the public copy has none of its logs")
    assert rows[1].reason.endswith("MISSING.txt lists 1 more absent from the public copy (result_1.txt)")
    assert (
        rows[0].source_url == "https://github.com/mlcommons/training_results_v1.0/tree/master/ACME/results/other/resnet"
    )


ROW = SkippedResult("r1", "A/results/s/bert", "A", "S", "bert", 'a "quoted", reason', 1, 10, 9, "https://x/y")


def test_the_skipped_file_reads_back_what_was_written():
    text = to_csv([ROW, SkippedResult("r1", "0-first", "B", "T", "dawn", "why", None, None, None, None)])
    assert (
        text.splitlines()[0]
        == "round,folder,submitter,system,benchmark,reason,logs_found,logs_needed,logs_missing,source_url"
    )
    assert text.splitlines()[1] == "r1,0-first,B,T,dawn,why,,,,"  # folder order; empty cells for None
    items, problems = from_csv(text, "f.csv", "r1")
    assert problems == [] and items == sorted(
        [ROW, SkippedResult("r1", "0-first", "B", "T", "dawn", "why", None, None, None, None)]
    )


@pytest.mark.parametrize(
    "text, line, col, message",
    [
        ("round,folder\n", 1, 1, "the header is not round,folder,submitter"),
        (to_csv([ROW]) + "r1,x\n", 3, 1, "2 cells, not 10"),
        (to_csv([ROW]).replace(",1,10,9,", ",1,ten,9,"), 2, 8, "logs_needed 'ten' is not a whole number"),
        (to_csv([ROW]).replace("\nr1,", "\nr2,"), 2, 1, "round 'r2' in the file of r1"),
    ],
)
def test_a_malformed_skipped_file_is_a_problem_at_its_line(text, line, col, message):
    _, problems = from_csv(text, "f.csv", "r1")
    assert [(p.line, p.col) for p in problems] == [(line, col)]
    assert problems[0].message.startswith(message) and "only the importer writes this file" in problems[0].hint


def test_a_malformed_skipped_file_stops_the_build(tmp_path):
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    target = tmp_path / "catalog" / "skipped" / "mlperf-training-v1.0.csv"
    target.write_text(target.read_text(encoding="utf-8").replace(",1,10,9,", ",1,ten,9,"), encoding="utf-8")
    problems = load_catalog(tmp_path / "catalog").problems
    assert [p.format().split(": ", 1)[1] for p in problems] == [
        "$: logs_needed 'ten' is not a whole number (hint: only the importer writes this file: re-run it on the "
        "round's published source)"
    ]


@pytest.mark.parametrize(
    "kind, on_boards, left_off, sentence",
    [
        ("mlperf-training", 183, 3, "183 results on the boards, 3 result folders left off."),
        ("mlperf-training", 147, 1, "147 results on the boards, 1 result folder left off."),
        ("mlperf-hpc", 22, 0, "22 results on the boards, 0 result folders left off."),
        ("dawnbench", 63, 6, "63 results on the boards, 6 training entries left off."),
        ("dawnbench", 1, 1, "1 result on the boards, 1 training entry left off."),
        ("published", 298, None, "298 results on the boards."),  # no importer's list: no count of it
    ],
)
def test_counts_sentence(kind, on_boards, left_off, sentence):
    assert counts_sentence(kind, on_boards, left_off) == sentence


@pytest.mark.parametrize(
    "kind, left_off, sentence",
    [
        (
            "mlperf-training",
            4,
            "4 result folders of this benchmark in the round's published source are left off this board",
        ),
        ("mlperf-hpc", 1, "1 result folder of this benchmark in the round's published source is left off this board"),
        (
            "dawnbench",
            5,
            "5 training entries of this benchmark in the round's published source are left off this board",
        ),
        ("dawnbench", 0, ""),
    ],
)
def test_board_sentence(kind, left_off, sentence):
    assert board_sentence(kind, left_off) == sentence


@pytest.mark.parametrize(
    "found, needed, missing, cell",
    [
        (1, 10, 9, "1 of 10 (9 absent from the public copy)"),
        (22, 40, 0, "22 of 40"),
        (5, None, 0, "5"),
        (None, None, None, ""),  # DAWNBench: entries, not run logs
    ],
)
def test_logs_cell(found, needed, missing, cell):
    assert logs_cell({"logs_found": found, "logs_needed": needed, "logs_missing": missing}) == cell


def test_by_round_orders_and_names():
    rows = [
        {"round": "b", "submitter": "z", "folder": "1", "benchmark": "bert", "logs_found": None},
        {"round": "a", "submitter": "Y", "folder": "2", "benchmark": "chess", "logs_found": None},
        {"round": "a", "submitter": "x", "folder": "3", "benchmark": "bert", "logs_found": None},
    ]
    grouped = by_round(rows, {"bert": "BERT"})
    assert [(r["folder"], r["benchmark_name"]) for r in grouped["a"]] == [("3", "BERT"), ("2", "chess")]
    assert list(grouped) == ["a", "b"]


# ---- the shipped lists ---------------------------------------------------------------------------


def test_every_round_of_a_family_that_skips_has_its_list():
    """A closed family's importer lists what it left off for every shipped round, empty or not."""
    shipped = {p.name for p in (ROOT / "submissions").iterdir() if p.is_dir()}
    expected = sorted(r for r in shipped if r in CATALOG.rounds and family(CATALOG.rounds[r].kind).skipped_folder)
    assert LISTED == expected
    lists, problems = load_skipped(ROOT / "catalog")
    assert problems == [] and sorted(lists) == LISTED


# ---- the real archives ---------------------------------------------------------------------------

_ARCHIVES: dict[str, tuple[set[str], str | None]] = {}


def archive_folders(archive: Path, round_id: str) -> tuple[set[str], str | None]:
    """The result folders (repository paths) with a run log in the archive, and its MISSING.txt."""
    if round_id not in _ARCHIVES:
        layout = LAYOUTS[CATALOG.rounds[round_id].layout or "org-systems"]
        folders, missing = set(), None
        with tarfile.open(archive, "r|xz") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                if is_missing_list(member.name):
                    missing = tar.extractfile(member).read().decode("utf-8")
                    continue
                log = layout.log_file(member.name)
                if log is not None and log.kind == "run":
                    folders.add(log.result.repo_path)
        _ARCHIVES[round_id] = (folders, missing)
    return _ARCHIVES[round_id]


def archive_of(shared_data: Path, round_id: str) -> Path:
    archive = shared_data / f"{round_id}.tar.xz"
    if not archive.is_file():
        pytest.skip(f"{archive.name} is not in ../shared/data")
    return archive


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> Path:
    """The shipped submissions and catalog built into a database and site, as `make site` does."""
    folder = tmp_path_factory.mktemp("left-off")
    done = build(ROOT / "submissions", ROOT / "catalog", folder / "leaderboard.duckdb", folder / "site")
    assert done.ok, done.problems[:3]
    return folder / "leaderboard.duckdb"


def _folder(url: str) -> str:
    """The result folder of a source URL (.../tree/<branch>/<folder>, a space written %20)."""
    return unquote(url.split("/tree/", 1)[1].split("/", 1)[1])


@pytest.mark.parametrize("round_id", MLPERF)
def test_every_result_folder_of_the_archive_is_on_a_board_or_left_off(shared_data, database, round_id):
    """The archive's result folders (a run log there, or MISSING.txt names one) = the results on
    the boards + the rows left off, folder for folder."""
    folders, missing = archive_folders(archive_of(shared_data, round_id), round_id)
    layout = LAYOUTS[CATALOG.rounds[round_id].layout or "org-systems"]
    absent = {r.repo_path for r in read_missing(missing or "", "MISSING.txt", layout)}
    with duckdb.connect(str(database), read_only=True) as con:
        on_boards = [
            _folder(u) for (u,) in con.execute("SELECT source_url FROM results WHERE round = ?", [round_id]).fetchall()
        ]
        left_off = [
            f for (f,) in con.execute("SELECT folder FROM skipped_results WHERE round = ?", [round_id]).fetchall()
        ]
        (count,) = con.execute("SELECT left_off FROM rounds WHERE id = ?", [round_id]).fetchone()
    assert count == len(left_off)
    assert len(folders | absent) == len(on_boards) + len(left_off)
    assert sorted(folders | absent) == sorted(on_boards + left_off)


@pytest.mark.parametrize("round_id", MLPERF)
def test_each_folder_missing_txt_leaves_short_is_left_off_with_that_reason(shared_data, database, round_id):
    """Every round whose archive has MISSING.txt has rows, one for each folder it leaves short."""
    folders, missing = archive_folders(archive_of(shared_data, round_id), round_id)
    layout = LAYOUTS[CATALOG.rounds[round_id].layout or "org-systems"]
    listed = {r.repo_path: names for r, names in read_missing(missing or "", "MISSING.txt", layout).items()}
    rules = {b.id: b.rounds[round_id].runs for b in CATALOG.benchmarks.values() if round_id in b.rounds}
    with duckdb.connect(str(database), read_only=True) as con:
        rows = con.execute(
            "SELECT folder, reason, logs_found, logs_needed, logs_missing FROM skipped_results WHERE round = ?",
            [round_id],
        ).fetchall()
    by_folder = {row[0]: row[1:] for row in rows}
    if missing is None:  # nothing absent from the public copy: no row says so
        assert [row for row in rows if row[4] or "MISSING.txt" in row[1]] == []
        return
    assert listed and rows  # v0.5, v0.6, v0.7, v1.0, v1.1, v4.0, v4.1, v5.1
    for folder, names in listed.items():
        if folder in folders and folder not in by_folder:
            continue  # the logs the copy has are enough: on a board
        reason, found, needed, missing_count = by_folder[folder]
        assert missing_count == len(names) and "MISSING.txt lists" in reason
        assert found < needed and needed in rules.values()


def test_the_round_pages_show_the_counts_and_every_folder_left_off(database):
    site = database.parent / "site"
    with duckdb.connect(str(database), read_only=True) as con:
        rounds = con.execute(
            "SELECT r.id, r.left_off, (SELECT count(*) FROM results WHERE round = r.id) FROM rounds r ORDER BY r.id"
        ).fetchall()
        left = con.execute("SELECT round, folder, reason FROM skipped_results ORDER BY round, folder").fetchall()
    index = (site / "index.html").read_text(encoding="utf-8")
    for round_id, left_off, on_boards in rounds:
        text = (site / "rounds" / f"{round_id}.html").read_text(encoding="utf-8")
        sentence = counts_sentence(CATALOG.rounds[round_id].kind, on_boards, left_off)
        assert f'<p id="counts">{sentence}' in text
        if left_off:
            assert f"{left_off} left off</a>" in index
    assert len(left) == sum(r[1] or 0 for r in rounds) and len(left) >= 47
    for round_id, folder, reason in left:
        text = (site / "rounds" / f"{round_id}.html").read_text(encoding="utf-8")
        row = text.split(f'<tr data-folder="{folder}">', 1)[1].split("</tr>", 1)[0]
        assert Page(f"<table><tr data-entry='x'>{row}</tr></table>").rows["x"]["cells"][4] == " ".join(reason.split())


def test_each_board_lists_the_folders_of_its_benchmark_left_off(database):
    """What a board leaves out, it lists with the reason: on its first page, each folder of its
    round and benchmark in skipped_results, with that reason, and on every page a sentence saying
    how many; a board with none says nothing of it."""
    site = database.parent / "site"
    with duckdb.connect(str(database), read_only=True) as con:
        boards = con.execute("SELECT DISTINCT round, benchmark FROM results ORDER BY ALL").fetchall()
        left = con.execute("SELECT round, benchmark, folder, reason FROM skipped_results ORDER BY ALL").fetchall()
    listed = 0
    for round_id, benchmark in boards:
        text = (site / "boards" / round_id / f"{benchmark}.html").read_text(encoding="utf-8")
        mine = [(folder, reason) for r, b, folder, reason in left if (r, b) == (round_id, benchmark)]
        sentence = board_sentence(CATALOG.rounds[round_id].kind, len(mine)).replace("'", "&#39;")
        assert sentence in text if mine else "left off this board" not in text, (round_id, benchmark)
        for folder, reason in mine:
            row = text.split(f'<tr data-folder="{folder}">', 1)[1].split("</tr>", 1)[0]
            assert Page(f"<table><tr data-entry='x'>{row}</tr></table>").rows["x"]["cells"][3] == " ".join(
                reason.split()
            )
            listed += 1
    assert listed >= 40  # every MLPerf and DAWNBench folder left off under a benchmark with a board


# ---- closed to hand edits ------------------------------------------------------------------------

LIST = "catalog/skipped/mlperf-training-v1.0.csv"


def test_a_hand_edit_of_a_skipped_list_fails_check_pr(repo, tmp_path_factory):  # noqa: F811 - the fixture
    target = repo / LIST
    original = target.read_bytes()
    text = original.decode("utf-8")
    target.write_text(
        "".join(line for line in text.splitlines(keepends=True) if "/unet3d," not in line), encoding="utf-8"
    )
    commit(repo)
    result = check(repo)
    assert result.code == 1, result.out
    assert (
        f"{LIST}:1:1: $: changes the list of result folders `leaderboard import-mlperf` left off the boards: only a "
        "re-import may, confirmed by the trusted job's fresh import (check-pr --reimported)"
    ) in result.out
    fresh = tmp_path_factory.mktemp("fresh")
    (fresh / "catalog" / "skipped").mkdir(parents=True)
    (fresh / LIST).write_bytes(original)
    result = check(repo, "--reimported", fresh)
    assert result.code == 1 and f"{LIST}:1:1: $: is not the list of result folders" in result.out
    target.unlink()
    commit(repo)
    result = check(repo, "--reimported", fresh)
    assert result.code == 1 and "deletes the list of result folders" in result.out
    target.write_bytes(original)  # what the fresh import writes, byte for byte
    commit(repo)
    assert check(repo, "--reimported", fresh).code == 0
    assert check(repo).code == 0  # unchanged from the base: nothing to say


def test_the_readme_figures_are_the_shipped_lists():
    lists, _ = load_skipped(ROOT / "catalog")
    training = {r: rows for r, rows in lists.items() if CATALOG.rounds[r].kind == "mlperf-training"}
    total = sum(len(rows) for rows in training.values())
    absent = sum(1 for rows in training.values() for row in rows if row.logs_found == 0)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"the {total} result\nfolders of those rounds that reach no board" in text
    paragraph = text.split("Left off in the shipped rounds: ", 1)[1].split("\n\n", 1)[0]
    stated = {f"mlperf-training-v{v}": int(n) for v, n in re.findall(r"\bv(\d+\.\d+) (\d+)\b", paragraph)}
    assert stated == {r: len(rows) for r, rows in training.items() if rows}
    assert f"({total} in all, {absent} of them absent from the" in paragraph
    assert f"DAWNBench {len(lists['dawnbench-v1.0'])} training entries" in " ".join(paragraph.split())
