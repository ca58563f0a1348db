"""Generated documentation: the README's database tables and CLI reference, and CONTRIBUTING.md.

`python -m leaderboard.docs` rewrites the marked regions; a test fails when they are stale.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def database_reference() -> str:
    from leaderboard.store import table_docs

    parts = []
    for table, description, columns in table_docs():
        parts.append(f"#### `{table}`\n\n{description}\n\n| column | type | meaning |\n|---|---|---|")
        parts += [f"| `{name}` | {kind} | {doc} |" for name, kind, doc in columns]
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def cli_reference() -> str:
    import click

    from leaderboard.cli import main

    parts = []
    context = click.Context(main, info_name="leaderboard", terminal_width=100, max_content_width=100)
    parts.append("```\n" + main.get_help(context) + "\n```\n")
    for name in sorted(main.commands):
        command = main.commands[name]
        sub = click.Context(command, info_name=name, parent=context, terminal_width=100, max_content_width=100)
        parts.append(f"#### `leaderboard {name}`\n\n```\n{command.get_help(sub)}\n```\n")
    return "\n".join(parts)


REGIONS = {"database": database_reference, "cli": cli_reference}

CONTRIBUTING = ROOT / "CONTRIBUTING.md"
EXAMPLE = ROOT / "submissions" / "published" / "google" / "bert-large.yaml"


def _type_of(body: dict) -> str:
    if "const" in body:
        return f"always `{body['const']}`"
    if "enum" in body:
        return " \\| ".join(f"`{v}`" for v in body["enum"])
    kind = body.get("type", "")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array":
        kind = f"list of {_type_of(body.get('items', {}))}"
    extra = []
    if "exclusiveMinimum" in body:
        extra.append(f"> {body['exclusiveMinimum']}")
    if "minimum" in body:
        extra.append(f">= {body['minimum']}")
    if "maxLength" in body:
        extra.append(f"at most {body['maxLength']} characters")
    if "pattern" in body and "0-9]{4}" in body["pattern"]:
        extra.append("YYYY-MM-DD, quoted")
    return kind + (f" ({', '.join(extra)})" if extra else "")


def _fields(body: dict, prefix: str = "", required: bool = True) -> list[tuple[str, str, str, str]]:
    rows = []
    needed = set(body.get("required", []))
    for name, child in body.get("properties", {}).items():
        path = f"{prefix}{name}"
        is_required = "no" if name not in needed else "yes" if required else f"when `{prefix[:-1]}` is given"
        rows.append(
            (
                path,
                _type_of(child) if child.get("type") != "object" else "mapping",
                is_required,
                child.get("description", ""),
            )
        )
        if child.get("type") == "object":
            rows += _fields(child, f"{path}.", name in needed and required)
    return rows


def _where_results_go(catalog) -> list[str]:
    """Which rounds are closed to pull requests and where a self-measured result goes (families.py)."""
    from leaderboard.families import family

    closed = sorted({r.kind for r in catalog.rounds.values() if family(r.kind).closed})
    open_rounds = [r.id for r in catalog.rounds.values() if not family(r.kind).closed]
    lines = ["## Official rounds are closed; self-reported results", ""]
    for kind in closed:
        facts = family(kind)
        lines += [
            f"Only the importer writes the rounds of {facts.label} (`{facts.importer}`, from the published",
            f"logs): a file there that the round's manifest (`catalog/{facts.manifest_folder}/<round>.csv`) does",
            "not list, or whose bytes differ from what the importer wrote, fails `check-pr` with a message",
            "naming what the file claims. A verified result is established only by recomputing it from the",
            "published logs; if a published result is wrong, open an issue.",
            "",
        ]
    lines += [
        "A result you measured yourself (or read in a paper) is self-reported: it goes to "
        + ", ".join(f"`submissions/{r}/<submitter-slug>/`" for r in open_rounds)
        + ", validated as",
        'below. Wherever it appears it is labelled "Self-reported: Result not verified by MLCommons',
        'Association"; on a board that verified results populate it takes no rank, record or "best"',
        "(`results.rank` is empty), and on a board without verified results it ranks among its peers.",
        "",
        "A file an importer wrote (`catalog/verified/`, `catalog/imported/`) changes only as the importer",
        "writes it: a hand edit, even of a field the importer leaves out, or a deletion fails. Maintainers:",
        "the pull-request workflow confirms a re-import by importing afresh into an empty folder and",
        "running `check-pr --reimported DIR`, which compares every such file and manifest byte for byte;",
        "a correction to an imported file is applied by a maintainer, not by a pull request's hand edit.",
        "",
    ]
    return lines


def contributing() -> str:
    """CONTRIBUTING.md, from the submission schema and the catalog."""
    from leaderboard.catalog import load_catalog
    from leaderboard.schemas import schema

    catalog = load_catalog(ROOT / "catalog")
    body = schema("submission")
    out = [
        "# Submitting a result",
        "",
        "<!-- Generated by `python -m leaderboard.docs` from schemas/submission.schema.json and catalog/."
        " Do not edit by hand. -->",
        "",
        "A result is one YAML (or JSON) file in one pull request. Anyone may submit: vendors, clouds,",
        "researchers. The steps:",
        "",
        "1. Fork the repository and run `make site` once (it installs everything into `.venv`).",
        "2. Write the file: `.venv/bin/leaderboard new` asks for each value (or takes them as flags, with",
        "   `--no-input` for scripts) and writes a valid file at the right path,",
        "   `submissions/<round>/<submitter-slug>/<entry>.yaml`. Or copy the example below.",
        "3. Check it: `.venv/bin/leaderboard validate` prints every problem as",
        "   `file:line:col: $.json.path: message (hint: ...)`; `.venv/bin/leaderboard check-pr` also shows",
        "   where the entry would rank by minutes, chip-hours and cost. With pre-commit, add the hook",
        "   `leaderboard-validate` from this repository's `.pre-commit-hooks.yaml`.",
        "4. Open the pull request. A bot validates the changed files (errors appear on the exact lines)",
        "   and comments with the rank preview; a maintainer reviews the source of the numbers.",
        "",
        "The submitter slug is the submitter lower-cased with every run of characters other than a-z and",
        "0-9 turned into one hyphen (`Intel-HabanaLabs` -> `intel-habanalabs`).",
        "",
        *_where_results_go(catalog),
        "## Every field",
        "",
        "| field | type and allowed values | required | meaning |",
        "|---|---|---|---|",
    ]
    for path, kind, required, meaning in _fields(body):
        out.append(f"| `{path}` | {kind} | {required} | {meaning} |")
    out += [
        "",
        "`source` needs `url` or `citation` (or both). In MLPerf rounds `result.quality` and",
        "`result.quality_target` are required; in the closed division the target is the round's (below).",
        "An MLPerf result's `date` is its round's publication date; a result with `availability: available`",
        "is not dated before its accelerator's release. One entry is one file: a published run from the same",
        "paper and model as another needs a `source.note` in each saying how the runs differ.",
        "",
        "## A full example",
        "",
        f"`{EXAMPLE.relative_to(ROOT).as_posix()}`:",
        "",
        "```yaml",
        EXAMPLE.read_text(encoding="utf-8").rstrip(),
        "```",
        "",
        "## Ids from the catalog",
        "",
        "### Rounds (`round`)",
        "",
        "| id | name | kind |",
        "|---|---|---|",
    ]
    out += [f"| `{r.id}` | {r.name} | {r.kind} |" for r in catalog.rounds.values()]
    out += [
        "",
        "### Benchmarks (`benchmark`)",
        "",
        "| id | name | kind | metric | closed-division target and runs per round |",
        "|---|---|---|---|---|",
    ]
    for b in catalog.benchmarks.values():
        rules = (
            "; ".join(
                f"{round_id}: {r.quality_target} ({'lower' if b.direction == 'lower' else 'higher'} is better), "
                f"{r.runs} runs, drop {r.drop_fastest} fastest and {r.drop_slowest} slowest"
                for round_id, r in b.rounds.items()
            )
            or "none"
        )
        out.append(f"| `{b.id}` | {b.name} | {b.kind} | {b.metric} | {rules} |")
    out += [
        "",
        "### Accelerators (`system.accelerator`)",
        "",
        "`unit: device` counts devices of `chips per device` chips; `unit: core` is allowed where a chip has",
        "cores (`cores per chip`).",
        "",
        "| id | vendor | name | chips per device | cores per chip |",
        "|---|---|---|---|---|",
    ]
    for a in catalog.accelerators.values():
        out.append(
            f"| `{a.id}` | {a.vendor} | {a.name} | {a.chips_per_device:g} | "
            f"{'' if a.cores_per_chip is None else f'{a.cores_per_chip:g}'} |"
        )
    out += [
        "",
        "A part that is missing: add it to `catalog/accelerators.yaml` in the same pull request, with",
        "its vendor, release date and memory, and the names MLPerf system files use for it as `aliases`.",
        "A new price needs its `source` URL and the `date` it was in force; never estimate one.",
        "",
    ]
    return "\n".join(out)


def render(text: str) -> str:
    for name, make in REGIONS.items():
        pattern = re.compile(rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", re.DOTALL)
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + m.group(2), text)
    return text


def main() -> int:
    outputs = {README: render(README.read_text(encoding="utf-8")), CONTRIBUTING: contributing()}
    stale = [p.name for p, text in outputs.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if "--check" in sys.argv:
        if stale:
            print(f"stale: {', '.join(stale)}: run python -m leaderboard.docs", file=sys.stderr)
            return 1
        return 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
