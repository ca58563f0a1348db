"""Every shipped MLPerf Training round, imported from the real archives in ../shared/data (the
tests skip without them): the shipped submissions are exactly what the importer writes, every
score the reference tool printed is matched, and the README's per-round figures are true."""

from __future__ import annotations

import csv
import re
import shutil
from urllib.parse import unquote

import pytest
import yaml
from conftest import ROOT

from leaderboard.catalog import load_catalog
from leaderboard.importers.mlperf import import_sources
from leaderboard.rows import table_rows
from leaderboard.validate import validate_paths

CATALOG = load_catalog(ROOT / "catalog")
ROUNDS = sorted(
    (r.id for r in CATALOG.rounds.values() if r.kind == "mlperf-training"),
    key=lambda r: tuple(int(p) for p in r.rsplit("v", 1)[1].split(".")),
)


@pytest.fixture(scope="session")
def imported(shared_data, tmp_path_factory):
    """Every round imported once, from its tar.xz, into an empty folder, as the pull-request
    check's trusted job imports (an official round is the importer's alone, so the shipped files
    must be exactly what it writes there). Round id -> (report, entries by result folder in the
    round's repository, submissions folder)."""
    out = tmp_path_factory.mktemp("rounds") / "submissions"
    out.mkdir()
    catalog_dir = out.parent / "catalog"  # the import writes its manifests there, never into the project
    shutil.copytree(ROOT / "catalog", catalog_dir)
    shutil.rmtree(catalog_dir / "verified")
    shutil.rmtree(catalog_dir / "skipped")
    archives = [shared_data / f"{round_id}.tar.xz" for round_id in ROUNDS]
    outcomes = import_sources(archives, None, CATALOG, catalog_dir, out)
    rounds = {}
    for outcome in outcomes:
        assert outcome.failure is None, outcome.failure
        entries = {}
        for written in outcome.report.written:
            data = yaml.safe_load(written.path.read_text())
            entries[_key_of(data)] = data
        rounds[outcome.round_id] = (outcome.report, entries, out)
    return rounds


def _key_of(data: dict) -> str:
    """The result folder in the round's repository, from its URL (.../tree/<branch>/<folder>,
    a space in a folder's name written %20)."""
    return unquote(data["source"]["url"].split("/tree/", 1)[1].split("/", 1)[1])


@pytest.mark.parametrize("round_id", ROUNDS)
def test_the_shipped_submissions_are_what_the_importer_writes(imported, round_id):
    report, _, out = imported[round_id]
    changed = [
        str(w.path.relative_to(out))
        for w in report.written
        if w.path.read_bytes() != (ROOT / "submissions" / w.path.relative_to(out)).read_bytes()
    ]
    assert changed == [], f"re-run `leaderboard import-mlperf` for {round_id}: these files differ"
    shipped = sorted(p.relative_to(ROOT / "submissions") for p in (ROOT / "submissions" / round_id).rglob("*.yaml"))
    assert shipped == sorted(w.path.relative_to(out) for w in report.written)


@pytest.mark.parametrize("round_id", ROUNDS)
def test_the_shipped_manifest_is_what_the_importer_records(imported, round_id):
    """catalog/verified/<round>.csv, which alone makes an entry verified, is the import's."""
    _, _, out = imported[round_id]
    written = (out.parent / "catalog" / "verified" / f"{round_id}.csv").read_text(encoding="utf-8")
    assert written == (ROOT / "catalog" / "verified" / f"{round_id}.csv").read_text(encoding="utf-8")
    assert len(written.splitlines()) - 1 == sum(1 for _ in (ROOT / "submissions" / round_id).rglob("*.yaml"))


@pytest.mark.parametrize("round_id", ROUNDS)
def test_the_shipped_skipped_list_is_what_the_importer_writes(imported, round_id):
    """catalog/skipped/<round>.csv, the result folders left off the boards, is the import's; its
    rows are the directories skipped plus those MISSING.txt names and the tree lacks altogether."""
    report, entries, out = imported[round_id]
    written = (out.parent / "catalog" / "skipped" / f"{round_id}.csv").read_bytes()
    assert written == (ROOT / "catalog" / "skipped" / f"{round_id}.csv").read_bytes()
    absent = [row for row in report.left_off if row.logs_found == 0]
    assert len(report.left_off) == len(report.skipped) + len(absent)
    assert report.result_dirs + len(absent) == len(entries) + len(report.left_off)


@pytest.mark.parametrize("round_id", ROUNDS)
def test_every_imported_entry_is_valid(imported, round_id):
    _, _, out = imported[round_id]
    result = validate_paths([out / round_id], ROOT / "catalog")
    assert result.problems == []


REFERENCE_ROUNDS = [r for r in ROUNDS if (ROOT.parent / "shared" / "data" / f"{r}.reference-scores.csv").is_file()]

# Reference rows with no entry of ours, each with the reason (checked to still be missing, so the
# list cannot go stale). The bar for a round (issue 24): at least 95% of its reference rows
# matched, at most 1% of them off by more than 1e-4 relative; every row not matched is here.
NOT_IMPORTED = {
    ("mlperf-training-v1.0", "as-4142gs-tnr", "unet3d"): (
        "22 logs where 3D U-Net needs 40 runs (the round's repository has no more); the reference "
        "tool does not count runs, the importer skips the directory with that reason"
    ),
}


def _reference_rows(shared_data, round_id: str) -> list[dict]:
    with (shared_data / f"{round_id}.reference-scores.csv").open() as handle:
        return list(csv.DictReader(handle))


def _by_folders(entries: dict) -> dict:
    """Our entries by (system folder, benchmark folder), as the reference rows name them."""
    return {tuple(folder.split("/")[-2:]): entry for folder, entry in entries.items()}


@pytest.mark.parametrize("round_id", REFERENCE_ROUNDS)
def test_every_reference_score_is_matched(imported, shared_data, round_id):
    """Each row the reference tool printed has our entry (or a reason in NOT_IMPORTED), whose
    minutes agree within 1e-4 relative and whose chips agree; where the file has RCP-scaled
    minutes (v1.0, v1.1), `minutes x rcp_factor` agrees with them within 1e-3."""
    _, entries, _ = imported[round_id]
    by_folders = _by_folders(entries)
    rows = _reference_rows(shared_data, round_id)
    problems, not_found, off = [], [], 0
    for row in rows:
        entry = by_folders.get((row["system"], row["benchmark"]))
        reference = float(row.get("minutes") or row["minutes_unscaled"])
        if entry is None:
            not_found.append((round_id, row["system"], row["benchmark"]))
            continue
        if abs(entry["result"]["minutes"] - reference) > 1e-4 * reference:
            off += 1
            problems.append(f"{row['system']} {row['benchmark']}: {entry['result']['minutes']} != {reference}")
        chips = _chips(row)
        if chips is not None and chips != entry["system"]["count"]:
            problems.append(f"{row['system']} {row['benchmark']}: {entry['system']['count']} chips != {chips}")
        if row.get("minutes_rcp_scaled"):
            scaled = entry["result"]["minutes"] * entry["provenance"].get("rcp_factor", 1.0)
            if abs(scaled - float(row["minutes_rcp_scaled"])) > 1e-3 * float(row["minutes_rcp_scaled"]):
                problems.append(
                    f"{row['system']} {row['benchmark']}: RCP-scaled {scaled} != {row['minutes_rcp_scaled']}"
                )
    assert len(rows) - len(not_found) >= 0.95 * len(rows) and off <= 0.01 * len(rows)
    assert sorted(not_found) == sorted(k for k in NOT_IMPORTED if k[0] == round_id)
    assert problems == []


def _chips(row: dict) -> int | None:
    """The reference's chip count: its accelerators, or for a CPU result its host processors
    (None where the file does not say: v1.0's has no host processor columns)."""
    accelerators = int(float(row["accelerators_count"] or 0))
    if accelerators or not row.get("host_processors_count"):
        return accelerators or None
    return int(float(row["host_processors_count"]))


def _readme_rounds() -> dict[str, list[str]]:
    """The README's per-round table: round id -> its cells."""
    text = (ROOT / "README.md").read_text()
    table = text.split("<!-- BEGIN rounds -->", 1)[1].split("<!-- END rounds -->", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"v(\d+\.\d+)", cells[0]) if cells else None
        if match:
            rows[f"mlperf-training-v{match[1]}"] = cells
    return rows


def test_the_readme_states_every_round():
    assert sorted(_readme_rounds(), key=ROUNDS.index) == ROUNDS


@pytest.fixture(scope="module")
def shipped_rows():
    """The shipped MLPerf results normalized as the database holds them: round -> rows."""
    result = validate_paths([ROOT / "submissions" / r for r in ROUNDS], ROOT / "catalog")
    assert result.ok
    rows = table_rows(result.entries, CATALOG).results
    by_round: dict[str, list[dict]] = {}
    for row in rows:
        by_round.setdefault(row["round"], []).append(row)
    return by_round


@pytest.mark.parametrize("round_id", ROUNDS)
def test_the_readme_figures_of_each_round_are_the_import(imported, shipped_rows, shared_data, round_id):
    report, entries, _ = imported[round_id]
    cells = _readme_rounds()[round_id]
    number = lambda cell: int(cell.replace(",", ""))  # noqa: E731
    assert number(cells[1]) == report.result_dirs
    assert number(cells[2]) == report.logs_read
    assert number(cells[3]) == len(entries)
    assert number(cells[4]) == len(report.runs_failed)
    assert number(cells[5]) == len(report.skipped)
    if round_id in REFERENCE_ROUNDS:
        rows = {(row["system"], row["benchmark"]) for row in _reference_rows(shared_data, round_id)}
        assert cells[6] == f"{len(rows & set(_by_folders(entries)))} / {len(rows)}"
        left_out = [folder for folder in entries if tuple(folder.split("/")[-2:]) not in rows]
        assert number(cells[7]) == len(left_out)
    else:
        assert cells[6] == "no reference tool" and number(cells[7]) == len(entries)
    shipped = shipped_rows[round_id]
    assert cells[8] == f"{sum(1 for r in shipped if r['cost_usd'] is not None)} / {len(shipped)}"
    assert number(cells[9]) == sum(1 for r in shipped if r["energy_kwh"] is not None)


# What was announced when the rounds were published, in seconds, and the result folder it is
# (v0.6: VentureBeat, 2019-07-10, "MLPerf: Google's Cloud TPUs and Nvidia's Tesla V100 break AI
# training records"). v0.5's announcements name no times in the sources available here.
ANNOUNCED = [
    ("mlperf-training-v0.6", "NVIDIA/results/dgx2h_n96_ngc19.05_mxnet/resnet", 80, 1536),
    ("mlperf-training-v0.6", "Google/results/tpu-v3-2048/transformer", 51, 1024),
    ("mlperf-training-v0.6", "Google/results/tpu-v3-2048/ssd", 72, 1024),
]


@pytest.mark.parametrize(("round_id", "folder", "seconds", "chips"), ANNOUNCED)
def test_headline_results_are_what_was_announced(imported, round_id, folder, seconds, chips):
    _, entries, _ = imported[round_id]
    entry = entries[folder]
    assert round(entry["result"]["minutes"] * 60) == seconds
    assert entry["system"]["count"] == chips


NUMBER_WORDS = {11: "eleven", 12: "twelve", 13: "thirteen", 14: "fourteen", 15: "fifteen"}


def test_the_readme_totals_are_the_shipped_results(shipped_rows):
    """The README's count of rounds and results is the shipped data's, not a hand-typed figure."""
    # generated figures are marked <!-- fig:name -->value<!-- /fig --> (leaderboard/figures.py): read the values
    text = re.sub(r"<!-- fig:[\w-]+ -->(.*?)<!-- /fig -->", r"\1", (ROOT / "README.md").read_text())
    total = sum(len(rows) for rows in shipped_rows.values())
    assert len(shipped_rows) == len(ROUNDS)
    assert f"**{total:,} results**" in text and f"({total:,} results, " in text
    assert f"The {NUMBER_WORDS[len(ROUNDS)]} MLPerf Training rounds" in text
