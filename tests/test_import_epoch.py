"""import-epoch: Epoch AI's notable-models database as published training runs, and the
comparison of our cost with Epoch's."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pytest
import yaml
from conftest import ROOT, run_cli, write_epoch_csv

from leaderboard.catalog import load_catalog
from leaderboard.identity import paper_key
from leaderboard.importers.epoch import (
    REQUIRED_COLUMNS,
    Run,
    Skipped,
    domain_benchmark,
    submission_from_row,
    submitter_name,
)

COLUMNS = [*REQUIRED_COLUMNS, "Reference", "Training chip-hours"]
TODAY = dt.date(2026, 1, 1)


def model_row(**cells: str) -> dict[str, str]:
    row = {
        "Model": "Tiny-LM",
        "Domain": "Language",
        "Organization": "Acme Labs",
        "Publication date": "2021-03-01",
        "Link": "https://arxiv.org/abs/2103.00001v2",
        "Parameters": "1300000000.0",
        "Training hardware": "NVIDIA A100 SXM4 40 GB",
        "Hardware quantity": "64.0",
        "Training time (hours)": "24.0",
        "Training compute cost (2023 USD)": "$1234.56",
    }
    return {**row, **cells}


def write_models_csv(path: Path, rows: list[dict]) -> Path:
    """A models export as Epoch publishes it: UTF-8 with a byte order mark, quoted multi-line cells."""
    return write_epoch_csv(path, COLUMNS, rows)


FORMULA = '=HYPERLINK("https://evil.example","GPT-X")'
SMALL_EXPORT = [
    model_row(),  # row 2: written
    model_row(Model="Mixed", **{"Training hardware": "NVIDIA A100,NVIDIA V100"}),  # 3
    model_row(Model="No count", **{"Hardware quantity": ""}),  # 4
    model_row(Model="Zero time", **{"Training time (hours)": "0"}),  # 5
    model_row(Model="Negative time", **{"Training time (hours)": "-5"}),  # 6
    model_row(Model="Vague", **{"Hardware quantity": "about 64"}),  # 7
    model_row(Model="Wafer", **{"Training hardware": "Acme Wafer 9000"}),  # 8
    model_row(**{"Training hardware": "NVIDIA V100", "Training time (hours)": "10"}),  # 9: same name
    model_row(
        Model=FORMULA,
        Organization="Formula Org",
        Link='=HYPERLINK("https://evil.example")',
        Domain="Multimodal,Language,Vision",
        Parameters="",
        **{"Training compute cost (2023 USD)": ""},
    ),  # 10
    model_row(
        Model="BERT-Large",
        Organization="Google",
        Link="https://arxiv.org/abs/1810.04805",
        **{
            "Publication date": "2018-10-11",
            "Training hardware": "Google TPU v2",
            "Hardware quantity": "64.0",
            "Training time (hours)": "96.0",
        },
    ),  # 11: hand-typed
]


# ---- pure functions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "domain, benchmark",
    [
        ("Language", "language"),
        ("Vision", "vision"),
        ("Image generation", "vision"),
        ("Speech", "speech"),
        ("Audio", "speech"),
        ("Multimodal,Language,Vision", "multimodal"),
        ("Vision,Language", "multimodal"),
        ("Mathematics,Language", "language"),
        ("Biology", "biology"),
        ("Medicine", "biology"),
        ("Robotics,Vision,Language", "robotics"),
        ("Multimodal,Games", "games"),
        ("Materials science", "science"),
        ("Vision,Search", "vision"),
        ("Recommendation", "recommendation"),
        ("Astrology", "other"),
        ("", "other"),
    ],
)
def test_domain_benchmark(domain, benchmark):
    assert domain_benchmark(domain) == benchmark


@pytest.mark.parametrize(
    "cell, submitter, full_list",
    [
        ("Google", "Google", None),
        ("Heriot-Watt University,DeepMind", "Heriot-Watt University, DeepMind", None),
        (
            'Stanford University,"SambaNova Systems, Inc",Adobe',
            "Stanford University, SambaNova Systems, Inc, Adobe",
            None,
        ),
        (
            ",".join(f"University {i}" for i in range(12)),
            "University 0 et al.",
            ", ".join(f"University {i}" for i in range(12)),
        ),
        ("", "", None),
    ],
)
def test_submitter_name(cell, submitter, full_list):
    assert submitter_name(cell) == (submitter, full_list)


@pytest.mark.parametrize(
    "url, key",
    [
        ("https://arxiv.org/abs/1810.04805", "arxiv:1810.04805"),
        ("https://arxiv.org/pdf/1810.04805v2.pdf", "arxiv:1810.04805"),
        ("http://www.example.com/paper/", "example.com/paper"),
        ("https://huggingface.co/01-ai/Yi-VL-34B?tab=readme", "huggingface.co/01-ai/yi-vl-34b"),
        ("https://example.com/paper.pdf#page=3", "example.com/paper"),
        ("https://example.com/paper?utm_source=x&utm_medium=y", "example.com/paper"),
        ("https://openreview.net/forum?id=H1gX8C4YPr", "openreview.net/forum?id=H1gX8C4YPr"),
        ("https://openreview.net/forum?id=H1gX8C4YPr&ref=feed", "openreview.net/forum?id=H1gX8C4YPr"),
        ("https://example.com/p?b=2&a=1", "example.com/p?a=1&b=2"),
        (None, None),
    ],
)
def test_paper_key(url, key):
    assert paper_key(url) == key


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(Path(__file__).resolve().parent.parent / "catalog")


@pytest.mark.parametrize(
    "cells, reason",
    [
        ({"Training hardware": "NVIDIA A100,NVIDIA V100"}, "several hardware types (NVIDIA A100, NVIDIA V100)"),
        ({"Training hardware": ""}, "no training hardware"),
        ({"Hardware quantity": ""}, "no hardware quantity"),
        ({"Hardware quantity": "about 64"}, "hardware quantity 'about 64' is not a number"),
        ({"Hardware quantity": "1.5"}, "hardware quantity 1.5 is not a whole number of chips"),
        ({"Training time (hours)": ""}, "no training time"),
        ({"Training time (hours)": "0"}, "training time 0 is not positive"),
        ({"Training time (hours)": "-5"}, "training time -5 is not positive"),
        ({"Training time (hours)": "nan"}, "training time 'nan' is not a number"),
        ({"Hardware quantity": "", "Training time (hours)": ""}, "no hardware quantity; no training time"),
        ({"Training hardware": "Acme Wafer 9000"}, "unknown hardware 'Acme Wafer 9000': add it as an alias"),
        ({"Publication date": "2031-01-01"}, "publication date 2031-01-01 lies in the future"),
        ({"Publication date": "soon"}, "no publication date ('soon')"),
        ({"Organization": ""}, "no organization"),
    ],
)
def test_rows_that_are_not_runs_say_why(catalog, cells, reason):
    outcome = submission_from_row(model_row(**cells), 7, catalog, TODAY)
    assert isinstance(outcome, Skipped) and outcome.row == 7
    assert outcome.reason.startswith(reason)


def test_a_row_becomes_a_submission(catalog):
    run = submission_from_row(model_row(), 2, catalog, TODAY)
    assert isinstance(run, Run)
    assert run.path == Path("acme-labs/tiny-lm.yaml")
    assert run.data == {
        "schema_version": 1,
        "round": "published",
        "benchmark": "language",
        "division": "open",
        "availability": "available",
        "submitter": "Acme Labs",
        "date": "2021-03-01",
        "system": {"name": "64 x NVIDIA A100 SXM4 40 GB", "accelerator": "a100-sxm4-40gb", "count": 64, "unit": "chip"},
        "model": {"name": "Tiny-LM", "parameters": 1300000000},
        "result": {"minutes": 1440},
        "provenance": {"method": "imported", "importer": "leaderboard import-epoch 1"},
        "source": {
            "url": "https://arxiv.org/abs/2103.00001v2",
            "citation": "Epoch AI, 'Notable AI Models' database (https://epoch.ai/data/notable-ai-models, CC BY 4.0)",
            "note": run.data["source"]["note"],
        },
        "reference_cost": {"usd": 1234.56, "year": 2023, "source": run.data["reference_cost"]["source"]},
    }


def test_a_link_that_is_not_http_moves_to_the_citation(catalog):
    run = submission_from_row(model_row(Link="arxiv.org/abs/2501.14818"), 2, catalog, TODAY)
    assert "url" not in run.data["source"]
    assert run.data["source"]["citation"].endswith("; link given there: arxiv.org/abs/2501.14818")


# ---- the command -----------------------------------------------------------------------------


def published(project: Path) -> Path:
    return project / "submissions" / "published"


def test_import_writes_runs_and_lists_every_skipped_row(project):
    export = write_models_csv(project / "models.csv", SMALL_EXPORT)
    bert = (published(project) / "google" / "bert-large.yaml").read_bytes()
    run = run_cli("import-epoch", export, "--list-skipped", cwd=project)
    assert run.code == 0, run.err
    assert "10 rows read; 2 runs: 2 files written, 0 unchanged" in run.out
    for line in [
        "row 3 'Mixed': several hardware types (NVIDIA A100, NVIDIA V100)",
        "row 4 'No count': no hardware quantity",
        "row 5 'Zero time': training time 0 is not positive",
        "row 6 'Negative time': training time -5 is not positive",
        "row 7 'Vague': hardware quantity 'about 64' is not a number",
        "row 8 'Wafer': unknown hardware 'Acme Wafer 9000'",
        "row 9 'Tiny-LM': duplicate model name: same organization and model as row 2",
    ]:
        assert line in run.out
    assert (
        "row 11 'BERT-Large' = submissions/published/google/bert-large.yaml: "
        "accelerator: Epoch tpu-v2, hand-typed tpu-v3"
    ) in run.out
    assert (published(project) / "google" / "bert-large.yaml").read_bytes() == bert
    assert run_cli("validate", "submissions", cwd=project).code == 0


def test_formula_looking_cells_stay_plain_text(project):
    export = write_models_csv(project / "models.csv", SMALL_EXPORT)
    assert run_cli("import-epoch", export, cwd=project).code == 0
    path = published(project) / "formula-org" / "hyperlink-https-evil-example-gpt-x.yaml"
    data = yaml.safe_load(path.read_text())
    assert data["model"]["name"] == FORMULA
    assert "url" not in data["source"]
    assert data["source"]["citation"].endswith('link given there: =HYPERLINK("https://evil.example")')
    assert data["benchmark"] == "multimodal"
    assert "reference_cost" not in data and "parameters" not in data["model"]


def test_reimport_is_byte_identical_and_a_hand_edit_does_not_survive_it(project):
    export = write_models_csv(project / "models.csv", SMALL_EXPORT)
    assert run_cli("import-epoch", export, cwd=project).code == 0
    path = published(project) / "acme-labs" / "tiny-lm.yaml"
    first = path.read_bytes()
    listed = (project / "catalog" / "imported" / "published.csv").read_bytes()
    assert run_cli("import-epoch", export, cwd=project).out.startswith(
        "10 rows read; 2 runs: 0 files written, 2 unchanged"
    )
    assert path.read_bytes() == first
    assert (project / "catalog" / "imported" / "published.csv").read_bytes() == listed

    edited = path.read_text().replace("  unit: chip\n", "  unit: chip\n  framework: JAX\n  nodes: 8\n")
    edited = edited.replace("  minutes: 1440\n", "  minutes: 1440\n  estimated: true\n")
    path.write_text(edited)
    assert run_cli("import-epoch", export, cwd=project).code == 0
    assert path.read_bytes() == first  # the importer's file, whole: what a fresh import writes
    assert run_cli("validate", "submissions", cwd=project).code == 0


def test_the_manifest_lists_every_imported_file_with_its_digest(empty_project):
    import hashlib

    from leaderboard import manifest

    project = empty_project
    export = write_models_csv(project / "models.csv", SMALL_EXPORT)
    assert run_cli("import-epoch", export, cwd=project).code == 0
    rows = manifest.read_rows(project / "catalog" / "imported" / "published.csv")
    files = sorted(p for p in published(project).rglob("*.yaml") if "method: imported" in p.read_text())
    assert [r["entry_id"] for r in rows] == [
        p.relative_to(project / "submissions").with_suffix("").as_posix() for p in files
    ]
    assert len(rows) == 3  # the written runs of SMALL_EXPORT (into a project without published runs)
    assert [r["sha256"] for r in rows] == [hashlib.sha256(p.read_bytes()).hexdigest() for p in files]
    assert manifest.load(project / "catalog") == manifest.load(ROOT / "catalog")  # imported is never verified


def test_a_file_taken_over_by_hand_is_never_overwritten(project):
    export = write_models_csv(project / "models.csv", SMALL_EXPORT[:1])
    assert run_cli("import-epoch", export, cwd=project).code == 0
    path = published(project) / "acme-labs" / "tiny-lm.yaml"
    owned = path.read_text().replace("method: imported", "method: self-reported").replace("count: 64", "count: 32")
    path.write_text(owned)
    run = run_cli("import-epoch", export, cwd=project)
    assert "row 2 'Tiny-LM' = submissions/published/acme-labs/tiny-lm.yaml: chips: Epoch 64, hand-typed 32" in run.out
    assert path.read_text() == owned


def test_epoch_cost_is_compared_with_ours_at_build(project, tmp_path):
    export = write_models_csv(project / "models.csv", SMALL_EXPORT[:1])
    assert run_cli("import-epoch", export, cwd=project).code == 0
    db = tmp_path / "e.duckdb"
    assert run_cli("build", "-q", "--db", db, "--out", tmp_path / "site", cwd=project).code == 0
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("""
            SELECT c.tier, c.our_cost_usd, k.cost_usd, c.our_cost_usd_2023, c.epoch_cost_usd_2023, c.ratio
            FROM epoch_cost_comparison c JOIN costs k USING (entry_id, tier)
            WHERE entry_id = 'published/acme-labs/tiny-lm' ORDER BY c.tier""").fetchall()
        result = con.execute("""SELECT chip_hours, cost_usd, cost_usd_today, cost_usd_today_basis, reference_cost_usd
                                FROM results WHERE entry_id = 'published/acme-labs/tiny-lm'""").fetchone()
    assert [r[0] for r in rows] == ["1-year", "3-year", "on-demand"]
    for _, ours, cost, ours_2023, epoch_2023, ratio in rows:
        assert ours == cost
        assert epoch_2023 == 1234.56
        assert ratio == pytest.approx(ours_2023 / epoch_2023)
    chip_hours, cost_usd, today, basis, reference = result
    assert chip_hours == 64 * 24 and reference == 1234.56
    assert basis.startswith("PCU518210518210, ") and today > cost_usd


def test_missing_columns_are_a_one_line_error(project):
    (project / "bad.csv").write_text("Model,Domain\nx,y\n")
    run = run_cli("import-epoch", "bad.csv", cwd=project)
    assert run.code == 1 and run.err.startswith("error: ") and "missing column(s)" in run.err


# ---- the real database -----------------------------------------------------------------------


def test_the_real_export_gives_the_chip_hours_the_papers_imply(shared_data, project, tmp_path):
    reference = shared_data / "reference"
    assert run_cli("import-prices", reference / "epoch-hardware-prices.csv", cwd=project).code == 0
    run = run_cli("import-epoch", reference / "epoch-ai-models.csv", cwd=project)
    assert run.code == 0, run.err
    assert "1,892 rows read; 289 runs: 0 files written, 289 unchanged" in run.out  # the shipped files, byte for byte
    assert "row 1513 'BERT-Large' = submissions/published/google/bert-large.yaml" in run.out
    # Megatron-BERT's hardware, corrected from the paper in a hand-typed file, stands for its row
    # only: Megatron-LM, from the same paper, is imported.
    assert "row 1449 'Megatron-BERT' = submissions/published/nvidia/megatron-bert.yaml" in run.out
    assert "row 1450" not in run.out
    assert "row 1390 'GPT-3 175B (davinci)' ~ submissions/published/nvidia/gpt-3-175b-estimate.yaml" in run.out
    assert "gpt-2.yaml" not in run.out  # 'GPT-2 (1.5B, Curriculum Learning 45K)' is another model
    db = tmp_path / "e.duckdb"
    build = run_cli("build", "-q", "--db", db, "--out", tmp_path / "site", cwd=project)
    assert build.code == 0, build.out + build.err
    with duckdb.connect(str(db), read_only=True) as con:
        chip_hours = dict(con.execute("SELECT entry_id, chip_hours FROM results WHERE round = 'published'").fetchall())
        compared = con.execute("SELECT count(DISTINCT entry_id) FROM epoch_cost_comparison").fetchone()[0]
    assert chip_hours["published/google/bert-large"] == 6_144  # 64 TPU v3 chips x 96 h (hand-typed, kept)
    assert chip_hours["published/google/xlnet-large"] == 30_720  # 512 chips x 60 h (Epoch has no count or time)
    assert chip_hours["published/nvidia/stylegan-ffhq-1024"] == 1_344  # 8 V100 x 168 h (not in Epoch's export)
    # GPT-3: Epoch records 10,000 V100 for 14.8 days (355.2 h), from Patterson et al. 2021.
    assert chip_hours["published/openai/gpt-3-175b-davinci"] == pytest.approx(3_552_000)
    assert chip_hours["published/nvidia/gpt-3-175b-estimate"] == 835_584  # the hand-typed A100 estimate stays too
    assert compared > 70


# ---- the comparison table ---------------------------------------------------------------------


def _comparison(reference_usd, reference_year, costs_by_tier, date="2019-06-19"):
    from leaderboard.catalog import Catalog, PriceIndex
    from leaderboard.store import comparison_rows

    catalog = Catalog(price_index=PriceIndex("T", "t", "https://x.example", {"2019-06": 100.0, "2023-01": 125.0}))
    rows = [
        {
            "entry_id": "published/a/m",
            "model_name": "M",
            "date": date,
            "reference_cost_usd": reference_usd,
            "reference_cost_year": reference_year,
        }
    ]
    cost_rows = [{"entry_id": "published/a/m", "tier": tier, "cost_usd": usd} for tier, usd in costs_by_tier.items()]
    return [
        (r["tier"], r["our_cost_usd"], r["our_cost_usd_2023"], r["ratio"])
        for r in comparison_rows(rows, cost_rows, catalog)
    ]


@pytest.mark.parametrize(
    "reference_usd, reference_year, costs_by_tier, expected",
    [
        (
            500.0,
            2023,
            {"on-demand": 1000.0, "1-year": 600.0, "3-year": 400.0, "spot": 300.0, "purchase": 9e4},
            [("on-demand", 1000.0, 1250.0, 2.5), ("1-year", 600.0, 750.0, 1.5), ("3-year", 400.0, 500.0, 1.0)],
        ),
        (500.0, 2023, {"on-demand": 1000.0, "1-year": None, "3-year": None}, [("on-demand", 1000.0, 1250.0, 2.5)]),
        (None, None, {"on-demand": 1000.0}, []),  # no estimate to compare with
        (500.0, 2020, {"on-demand": 1000.0}, []),  # not in 2023 dollars
    ],
)
def test_comparison_rows(reference_usd, reference_year, costs_by_tier, expected):
    assert _comparison(reference_usd, reference_year, costs_by_tier) == expected


def test_a_result_before_the_index_starts_has_no_2023_cost():
    assert _comparison(500.0, 2023, {"on-demand": 1000.0}, date="2010-01-01") == [("on-demand", 1000.0, None, None)]
