"""Accelerator families, canonical organizations and the rank within availability: the pure
matching rules, the catalog's checks (file, line, column) and the columns, by SQL on the shipped data."""

from __future__ import annotations

import os

import duckdb
import pytest
from conftest import ROOT, run_cli

from leaderboard.build import build
from leaderboard.organizations import Organization, canonical_names, name_key, organization_of

ORGS = (
    Organization("dell", "Dell", ("Dell EMC",), "src"),
    Organization("habana", "Intel Habana Labs", ("HabanaLabs", "Intel-HabanaLabs"), "src"),
)


@pytest.mark.parametrize(
    ("submitter", "organization"),
    [
        ("Dell", "Dell"),
        ("Dell EMC", "Dell"),
        ("dell emc", "Dell"),  # case, spaces and punctuation do not matter
        ("DellEMC", "Dell"),
        ("HabanaLabs", "Intel Habana Labs"),
        ("Intel-HabanaLabs", "Intel Habana Labs"),
        ("Intel Habana Labs", "Intel Habana Labs"),
        ("Intel", "Intel"),  # not listed: its own organization, as published
        ("NVIDIA+CoreWeave", "NVIDIA+CoreWeave"),
        ("Dell EMC Labs", "Dell EMC Labs"),  # a longer name is another name
    ],
)
def test_organization_of(submitter, organization):
    assert organization_of(submitter, canonical_names(ORGS)) == organization


@pytest.mark.parametrize(
    ("name", "key"),
    [("Dell EMC", "dellemc"), ("Quanta_Cloud_Technology", "quantacloudtechnology"), ("Intel(R) Corp.", "intelrcorp")],
)
def test_name_key(name, key):
    assert name_key(name) == key


@pytest.fixture(scope="module")
def shipped_db(tmp_path_factory):
    """The database of the shipped catalog and submissions (no site)."""
    db = tmp_path_factory.mktemp("orgs") / "leaderboard.duckdb"
    outcome = build(ROOT / "submissions", ROOT / "catalog", db, None)
    assert not outcome.problems, [p.format() for p in outcome.problems[:5]]
    with duckdb.connect(str(db), read_only=True) as con:
        yield con


def rows(con, query):
    return con.sql(query).fetchall()


def test_every_h100_variant_shares_one_family(shipped_db):
    parts = rows(shipped_db, "SELECT id FROM accelerators WHERE name LIKE 'H100%' ORDER BY id")
    assert len(parts) >= 3
    assert rows(shipped_db, "SELECT DISTINCT family FROM accelerators WHERE name LIKE 'H100%'") == [("H100",)]
    variants = rows(shipped_db, "SELECT count(DISTINCT accelerator) FROM results WHERE accelerator_family = 'H100'")[0][
        0
    ]
    assert variants >= 3  # SXM5, PCIe and NVL results all answer to H100
    assert rows(shipped_db, "SELECT DISTINCT family FROM accelerators WHERE id LIKE 'a100-%'") == [("A100",)]


def test_results_family_is_its_accelerators(shipped_db):
    assert rows(
        shipped_db,
        "SELECT count(*) FROM results r JOIN accelerators a ON a.id = r.accelerator "
        "WHERE r.accelerator_family IS DISTINCT FROM a.family",
    ) == [(0,)]
    assert rows(shipped_db, "SELECT count(*) FROM accelerators WHERE family IS NULL OR family = ''") == [(0,)]


def test_dell_emc_and_dell_are_one_organization(shipped_db):
    found = rows(
        shipped_db,
        "SELECT submitter, list(DISTINCT organization) FROM results "
        "WHERE submitter IN ('Dell', 'Dell EMC', 'HabanaLabs', 'Intel-HabanaLabs') GROUP BY 1 ORDER BY 1",
    )
    assert found == [
        ("Dell", ["Dell"]),
        ("Dell EMC", ["Dell"]),
        ("HabanaLabs", ["Intel Habana Labs"]),
        ("Intel-HabanaLabs", ["Intel Habana Labs"]),
    ]


def test_a_submitter_the_catalog_does_not_list_is_its_own_organization(shipped_db):
    assert rows(
        shipped_db,
        "SELECT count(*) FROM results WHERE organization <> submitter AND lower(submitter) NOT IN "
        "(SELECT lower(trim(unnest(string_split(aliases, ' | ')))) FROM organizations)",
    ) == [(0,)]
    assert rows(shipped_db, "SELECT DISTINCT organization FROM results WHERE submitter = 'NVIDIA'") == [("NVIDIA",)]


RANKS = """
SELECT entry_id, {column},
       rank() OVER (PARTITION BY round, benchmark, division{extra} ORDER BY
                    CASE WHEN round_kind = 'published' THEN chip_hours
                         WHEN models_per_minute IS NOT NULL THEN -models_per_minute ELSE minutes END) AS expected
FROM results WHERE ranked
"""


@pytest.mark.parametrize(("column", "extra"), [("rank", ""), ("rank_in_availability", ", availability")])
def test_ranks_across_and_within_availabilities(shipped_db, column, extra):
    """rank orders round x benchmark x division whatever the availability; rank_in_availability
    orders each availability apart; both NULL for a result that is not ranked."""
    wrong = rows(shipped_db, f"SELECT * FROM ({RANKS.format(column=column, extra=extra)}) WHERE {column} <> expected")
    assert wrong == []
    assert rows(shipped_db, f"SELECT count(*) FROM results WHERE NOT ranked AND {column} IS NOT NULL") == [(0,)]
    assert rows(shipped_db, f"SELECT count(*) FROM results WHERE ranked AND {column} IS NULL") == [(0,)]
    # Boards that mix availabilities exist, so the two ranks really differ somewhere.
    assert rows(shipped_db, "SELECT count(*) FROM results WHERE rank <> rank_in_availability")[0][0] > 0


def _edit(project, name, old, new):
    path = project / "catalog" / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_name_two_organizations_claim_is_refused_with_its_place(empty_project):
    _edit(empty_project, "organizations.yaml", "aliases: [GigaComputing]", "aliases: [GigaComputing, Dell-EMC]")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    where = os.path.join("catalog", "organizations.yaml")
    assert "'Dell-EMC' already names organization 'dell'" in result.out
    line = next(line for line in result.out.splitlines() if "Dell-EMC" in line)
    assert line.startswith(where) and "$.organizations[3].aliases[1]" in line, line
    assert "remove the name here or there" in result.out


def test_a_family_spelled_two_ways_is_refused(empty_project):
    _edit(empty_project, "accelerators.yaml", "name: H100 PCIe\n    family: H100", "name: H100 PCIe\n    family: h-100")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "family 'h-100' is spelled 'H100' elsewhere" in result.out
    assert "write family: H100" in result.out


def test_an_accelerator_without_a_family_is_refused(empty_project):
    _edit(empty_project, "accelerators.yaml", "name: H100 PCIe\n    family: H100\n", "name: H100 PCIe\n")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "family" in result.out and "accelerators.yaml" in result.out
