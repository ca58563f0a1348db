"""What an install compiles once from the code, beside Python's bytecode (`make bytecode`): the
pages' templates (Jinja2's bytecode) and the database's DDL, in cache.PRECOMPILED. A build whose
own cache lacks them (a first build, a cold one) reads them there instead of compiling them:
half a second each (the templates on the pages' critical path, the DDL with SQLAlchemy's import
in the database's process). Each is checked as the build's own cache is (render/writer.py's
TemplateCache, store.kept_ddl): one made for other code or other libraries is not used.

    python -m leaderboard.precompiled
"""

from __future__ import annotations

import sys

from leaderboard import store
from leaderboard.cache import PRECOMPILED
from leaderboard.problems import plural
from leaderboard.render import writer


def compile_all() -> list[str]:
    """Every template and the DDL compiled into PRECOMPILED (what is there and current is kept);
    what could not be written there, by name."""
    folder = PRECOMPILED / "templates"
    environment = writer.environment(folder)
    templates = 0
    for name in environment.list_templates():
        environment.get_template(name)  # compiled and kept, unless kept already
        source, filename, _ = environment.loader.get_source(environment, name)
        templates += environment.bytecode_cache.get_bucket(environment, name, filename, source).code is None
    missing = [plural(templates, "template")] if templates else []
    store.kept_ddl(PRECOMPILED / store.DDL_CACHE)
    if store.stored_ddl(PRECOMPILED / store.DDL_CACHE) is None:  # a stale one left, say, not written over
        missing.append("the database's DDL")
    return missing


def main() -> int:
    missing = compile_all()
    if missing:
        print(
            f"precompiled: could not write {' nor '.join(missing)} into {PRECOMPILED}: builds will compile "
            "them (a slower first build; nothing else changes)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
