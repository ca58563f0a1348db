"""The plausibility check: new results against the verified ones and the compute floor, on the
shipped tree through `check-pr`, plus its arithmetic one case per row."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, SHARED_DATA, run_cli

from leaderboard.catalog import Catalog, Override, PeakRate, TrainingCompute
from leaderboard.files import dump_yaml
from leaderboard.importers import compute
from leaderboard.review import plausibility
from leaderboard.review.plausibility import ComputeFloor, Verdict, _times, reference_chips
from leaderboard.rows import table_rows
from leaderboard.validate import validate_paths

ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "PATH": "/usr/bin:/bin",
}


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=ENV)


# ---- arithmetic ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chips", "verified", "expected"),
    [
        (8, [8, 16, 64], 8),  # the same scale
        (12, [8, 16, 64], 8),  # the largest at or below, though 16 is as near on a log scale
        (1000, [8, 16, 64], 64),  # far above: the largest below
        (1, [8, 16, 64], 8),  # below every verified scale: the nearest above
        (8, [], None),  # nothing verified
    ],
)
def test_reference_chips(chips, verified, expected):
    assert reference_chips(chips, verified) == expected


def row(entry_id="x/y/z", chips=8.0, minutes=60.0, accelerator="h100", verified=False, benchmark="bert", **more):
    return {
        "entry_id": entry_id,
        "file": f"submissions/{entry_id}.yaml",
        "chips": chips,
        "minutes": minutes,
        "chip_hours": chips * minutes / 60,
        "accelerator": accelerator,
        "verified": verified,
        "benchmark": benchmark,
        "division": "closed",
        "model_name": more.get("model_name"),
        "round_kind": more.get("round_kind", "published"),
    }


@pytest.mark.parametrize(
    ("minutes", "best_minutes", "ratio", "implausible"),
    [
        (60, 60, 1.0, False),
        (40, 60, 1.5, False),  # exactly the limit passes
        (39, 60, 60 / 39, True),
        (120, 60, 0.5, False),  # slower than verified is never implausible
    ],
)
def test_per_chip_ratio_and_limit(minutes, best_minutes, ratio, implausible):
    result = plausibility.per_chip(row(minutes=minutes), [row("v/a/b", minutes=best_minutes, verified=True)])
    assert result.ratio == pytest.approx(ratio)
    assert result.implausible is implausible


PEAK = PeakRate("h100", 1e15, "tensor FP16/BF16", "NVIDIA H100")


@pytest.mark.parametrize(
    ("chips", "seconds", "needed", "implausible"),
    [
        (1, 100, 1e17, False),  # exactly the peak: possible
        (1, 99, 1e17, True),
        (8, 3600, 1e19, False),
        (8, 60, 1e19, True),
    ],
)
def test_compute_floor(chips, seconds, needed, implausible):
    assert ComputeFloor(PEAK, chips, seconds, needed, "test").implausible is implausible


def catalog_with(**models) -> Catalog:
    return Catalog(
        peak_flop_s={"h100": PEAK},
        training_compute={m: TrainingCompute(m, f, "Training compute (FLOP)") for m, f in models.items()},
    )


@pytest.mark.parametrize(
    ("verified", "model", "expected_flop", "source_starts"),
    [
        ([], "GPT-X", 1e21, "Epoch AI, Training compute (FLOP) of 'GPT-X'"),  # no verified: the model's compute
        ([row("v/a/b", chips=4, minutes=10, verified=True)], "GPT-X", 4 * 600 * 1e15 / 2, "derived"),  # verified win
        ([], "Unknown", None, None),
    ],
)
def test_needed_flop_prefers_the_verified_results_then_the_models_compute(
    verified, model, expected_flop, source_starts
):
    found = plausibility.needed_flop(row(model_name=model), verified, catalog_with(**{"GPT-X": 1e21}))
    if expected_flop is None:
        assert found is None
    else:
        assert found[0] == pytest.approx(expected_flop)
        assert found[1].startswith(source_starts)


def test_a_dawnbench_entry_is_not_held_to_its_models_full_training():
    """A DAWNBench entry trains only to the benchmark's target: its model's compute (Epoch's, of
    the paper's training) is no floor for it."""
    catalog = catalog_with(**{"GPT-X": 1e21})
    assert plausibility.needed_flop(row(model_name="GPT-X", round_kind="dawnbench"), [], catalog) is None
    assert plausibility.needed_flop(row(model_name="GPT-X"), [], catalog) is not None


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("Pythia-12b", "Pythia-12b"),  # exact
        ("Pythia-12B", "Pythia-12b"),  # case aside
        ("pythia 12_b", "Pythia-12b"),  # spaces, hyphens and underscores aside
        ("Pythia-1.2B", None),  # a dot stays: another model
        ("GPT 2", None),  # two names compare equal: neither is taken
        ("", None),
        ("GPT-3 175B", "GPT-3 175B (davinci)"),  # what Epoch says in brackets aside
        ("GPT3 175B davinci", "GPT-3 175B (davinci)"),  # every sign but a dot aside
        ("gpt-3 175b [davinci]", "GPT-3 175B (davinci)"),
        ("GPT-3 13B", "GPT-3 13B"),  # a name that matches as it is wins over one with an aside
        ("Chinchilla", None),  # two models once their asides go: neither is taken
        ("GPT-3", None),  # a name's start is not the name
    ],
)
def test_a_models_compute_is_found_by_its_name_case_and_separators_aside(name, found):
    catalog = catalog_with(
        **{
            "Pythia-12b": 1e22,
            "GPT-2": 1e21,
            "GPT2": 2e21,
            "GPT-3 175B (davinci)": 3.14e23,
            "GPT-3 13B": 2.3e22,
            "GPT-3 13B (research)": 2.3e22,
            "Chinchilla (70B)": 5.8e23,
            "Chinchilla (7B)": 5.8e22,
        }
    )
    known = plausibility.training_compute_of(name, catalog)
    assert (known.model if known else None) == found


def test_an_override_lets_a_finding_through_and_keeps_it():
    floor = ComputeFloor(PEAK, 1, 1, 1e20, "test")
    assert Verdict("a", "f", None, floor).fails
    overridden = Verdict(
        "a",
        "f",
        None,
        floor,
        Override("a", "measured twice, logs attached", "maintainer", ("h100-sxm5-80gb", 8.0, 1.0)),
    )
    assert not overridden.fails and overridden.findings


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (row(), ()),  # a verified neighbour and a peak rate: everything compared
        (row(accelerator="mystery"), ("no verified bert result on mystery (closed) to compare with",
                                      "no peak FLOP/s for mystery in catalog/compute-epoch.yaml: no compute floor")),
        (row(benchmark="language", model_name="Zeta"), ("no verified language result on h100 (closed) to compare with",
                                                        "no training compute known for model 'Zeta': no compute floor")),
        (row(benchmark="language", model_name="GPT-Y"), ("no verified language result on h100 (closed) to compare with",
                                                         "no training compute known for model 'GPT-Y' (closest in "
                                                         "catalog/compute-epoch.yaml: GPT-X): no compute floor")),
        (row(benchmark="language", model_name="GPT-X"), ("no verified language result on h100 (closed) to compare with",)),
    ],
)  # fmt: skip
def test_what_could_not_be_compared_is_said(result, expected):
    verified = [row("v/a/b", minutes=60, verified=True)]
    (verdict,) = plausibility.check([*verified, result], [result["entry_id"]], catalog_with(**{"GPT-X": 1e19}))
    assert verdict.not_compared == expected
    assert not verdict.fails


def test_verified_results_are_not_checked_they_are_the_evidence():
    rows = [row("v/a/b", minutes=1, verified=True), row("v/a/c", minutes=60, verified=True)]
    assert plausibility.check(rows, ["v/a/b", "v/a/c"], catalog_with()) == []


# ---- the importer ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        ({"Tensor-FP16/BF16 performance (FLOP/s)": "312000000000000", "FP32 (single precision) performance (FLOP/s)": "19500000000000"}, ("tensor FP16/BF16", 312e12)),
        ({"FP16 (half precision) performance (FLOP/s)": "177200000000", "FP32 (single precision) performance (FLOP/s)": "11340000000000"}, ("FP32", 11.34e12)),  # a crippled FP16 rate: FP32 is the peak
        ({"FP16 (half precision) performance (FLOP/s)": "22300000000000"}, ("FP16", 22.3e12)),
        ({}, None),
    ],
)  # fmt: skip
def test_peak_rate_is_the_fastest_16_bit_or_wider_rate(cells, expected):
    assert compute.peak_rate(cells) == expected


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        ({"Training compute (FLOP)": "3.14e23"}, ("Training compute (FLOP)", 3.14e23)),
        ({"Base model": "LLaMA-7B", "Training compute (FLOP)": "4e22", "Finetune compute (FLOP)": "1e19"}, ("Finetune compute (FLOP)", 1e19)),
        ({"Base model": "LLaMA-7B", "Training compute (FLOP)": "4e22"}, None),  # the fine-tune's compute is unknown
        ({"Training compute (FLOP)": ""}, None),
        # Epoch's export holds the first digit of the note's estimate for some: no count, unknown.
        ({"Base model": "Gemma 2 9B", "Training compute (FLOP)": "4.4e23", "Finetune compute (FLOP)": "3"}, None),
        ({"Base model": "Qwen2.5-32B", "Finetune compute (FLOP)": "902400000000"}, ("Finetune compute (FLOP)", 9.024e11)),
        ({"Training compute (FLOP)": "40"}, ("Training compute (FLOP)", 40.0)),  # Theseus (1950): a real count
    ],
)  # fmt: skip
def test_a_fine_tuned_models_compute_is_its_fine_tuning(cells, expected):
    assert compute.model_compute(cells) == expected


HARDWARE_CSV = SHARED_DATA / "reference" / "epoch-ml-hardware.csv"
MODELS_CSV = SHARED_DATA / "reference" / "epoch-ai-models.csv"


@pytest.mark.skipif(not HARDWARE_CSV.is_file() or not MODELS_CSV.is_file(), reason="Epoch AI exports not here")
def test_the_shipped_compute_file_is_what_import_compute_writes(empty_project):
    (empty_project / "catalog" / compute.OUTPUT_NAME).unlink()
    result = run_cli("import-flops", HARDWARE_CSV, MODELS_CSV, cwd=empty_project)
    assert result.code == 0, result.out + result.err
    assert "wrote: catalog/compute-epoch.yaml" in result.out
    shipped = (ROOT / "catalog" / compute.OUTPUT_NAME).read_text(encoding="utf-8")
    assert (empty_project / "catalog" / compute.OUTPUT_NAME).read_text(encoding="utf-8") == shipped
    again = run_cli("import-flops", HARDWARE_CSV, MODELS_CSV, cwd=empty_project)
    assert "unchanged: catalog/compute-epoch.yaml" in again.out
    # No floor a run of any model clears: the digits Epoch's export gives for some fine-tunings.
    assert re.search(r"\d+ fine-tuned models give a fine-tuning compute under 1,000,000 FLOP", result.out)
    floors = yaml.safe_load(shipped)["training_compute"]
    assert not [f["model"] for f in floors if f["column"] == compute.FINETUNE and f["flop"] < compute.LEAST_FINETUNE]
    assert "Segment Anything Model" not in {f["model"] for f in floors}


# ---- the shipped tree -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped_rows():
    validation = validate_paths([ROOT / "submissions"], ROOT / "catalog", tree=ROOT / "submissions", root=ROOT)
    return table_rows(validation.entries, validation.catalog, base=ROOT).results, validation.catalog


def test_every_shipped_result_passes(shipped_rows):
    rows, catalog = shipped_rows
    verdicts = plausibility.check(rows, [r["entry_id"] for r in rows], catalog)
    assert verdicts, "the unverified results are checked"
    assert [v.entry_id for v in verdicts if v.fails] == []
    overridden = {v.entry_id for v in verdicts if v.findings}
    assert overridden == set(catalog.plausibility_overrides), "an override for a result that needs none is stale"


def test_verified_results_checked_as_if_self_reported_rarely_fail(shipped_rows):
    """Verified results are exempt (recomputed from logs), but the rule must hold on them: an
    MLPerf Training result checked against all the other verified ones fails in under 1% of cases
    (21 of 2,149 today). Those that do are real leaps: a round's new software (Gaudi2 GPT-3 in v3.1, H100
    Stable Diffusion in v4.0), a rule change (MiniGo v0.6 -> v0.7), open-division methods
    (MosaicML). Comparing with earlier-or-same rounds only would fail more (a round's leap is
    then compared with the slower past alone), so every round is compared with."""
    rows, catalog = shipped_rows
    # MLPerf HPC is left out: its rounds are closed to pull requests, so none of its results is
    # ever checked, and its few systems per part leapt between rounds (7 of its 90 would fail).
    verified = [r for r in rows if r["verified"] and r["round_kind"] == "mlperf-training"]
    as_claims = [{**r, "verified": False} for r in verified]
    failing, checked = [], 0
    for claim in as_claims:
        others = [r for r in verified if r["entry_id"] != claim["entry_id"]] + [claim]
        (verdict,) = plausibility.check(others, [claim["entry_id"]], Catalog(peak_flop_s=catalog.peak_flop_s))
        checked += verdict.per_chip is not None
        failing += [claim["entry_id"]] if verdict.fails else []
    assert checked > 1500
    assert len(failing) / len(verified) < 0.01, failing


# ---- check-pr on the shipped tree -----------------------------------------------------------

BERT = """\
schema_version: 1
round: mlperf-training-v4.0
benchmark: bert
division: closed
availability: available
submitter: Fast Labs
date: "2024-06-12"
system:
  name: fast-8
  accelerator: h100-sxm5-80gb
  count: 8
  unit: chip
result:
  minutes: 0.053
  quality: 0.721
  quality_target: 0.72
source:
  url: https://example.com/fast/bert
"""

GPT3 = """\
schema_version: 1
round: mlperf-training-v4.0
benchmark: gpt3
division: closed
availability: available
submitter: Fast Labs
date: "2024-06-12"
system:
  name: fast-1
  accelerator: h100-sxm5-80gb
  count: 1
  unit: chip
result:
  minutes: 1
  quality: 2.69
  quality_target: 2.69
source:
  url: https://example.com/fast/gpt3
"""

PUBLISHED = """\
schema_version: 1
round: published
benchmark: language
division: open
availability: available
submitter: Fast Labs
date: "2023-05-01"
system:
  name: 64 x NVIDIA A100
  accelerator: a100-sxm4-80gb
  count: 64
  unit: chip
model:
  name: GPT-3 175B (davinci)
result:
  minutes: MINUTES
source:
  url: https://example.com/fast/gpt3-175b
"""


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("base")
    shutil.copytree(ROOT / "catalog", repo / "catalog")
    shutil.copytree(ROOT / "submissions", repo / "submissions")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


@pytest.fixture
def repo(base_repo, tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(base_repo, copy)
    git(copy, "checkout", "-q", "-b", "pr")
    return copy


def submit(repo: Path, name: str, text: str) -> None:
    path = repo / "submissions" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")


def test_bert_on_8_h100_in_3_seconds_fails_with_the_comparison(repo):
    submit(repo, "mlperf-training-v4.0/fast-labs/bert-8.yaml", BERT)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out + result.err
    line = next(x for x in result.out.splitlines() if "implausibly fast per chip" in x)
    assert line.startswith("submissions/mlperf-training-v4.0/fast-labs/bert-8.yaml:14:12: $.result.minutes: ")
    assert "8 h100-sxm5-80gb, 0.053 min = 0.00707 chip-hours; best verified on h100-sxm5-80gb at 8 chips" in line
    assert "better per chip; limit 1.5x better" in line
    assert "below the compute floor" in line and "derived: the smallest peak FLOP x chip-seconds" in line
    assert "plausibility-overrides.yaml" in line


def test_gpt3_on_one_chip_in_one_minute_fails_both_ways(repo):
    submit(repo, "mlperf-training-v4.0/fast-labs/gpt3-1.yaml", GPT3)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    line = next(x for x in result.out.splitlines() if "$.result.minutes: implausibly fast" in x)
    assert "1 h100-sxm5-80gb, 1 min = 0.0167 chip-hours; best verified on h100-sxm5-80gb at " in line
    assert "x 1 chips x 60 s = 5.936e16 FLOP; the training needs at least" in line


@pytest.mark.parametrize("model", ["GPT-3 175B (davinci)", "GPT-3 175B", "GPT3 175B davinci"])
def test_a_published_run_far_below_its_epoch_compute_fails(repo, model):
    """However the model's name is written: Epoch's name, without its aside, without its signs."""
    text = PUBLISHED.replace("MINUTES", "60").replace("name: GPT-3 175B (davinci)", f"name: {model}")
    submit(repo, "published/fast-labs/gpt-3.yaml", text)
    result = run_cli("check-pr", "--base", "main", cwd=repo, env={"COLUMNS": "400"})
    assert result.code == 1
    assert (
        "$.result.minutes: below the compute floor: peak 3.12e14 FLOP/s (tensor FP16/BF16, NVIDIA A100 SXM4 80 GB) "
        "x 64 chips x 3600 s = 7.188e19 FLOP; the training needs at least 3.14e23 FLOP "
        "(Epoch AI, Training compute (FLOP) of 'GPT-3 175B (davinci)'): 4,368x too little"
    ) in result.out


def test_an_honest_self_reported_run_passes_and_shows_its_comparison(repo):
    honest = PUBLISHED.replace("64 x", "1024 x").replace("count: 64", "count: 1024").replace("MINUTES", "43200")
    submit(repo, "published/fast-labs/gpt-3.yaml", honest)  # 1,024 A100 for 30 days: 2.6x the compute it needs
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0, result.out
    assert "compute floor: peak 3.12e14 FLOP/s" in result.out and ": enough" in result.out


def test_a_verified_result_copied_with_its_minutes_halved_fails(repo):
    """Issue 22's first case: a verified GB200 RetinaNet file under a new name, minutes halved."""
    data = yaml.safe_load((repo / "submissions/mlperf-training-v5.0/dell/1xXE9712x4GB200-retinanet.yaml").read_text())
    data["submitter"], data["system"]["name"] = "Dell Labs", "forged"
    data["result"]["minutes"] /= 2
    data["result"]["runs_minutes"] = [m / 2 for m in data["result"]["runs_minutes"]]
    forged = dump_yaml(data)
    submit(repo, "mlperf-training-v5.0/dell-labs/1xXE9712x4GB200-retinanet.yaml", forged)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    assert "implausibly fast per chip: 4 gb200" in result.out and "2x better per chip; limit 1.5x better" in result.out


def test_a_result_with_nothing_to_compare_with_passes_and_says_so(repo):
    # A self-reported run (MLPerf rounds are closed to pull requests) on a part without a peak
    # rate, of a model Epoch AI does not list: nothing to compare it with, and it says so.
    text = (
        PUBLISHED.replace("a100-sxm4-80gb", "rtx-pro-6000-server")
        .replace("GPT-3 175B (davinci)", "Fast-LM 1B")
        .replace("MINUTES", "400")
    )
    submit(repo, "published/fast-labs/fast-lm-1b.yaml", text)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 0, result.out
    assert "  not compared: no verified language result on rtx-pro-6000-server (open) to compare with" in result.out
    assert "  not compared: no peak FLOP/s for rtx-pro-6000-server in catalog/compute-epoch.yaml" in result.out
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    assert "### Plausibility: what each result was compared with" in markdown


def _override_on_main(repo: Path) -> None:
    """On main, the override of BERT on 8 H100s (the file written, not committed)."""
    git(repo, "checkout", "-q", "main")
    overrides = repo / "catalog" / "plausibility-overrides.yaml"
    overrides.write_text(
        overrides.read_text()
        + "  - entry_id: mlperf-training-v4.0/fast-labs/bert-8\n"
        + "    reason: a new algorithm, reproduced by the maintainers on our hardware\n"
        + "    approved_by: some-maintainer\n"
        + "    approved_for: {accelerator: h100-sxm5-80gb, chips: 8, minutes: 0.053}\n"
    )


def test_an_override_lets_it_through_but_the_comparison_and_reason_are_printed(repo):
    # The override is merged first, on its own (one in the same pull request does not apply:
    # test_checkpr_trusted_inputs.py).
    _override_on_main(repo)
    git(repo, "commit", "-qam", "override, merged by a maintainer")
    git(repo, "checkout", "-q", "-b", "pr-after-the-override")
    submit(repo, "mlperf-training-v4.0/fast-labs/bert-8.yaml", BERT)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert "implausibly fast per chip" not in "".join(x for x in result.out.splitlines() if x.startswith("submissions"))
    assert "plausibility override: mlperf-training-v4.0/fast-labs/bert-8" in result.out
    assert (
        "  let through: a new algorithm, reproduced by the maintainers on our hardware (approved by some-maintainer)"
        in result.out
    )
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo)
    assert "### Let through by a plausibility override" in markdown.out


def test_an_override_lets_through_only_the_numbers_it_was_approved_for(repo):
    """Merged with its result, an override stays: a later edit of the result's minutes (three
    times faster) is not let through by it, and says what the override was approved for."""
    _override_on_main(repo)
    path = repo / "submissions" / "mlperf-training-v4.0" / "fast-labs" / "bert-8.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(BERT)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the result and its override, merged by a maintainer")
    git(repo, "checkout", "-q", "-b", "pr-edits-the-result")
    submit(repo, "mlperf-training-v4.0/fast-labs/bert-8.yaml", BERT.replace("minutes: 0.053", "minutes: 0.0183"))
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out
    assert "let through" not in result.out
    assert (
        "the override in catalog/plausibility-overrides.yaml was approved for 8 h100-sxm5-80gb chips in 0.053 "
        "minutes, and this result gives 8 h100-sxm5-80gb chips in 0.0183 minutes: it applies again once a code "
        "owner approves it for these numbers (its approved_for)"
    ) in result.out


def test_an_override_without_a_reason_or_approver_is_refused(repo):
    overrides = repo / "catalog" / "plausibility-overrides.yaml"
    overrides.write_text(overrides.read_text() + "  - entry_id: mlperf-training-v4.0/fast-labs/bert-8\n")
    submit(repo, "mlperf-training-v4.0/fast-labs/bert-8.yaml", BERT)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1
    assert "catalog/plausibility-overrides.yaml:" in result.out
    assert "missing required field 'reason'" in result.out and "missing required field 'approved_by'" in result.out
    assert "missing required field 'approved_for'" in result.out


@pytest.mark.parametrize(
    "ratio, shown",
    [(1.05, "1.05x"), (1.0001, "1x"), (2.5, "2.5x"), (9.876, "9.88x"), (10, "10x"), (4368.2, "4,368x")],
)
def test_a_ratio_just_over_one_keeps_its_digits(ratio, shown):
    assert _times(ratio) == shown


def test_every_shipped_override_covers_its_result_as_shipped():
    """An override approved for other numbers than its result's (a re-import that changed them)
    would silently stop applying: each shipped one covers its result."""
    catalog_dir = ROOT / "catalog"
    overrides = yaml.safe_load((catalog_dir / "plausibility-overrides.yaml").read_text())["overrides"]
    files = [ROOT / "submissions" / f"{o['entry_id']}.yaml" for o in overrides]
    result = validate_paths(files, catalog_dir)
    assert result.ok, result.problems[:3]
    rows = {r["entry_id"]: r for r in table_rows(result.entries, result.catalog).results}
    for entry_id, override in result.catalog.plausibility_overrides.items():
        assert plausibility.covers(override, rows[entry_id]), (entry_id, override.approved_for)
