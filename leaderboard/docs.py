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
    # The group's own settings (-h as well as --help), as a command line gets them.
    context = click.Context(
        main, info_name="leaderboard", terminal_width=100, max_content_width=100, **main.context_settings
    )
    parts.append("```\n" + main.get_help(context) + "\n```\n")
    for name in sorted(main.commands):
        command = main.commands[name]
        sub = click.Context(command, info_name=name, parent=context, terminal_width=100, max_content_width=100)
        parts.append(f"#### `leaderboard {name}`\n\n```\n{command.get_help(sub)}\n```\n")
    return "\n".join(parts)


def failures_reference() -> str:
    from leaderboard.failures import FAILURE_REASONS

    rows = [f"| `{code}` | {meaning} |" for code, meaning in FAILURE_REASONS.items()]
    return "\n".join(["| `failure_reason` | the run failed because |", "|---|---|", *rows]) + "\n"


def costs_at_reference() -> str:
    from leaderboard.costs_at import COLUMN_DOCS, COLUMNS

    lines = ["| column | type | meaning |", "|---|---|---|"]
    lines += [f"| `{name}` | {kind} | {COLUMN_DOCS[name]} |" for name, kind in COLUMNS]
    return "\n".join(lines) + "\n"


def epoch_comparison() -> str:
    from leaderboard.figures import shipped

    return shipped(ROOT)["epoch-comparison-table"]


def epoch_disagreements() -> str:
    from leaderboard.figures import shipped

    return shipped(ROOT)["epoch-disagreements"]


def figure(name: str) -> str:
    """An inline figure of the README (<!-- fig:name -->), from the shipped data (leaderboard.figures)."""
    from leaderboard.figures import shipped

    return shipped(ROOT)[name]


REGIONS = {
    "database": database_reference,
    "cli": cli_reference,
    "failures": failures_reference,
    "costs_at": costs_at_reference,
    "epoch-comparison": epoch_comparison,
    "epoch-disagreements": epoch_disagreements,
}

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
            f"Only the importer writes the rounds of {facts.label} (`{facts.importer}`, from what was",
            f"published): a file there that the round's manifest (`catalog/{facts.manifest_folder}/<round>.csv`) does",
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
        "A file an importer wrote (`catalog/verified/`, `catalog/imported/`, and `catalog/skipped/`, its",
        "list of the result folders it left off the boards) changes only as the importer",
        "writes it: a hand edit, even of a field the importer leaves out, or a deletion fails. Maintainers:",
        "the pull-request workflow confirms a re-import by importing afresh into an empty folder and",
        "running `check-pr --reimported DIR`, which compares every such file and manifest byte for byte;",
        "a correction to an imported file is applied by a maintainer, not by a pull request's hand edit.",
        "",
    ]
    return lines


def _dates_and_sources() -> list[str]:
    """What date and source a self-reported result gives, and what a reviewer checks of them."""
    return [
        "### Dates and sources of self-reported results",
        "",
        "- **`date`** is the day the result was first made public, in the source you give: the first",
        "  version of the paper (arXiv's v1, not a later revision), the blog post, or the public log",
        "  or repository release. It is not the day the run finished. A result published nowhere but in",
        "  this pull request is dated the day you open it, with its logs public (below). `validate`",
        "  refuses a date in the future and, for `availability: available`, a date before the",
        "  accelerator's release (a preview or research system may predate it by up to two years),",
        "  and a date before 2000; an MLPerf round's results carry the round's date instead.",
        "- **`source.url`** is an http(s) address where a reader finds the numbers you typed (time to",
        "  train, chip count and accelerator, and for published runs the model): the paper (arXiv's",
        "  abstract page), the post, or for a result you measured yourself a public, permanent copy of",
        "  its training logs (a tagged repository release, a Zenodo record), not a private drive or a",
        "  page that changes. `source.citation` is for a source without a stable address (a printed",
        "  paper, a talk): author, title, venue and year. Say in `source.note` where in the source the",
        "  numbers are (section, table, log line) and anything derived (hours -> minutes, devices ->",
        "  chips); a number you estimated is marked `result.estimated: true` with how in the note (an",
        "  estimated time is listed on its board, never ranked).",
        "- **A reviewer checks** that the source is public and shows each number as typed (or as the",
        "  note derives it), that `date` is the source's first public date, that `system.count` and",
        "  `unit` match it (the rank preview shows the chips it became), that the division and",
        "  availability fit, and the results the check-pr comment names just above and below the entry",
        "  on its board: an implausible jump asks for the logs. The pull request template lists these.",
        "",
    ]


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
        "1. Fork the repository and run `make install` once (under a minute: it installs the tools into",
        "   `.venv`). That is all checking a file needs; `make site` (a few minutes) builds the whole site",
        "   only if you want to see the pages. To see your entry's pages as you edit it, keep",
        "   `.venv/bin/leaderboard build --watch` running (it builds again each time you save a file) beside",
        "   `.venv/bin/leaderboard serve`, and open http://127.0.0.1:8000/.",
        "2. Write the file: `.venv/bin/leaderboard new` asks for each value, checking each as you type it",
        "   (or takes them as flags, with `--no-input` for scripts), and writes a valid file at the right path,",
        "   `submissions/<round>/<submitter-slug>/<entry>.yaml`. Or copy the example below.",
        "3. Check it: `.venv/bin/leaderboard validate` prints every problem as",
        "   `file:line:col: $.json.path: message (hint: ...)`; `.venv/bin/leaderboard check-pr` also shows",
        "   where the entry would rank on its board (by the board's ranking, and sorted by minutes,",
        "   chip-hours or cost) and its neighbours there. With pre-commit, add the hook",
        "   `leaderboard-validate` from this repository's `.pre-commit-hooks.yaml`.",
        "4. Open the pull request. A bot validates the changed files (errors appear on the exact lines)",
        "   and comments with the rank preview; a maintainer reviews the source of the numbers.",
        "",
        "The submitter slug is the submitter lower-cased with every run of characters other than a-z and",
        "0-9 turned into one hyphen (`Intel-HabanaLabs` -> `intel-habanalabs`).",
        "",
        "Names (`submitter`, `system.name`, `model.name`) are checked as a reader would be fooled by them:",
        "they must be in Unicode normalization form C (composed: `é` as one character); invisible",
        "characters (zero-width spaces and joiners, soft hyphens, byte order marks), bidirectional",
        "controls, control characters and any space but the plain space (no-break, narrow, ideographic)",
        "are refused, each named with its code point and position; so are a letter of another script",
        "that looks like one of the name's own (a Cyrillic `а` in a Latin name; `PanGu-Σ` is fine), and",
        "a submitter name that looks like an existing submitter's (the same Unicode TR39 confusable",
        "skeleton: `NVlDIA` for `NVIDIA`) or would share its folder (`Nvidia`): use exactly the existing",
        "name. Every file under `submissions/` and `catalog/` must be a regular file: a symbolic link,",
        "pipe or device is refused and never followed or read.",
        "",
        *_where_results_go(catalog),
        *_dates_and_sources(),
        "DAWNBench (`submissions/dawnbench-v1.0/`) is an archive, not open for entries: its files are",
        "what `leaderboard import-dawnbench` writes from Stanford DAWN's repository (closed in 2020),",
        "listed with their digests in `catalog/imported/dawnbench-v1.0.csv`; a hand edit there is",
        "not accepted (a time must also be the first progress row at the target). A time-to-accuracy",
        "result you measured yourself goes to `published`. Maintainers: to correct an entry, correct",
        "the catalog (an instance type in `catalog/instance-types.yaml`, an alias) and re-run the",
        "importer on the same archive; an entry it cannot resolve is listed with the reason.",
        "",
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
        "is not dated before its accelerator's release. A system holds at most 1,000,000 chips, whatever",
        "its `unit`, and trains for at least a second (`result.minutes` and each of `runs_minutes` at least",
        "1/60). One entry is one file: a published run from the same",
        "paper and model as another needs a `source.note` in each saying how the runs differ, and must",
        "differ in part, chip count or minutes: the same ones are one run whatever the notes say.",
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
        "## What the check shows a reviewer",
        "",
        "Besides your entries, `check-pr` (and the bot's comment) names every path the pull request",
        "changes outside `submissions/`, with its kind and how it changed. Code, workflows, build and",
        'packaging files, lock files, schemas and `catalog/site.yaml` come first, under "Needs a code',
        "owner's review\": they do not fail the check, but a code owner must approve them (a",
        "`base_url` change is shown old -> new). An edit or a deletion of a result already on the",
        "boards comes next, with the submitter it names: a maintainer confirms that you speak for",
        "that submitter (correct your own results freely; cite the source when you correct",
        "another's). A change to the catalog shows its effect: how many",
        "results change cost, cost rank, chip-hours, verified status or rank on their board, every",
        "database column that changes for any result (with how many), the ten largest cost moves,",
        "and every round, accelerator field, price, compute figure (`catalog/compute-epoch.yaml`) and",
        "plausibility override added, removed or changed (an override by its entry only: its reason",
        "and approver are the pull request's words until a maintainer merges it). A price dated before",
        "its accelerator's `release_date` fails unless `date_before_release` says why (a source that",
        "gives only a year, say); a new price far from the part's other prices (below a third or",
        "above three times their median) is flagged for the reviewer.",
        "",
    ]
    out += _plausibility()
    out += checks_and_maintainers()
    return "\n".join(out)


def _plausibility() -> list[str]:
    """CONTRIBUTING's section on check-pr's plausibility check, its numbers from the check itself."""
    from leaderboard.review.plausibility import FLOOR_MARGIN, OVERRIDES, PER_CHIP_LIMIT

    return [
        "## Plausibility: what a new result is compared with",
        "",
        "`check-pr` compares every new or changed result that is not verified, prints each comparison under",
        "its rank preview, and fails a result that is far outside (the comparison is the message):",
        "",
        "- **Per chip, with the verified results** of its benchmark, accelerator and division: its chip-hours",
        "  against the fewest of any verified result at the nearest verified chip count at or below its own",
        "  (chip-hours grow with scale: a result may beat a larger run per chip, not a smaller one). Below",
        "  every verified scale it is compared with the smallest one above, the limit widened by the square",
        f"  root of the scale between them. More than {PER_CHIP_LIMIT:g}x better per chip fails.",
        "- **The compute floor**: what its chips could compute in its time (peak FLOP/s x chips x seconds)",
        "  must reach what its training needs. Peak FLOP/s per chip come from Epoch AI's hardware database",
        "  (`catalog/compute-epoch.yaml`, by `leaderboard import-flops`: the fastest dense tensor FP16/BF16,",
        "  FP16 or FP32 rate, never FP8 or sparse). What the training needs: for a benchmark with verified",
        "  results, the smallest peak FLOP x chip-seconds any of them needed, divided by",
        f"  {FLOOR_MARGIN:g} (new software and FP8 have halved it between rounds, not more); for a published",
        "  run, the training compute (for a fine-tuned model, the fine-tuning compute) that Epoch AI's",
        "  Notable AI Models database gives for its `model.name`. The name is matched as written, else",
        "  with case, spaces, hyphens and underscores aside, else with every sign but a dot aside, else",
        "  without what either name says in brackets (`GPT-3 175B` is Epoch's `GPT-3 175B (davinci)`);",
        "  a spelling that fits two models fits none. A name matched by none is said, with the nearest",
        "  names of the file, so a reviewer sees which model was meant.",
        "",
        "Verified results are not checked: they are recomputed from the published logs and are what the",
        "others are compared with. Checked as if self-reported, fewer than 1% of them would fail (real leaps:",
        "a round's new software, a rule change); a test keeps it so.",
        "",
        "**Overrides.** A result that is right although it fails can ask for an override: an entry in",
        f"`{OVERRIDES}`, in a pull request of its own.",
        "",
        "```yaml",
        "  - entry_id: <round>/<submitter-slug>/<entry>",
        "    reason: what makes the numbers right, with the evidence (logs, a paper, a reproduction)",
        "    approved_by: <the maintainer who reviewed it>",
        "    approved_for: {accelerator: <id>, chips: <chips>, minutes: <minutes>}",
        '    approved_on: "YYYY-MM-DD"',
        "```",
        "",
        "`approved_for` holds the numbers approved: the override lets the result through only while it gives",
        "them, so a later edit of its accelerator, chip count or minutes fails again until a maintainer",
        "approves the override for the new numbers.",
        "",
        "The file is under `catalog/`, which CODEOWNERS gives to the maintainers: the pull request cannot",
        "merge until one of them approves it and names themselves in `approved_by`. `check-pr` reads the",
        "overrides, the compute figures of `catalog/compute-epoch.yaml` and the peak FLOP/s of every",
        "accelerator the base branch has from the base branch, never from the pull request: an override or",
        "figure that a pull request adds or changes does not apply in that pull request. Its result still",
        "fails, the message saying that the pull request adds (or changes) an override or compute figure",
        "for it, which applies only once a code owner has merged it. So the maintainer merges the catalog",
        "change on its own first; the result's pull request, on top of it, then passes, and `check-pr`",
        "still prints the comparison and the reason, in its output and in the bot's comment.",
    ]


# The commit status the trusted workflow (.github/workflows/pull-request-comment.yml) sets.
TRUSTED_STATUS = "leaderboard / trusted check"


def checks_and_maintainers() -> list[str]:
    """CONTRIBUTING.md's part on what checks a pull request, and what a maintainer turns on."""
    return [
        "## What checks your pull request",
        "",
        "- **The comment and the verdict come from the base branch's code.** The workflow \"Comment on",
        '  pull request" runs as the default branch has it, whatever your pull request changes: it reads',
        "  your head commit as data (nothing in it is built, installed or run), fetches every round's",
        "  archive itself (`leaderboard fetch-archives`, each checked against its SHA-256 in",
        "  `catalog/archives.yaml`), re-imports every round into an empty folder with the base branch's",
        "  importers (`make reimport`), runs `leaderboard check-pr --reimported` and posts that output as",
        f"  the bot's comment, with the commit status `{TRUSTED_STATUS}`. Nothing your pull request's own",
        "  run produces reaches the comment; a fork is checked exactly like a branch of this repository,",
        "  re-imports included.",
        '- **"Check pull request"** runs on your pull request: annotations on the exact lines (the base',
        "  branch's checker again), and, when you change anything outside `submissions/` (code, workflows,",
        "  catalog, docs), the whole test suite of your code (`make test`, read-only, no secrets).",
        "- **Code owners.** A change to anything outside `submissions/` (code, workflows, `Makefile`,",
        "  `pyproject.toml`, `requirements.lock`, `web/`, the catalog, schemas, tests) needs the review of",
        "  a code owner (`.github/CODEOWNERS`).",
        "",
        "## For maintainers",
        "",
        "Branch protection of the default branch (Settings -> Branches, or a ruleset), without which the",
        "checks above are advice:",
        "",
        "- Require a pull request before merging, with at least one approval; **require review from Code",
        "  Owners**; **dismiss stale approvals** when new commits are pushed.",
        f"- Require status checks to pass: **`{TRUSTED_STATUS}`** (the commit status of the trusted",
        '  workflow), and the jobs `check` and `test` of "Check pull request" (`test` is skipped, and',
        "  passes, when only `submissions/` changes). Require branches to be up to date. Those two jobs",
        "  run the pull request's own copy of `pull-request.yml`, so they catch mistakes, not abuse: the",
        "  trusted status and the code owners' review do that.",
        "- **No direct pushes** (restrict pushes; no bypass for administrators), **no force pushes**, no",
        "  deletion of the branch.",
        '- Settings -> Actions -> General: workflow permissions "Read repository contents"; approval',
        "  required to run workflows of outside contributors' pull requests.",
        "- `.github/CODEOWNERS` names the placeholder team `@OWNER/maintainers`: replace it with the real",
        "  team (or users), which needs write access to the repository.",
        "",
        "Where the archives come from: the trusted job downloads each file of `catalog/archives.yaml` from",
        "this repository's release `data-v1` (`release_asset` there) and refuses any whose size or",
        "SHA-256 differs. Publish that release once with every listed file as an asset, checked first:",
        "`leaderboard fetch-archives --from ../shared/data --to dist` then",
        "`gh release create data-v1 dist/*`. A new round adds its archive to `catalog/archives.yaml`",
        "(`file`, `bytes`, `sha256`, `feeds`, `source` with the upstream repository and commit) and the",
        "file to the release; a published asset is never replaced (a corrected archive gets a new",
        "name). `make reimport` (`FETCH=--from FOLDER` or `--repository URL`) re-imports locally",
        "exactly as the trusted job does.",
        "",
    ]


def render(text: str) -> str:
    for name, make in REGIONS.items():
        pattern = re.compile(rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", re.DOTALL)
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + m.group(2), text)
    from leaderboard.figures import render_figures

    return render_figures(text, figure)


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
