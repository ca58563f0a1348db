"""The README stays true: its first commands, its generated references, its Python examples."""

import re
import shutil

from conftest import ROOT, run_cli

from leaderboard import docs


def test_readme_starts_with_the_two_setup_commands():
    text = (ROOT / "README.md").read_text()
    first_block = re.search(r"```sh\n(.*?)```", text, re.DOTALL).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["make site", "make test"]


def test_generated_references_are_current():
    text = (ROOT / "README.md").read_text()
    assert docs.render(text) == text, "README.md is stale: run python -m leaderboard.docs"


def test_each_command_s_usage_line_names_the_program_once():
    reference = docs.cli_reference()
    assert "Usage: leaderboard build [OPTIONS]" in reference
    assert "Usage: leaderboard check-pr [OPTIONS]" in reference
    assert "leaderboard leaderboard" not in reference


def test_every_table_and_column_is_documented():
    text = (ROOT / "README.md").read_text()
    from leaderboard.store import table_docs

    for table, _, columns in table_docs():
        assert f"#### `{table}`" in text
        for name, _, doc in columns:
            assert f"| `{name}` |" in text and doc, (table, name)


def test_python_examples_run(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    shutil.copytree(ROOT / "submissions", tmp_path / "submissions")
    assert run_cli("build", "-q", "--out", tmp_path / "site", cwd=tmp_path).code == 0
    monkeypatch.chdir(tmp_path)
    section = (ROOT / "README.md").read_text().split("## Python API", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own documentation


def test_contributing_guide_is_current_and_complete():
    from leaderboard.schemas import schema

    text = (ROOT / "CONTRIBUTING.md").read_text()
    assert text == docs.contributing(), "CONTRIBUTING.md is stale: run python -m leaderboard.docs"
    for name in schema("submission")["properties"]:
        assert f"| `{name}` |" in text
    assert "| `system.count` | number (> 0) | yes |" in text
    assert "| `mlperf-training-v1.1` | MLPerf Training v1.1 | mlperf-training |" in text
    assert "```yaml\nschema_version: 1" in text


def test_staleness_check_fails_on_a_stale_guide(tmp_path, monkeypatch):
    monkeypatch.setattr(docs, "CONTRIBUTING", tmp_path / "CONTRIBUTING.md")
    monkeypatch.setattr(docs, "README", tmp_path / "README.md")
    (tmp_path / "README.md").write_text((ROOT / "README.md").read_text())
    (tmp_path / "CONTRIBUTING.md").write_text("old\n")
    monkeypatch.setattr("sys.argv", ["docs", "--check"])
    assert docs.main() == 1
    monkeypatch.setattr("sys.argv", ["docs"])
    assert docs.main() == 0
    monkeypatch.setattr("sys.argv", ["docs", "--check"])
    assert docs.main() == 0


def test_contributing_checks_a_file_after_make_install_and_says_how_to_date_and_source_it():
    import subprocess

    text = (ROOT / "CONTRIBUTING.md").read_text()
    steps = text.split("The steps:", 1)[1].split("\n\n")[1]
    assert steps.startswith("1. Fork the repository and run `make install` once")
    assert "`make site` (a few minutes) builds the whole site\n   only if you want to see the pages" in steps
    # What step 1 promises: install alone builds nothing (no site, no npm).
    dry = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), "install"], capture_output=True, text=True, check=True)
    assert "pip install" in dry.stdout and "leaderboard build" not in dry.stdout and "npm" not in dry.stdout
    section = text.split("### Dates and sources of self-reported results", 1)[1].split("\n#", 1)[0]
    for rule in ("**`date`** is the day the result was first made public", "**`source.url`**", "**A reviewer checks**"):
        assert rule in section
