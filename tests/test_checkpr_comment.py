"""The bot's comment of a large pull request: a catalog change (which moves costs) can never be
pushed out of it by padding the pull request with many files, nor hidden behind a file name."""

import pytest
from conftest import run_cli
from test_checkpr import commit, repo  # noqa: F401 - the repository fixture
from test_validate import PUBLISHED

from leaderboard.checkpr_report import COMMENT_LIMIT, _within_limit

CHEAP = (
    "  - {accelerator: a100-sxm4-80gb, provider: Cheap Cloud, tier: on-demand, usd: 0.03, unit: chip-hour, "
    'date: "2021-01-01", includes_host: true, source: "https://example.org/cheap-cloud/pricing"}\n'
)


def _padded(repo, price_file: str, files: int) -> None:  # noqa: F811
    """A cheap price in `price_file` and `files` valid new published runs beside it, each its own."""
    folder = repo / "submissions" / "published" / "acme-labs"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        text = PUBLISHED.replace("Acme-LM", f"Acme-LM {i}").replace("minutes: 5760", f"minutes: {5760 + i}")
        (folder / f"pad-{i:03d}.yaml").write_text(text.replace("16 Cloud TPU v3", f"Pod {i}"))
    prices = repo / "catalog" / price_file
    if prices.exists():
        prices.write_text(prices.read_text() + CHEAP)
    else:
        prices.write_text("prices:\n" + CHEAP)
    commit(repo)


def test_a_catalog_change_stays_at_the_top_of_a_comment_too_long_for_github(repo):  # noqa: F811
    _padded(repo, "prices.yaml", 120)
    result = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo)
    comment = result.out
    assert len(comment) <= COMMENT_LIMIT
    assert "This comment is cut short" in comment.splitlines()[-1]
    effect, review = comment.index("Effect of the catalog change"), comment.index("Needs a code owner's review")
    assert effect < review < comment.index("catalog/prices.yaml") < comment.index("Where the entries would rank")


def test_hundreds_of_paths_cannot_push_the_effect_or_an_edit_out_of_the_comment(repo):  # noqa: F811
    """Padding with paths a code owner reviews (evidence files that sort before prices.yaml,
    issue templates): the effect and the catalog file the loader reads still show, first; the
    paths past the first 40 are counted by kind."""
    evidence = repo / "catalog" / "evidence"
    evidence.mkdir()
    for i in range(520):
        (evidence / f"price-page-snapshot-{i:03d}.txt").write_text(f"archived screenshot {i}\n")
    templates = repo / ".github" / "ISSUE_TEMPLATE"
    templates.mkdir(parents=True)
    for i in range(560):
        (templates / f"result-correction-{i:03d}.yml").write_text(f"name: t{i}\n")
    _padded(repo, "prices.yaml", 0)
    comment = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    assert "Effect of the catalog change" in comment and "Cheap Cloud" in comment
    review = comment.split("### ⚠️ Needs a code owner's review", 1)[1]
    assert review.index("catalog/prices.yaml") < review.index(".github/ISSUE_TEMPLATE/")
    assert "| 1,041 more paths | catalog 520, repository settings 521 |" in comment, review[-800:]
    assert len(comment) < COMMENT_LIMIT and "cut short" not in comment


@pytest.mark.parametrize("name", ["prices-pnpm-lock.yaml", "prices-package-lock.json"])
def test_a_price_file_named_like_a_lockfile_shows_its_effect(repo, name):  # noqa: F811
    prices = repo / "catalog" / name
    if name.endswith(".json"):
        prices.write_text(
            '{"prices": [{"accelerator": "a100-sxm4-80gb", "provider": "Cheap Cloud", "tier": "on-demand", '
            '"usd": 0.03, "unit": "chip-hour", "date": "2021-01-01", "includes_host": true, '
            '"source": "https://example.org/cheap-cloud/pricing"}]}\n'
        )
        commit(repo)
    else:
        _padded(repo, name, 0)
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert f"needs a code owner's review (catalog, added): catalog/{name}" in result.out
    assert "lockfile" not in result.out
    assert "Cheap Cloud" in result.out  # the effect names the price that moves the costs


@pytest.mark.parametrize(
    "lines, limit, kept",
    [
        (["a" * 10] * 3, 100, 3),  # fits: unchanged
        (["a" * 99] * 10, 999, 5),  # cut at a line's end, room left for the note
    ],
)
def test_within_limit(lines, limit, kept):
    text = _within_limit(lines, limit)
    if kept == len(lines):
        assert text == "\n".join(lines) + "\n"
    else:
        shown = text.splitlines()
        assert shown[:kept] == lines[:kept] and shown[kept] == ""
        assert shown[-1].startswith(f"**This comment is cut short**: {len(lines) - kept} more lines")


def test_a_new_result_under_a_submitter_already_on_the_boards_is_flagged_for_a_maintainer(repo):  # noqa: F811
    # acme-labs has results at the base (in another round): anyone can write its name
    known = repo / "submissions" / "published" / "acme-labs" / "acme-lm.yaml"
    known.parent.mkdir(parents=True)
    known.write_text(PUBLISHED)
    # the same name written another way (another folder): still Acme Labs to a reader
    spelled = repo / "submissions" / "published" / "acmelabs" / "acme-lm-2.yaml"
    spelled.parent.mkdir(parents=True)
    spelled.write_text(PUBLISHED.replace("Acme Labs", "AcmeLabs").replace("Acme-LM", "Acme-LM 2"))
    stranger = repo / "submissions" / "published" / "zeta-labs" / "zeta-lm.yaml"
    stranger.parent.mkdir(parents=True)
    stranger.write_text(PUBLISHED.replace("Acme Labs", "Zeta Labs").replace("Acme-LM", "Zeta-LM"))
    commit(repo)
    text = run_cli("check-pr", "--base", "main", cwd=repo)
    assert text.code == 0, text.out
    hint = "a maintainer confirms that the pull request's author speaks for this submitter before merging"
    assert (
        f"adds a result under Acme Labs, a submitter already on the boards ({hint}): "
        "submissions/published/acme-labs/acme-lm.yaml"
    ) in text.out
    assert f"adds a result under AcmeLabs, a submitter already on the boards ({hint})" in text.out
    assert "under Zeta Labs" not in text.out
    comment = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    assert "### ⚠️ Adds 2 results under a submitter already on the boards" in comment
    assert "| `submissions/published/acme-labs/acme-lm.yaml` | Acme Labs |" in comment
    github = run_cli("check-pr", "--base", "main", "--format", "github", cwd=repo).out
    assert (
        "::warning file=submissions/published/acme-labs/acme-lm.yaml,title=A submitter already on the boards::"
        in github
    )


def test_a_price_file_of_thousands_of_rows_is_counted_not_listed_in_the_comment(repo):  # noqa: F811
    rows = "".join(
        CHEAP.replace("usd: 0.03", f"usd: {1 + i / 1000:.3f}")
        .replace('"2021-01-01"', f'"2021-{1 + i % 12:02d}-01"')
        .replace("Cheap Cloud", f"Cloud {i}")
        for i in range(2000)
    )
    (repo / "catalog" / "prices-bulk.yaml").write_text("prices:\n" + rows)
    commit(repo)
    comment = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo).out
    assert "Effect of the catalog change" in comment and "cut short" not in comment
    assert "more lines: check-pr's text output lists every one" in comment
    text = run_cli("check-pr", "--base", "main", cwd=repo).out
    assert "Cloud 1999" in text  # the text output lists every price
