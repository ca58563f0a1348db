"""Generated parts of the documentation: the README's database tables and CLI reference.

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
        sub = click.Context(command, info_name=f"leaderboard {name}", parent=context, terminal_width=100,
                            max_content_width=100)
        parts.append(f"#### `leaderboard {name}`\n\n```\n{command.get_help(sub)}\n```\n")
    return "\n".join(parts)


REGIONS = {"database": database_reference, "cli": cli_reference}


def render(text: str) -> str:
    for name, make in REGIONS.items():
        pattern = re.compile(rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", re.DOTALL)
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + m.group(2), text)
    return text


def main() -> int:
    text = README.read_text(encoding="utf-8")
    new = render(text)
    if "--check" in sys.argv:
        if new != text:
            print("README.md is stale: run python -m leaderboard.docs", file=sys.stderr)
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
