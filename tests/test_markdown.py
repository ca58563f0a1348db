"""The bot comment's Markdown (review/markdown.py): text from a pull request shows exactly as
written, never as a link, image, HTML, formatting or a notification. Checked by rendering it
with a CommonMark parser (markdown-it-py, with GFM tables and strikethrough)."""

from __future__ import annotations

import html
import re

import pytest
from conftest import run_cli
from markdown_it import MarkdownIt
from test_checkpr import commit, entry, repo  # noqa: F401 - the fixture

from leaderboard.checkpr import Misplaced, PullRequestCheck
from leaderboard.checkpr_report import as_markdown
from leaderboard.problems import Problem
from leaderboard.review.markdown import ZERO_WIDTH_SPACE, code, escape
from leaderboard.verification import EntryDiff, FieldChange

RENDER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def rendered_text(markdown: str) -> str:
    """What a reader sees: the rendered HTML's text, zero-width spaces left out."""
    text = re.sub(r"<[^>]+>", "", RENDER.render(markdown))
    return html.unescape(text).replace("\u200b", "").strip()


HOSTILE = [
    "a *bold* _em_ __strong__ ~~gone~~",
    "[click](https://evil.example) ![x](https://evil.example/i.png)",
    "<img src=x onerror=alert(1)> <script>x</script> <!-- hidden -->",
    "&lt;b&gt; &amp; &#64;",
    "`code` ``two`` \\` back\\slash",
    "# heading",
    "- item",
    "+ item",
    "> quote",
    "1. first",
    "12) twelfth",
    "===",
    "a | b | c",
    "$x^2$ and $$y$$",
    "{curly} (round)",
    "<https://evil.example>",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_escaped_text_renders_as_itself(text):
    assert rendered_text(escape(text)) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_escaped_text_makes_no_link_image_or_tag(text):
    rendered = RENDER.render(escape(text))
    for tag in ("<a ", "<img", "<script", "<em>", "<strong>", "<s>", "<code>", "<h1", "<ul", "<ol", "<blockquote"):
        assert tag not in rendered, (text, rendered)


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("@octocat", f"\\@{ZERO_WIDTH_SPACE}octocat"),
        ("@org/team", f"\\@{ZERO_WIDTH_SPACE}org/team"),
        ("see #123", f"see \\#{ZERO_WIDTH_SPACE}123"),
        ("owner/repo#7", f"owner/repo\\#{ZERO_WIDTH_SPACE}7"),
        ("GH-12", f"GH{ZERO_WIDTH_SPACE}-12"),
        ("mail me@example.com", f"mail me\\@{ZERO_WIDTH_SPACE}example.com"),
        ("https://evil.example", f"https:{ZERO_WIDTH_SPACE}//evil.example"),
        ("www.evil.example", f"www{ZERO_WIDTH_SPACE}.evil.example"),
        ("line\nbreak\r\nhere", "line break  here"),
        ("x\u202eevil\u2066", "x\\\\u202eevil\\\\u2066"),  # shown as code points: nothing reorders
        ("zero\u200bwidth", "zero\\\\u200bwidth"),
        ("plain text 1.5 v1.0-rc", "plain text 1.5 v1.0-rc"),  # nothing to escape mid-line
    ],
)
def test_mentions_references_autolinks_and_invisibles_are_defused(text, escaped):
    assert escape(text) == escaped


def test_no_mention_or_reference_survives_rendering():
    seen = rendered_text(escape("@octocat @org/team #123 owner/repo#7 https://evil.example"))
    visible = RENDER.render(escape("@octocat #123"))
    assert "@octocat" in seen  # reads the same...
    assert re.search(r"@octocat|#123", visible) is None  # ...but the sign and the name are apart


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("plain", "`plain`"),
        ("a`b", "``a`b``"),
        ("``x", "``` ``x ```"),
        ("x`", "`` x` ``"),
        ("a|b", "`a\\|b`"),
        ("@octocat", "`@octocat`"),  # GitHub reads no mention inside code
        ("x\u202ey", "`x\\u202ey`"),
        ("two\nlines", "`two lines`"),
        ("", ""),
    ],
)
def test_code_spans_cannot_be_broken_out_of(text, span):
    assert code(text, table=True) == span


@pytest.mark.parametrize("text", ["a`b", "``x", "x`", "`", "a|b", "<b>x</b>", "*not*", " padded "])
def test_a_code_span_in_a_table_cell_shows_its_text(text):
    table = f"| h | i |\n|---|---|\n| {code(text, table=True)} | next |"
    rendered = RENDER.render(table)
    cells = re.findall(r"<td>(.*?)</td>", rendered, re.S)
    assert len(cells) == 2 and cells[1] == "next", rendered
    assert html.unescape(re.sub(r"</?code>", "", cells[0])) == text


def test_every_field_of_the_comment_is_escaped():
    evil = "@octocat [x](https://evil.example) <img src=x> | `tick` #12"
    check = PullRequestCheck("main")
    check.problems = [Problem(f"submissions/{evil}.yaml", 3, 1, f"$.{evil}", evil, evil)]
    check.deleted = [f"submissions/{evil}.yaml"]
    check.diffs = [
        EntryDiff(f"submissions/{evil}.yaml", "modified", [FieldChange(f"source.{evil}", evil, evil)], submitter=evil)
    ]
    check.misplaced = [Misplaced(f"{evil}.yaml", evil)]
    markdown = as_markdown(check)
    rendered = RENDER.render(markdown)
    assert "<a " not in rendered and "<img" not in rendered
    outside_code = re.sub(r"<code>.*?</code>", "", rendered, flags=re.S)  # GitHub reads no mention in code
    assert re.search(r"@octocat|#12\b", outside_code) is None
    for table in re.findall(r"<table>.*?</table>", rendered, re.S):  # a pipe in a value makes no extra cell
        heads = len(re.findall(r"<th>", table))
        assert all(len(re.findall(r"<td>", row)) == heads for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:])
    # each shown whole: a problem's file, field, message and hint; a deletion; a diff's four; a misplaced file's
    # two; the changed result's file, submitter and field, first
    assert rendered_text(markdown).count(evil) == 14


def test_check_pr_comment_shows_a_hostile_value_as_text(repo):  # noqa: F811
    path = repo / "submissions/mlperf-training-v1.1/acme-labs/acme-8.yaml"
    path.write_text(
        entry("acme-8", 8, 29.0).replace(
            "url: https://example.com/acme/resnet",
            'url: https://example.com/acme/resnet\n  note: "@octocat see #1 <img src=x> [x](https://e.example) | `"',
        )
    )
    commit(repo)
    result = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=repo)
    rendered = RENDER.render(result.out)
    assert "source.note" in result.out
    assert "<img" not in rendered and "<a " not in rendered
    assert re.search(r"@octocat|#1\b", re.sub(r"<code>.*?</code>", "", rendered, flags=re.S)) is None
    assert "@octocat see #1 <img src=x> [x](https://e.example) | `" in html.unescape(
        re.sub(r"<[^>]+>", "", rendered)
    ).replace("\u200b", "")
