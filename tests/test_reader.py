"""What a reader meets on the shipped site (issue 25): feed titles in names, not file ids;
published runs without MLPerf's division or availability and dated by themselves; "n/a" with
its reason behind a disclosure; chip-hours drawn as dots, never as bars on a log axis.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_site import built_site

from leaderboard.render import feeds

ATOM = {"a": "http://www.w3.org/2005/Atom"}


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory) / "site"


@pytest.mark.parametrize(
    ("system", "entry_id", "shown"),
    [
        # the importer's disambiguating system file id goes
        (
            "Tyche (1x NVIDIA GB200 NVL72) (tyche_ngpu64_ngc25.03_hugectr)",
            "mlperf-training-v5.0/nvidia/tyche_ngpu64_ngc25.03_hugectr-dlrm_dcnv2",
            "Tyche (1x NVIDIA GB200 NVL72)",
        ),
        ("tpu-v3 (tpu-v3-1024)", "mlperf-training-v0.6/google/tpu-v3-1024-gnmt", "tpu-v3"),
        # parentheses that are part of the name stay
        ("BM.GPU.B200.8 (8xBM.GPU.B200.8)", "mlperf-training-v5.0/oracle/bm-gpu-b200-8-n8-llama", None),
        ("DGX A100 (8x A100)", "mlperf-training-v1.0/nvidia/dgxa100-resnet", None),
        ("2,000 x NVIDIA H100 SXM5 80GB", "published/01-ai/yi-lightning", None),
    ],
)
def test_system_name_drops_only_the_appended_file_id(system, entry_id, shown):
    assert feeds.system_name(system, entry_id) == (shown or system)


MLPERF = {
    "entry_id": "mlperf-training-v5.0/nvidia/tyche_ngpu64_ngc25.03_hugectr-dlrm_dcnv2",
    "system": "Tyche (1x NVIDIA GB200 NVL72) (tyche_ngpu64_ngc25.03_hugectr)",
    "submitter": "NVIDIA",
    "chips": 64,
    "benchmark": "dlrm_dcnv2",
    "round_kind": "mlperf-training",
    "division": "closed",
    "model_name": None,
    "verified_note": None,
    "republished_note": None,
}
PUBLISHED = {
    **MLPERF,
    "entry_id": "published/01-ai/yi-lightning",
    "system": "2,000 x NVIDIA H100 SXM5 80GB",
    "submitter": "01.AI",
    "chips": 2000,
    "benchmark": "language",
    "round_kind": "published",
    "division": "open",
    "model_name": "Yi-Lightning",
    "verified_note": "Self-reported: Result not verified by MLCommons Association",
}


@pytest.mark.parametrize(
    ("kind", "row", "round_name", "benchmark_name", "title"),
    [
        (
            "entry",
            MLPERF,
            "MLPerf Training v5.0",
            "DLRM-DCNv2",
            "New result: Tyche (1x NVIDIA GB200 NVL72) (NVIDIA), 64 chips, DLRM-DCNv2, MLPerf Training v5.0, "
            "closed division",
        ),
        (
            "record",
            MLPERF,
            "MLPerf Training v5.0",
            "DLRM-DCNv2",
            "Fastest ranked result in its round: Tyche (1x NVIDIA GB200 NVL72) (NVIDIA), 64 chips, DLRM-DCNv2, MLPerf Training v5.0, "
            "closed division",
        ),
        (
            "entry",
            {**MLPERF, "republished_note": "Republished from MLPerf Training v4.1"},
            "MLPerf Training v5.0",
            None,  # a benchmark the catalog lacks keeps its id
            "Republished result: Tyche (1x NVIDIA GB200 NVL72) (NVIDIA), 64 chips, dlrm_dcnv2, MLPerf Training v5.0, "
            "closed division",
        ),
        # a published run: its model, no division
        (
            "entry",
            PUBLISHED,
            "Published training runs",
            "Language models",
            "New result (self-reported): Yi-Lightning (01.AI), 2,000 chips, Language models, Published training runs",
        ),
        (
            "entry",
            {**PUBLISHED, "model_name": None},
            "Published training runs",
            "Language models",
            "New result (self-reported): 2,000 x NVIDIA H100 SXM5 80GB (01.AI), 2,000 chips, Language models, "
            "Published training runs",
        ),
        # A published record is one over time (the round spans years); an MLPerf one is its round's best.
        (
            "record",
            {**PUBLISHED, "record_metric": "chip_hours"},
            "Published training runs",
            "Language models",
            "Ranked run with the fewest chip-hours so far: Yi-Lightning (01.AI), 2,000 chips, Language models, Published training runs",
        ),
        (
            "record",
            {**MLPERF, "record_metric": "models_per_minute", "round_kind": "mlperf-hpc"},
            "MLPerf HPC v3.0",
            "CosmoFlow (weak scaling)",
            "Ranked result with the most models per minute in its round: Tyche (1x NVIDIA GB200 NVL72) (NVIDIA), 64 chips, "
            "CosmoFlow (weak scaling), MLPerf HPC v3.0, closed division",
        ),
    ],
)
def test_feed_title(kind, row, round_name, benchmark_name, title):
    assert feeds.feed_title(kind, row, round_name, benchmark_name) == title


def test_feed_titles_name_rounds_benchmarks_and_systems_not_ids(out, results):
    titles = []
    for path in [out / "feed.xml", *sorted((out / "feeds").glob("*.xml"))]:
        root = ET.parse(path).getroot()
        titles += [e.find("a:title", ATOM).text for e in root.findall("a:entry", ATOM)]
    assert len(titles) > 400
    rounds = {r["round"] for r in results}
    benchmarks = {r["benchmark"] for r in results if not re.search(r"[A-Z ]", r["benchmark"])}
    for title in titles:
        parts = set(title.split(": ", 1)[1].split(", "))
        assert not parts & rounds, title
        assert not parts & benchmarks, title
        assert not re.search(r"\((tyche|submission|hpg)[^)]*\)", title), title
    published = [t for t in titles if t.endswith("Published training runs")]
    assert published and not [t for t in published if "division" in t]


def test_published_runs_show_their_own_date_and_no_division_or_availability(out, results):
    run = next(r for r in results if r["entry_id"] == "published/01-ai/yi-lightning")
    page = (out / "entries" / "published" / "01-ai" / "yi-lightning.html").read_text(encoding="utf-8")
    lead = re.search(r"<p>Language models, Published training runs, (.*?):", page)
    assert lead and lead.group(1) == f"published {run['date']}"
    board = (out / "boards" / "published" / "language.html").read_text(encoding="utf-8")
    assert "Open division" not in board and ">Availability</th>" not in board
    assert "<td>available</td>" not in board
    index = (out / "index.html").read_text(encoding="utf-8")
    dates = sorted(r["date"] for r in results if r["round"] == "published")
    assert f"Published training runs</a> ({dates[0]} to {dates[-1]})" in index
    assert "(2018-10-11)" not in index  # the family's catalog date, not a run's
    assert "Published training runs: the ranked run with the fewest chip-hours per benchmark, with" in index
    assert "Fewest chip-hours per benchmark: Published training runs" in index
    # Their groups on accelerator and submitter pages: no division, no availability column, and a
    # caption that counts the ranked results the rank is among.
    for page in ("accelerators/h100-sxm5-80gb.html", "submitters/nvidia.html", "submitters/01-ai.html"):
        text = (out / page).read_text(encoding="utf-8")
        heading = re.search(r"<h[23]><a href=\"[^\"]*boards/published/language\.html\">([^<]*)</a>", text)
        assert heading and heading.group(1) == "Language models, Published training runs", page
        table = text.split(heading.group(0), 1)[1].split("</table>", 1)[0]
        assert "Availability" not in table and "<td>available</td>" not in table, page
        caption = re.search(r"<caption>([^<]*)</caption>", table).group(1)
        board = [r for r in results if (r["round"], r["benchmark"]) == ("published", "language")]
        ranked = sum(1 for r in board if r["rank"] is not None)
        assert ranked < len(board) and caption.endswith(f"rank by chip-hours among the {ranked:,} with a rank"), caption
    # MLPerf keeps both
    resnet = (out / "boards" / "mlperf-training-v1.1" / "resnet.html").read_text(encoding="utf-8")
    assert "Closed division" in resnet and ">Availability</th>" in resnet
    a100 = (out / "accelerators" / "a100-sxm4-80gb.html").read_text(encoding="utf-8")
    assert "ResNet-50, MLPerf Training v1.1, closed division</a>" in a100


def test_na_costs_give_their_reason_in_a_disclosure_not_a_title(out, results):
    board = (out / "boards" / "mlperf-training-v1.1" / "resnet.html").read_text(encoding="utf-8")
    assert 'title="' not in re.sub(r"<(abbr|th|button|link)\b[^>]*>", "", board)
    reasons = re.findall(r'<details class="na"><summary>n/a</summary><p>([^<]+)</p></details>', board)
    graphcore = [r for r in results if r["round"] == "mlperf-training-v1.1" and r["accelerator"].startswith("ipu")]
    assert graphcore and len(reasons) >= len([r for r in graphcore if r["benchmark"] == "resnet"])
    assert all(reason.strip() for reason in reasons)
    # every tier's reason is on the row, for site.js to show when the reader picks that tier
    assert re.search(r'data-na-3-year="[^"]+"', board)


def test_chip_hours_chart_draws_dots_on_its_log_axis_not_bars(out):
    spec = json.loads((out / "charts" / "mlperf-training-v1.1--resnet--closed--chip-hours.vl.json").read_text())
    layers = spec.get("layer", [spec])  # a second layer draws unranked results hollow
    assert layers and all(layer["mark"]["type"] == "point" for layer in layers)
    assert all(layer["encoding"]["x"]["scale"]["type"] == "log" for layer in layers)
    for path in (out / "charts").glob("*.vl.json"):
        text = path.read_text()
        assert not ('"bar"' in text and '"log"' in text), path.name


@pytest.fixture(scope="module")
def results(out) -> list[dict]:
    from leaderboard import store

    names, rows = store.run_query(out.parent / "leaderboard.duckdb", "SELECT * FROM results ORDER BY entry_id")
    return [dict(zip(names, row, strict=True)) for row in rows]


class _Text(HTMLParser):
    """A page's visible text, with a line break at every block element's edge."""

    BLOCK = frozenset(
        "p div li td th h1 h2 h3 h4 h5 h6 br tr section ul ol table caption figcaption figure nav header "
        "footer main article aside summary details dt dd dl option select label button pre blockquote "
        "thead tbody form input textarea legend fieldset title".split()
    )

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("script", "style", "svg")
        self.parts += ["\n"] if tag in self.BLOCK else []

    def handle_endtag(self, tag):
        self.hidden -= tag in ("script", "style", "svg")
        self.parts += ["\n"] if tag in self.BLOCK else []

    def handle_data(self, data):
        self.parts += [] if self.hidden else [data]


def visible_text(path: Path) -> str:
    parser = _Text()
    parser.feed(path.read_text(encoding="utf-8"))
    return "".join(parser.parts)


# Text that Epoch AI's price notes hold as they are ("Iowa (us-central1),Oregon,East US").
QUOTED = ("(us-central1),Oregon", "(europe-west4),Singapore")


def test_no_sentence_runs_into_the_next_and_counts_agree_with_their_nouns(out):
    """A template's line break after a block tag vanished ("Arrow).Chip-hours"); "1 results",
    "0 fastest and 0 slowest", "from MLPerf HPC v3.0 to MLPerf HPC v3.0" read as machine text."""
    glued, wrong = [], []
    for path in sorted(out.rglob("*.html")):
        text = visible_text(path)
        for found in re.finditer(r"[a-z)\]][.,;:](?=[A-Z][a-z])", text):
            context = text[max(0, found.start() - 20) : found.end() + 12]
            if not any(quoted in context for quoted in QUOTED):
                glued.append((path.relative_to(out).as_posix(), context))
        flat = " ".join(text.split())
        for pattern in (r"\b1 (results|benchmarks|runs)\b", r"dropping the 0 fastest and 0 slowest", r"\bof 1 runs\b"):
            wrong += [(path.relative_to(out).as_posix(), m.group(0)) for m in re.finditer(pattern, flat)]
        wrong += [
            (path.relative_to(out).as_posix(), m.group(0))
            for m in re.finditer(r"\bfrom ((?:MLPerf|DAWNBench)[\w .]*?) to \1(?=[ .;)])", flat)
        ]
    assert not glued, glued[:10]
    assert not wrong, wrong[:10]


def test_the_quality_of_a_lower_is_better_metric_is_one_each_run_reached_at_most(out):
    texts = {p: visible_text(p) for p in (out / "entries").rglob("*.html")}
    said = [t for t in texts.values() if "is the worst of the counted runs'" in t]
    assert any("reached at most that" in t for t in said) and any("reached at least that" in t for t in said)


def test_the_footer_dates_the_results_and_the_prices_apart(out):
    """'Data as of' gave the newest result's date while the boards' latest prices were newer."""
    from conftest import ROOT

    from leaderboard.catalog import load_catalog

    catalog = load_catalog(ROOT / "catalog")
    newest_price = max(str(p.date) for p in catalog.prices)
    footer = " ".join(visible_text(out / "index.html").split())
    found = re.search(r"Results as of (\d{4}-\d\d-\d\d); prices as of (\d{4}-\d\d-\d\d)\.", footer)
    assert found, footer[-300:]
    assert found.group(2) == newest_price


def test_compare_offers_only_boards_with_something_to_compare(out):
    """A board of one result was offered, and linked from its board and entry pages: picking it
    showed one result and nothing to pick it against."""
    text = (out / "compare.html").read_text(encoding="utf-8")
    counts = [int(n) for n in re.findall(r'<option value="[^"]+">[^<]*\((\d+)\)</option>', text)]
    assert counts and min(counts) >= 2
    singles = 0
    for board in (out / "boards").rglob("*.html"):
        page_text = board.read_text(encoding="utf-8")
        rows = len(re.findall(r"<tr id=", page_text))
        if rows == 1 and "-page-" not in board.name:
            singles += 1
            assert "compare.html#board=" not in page_text, board
            (entry_id,) = re.findall(r'data-entry="([^"]+)"', page_text)
            entry = (out / "entries" / f"{entry_id}.html").read_text(encoding="utf-8")
            assert "Compare with others" not in entry and "See it on the leaderboard" in entry
    assert singles  # the shipped data has boards of one result


def test_one_page_an_organization_whichever_name_it_published_under(out, results):
    """Dell and Dell EMC, HabanaLabs and Intel-HabanaLabs: one page each organization, listing
    every result of its names; the pages of the other names point to it and no sitemap lists them."""
    from leaderboard.render import model

    for organization, names in (
        ("Dell", {"Dell", "Dell EMC"}),
        ("Intel Habana Labs", {"HabanaLabs", "Intel-HabanaLabs"}),
    ):
        page = out / model.submitter_path(organization)
        text = visible_text(page)
        assert f"\n{organization}\n" in text and "One organization, its results published as" in text
        mine = [r for r in results if r["organization"] == organization]
        assert {r["submitter"] for r in mine} == names
        assert f"{len(mine)} results across rounds" in text
        for name in names - {organization}:
            moved = (out / model.submitter_path(name)).read_text(encoding="utf-8")
            target = model.submitter_path(organization).removeprefix("submitters/")
            assert f'http-equiv="refresh" content="0; url=../submitters/{target}"' in moved
            assert 'name="robots" content="noindex"' in moved
    for row in results:
        entry = (out / model.entry_path(row["entry_id"])).read_text(encoding="utf-8")
        depth = "../" * model.entry_path(row["entry_id"]).count("/")
        assert f'href="{depth}{model.submitter_path(row["organization"])}"' in entry, row["entry_id"]
        assert f'href="{depth}{model.accelerator_path(row["accelerator"])}"' in entry, row["entry_id"]
    sitemap = out / "sitemap.xml"
    if sitemap.exists():
        assert "submitters/dell-emc.html" not in sitemap.read_text(encoding="utf-8")


def test_an_organization_known_under_one_other_name_says_it_once(empty_project):
    """Only Dell EMC's results: the page is Dell's, says "published as Dell EMC." (no dangling
    "and"), and Dell EMC's own page points to it."""
    from conftest import ROOT, run_cli

    source = (ROOT / "submissions" / "published" / "google" / "bert-large.yaml").read_text(encoding="utf-8")
    folder = empty_project / "submissions" / "published" / "dell-emc"
    folder.mkdir(parents=True)
    (folder / "bert-large.yaml").write_text(source.replace("submitter: Google", "submitter: Dell EMC"))
    done = run_cli("build", "-q", "--jobs", "1", cwd=empty_project)
    assert done.code == 0, done.out + done.err
    text = visible_text(empty_project / "site" / "submitters" / "dell.html")
    assert "One organization, its results published as Dell EMC. Dell EMC (MLPerf Training v0.7)" in text
    assert "  and" not in text and " and Dell EMC" not in text
    moved = (empty_project / "site" / "submitters" / "dell-emc.html").read_text(encoding="utf-8")
    assert 'content="0; url=../submitters/dell.html"' in moved


def _weak(results: list[dict]) -> list[dict]:
    """The weak-scaling results (MLPerf HPC <benchmark>-weak): their rank is by models per minute."""
    weak = [r for r in results if r["models"] is not None]
    assert len(weak) >= 20 and all(r["models_per_minute"] is not None for r in weak)
    return weak


def _words(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


def test_a_weak_scaling_entry_states_its_models_and_models_per_minute_in_its_summary(out, results):
    """The summary said "82,944 chips ( A64FX ), 495.661 minutes. Rank 1 of 3 ... by models per
    minute": the figure the rank is by (637 models, 1.285 a minute) was only in "Every field"."""
    from leaderboard.render import model
    from leaderboard.render.writer import number

    for row in _weak(results):
        page = (out / model.entry_path(row["entry_id"])).read_text(encoding="utf-8")
        summary = re.search(r"<p>((?:(?!</p>).)*See it on the leaderboard(?:(?!</p>).)*)</p>", page, re.S)
        assert summary, row["entry_id"]
        text = _words(summary.group(1))
        said = (
            f"{'CPUs' if row['cpu_only'] else 'chips'} ({row['accelerator_name']}), {row['models']:,} models in "
            f"{number(row['minutes'])} minutes: "
            f"{row['models_per_minute']:.4g} models per minute."
        )
        assert said in text, (row["entry_id"], text)
        if row["rank"] is not None:
            assert "by models per minute." in text, text


def test_a_weak_scaling_row_on_accelerator_and_submitter_pages_gives_its_models_per_minute(out, results):
    """Their tables say "rank by models per minute": each weak row shows its models and models
    per minute under the system, as its board does."""
    from urllib.parse import quote

    from leaderboard.render import model

    for row in _weak(results):
        link = f'href="../{quote(model.entry_path(row["entry_id"]))}"'
        said = f'<small class="models">{row["models"]:,} models, {row["models_per_minute"]:.4g} models/min</small>'
        for page in (model.accelerator_path(row["accelerator"]), model.submitter_path(row["organization"])):
            text = (out / page).read_text(encoding="utf-8")
            rows = [tr for tr in text.split("<tr>") if link in tr.split("</tr>", 1)[0]]
            assert rows, (page, row["entry_id"])
            assert all(said in tr.split("</tr>", 1)[0] for tr in rows), (page, row["entry_id"])


def test_a_weak_scaling_feed_item_gives_its_models_and_models_per_minute(out, results):
    """A weak record was titled "most models per minute" while its summary gave only minutes."""
    from leaderboard.render import model
    from leaderboard.render.writer import number

    weak = {model.entry_path(r["entry_id"]): r for r in _weak(results)}
    seen = 0
    for path in [out / "feed.xml", *sorted((out / "feeds").glob("*.xml"))]:
        for entry in ET.parse(path).getroot().findall("a:entry", ATOM):
            href = entry.find("a:link", ATOM).get("href")
            row = next((r for p, r in weak.items() if href.endswith(p)), None)
            if row is None:
                continue
            seen += 1
            summary = entry.find("a:summary", ATOM).text
            said = (
                f"{row['accelerator_name']}, {row['models']:,} models in {number(row['minutes'])} minutes "
                f"({row['models_per_minute']:.4g} models per minute), "
            )
            assert said in summary, (path.name, summary)
    assert seen >= 20  # records and new results, in feed.xml and feeds/mlperf-hpc.xml


@pytest.mark.parametrize(
    ("counts", "budget", "shown"),
    [
        ([3, 10, 200], 2_500, 50),  # within the budget: 50 of each board and division, as always
        ([], 2_500, 50),
        ([1_000] * 260, 2_500, 9),  # 260 tables at 100,000 results: 9 each, 2,340 rows
        ([1_000] * 260, 100, 1),  # never fewer than one
        ([5] * 100 + [1_000] * 10, 2_500, 50),  # small tables hold their own; 500 + 10 x 50 rows
        ([5] * 100 + [1_000] * 100, 2_500, 20),  # 500 + 100 x 20 = 2,500
    ],
)
def test_a_pages_tables_stay_within_its_row_budget(counts, budget, shown):
    from leaderboard.render.groups import rows_per_group

    assert rows_per_group(counts, budget=budget) == shown
    if shown > 1:
        assert sum(min(c, shown) for c in counts) <= budget
