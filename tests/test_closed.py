"""Official rounds are closed (issue 22, items 1 and 7): only the importer writes them, an
importer-written file changes only into a fresh import's bytes, and a self-reported result
takes no rank, record or "best" beside verified ones, labelled wherever it appears."""

from __future__ import annotations

import hashlib
import json
import shutil

import duckdb
import pytest
import yaml
from conftest import ROOT, run_cli
from test_checkpr import git
from test_site import Page
from test_validate import PUBLISHED

from leaderboard.families import FAMILIES, family
from leaderboard.normalize import RANK_METRIC
from leaderboard.render.model import NOT_VERIFIED, unverified_note
from leaderboard.rows import ranked_in, unranked_reasons

ROUND = "mlperf-training-v5.0"
VERIFIED = f"{ROUND}/nvidia/tyche_ngpu512_ngc25.04_pytorch-retinanet"
FORGED = f"{ROUND}/nvidia/tyche-fast-retinanet"
IMPORTED = "published/openai/gpt-3-175b-davinci"


def commit(repo):
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")


def copy_entry(project, entry_id: str):
    target = project / "submissions" / f"{entry_id}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "submissions" / f"{entry_id}.yaml", target)
    return target


def forge(project):
    """Issue 22, item 1: a verified v5.0 GB200 RetinaNet file under a new name, the system
    renamed, every time halved, method, importer, logs and MLCommons URL kept."""
    data = yaml.safe_load((ROOT / "submissions" / f"{VERIFIED}.yaml").read_text(encoding="utf-8"))
    data["system"]["name"] = "Tyche Fast (8x NVIDIA GB200 NVL72)"
    data["result"]["minutes"] = round(data["result"]["minutes"] / 2, 6)
    data["result"]["runs_minutes"] = [round(m / 2, 6) for m in data["result"]["runs_minutes"]]
    target = project / "submissions" / f"{FORGED}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return target


@pytest.fixture
def repo(tmp_path):
    """A base branch with the shipped catalog, the v5.0 RetinaNet results and one imported
    published run; a pull-request branch on top."""
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    for path in sorted((ROOT / "submissions" / ROUND).glob("*/*-retinanet.yaml")):
        copy_entry(tmp_path, path.relative_to(ROOT / "submissions").with_suffix("").as_posix())
    copy_entry(tmp_path, IMPORTED)
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path)
    git(tmp_path, "checkout", "-q", "-b", "pr")
    return tmp_path


def check(repo, *args):
    return run_cli("check-pr", "--base", "main", *args, cwd=repo)


# ---- item 1: a forged "computed-from-logs" file ------------------------------------------


def test_a_forged_result_in_an_official_round_fails_naming_its_claims(repo):
    forge(repo)
    commit(repo)
    result = check(repo)
    assert result.code == 1, result.out
    first = result.out.splitlines()[0]
    assert first.startswith(f"submissions/{FORGED}.yaml:")
    assert ": $.provenance.method: mlperf-training-v5.0 is an official round, closed to pull requests" in first
    assert "only the importer (`leaderboard import-mlperf`) writes its results" in first
    assert "The file claims: method computed-from-logs, importer leaderboard-mlperf 1, 5 run logs, source " in first
    assert "https://github.com/mlcommons/training_results_v5.0/tree/main/NVIDIA/results/tyche_ngpu512" in first
    assert "hint: a result you measured yourself goes under submissions/published/<submitter-slug>/" in first
    github = check(repo, "--format", "github").out
    assert github.startswith(f"::error file=submissions/{FORGED}.yaml,line=")
    markdown = check(repo, "--format", "markdown").out
    assert "### Closed rounds and importer-written results" in markdown


def test_a_pull_request_cannot_open_a_round_by_changing_its_kind(repo):
    forge(repo)
    rounds = repo / "catalog" / "rounds.yaml"
    text = rounds.read_text(encoding="utf-8")
    at = text.index(f"id: {ROUND}")
    rounds.write_text(text[:at] + text[at:].replace("kind: mlperf-training", "kind: published", 1), encoding="utf-8")
    commit(repo)
    result = check(repo)
    assert result.code == 1 and "mlperf-training-v5.0 is an official round, closed" in result.out


def test_an_honest_self_reported_result_passes(repo):
    target = repo / "submissions" / "published" / "acme-labs" / "acme-lm.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(PUBLISHED, encoding="utf-8")
    commit(repo)
    result = check(repo)
    assert result.code == 0, result.out
    assert "1 changed file checked against main: all valid" in result.out
    assert "would rank 1 of 2 by chip-hours, the board's ranking (sorted by minutes: 1 of 2; by cost: " in result.out


# ---- item 7: hand edits to importer-written files ----------------------------------------


def hand_edit(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["result"]["estimated"] = True
    data.setdefault("model", {})["name"] = "RetinaNet, hand-named"
    data["source"]["note"] = "checked by hand"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def relist(repo, folder: str, round_id: str, entry_id: str):
    """Update the entry's manifest row to its file's new digest, as a re-import would."""
    manifest = repo / "catalog" / folder / f"{round_id}.csv"
    digest = hashlib.sha256((repo / "submissions" / f"{entry_id}.yaml").read_bytes()).hexdigest()
    lines = [
        ",".join([entry_id, digest, *line.split(",")[2:]]) if line.startswith(entry_id + ",") else line
        for line in manifest.read_text(encoding="utf-8").splitlines()
    ]
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")


def fresh_import(folder, entries: dict[str, bytes], manifests: dict[str, bytes]):
    """The trusted job's folder: what a fresh import wrote (entry id -> bytes; manifest path
    under the catalog -> bytes)."""
    for entry_id, content in entries.items():
        target = folder / "submissions" / f"{entry_id}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    for name, content in manifests.items():
        target = folder / "catalog" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return folder


def test_hand_edits_to_a_verified_result_fail_even_as_a_re_import(repo, tmp_path_factory):
    target = repo / "submissions" / f"{VERIFIED}.yaml"
    original = target.read_bytes()
    manifest = (repo / "catalog" / "verified" / f"{ROUND}.csv").read_bytes()
    hand_edit(target)
    relist(repo, "verified", ROUND, VERIFIED)
    commit(repo)
    result = check(repo)
    assert result.code == 1
    assert f"submissions/{VERIFIED}.yaml:1:1: $: changes (" in result.out
    assert "result.estimated: (none) -> True" in result.out and "model.name: (none) -> RetinaNet" in result.out
    assert f"catalog/verified/{ROUND}.csv:1:1: $: changes the manifest" in result.out
    # The fresh import (into an empty folder) writes the published result, not the hand edit.
    fresh = fresh_import(tmp_path_factory.mktemp("fresh"), {VERIFIED: original}, {f"verified/{ROUND}.csv": manifest})
    result = check(repo, "--reimported", fresh)
    assert result.code == 1
    assert "only into what the trusted job's fresh import (check-pr --reimported) writes" in result.out
    assert f"catalog/verified/{ROUND}.csv:1:1: $: is not the manifest the trusted job's fresh import" in result.out


def test_the_forged_file_fails_against_a_fresh_import_too(repo, tmp_path_factory):
    forge(repo)
    commit(repo)
    manifest = (repo / "catalog" / "verified" / f"{ROUND}.csv").read_bytes()
    fresh = fresh_import(tmp_path_factory.mktemp("fresh"), {}, {f"verified/{ROUND}.csv": manifest})
    result = check(repo, "--reimported", fresh)
    assert result.code == 1 and "is an official round, closed to pull requests" in result.out


def test_an_imported_published_run_changes_only_as_the_importer_writes_it(repo, tmp_path_factory):
    target = repo / "submissions" / f"{IMPORTED}.yaml"
    original = target.read_bytes()
    target.write_text(target.read_text(encoding="utf-8").replace("count: 10000", "count: 100"), encoding="utf-8")
    commit(repo)
    result = check(repo)
    assert result.code == 1
    assert (
        f"submissions/{IMPORTED}.yaml:1:1: $: changes (system.count: 10000 -> 100) a result written by " in result.out
    )
    target.unlink()
    commit(repo)
    result = check(repo)
    assert result.code == 1
    assert f"submissions/{IMPORTED}.yaml:1:1: $: deletes a result written by `leaderboard import-epoch`" in result.out
    # Put back byte for byte (a fresh import writes the same): nothing left to say.
    target.write_bytes(original)
    commit(repo)
    fresh = fresh_import(
        tmp_path_factory.mktemp("fresh"),
        {IMPORTED: original},
        {"imported/published.csv": (repo / "catalog" / "imported" / "published.csv").read_bytes()},
    )
    assert check(repo).code == 0
    assert check(repo, "--reimported", fresh).code == 0


def test_a_fresh_import_of_a_real_round_confirms_exactly_its_files(repo, shared_data, tmp_path_factory):
    """The trusted job's way: the round's archive imported into an empty folder."""
    fresh = tmp_path_factory.mktemp("fresh")
    shutil.copytree(ROOT / "catalog", fresh / "catalog")
    shutil.rmtree(fresh / "catalog" / "verified")
    (fresh / "submissions").mkdir()
    done = run_cli(
        "import-mlperf",
        shared_data / f"{ROUND}.tar.xz",
        "--out",
        fresh / "submissions",
        "--catalog",
        fresh / "catalog",
        "-q",
        "-j",
        "1",
        cwd=fresh,
    )
    assert done.code == 0, done.err
    assert (fresh / "catalog" / "verified" / f"{ROUND}.csv").read_bytes() == (
        ROOT / "catalog" / "verified" / f"{ROUND}.csv"
    ).read_bytes()
    target = repo / "submissions" / f"{VERIFIED}.yaml"
    target.unlink()
    commit(repo)
    assert "deletes a result verified" in check(repo, "--reimported", fresh).out
    shutil.copyfile(fresh / "submissions" / f"{VERIFIED}.yaml", target)  # what the importer writes
    commit(repo)
    assert check(repo, "--reimported", fresh).code == 0
    hand_edit(target)
    commit(repo)
    assert check(repo, "--reimported", fresh).code == 1


# ---- ranks: a self-reported result beside verified ones takes none -------------------------


@pytest.mark.parametrize(
    "verified, ranked",
    [
        ([], []),
        ([True, True], [True, True]),
        ([True, False], [True, False]),  # beside a verified result: no rank
        ([False, False], [True, True]),  # no verified result: ranked among themselves
        ([False, True, False], [False, True, False]),
    ],
)
def test_ranked_in(verified, ranked):
    assert ranked_in(verified) == ranked


def _row(verified=False, republished=None, estimated=False):
    return {"verified": verified, "republished_from": republished, "estimated": estimated}


@pytest.mark.parametrize(
    "group, reasons",
    [
        ([_row(), _row(estimated=True)], [None, "estimate"]),
        ([_row(verified=True), _row(estimated=True)], [None, "self-reported"]),  # the first reason that applies
        ([_row(republished="a"), _row()], ["republished", None]),
        ([_row(verified=True, republished="a"), _row(verified=True)], ["republished", None]),
        ([_row(verified=True), _row()], [None, "self-reported"]),
        ([_row(estimated=True)], ["estimate"]),  # alone on its board, still no rank
    ],
)
def test_unranked_reasons(group, reasons):
    assert unranked_reasons(group) == reasons


def test_every_round_kind_has_its_facts():
    import yaml as _yaml

    rounds = _yaml.safe_load((ROOT / "catalog" / "rounds.yaml").read_text(encoding="utf-8"))["rounds"]
    assert {r["kind"] for r in rounds} <= set(FAMILIES)
    assert RANK_METRIC == {
        "mlperf-training": "minutes",
        "mlperf-hpc": "minutes",
        "dawnbench": "minutes",
        "published": "chip_hours",
    }
    for kind in ("mlperf-training", "mlperf-hpc"):
        assert family(kind).closed and family(kind).verifiable and family(kind).manifest_folder == "verified"
    assert family("dawnbench").closed and not family("dawnbench").verifiable
    assert family("dawnbench").manifest_folder == "imported"
    assert not family("published").closed and not family("published").verifiable
    assert family("published").manifest_folder == "imported"


# A hand-written published run that claims an importer wrote it (and that MLCommons verified it).
CLAIMING = (
    PUBLISHED.replace("benchmark: language", "benchmark: vision").replace("Acme-LM", "Acme-Vision")
    + "provenance:\n  method: computed-from-logs\n  importer: leaderboard-mlperf 1\n"
    + "  notes:\n  - audited by MLCommons staff\n"
)


def test_validate_names_a_closed_round_file_and_a_claimed_provenance_before_check_pr_does(repo):
    forge(repo)
    claiming = repo / "submissions" / "published" / "acme-labs" / "acme-vision.yaml"
    claiming.parent.mkdir(parents=True)
    claiming.write_text(CLAIMING, encoding="utf-8")
    done = run_cli("validate", "-q", f"submissions/{FORGED}.yaml", "submissions/published/acme-labs", cwd=repo)
    # Valid files (exit 0, nothing on stdout), each named on stderr with why check-pr refuses it.
    assert done.code == 0 and done.out == "", done.out + done.err
    forged = next(line for line in done.err.splitlines() if FORGED in line)
    assert forged.startswith(f"check-pr refuses submissions/{FORGED}.yaml:")
    assert "mlperf-training-v5.0 is an official round, closed to pull requests: only `leaderboard" in forged
    assert "with one of its benchmarks" in forged and "'Official rounds are closed; self-reported results'" in forged
    line = next(line for line in done.err.splitlines() if "acme-vision.yaml" in line)
    assert ": $.provenance.method: claims provenance method 'computed-from-logs', but no importer wrote" in line
    assert "catalog/imported/published.csv does not list it" in line
    as_json = json.loads(run_cli("validate", "--format", "json", "submissions/published", cwd=repo).out)
    assert [p["json_path"] for p in as_json["check_pr_refuses"]] == ["$.provenance.method"]
    # An importer's own file, and a hand-written one that claims nothing, are valid.
    plain = run_cli("validate", "-q", f"submissions/{VERIFIED}.yaml", f"submissions/{IMPORTED}.yaml", cwd=repo)
    assert plain.code == 0 and "check-pr refuses" not in plain.err, plain.out + plain.err
    # An importer's file edited by hand: valid, and named as one check-pr refuses.
    verified = repo / "submissions" / f"{VERIFIED}.yaml"
    written = verified.read_text(encoding="utf-8")
    verified.write_text(written.replace("framework: ", "framework: Hacked ", 1), encoding="utf-8")
    edited = run_cli("validate", "-q", f"submissions/{VERIFIED}.yaml", cwd=repo)
    assert edited.code == 0 and edited.err.startswith(
        f"check-pr refuses submissions/{VERIFIED}.yaml:1:1: $: `leaderboard import-mlperf` wrote this file "
        f"(catalog/verified/{VERIFIED.split('/')[0]}.csv lists its digest), and it has been edited since"
    ), edited.err
    verified.write_text(written, encoding="utf-8")
    claiming.write_text(CLAIMING.replace("computed-from-logs", "self-reported"), encoding="utf-8")
    assert "check-pr refuses" not in run_cli("validate", "-q", "submissions/published/acme-labs", cwd=repo).err
    # check-pr says it too (the forged file once, as a closed round's).
    claiming.write_text(CLAIMING, encoding="utf-8")
    commit(repo)
    result = check(repo)
    assert result.code == 1
    assert result.out.count("claims provenance method") == 1
    assert result.out.count("is an official round, closed to pull requests") == 1


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A project with v5.0's RetinaNet results, the forged one and an honest self-reported
    published run, built."""
    project = tmp_path_factory.mktemp("closed-site")
    shutil.copytree(ROOT / "catalog", project / "catalog")
    for path in sorted((ROOT / "submissions" / ROUND).glob("*/*-retinanet.yaml")):
        copy_entry(project, path.relative_to(ROOT / "submissions").with_suffix("").as_posix())
    forge(project)
    honest = project / "submissions" / "published" / "acme-labs" / "acme-lm.yaml"
    honest.parent.mkdir(parents=True)
    honest.write_text(PUBLISHED, encoding="utf-8")
    claiming = project / "submissions" / "published" / "acme-labs" / "acme-vision.yaml"
    claiming.write_text(CLAIMING, encoding="utf-8")
    done = run_cli("build", "-q", cwd=project)
    assert done.code == 0, done.out + done.err
    return project


def results(project) -> dict[str, tuple]:
    with duckdb.connect(str(project / "leaderboard.duckdb"), read_only=True) as connection:
        rows = connection.execute("SELECT entry_id, verified, ranked, rank, minutes FROM results").fetchall()
    return {r[0]: r[1:] for r in rows}


def test_the_forged_result_takes_no_rank_in_the_database(built):
    rows = results(built)
    assert rows[FORGED][:3] == (False, False, None)
    verified = sorted((r for e, r in rows.items() if e.startswith(ROUND) and e != FORGED), key=lambda r: r[3])
    assert all(r[0] and r[1] for r in verified)
    assert verified[0][2] == 1 and rows[FORGED][3] < verified[0][3]  # faster, and still not first
    assert rows["published/acme-labs/acme-lm"] == (False, True, 1, 5760.0)  # alone on its board: ranked


def test_what_a_hand_written_file_claims_of_its_provenance_is_not_read(built):
    """The forged MLPerf file and the published run that claims an importer: self-reported in the
    database, with none of the notes or run logs they claim; the importer's own files keep theirs."""
    with duckdb.connect(str(built / "leaderboard.duckdb"), read_only=True) as connection:
        rows = dict(
            connection.execute(
                "SELECT entry_id, (method, import_notes IS NULL, scaling) FROM results WHERE entry_id IN (?, ?, ?)",
                [FORGED, "published/acme-labs/acme-vision", VERIFIED],
            ).fetchall()
        )
        logs = dict(
            connection.execute(
                "SELECT entry_id, count(log_path) FROM runs WHERE entry_id IN (?, ?) GROUP BY ALL", [FORGED, VERIFIED]
            ).fetchall()
        )
    assert rows[FORGED] == ("self-reported", True, None)
    assert rows["published/acme-labs/acme-vision"] == ("self-reported", True, None)
    assert rows[VERIFIED][0] == "computed-from-logs" and rows[VERIFIED][2] == "unscaled"
    assert logs == {FORGED: 0, VERIFIED: 5}
    entry = (built / "site" / "entries" / "published" / "acme-labs" / "acme-vision.html").read_text(encoding="utf-8")
    assert "audited by MLCommons staff" not in entry.split("Submission file")[0]


SELF_REPORTED = "Self-reported"


def test_the_site_labels_it_self_reported_and_gives_it_no_rank_record_or_best(built):
    site = built / "site"
    board = Page((site / "boards" / ROUND / "retinanet.html").read_text(encoding="utf-8"))
    forged = board.rows[FORGED]
    assert forged["attrs"]["data-rank"] == "" and forged["cells"][0] == "—"
    assert forged["attrs"]["data-ranked"] == "false"  # site.js re-ranks by another metric without it
    assert SELF_REPORTED in forged["cells"][2] and NOT_VERIFIED in forged["cells"][2]
    firsts = [e for e, r in board.rows.items() if r["attrs"]["data-rank"] == "1" and r["division"] == "closed"]
    assert firsts and FORGED not in firsts
    entry = (site / "entries" / f"{FORGED}.html").read_text(encoding="utf-8")
    assert unverified_note("mlperf-training") in entry and "Rank <strong>" not in entry
    feed = (site / "feed.xml").read_text(encoding="utf-8")
    assert "New result (self-reported): Tyche Fast" in feed
    assert "ranked result in its round: Tyche Fast" not in feed and "so far: Tyche Fast" not in feed
    gb200 = (site / "accelerators" / "gb200.html").read_text(encoding="utf-8")
    assert "Tyche Fast" in gb200 and SELF_REPORTED in gb200
    # No "best": the lineage, generation and home pages (fastest per round and scale, records) never name it.
    pages = [site / "index.html", *(site / "benchmarks").glob("*.html"), *(site / "generations").glob("*.html")]
    assert len(pages) > 2
    for path in pages:
        assert "tyche-fast-retinanet" not in path.read_text(encoding="utf-8"), path
    # The accelerator comparison holds it, labelled unranked, and never pairs it where a verified
    # GB200 result of its benchmark exists.
    text = (site / "data" / "accelerator-results.js").read_text(encoding="utf-8")
    data = json.loads(text.removeprefix("window.leaderboardAccelerators = ").rstrip().removesuffix(";"))
    forged = [i for i, r in enumerate(data["results"]) if r["id"] == FORGED]
    assert [data["results"][i]["ranked"] for i in forged] == [False]
    chosen = {i for found in data["pairs"].values() for _, a, b in found for i in (a, b)}
    assert forged[0] not in chosen
