"""Importer-written files in the checked-out tree against their manifests' digests, whether or not
git sees a change: a .gitattributes rule (eol=crlf, working-tree-encoding), core.autocrlf or a file
git is told to ignore changes of rewrites them without a diff. check-pr fails such a tree; a build
warns and goes on (a local checkout with autocrlf still builds)."""

from __future__ import annotations

import hashlib
import shutil

import duckdb
import pytest
from conftest import ROOT, run_cli
from test_checkpr import git
from test_closed import IMPORTED, ROUND, VERIFIED, commit, copy_entry

from leaderboard.manifest import Unmatched, unmatched_cause
from leaderboard.review.closed import unmatched_files

RETINANET = sorted((ROOT / "submissions" / ROUND).glob("*/*-retinanet.yaml"))


@pytest.fixture
def repo(tmp_path):
    """A base branch (main) with the shipped catalog, the v5.0 RetinaNet results (verified) and one
    imported published run; a pull-request branch (pr) on top."""
    base = tmp_path / "origin"
    shutil.copytree(ROOT / "catalog", base / "catalog")
    for path in RETINANET:
        copy_entry(base, path.relative_to(ROOT / "submissions").with_suffix("").as_posix())
    copy_entry(base, IMPORTED)
    git(base, "init", "-q", "-b", "main")
    commit(base)
    git(base, "checkout", "-q", "-b", "pr")
    return base


def checkout(repo, branch: str = "pr"):
    """The branch cloned fresh, as CI checks a pull request out: git applies its .gitattributes."""
    clone = repo.with_name(f"{branch}-clone-{len(list(repo.parent.iterdir()))}")
    git(repo.parent, "clone", "-q", "-b", branch, str(repo), str(clone))
    return clone


def add_attributes(repo, text: str):
    (repo / ".gitattributes").write_text(text, encoding="utf-8")
    git(repo, "add", ".gitattributes")  # only it: git would re-encode the files it now matches
    git(repo, "commit", "-qm", "attributes")


def check(clone, *args):
    return run_cli("check-pr", "--base", "origin/main", *args, cwd=clone)


def verified_count(db) -> tuple[int, int]:
    with duckdb.connect(str(db), read_only=True) as connection:
        return connection.execute(
            "SELECT count(*) FILTER (verified), count(*) FROM results WHERE round = ?", [ROUND]
        ).fetchone()


# ---- check-pr ---------------------------------------------------------------------------


def test_a_gitattributes_rule_converting_an_official_round_to_crlf_fails(repo):
    add_attributes(repo, f"submissions/{ROUND}/** text eol=crlf\n")
    clone = checkout(repo)
    assert b"\r\n" in (clone / "submissions" / f"{VERIFIED}.yaml").read_bytes()  # git did convert them
    result = check(clone)
    assert result.code == 1, result.out
    line = next(line for line in result.out.splitlines() if line.startswith(".gitattributes:1:1: $: "))
    assert f"{len(RETINANET)} importer-written files differ in the checked-out tree from the digest" in line
    assert "though this pull request does not change them" in line
    assert f"(by round, {ROUND}: {len(RETINANET)}): submissions/{ROUND}/" in line
    assert f"and {len(RETINANET) - 3} more" in line
    assert "each is its importer's bytes with CRLF line endings: git converted them on checkout" in line
    assert "(this pull request's change to .gitattributes)" in line
    assert "hint: remove the rule in .gitattributes that matches submissions/" in line
    assert result.out.rstrip().endswith("1 problem")
    assert "changes no submission or catalog file" not in result.out
    github = check(clone, "--format", "github").out
    assert "::error file=.gitattributes,line=1," in github
    markdown = check(clone, "--format", "markdown").out
    assert "### Closed rounds and importer-written results" in markdown and "CRLF line endings" in markdown
    # A rule that keeps the committed bytes passes.
    add_attributes(repo, "*.png binary\nsubmissions/** text eol=lf\n")
    result = check(checkout(repo))
    assert result.code == 0, result.out
    assert "0 changed files checked against origin/main: all valid" in result.out


def test_a_working_tree_encoding_rule_fails_naming_the_gitattributes_change(repo):
    add_attributes(repo, "submissions/published/** working-tree-encoding=UTF-16\n")
    clone = checkout(repo)
    assert (clone / "submissions" / f"{IMPORTED}.yaml").read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")
    result = check(clone)
    assert result.code == 1, result.out
    assert "1 importer-written file differs in the checked-out tree from the digest its manifest lists" in result.out
    assert f"(by round, published: 1): submissions/{IMPORTED}.yaml;" in result.out
    assert "git rewrites them on checkout without a diff, likely by this pull request's change to .gitattributes" in (
        result.out
    )


def test_a_manifest_re_encoded_on_checkout_is_a_named_problem_not_an_internal_error(repo):
    add_attributes(repo, f"catalog/verified/{ROUND}.csv working-tree-encoding=UTF-16LE-BOM\n")
    clone = checkout(repo)
    assert (clone / "catalog" / "verified" / f"{ROUND}.csv").read_bytes()[:2] == b"\xff\xfe"
    result = check(clone)
    assert result.code == 1 and "internal error" not in result.err, result.err
    assert f"catalog/verified/{ROUND}.csv:1:1: $: not UTF-8 text (byte 0xff at 0)" in result.out
    assert "no .gitattributes rule (working-tree-encoding, eol) may rewrite it" in result.out


def test_a_file_edited_where_git_looks_away_fails_without_a_gitattributes_change(repo):
    target = repo / "submissions" / f"{VERIFIED}.yaml"
    target.write_bytes(target.read_bytes().replace(b"\n", b"\n# edited\n", 1))
    git(repo, "update-index", "--assume-unchanged", f"submissions/{VERIFIED}.yaml")
    result = run_cli("check-pr", "--base", "main", cwd=repo)
    assert result.code == 1, result.out
    assert f"submissions/{VERIFIED}.yaml:1:1: $: 1 importer-written file differs" in result.out
    assert "rewritten without a change git sees" in result.out and "assume-unchanged" in result.out
    assert "hint: check submissions/ out byte for byte as committed" in result.out


# ---- build ------------------------------------------------------------------------------


def test_the_build_warns_when_official_files_are_not_their_importers_bytes(repo, tmp_path):
    add_attributes(repo, f"submissions/{ROUND}/** text eol=crlf\n")
    clone = checkout(repo)
    built = run_cli("build", "--db-only", "--db", tmp_path / "crlf.duckdb", "-q", cwd=clone)
    assert built.code == 0, built.err  # a warning, not a failure: the database is written
    warning = next(line for line in built.err.splitlines() if line.startswith("warning: "))
    assert warning.startswith(
        f"warning: {len(RETINANET)} results show as not verified: their files differ from the digests in "
        f"catalog/verified/ (by round, {ROUND}: {len(RETINANET)}): submissions/{ROUND}/"
    )
    assert "each is its importer's bytes with CRLF line endings" in warning and "core.autocrlf" in warning
    assert verified_count(tmp_path / "crlf.duckdb") == (0, len(RETINANET))
    # The same branch checked out byte for byte: every result verified, nothing to say.
    lf = checkout(repo, "main")
    built = run_cli("build", "--db-only", "--db", tmp_path / "lf.duckdb", "-q", cwd=lf)
    assert built.code == 0 and "warning" not in built.err, built.err
    assert verified_count(tmp_path / "lf.duckdb") == (len(RETINANET), len(RETINANET))


def test_the_build_says_an_official_file_edited_in_the_working_tree_was_edited(repo, tmp_path):
    clone = checkout(repo, "main")
    target = clone / "submissions" / f"{VERIFIED}.yaml"
    target.write_bytes(target.read_bytes().replace(b"\n", b"\n# edited\n", 1))
    built = run_cli("build", "--db-only", "--db", tmp_path / "edited.duckdb", "-q", cwd=clone)
    assert built.code == 0, built.err
    warning = next(line for line in built.err.splitlines() if line.startswith("warning: "))
    assert f"submissions/{VERIFIED}.yaml; they were edited since their importer wrote them" in warning, warning


# ---- the tree check itself ----------------------------------------------------------------


def test_unmatched_files_compares_every_listed_file_changed_or_not(tmp_path):
    files = {
        "same": b"a: 1\nb: 2\n",
        "crlf": b"a: 1\nb: 2\n",
        "edited": b"a: 1\nb: 2\n",
        "missing": b"a: 1\n",
        "skipped": b"a: 1\n",
    }
    on_disk = {"same": b"a: 1\nb: 2\n", "crlf": b"a: 1\r\nb: 2\r\n", "edited": b"a: 1\nb: 3\n", "skipped": b"x"}
    manifest = tmp_path / "catalog" / "verified" / "mlperf-training-v5.0.csv"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(
        "entry_id,sha256,division,accelerator,count,minutes\n"
        + "".join(
            f"mlperf-training-v5.0/acme/{name},{hashlib.sha256(content).hexdigest()},closed,h100,8,1\n"
            for name, content in files.items()
        ),
        encoding="utf-8",
    )
    for name, content in on_disk.items():
        path = tmp_path / "submissions" / "mlperf-training-v5.0" / "acme" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    kinds = {"mlperf-training-v5.0": "mlperf-training", "published": "published", "unknown-kind": "nonesuch"}
    skip = frozenset({"submissions/mlperf-training-v5.0/acme/skipped.yaml"})
    found = unmatched_files(tmp_path, "submissions", "catalog", kinds, skip=skip)
    assert found == [
        Unmatched("mlperf-training-v5.0", "submissions/mlperf-training-v5.0/acme/crlf.yaml", crlf=True),
        Unmatched("mlperf-training-v5.0", "submissions/mlperf-training-v5.0/acme/edited.yaml", crlf=False),
    ]


@pytest.mark.parametrize(
    ("crlf", "attributes", "expected"),
    [
        (
            (True, True),
            (),
            "each is its importer's bytes with CRLF line endings: git converted them on checkout "
            "(a text or eol rule in a .gitattributes file, or core.autocrlf)",
        ),
        (
            (True, False),
            (".gitattributes",),
            "1 of them is its importer's bytes with CRLF line endings: git "
            "converted them on checkout (this pull request's change to .gitattributes)",
        ),
        (
            (False,),
            ("a/.gitattributes",),
            "git rewrites them on checkout without a diff, likely by this pull "
            "request's change to a/.gitattributes (a filter, ident, working-tree-encoding, text or eol rule)",
        ),
        (
            (False,),
            (),
            "they were rewritten without a change git sees: a .gitattributes filter, ident, "
            "working-tree-encoding, text or eol rule, core.autocrlf, or an edit git is told to ignore "
            "(assume-unchanged, skip-worktree)",
        ),
    ],
)
def test_unmatched_cause(crlf, attributes, expected):
    found = [Unmatched("r", f"f{i}", flag) for i, flag in enumerate(crlf)]
    assert unmatched_cause(found, attributes) == expected


def test_a_builds_unmatched_cause_names_an_edit_first_and_git_after():
    """A build's working tree may hold an edit of an official file (check-pr's compared files are
    those its pull request does not change): said before what git may have rewritten."""
    found = [Unmatched("r", "f0", False)]
    cause = unmatched_cause(found, edits=True)
    assert cause.startswith("they were edited since their importer wrote them") and "`git diff`" in cause
    assert cause.endswith(unmatched_cause(found).removeprefix("they were "))
    crlf = [Unmatched("r", "f0", True)]
    assert unmatched_cause(crlf, edits=True) == unmatched_cause(crlf)  # the bytes name the cause
