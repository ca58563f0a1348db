"""Charts and lists read whole on the shipped site: the "Across rounds" lists keep each item in its
column, the published runs' date axes one year a label, every log axis one number format, and a
chip-hours chart's names told apart once cut.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import ARGS, CHROMIUM  # noqa: F401 (the browser fixture lives in conftest.py)
from test_responsive import open_page
from test_site import built_site

from leaderboard.render import charts, labels, painter

WIDTHS = (390, 1400)
OVER_TIME = ("published--chip_hours-over-time", "published--cost-over-time")
# A board whose chip-hours chart holds names alike but for their ends (Lenovo's 4x and 8x A100).
NAMES_ALIKE = "boards/mlperf-training-v1.1/resnet.html"
E_NOTATION = re.compile(r"(?<![\w.-])\d+(\.\d+)?e[+-]\d+\b")  # 1e+06, never tpu-v5e-4096
SVG = "{http://www.w3.org/2000/svg}"
LOG_NUMBER = re.compile(r"^\d{1,3}(,\d{3})*(\.\d+)?$")  # 0.1, 20, 1,000,000 (LOG_FORMAT)


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory) / "site"


@pytest.fixture(scope="module")
def pages(browser):
    contexts = {width: browser.new_context(viewport={"width": width, "height": 900}) for width in WIDTHS}
    yield {width: context.new_page() for width, context in contexts.items()}
    for context in contexts.values():
        context.close()


def live_chart(page, name: str):
    """The page's live chart whose static image is charts/<name>.svg."""
    return page.locator("figure.chart.live", has=page.locator(f"img[src$='/{name}.svg']"))


def specs(out: Path, ending: str) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((out / "charts").glob(f"*{ending}"))}


# ---- 1. the "Across rounds" page's lists in columns --------------------------------------------

# Per item of every list in columns: where it is, [left of its bullet, right of its text], and
# whether it stays within one column (an item broken over two columns is as wide as both).
LIST_ITEMS = """() => {
  const items = [];
  for (const list of document.querySelectorAll('ul.columns')) {
    const probe = document.createElement('li');
    probe.style.listStylePosition = 'inside';
    probe.innerHTML = '<span>x</span>';
    list.append(probe);
    const bullet = probe.firstChild.getBoundingClientRect().left - probe.getBoundingClientRect().left;
    probe.remove();
    const style = getComputedStyle(list);
    const gap = parseFloat(style.columnGap) || parseFloat(style.fontSize);
    const room = list.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const count = Math.max(1, Math.floor((room + gap) / (parseFloat(style.columnWidth) + gap)));
    const column = (room - (count - 1) * gap) / count;
    for (const item of list.children) {
      const box = item.getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(item);
      const text = [...range.getClientRects()].filter(r => r.width > 0);
      items.push({
        name: item.textContent.slice(0, 40),
        left: box.left - bullet,
        right: Math.max(...text.map(r => r.right)),
        inOneColumn: box.width <= column + 1 && text.every(r => r.left >= box.left - 1 && r.right <= box.left + column + 1),
      });
    }
  }
  return items;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_history_lists_keep_each_item_and_its_bullet_in_one_column(pages, out, width):
    """At 1,400 px Intel's and NVIDIA's accelerator lists ran over two columns (a 580-pixel item in
    282-pixel columns), and each column's bullets hung in the 16-pixel gap against the text of the
    column before ("Xeon Platinum 8260L•")."""
    page = open_page(pages[width], out, "history.html")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    items = page.evaluate(LIST_ITEMS)
    assert len(items) >= 20
    assert [i["name"] for i in items if not i["inOneColumn"]] == []
    for a in items:
        for b in items:
            if b["left"] > a["right"] - 1 and b["left"] - a["right"] < 8:  # side by side, too close
                pytest.fail(f"{b['name']!r} starts {b['left'] - a['right']:.0f} px after {a['name']!r}")


# ---- 2. the published runs' date axes ----------------------------------------------------------

# The x axis labels under `root` (else the whole document) as drawn: text and box.
X_LABELS = """root => [...(root || document).querySelectorAll('.role-axis')]
  .filter(axis => (axis.getAttribute('aria-label') || '').startsWith('X-axis'))
  .flatMap(axis => [...axis.querySelectorAll('.role-axis-label text')])
  .filter(t => t.getAttribute('opacity') !== '0' && t.textContent)
  .map(t => { const b = t.getBoundingClientRect(); return [t.textContent, b.left, b.right]; })"""


def assert_years_apart(labels: list) -> None:
    assert len(labels) >= 3, labels
    assert all(re.fullmatch(r"\d{4}", text) for text, *_ in labels), labels
    boxes = sorted(labels, key=lambda label: label[1])
    for a, b in zip(boxes, boxes[1:], strict=False):
        assert b[1] - a[2] >= 4, (a, b)  # never touching


@pytest.mark.parametrize("name", OVER_TIME)
def test_the_published_charts_date_axis_has_one_label_a_year(out, name):
    spec = json.loads((out / "charts" / f"{name}.vl.json").read_text(encoding="utf-8"))
    axis = spec["layer"][0]["encoding"]["x"]["axis"]
    assert axis["format"] == "%Y" and axis["tickCount"] == {"interval": "year", "step": 1}
    assert axis["labelOverlap"] and axis["labelSeparation"] >= 4


@pytest.mark.parametrize("width", WIDTHS)
def test_the_published_charts_year_labels_never_touch(pages, out, width):
    """At 1,400 px Vega's own ticks fell to months: "July" ran into "October", "October" into
    the next year's label."""
    page = pages[width]
    for name in OVER_TIME:
        page.goto((out / "charts" / f"{name}.svg").as_uri())
        assert_years_apart(page.evaluate(X_LABELS))
    page = open_page(page, out, "rounds/published.html")
    for name in OVER_TIME:
        assert_years_apart(live_chart(page, name).evaluate(X_LABELS))


# ---- 3. log axes: one number format ------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"), [(0.01, "0.01"), (0.1, "0.1"), (1.0, "1"), (1e5, "100,000"), (1e6, "1,000,000")]
)
def test_a_decade_reads_as_a_log_axis_labels_it(value, shown):
    assert labels.log_label(value) == shown


def log_axes(view: dict):
    for channel in ("x", "y"):
        field = view.get("encoding", {}).get(channel)
        if isinstance(field, dict) and (field.get("scale") or {}).get("type") == "log":
            yield field
    for layer in view.get("layer", []):
        yield from log_axes(layer)


def test_every_log_axis_of_the_site_has_one_format(out):
    found = [(name, field) for name, spec in specs(out, ".vl.json").items() for field in log_axes(spec)]
    assert len(found) >= 300
    assert [name for name, field in found if (field.get("axis") or {}).get("format") != charts.LOG_FORMAT] == []


def test_no_chart_of_the_site_reads_a_number_in_e_notation(out):
    """Scaling charts named their lines "1e+06 chip-hours" beside axis labels reading "100,000"
    (weak-scaling boards then; they draw no chart now, but the largest strong-scaling runs reach
    a million chip-hours too)."""
    drawn = sorted((out / "charts").glob("*.svg"))
    assert len(drawn) >= 300
    texts = {p.name: re.findall(r"<text[^>]*>([^<]*)</text>", p.read_text(encoding="utf-8")) for p in drawn}
    assert {name: [t for t in found if E_NOTATION.search(t)] for name, found in texts.items()} == {
        name: [] for name in texts
    }
    scaling = [t for name, found in texts.items() if name.endswith("--scaling.svg") for t in found]
    assert "1,000,000 chip-hours" in scaling
    log_labels = {p.name: log_axis_labels(p) for p in drawn}
    assert sum(map(len, log_labels.values())) >= 1000
    assert {name: [t for t in found if not LOG_NUMBER.match(t)] for name, found in log_labels.items()} == {
        name: [] for name in log_labels
    }


def log_axis_labels(drawn: Path) -> list[str]:
    """The labels a chart's SVG draws on its log axes (Vega names an axis's scale in its aria-label)."""
    labels = []
    for axis in ElementTree.parse(drawn).iter(f"{SVG}g"):
        if "role-axis" in axis.get("class", "").split() and "for a log scale" in axis.get("aria-label", ""):
            for group in axis.iter(f"{SVG}g"):
                if "role-axis-label" in group.get("class", "").split():
                    labels += [t.text for t in group.iter(f"{SVG}text") if t.text and t.get("opacity") != "0"]
    return labels


# ---- 4. a chip-hours chart's names, cut --------------------------------------------------------


def image_cut(spec: dict) -> list[str]:
    """Each label of a chip-hours chart as the image draws it (painter.py's truncate())."""
    static = painter.static_spec(spec)
    limit = int(re.fullmatch(r"truncate\(datum.label, (\d+)\)", static["config"]["axisY"]["labelExpr"]).group(1))
    return [
        v["label"] if len(v["label"]) <= limit else v["label"][: limit - 1] + "…" for v in spec["datasets"]["results"]
    ]


def test_the_cut_names_of_every_chip_hours_chart_are_told_apart(out):
    """Cut at 47 characters, "Lenovo: Lenovo ThinkSystem SR670 V2 Server with 4x 80GB SXM4 A100"
    and "... with 8x 80GB PCIe A100" read the same, as did 51 charts' names."""
    found = specs(out, "--chip-hours.vl.json")
    assert len(found) >= 100
    alike = {}
    for name, spec in found.items():
        labels = [v["label"] for v in spec["datasets"]["results"]]
        assert len(set(labels)) == len(labels), name
        if len(set(image_cut(spec))) < len(labels):
            alike[name] = sorted(c for c in image_cut(spec) if image_cut(spec).count(c) > 1)
        encoding = spec["encoding"] if "encoding" in spec else spec["layer"][0]["encoding"]
        assert {"submitter", "system"} <= {t["field"] for t in encoding["tooltip"]}  # the names in full
    assert alike == {}
    lenovo = [
        v["label"] for v in found["mlperf-training-v1.1--resnet--closed--chip-hours.vl.json"]["datasets"]["results"]
    ]
    assert "Lenovo: Lenovo Thi…h 4x 80GB SXM4 A100" in lenovo and "Lenovo: Lenovo Thi…h 8x 80GB PCIe A100" in lenovo


def test_a_cut_keeps_the_start_and_the_end():
    assert labels.cut_middle("short", 38) == "short"
    cut = labels.cut_middle("HelmholtzAI: juwelsbooster_gpu_n3072_pytorch1.10_22x128", 20)
    assert cut == "Helmholtz….10_22x128" and len(cut) == 20


def names_drawn(page, out: Path) -> tuple[list[str], list[str]]:
    """The names of the ResNet v1.1 closed chip-hours chart: in its spec, and on its live y axis."""
    name = "mlperf-training-v1.1--resnet--closed--chip-hours"
    labels = [v["label"] for v in json.loads((out / "charts" / f"{name}.vl.json").read_text())["datasets"]["results"]]
    drawn = live_chart(page, name).evaluate(
        "f => [...f.querySelectorAll('.role-axis')].filter(a => (a.getAttribute('aria-label') || '').startsWith('Y-axis'))"
        ".flatMap(a => [...a.querySelectorAll('.role-axis-label text')]).map(t => t.textContent)"
    )
    return labels, drawn


def test_the_live_chip_hours_chart_draws_every_name_whole_on_a_screen(pages, out):
    """The page's chart cuts names at 260 pixels: the names, already cut in the middle, fit."""
    labels, drawn = names_drawn(open_page(pages[1400], out, NAMES_ALIKE), out)
    assert drawn == labels


def test_on_a_phone_the_chip_hours_names_are_cut_in_the_middle_and_told_apart(pages, out):
    """A third of a 390-pixel screen holds 20 characters: cut from the right, Lenovo's 4x and 8x
    A100 systems (and Baidu's 1_node_8_A100 runs) would read the same."""
    labels, drawn = names_drawn(open_page(pages[390], out, NAMES_ALIKE), out)
    assert len(drawn) == len(labels) and len(set(drawn)) == len(drawn), [d for d in drawn if drawn.count(d) > 1]
    cut = [d for d in drawn if "…" in d]
    assert cut and all(d not in labels for d in cut)
    # Each name keeps its start and its end (numbered when two still read alike).
    for shown in drawn:
        start, end = shown.split("…") if "…" in shown else (shown, "")
        end = re.sub(r" \(\d+\)$", "", end)
        assert any(label.startswith(start) and label.endswith(end) for label in labels), shown
