"""Names (review/names.py): one Unicode form, no invisible, reordering or look-alike characters, no
submitter passing for another; and files under submissions/ and catalog/ that are not regular
files are refused without being read. Table-driven for the rules, the real CLI for the rest."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import ROOT, run_cli
from test_checkpr import commit, git
from test_validate import MLPERF, PUBLISHED, place

from leaderboard.review.names import name_faults, skeleton, submitter_clashes

NVIDIA_FOLDER = "nvidia"


# ---- one name -----------------------------------------------------------------------------

REFUSED = [
    # (name, what the message must say, at which character)
    ("NVIDIA\u00a0", "U+00A0 NO-BREAK SPACE, a space other than the plain space U+0020", 7),
    ("NVI\u200bDIA", "U+200B ZERO WIDTH SPACE, an invisible character", 4),
    ("NV\u200dIDIA", "U+200D ZERO WIDTH JOINER, an invisible character", 3),
    ("\ufeffNVIDIA", "U+FEFF ZERO WIDTH NO-BREAK SPACE, an invisible character", 1),
    ("NVI\u00adDIA", "U+00AD SOFT HYPHEN, an invisible character", 4),
    ("NVIDIA\u3164", "U+3164 HANGUL FILLER, an invisible character", 7),
    ("\u202eAIDIVN", "U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control", 1),
    ("NVIDIA\u2066x\u2069", "U+2066 LEFT-TO-RIGHT ISOLATE, a bidirectional control", 7),
    ("NVIDIA\u200f", "U+200F RIGHT-TO-LEFT MARK, a bidirectional control", 7),
    ("Acme\u061cLabs", "U+061C ARABIC LETTER MARK, a bidirectional control", 5),
    ("Acme\u2007Labs", "U+2007 FIGURE SPACE, a space other than the plain space", 5),
    ("Acme\u202fLabs", "U+202F NARROW NO-BREAK SPACE, a space other than the plain space", 5),
    ("Acme\u3000Labs", "U+3000 IDEOGRAPHIC SPACE, a space other than the plain space", 5),
    ("Acme\tLabs", "U+0009 <control-0009>, a control character", 5),
    ("Acme\u2028Labs", "U+2028 LINE SEPARATOR, a line or paragraph separator", 5),
    ("Acme\ue000", "U+E000 <private use area-E000>, a private-use character", 5),
    # look-alikes from another script inside a Latin name
    (
        "NV\u0406DIA",
        "U+0406 CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I (Cyrillic) at character 3, which "
        "looks like the Latin 'I'",
        3,
    ),
    ("Go\u043egle", "U+043E CYRILLIC SMALL LETTER O (Cyrillic) at character 3, which looks like the Latin 'o'", 3),
    ("\u0391cme Labs", "U+0391 GREEK CAPITAL LETTER ALPHA (Greek) at character 1, which looks like the Latin 'A'", 1),
    ("Int\u0435l", "U+0435 CYRILLIC SMALL LETTER IE (Cyrillic) at character 4, which looks like the Latin 'e'", 4),
    # written decomposed: e + combining acute, where NFC has é
    ("Universite\u0301", "is not in Unicode normalization form C: at character 10 it is written decomposed", 10),
    (" Acme", "begins or ends with a space", None),
    ("Acme  Labs", "holds two spaces in a row", None),
]


@pytest.mark.parametrize(("name", "message", "position"), REFUSED)
def test_a_name_with_an_odd_character_is_refused(name, message, position):
    faults = name_faults(name)
    assert faults, name
    assert message in faults[0].message
    assert faults[0].position == position


ACCEPTED = [
    "NVIDIA",
    "Acme Labs",
    "Université de Montréal",  # composed (NFC)
    "Xi’an Jiaotong University et al.",  # a typographic apostrophe is punctuation, not a letter
    "Ecole Polytechnique F´ed´erale de Lausanne (EPFL) et al.",
    "PanGu-Σ",  # Greek, but no Latin letter looks like Σ
    "Huawei 华为",
    "Samsung 삼성",
    "Яндекс",  # one script throughout
    "Fujitsu / RIKEN",
    "GPT-3 175B",
]


@pytest.mark.parametrize("name", ACCEPTED)
def test_an_honest_name_passes(name):
    assert name_faults(name) == []


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("NVIDIA", "NV\u0406DIA", True),  # Cyrillic І
        ("NVIDIA", "NVlDIA", True),  # lower-case L for capital I: one script, still a look-alike
        ("NVIDIA", "NV1DIA", True),  # digit one
        ("GOOGLE", "G00GLE", True),  # digit zero for capital O
        ("Habana Labs", "\u041dabana Labs", True),  # Cyrillic Н
        ("rn", "m", True),
        ("NVIDIA", "AMD", False),
        ("NVIDIA", "nvidia", False),  # case differs: that is the folder's rule (below)
    ],
)
def test_tr39_skeletons(first, second, same):
    assert (skeleton(first) == skeleton(second)) is same


def test_a_new_name_is_told_the_existing_one_it_passes_for():
    submitters = [("NVIDIA", "a.yaml"), ("NVIDIA", "b.yaml"), ("NVlDIA", "c.yaml"), ("Nvidia", "d.yaml"), ("AMD", "e")]
    clashes = submitter_clashes(submitters)
    assert sorted(clashes) == [2, 3]  # never the established name, never an unrelated one
    [lookalike] = clashes[2]
    assert (lookalike.other, lookalike.other_file, lookalike.how) == ("NVIDIA", "a.yaml", "skeleton")
    [folder] = clashes[3]
    assert (folder.other, folder.how) == ("NVIDIA", "folder")


def test_two_equally_common_look_alikes_are_both_reported():
    assert sorted(submitter_clashes([("NVIDIA", "a"), ("NVlDIA", "b")])) == [0, 1]


# ---- validate on real files ---------------------------------------------------------------------


def nvidia_entry(submitter: str, system: str = "dgx-a100") -> str:
    return MLPERF.replace("submitter: Acme Labs", f'submitter: "{submitter}"').replace("acme-64", system)


def test_validate_refuses_a_look_alike_submitter_and_names_the_existing_one(empty_project):
    place(empty_project, nvidia_entry("NVIDIA"), folder=NVIDIA_FOLDER, name="real.yaml")
    place(empty_project, nvidia_entry("NVIDIA", "dgx-a100-2"), folder=NVIDIA_FOLDER, name="real-2.yaml")
    place(empty_project, nvidia_entry("NVlDIA", "dgx-b"), folder="nvldia", name="fake.yaml")
    place(empty_project, nvidia_entry("NVIDIA\\u00a0", "dgx-c"), folder=NVIDIA_FOLDER, name="nbsp.yaml")
    place(empty_project, nvidia_entry("NV\\u0406DIA", "dgx-d"), folder="nv-dia", name="cyrillic.yaml")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    out = result.out
    assert (
        "submissions/mlperf-training-v1.1/nvldia/fake.yaml:6:12: $.submitter: submitter 'NVlDIA' looks like the "
        "existing submitter 'NVIDIA' (submissions/mlperf-training-v1.1/nvidia/real-2.yaml): the two have the same "
        "confusable skeleton (Unicode TR39) (hint: use exactly 'NVIDIA' if it is that organization"
    ) in out
    assert (
        "nbsp.yaml:6:12: $.submitter: submitter 'NVIDIA\\xa0' holds U+00A0 NO-BREAK SPACE, a space other than "
        "the plain space U+0020, at character 7 (hint: write the plain space U+0020)"
    ) in out
    assert "cyrillic.yaml:6:12: $.submitter: submitter 'NV\u0406DIA' holds U+0406 CYRILLIC CAPITAL LETTER" in out
    reported = {line.split(":")[0] for line in out.splitlines()}
    assert not reported & {f"submissions/mlperf-training-v1.1/nvidia/{n}" for n in ("real.yaml", "real-2.yaml")}


def test_system_and_model_names_are_checked_too(empty_project):
    text = PUBLISHED.replace("name: 16 Cloud TPU v3", 'name: "16 Cloud TPU\\u200b v3"').replace(
        "name: Acme-LM", 'name: "Acme-L\\u041c"'
    )
    place(empty_project, text, round_="published", name="lm.yaml")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert "$.system.name: system name '16 Cloud TPU\\u200b v3' holds U+200B ZERO WIDTH SPACE" in result.out
    assert "$.model.name: model name 'Acme-L\u041c' holds U+041C CYRILLIC CAPITAL LETTER EM (Cyrillic)" in result.out


def test_a_submitter_spelled_another_way_cannot_share_a_folder(empty_project):
    place(empty_project, nvidia_entry("NVIDIA"), folder=NVIDIA_FOLDER, name="real.yaml")
    place(empty_project, nvidia_entry("Nvidia", "dgx-b"), folder=NVIDIA_FOLDER, name="other.yaml")
    result = run_cli("validate", cwd=empty_project)
    assert result.code == 1
    assert (
        "other.yaml:6:12: $.submitter: submitter 'Nvidia' would share the folder 'nvidia' and its submitter page "
        "with the existing submitter 'NVIDIA'"
    ) in result.out


def test_a_submitter_with_no_latin_letter_is_told_why_it_has_no_folder(empty_project):
    place(empty_project, nvidia_entry("华为"), folder="x", name="hw.yaml")
    result = run_cli("validate", cwd=empty_project)
    assert "submitter '华为' has no letter a-z or digit to name its folder" in result.out


def test_the_shipped_submissions_pass():
    result = run_cli("validate", cwd=ROOT, timeout=600)
    assert result.code == 0, result.out[-3000:]


# ---- check-pr ----------------------------------------------------------------------------------


@pytest.fixture
def nvidia_repo(tmp_path):
    shutil.copytree(ROOT / "catalog", tmp_path / "catalog")
    place(tmp_path, nvidia_entry("NVIDIA"), folder=NVIDIA_FOLDER, name="dgx-a100.yaml")
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path)
    git(tmp_path, "checkout", "-q", "-b", "pr")
    return tmp_path


@pytest.mark.parametrize(
    ("submitter", "folder", "message"),
    [
        ("NVIDIA\\u00a0", NVIDIA_FOLDER, "holds U+00A0 NO-BREAK SPACE"),
        ("NVI\\u200bDIA", NVIDIA_FOLDER, "holds U+200B ZERO WIDTH SPACE"),
        ("\\u202eNVIDIA", NVIDIA_FOLDER, "holds U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("NV\\u0406DIA", "nv-dia", "which looks like the Latin 'I'"),
        ("NVlDIA", "nvldia", "looks like the existing submitter 'NVIDIA'"),
    ],
)
def test_check_pr_refuses_look_alike_submitters(nvidia_repo, submitter, folder, message):
    place(nvidia_repo, nvidia_entry(submitter, "dgx-h"), folder=folder, name="dgx-h.yaml")
    commit(nvidia_repo)
    result = run_cli("check-pr", "--base", "main", cwd=nvidia_repo)
    assert result.code == 1, result.out
    assert message in result.out
    markdown = run_cli("check-pr", "--base", "main", "--format", "markdown", cwd=nvidia_repo)
    assert markdown.code == 1
    assert "\u202e" not in markdown.out and "\u200b" not in markdown.out  # shown as code points, never as is


def test_check_pr_passes_an_honest_new_submitter(nvidia_repo):
    # A result a new submitter measured is self-reported: it goes to the published round (MLPerf
    # rounds are closed to pull requests, review/closed.py).
    entry = PUBLISHED.replace("submitter: Acme Labs", 'submitter: "Université de Montréal"')
    place(nvidia_repo, entry, round_="published", folder="universit-de-montr-al", name="acme-lm.yaml")
    commit(nvidia_repo)
    result = run_cli("check-pr", "--base", "main", cwd=nvidia_repo)
    assert result.code == 0, result.out


# ---- files that are not regular files ------------------------------------------------------------

SECRET = "SECRET-MARKER-7f3a"


@pytest.fixture
def secret_file(tmp_path_factory):
    """A file outside the repository whose content would show in a message if it were read."""
    path = tmp_path_factory.mktemp("outside") / "passwd"
    path.write_text(f"base_url: {SECRET}\n{SECRET}:x:0:0:root:/root:/bin/bash\n")
    return path


@pytest.mark.parametrize(
    "link",
    ["catalog/site.yaml", "catalog/prices-evil.yaml", "catalog/x.yaml", "catalog/verified/evil.csv", "catalog/evil"],
)
def test_a_symlink_in_the_catalog_is_refused_and_never_read(nvidia_repo, secret_file, link):
    (nvidia_repo / link).symlink_to(secret_file)
    commit(nvidia_repo)
    outputs = []
    for fmt in ("text", "github", "markdown"):
        result = run_cli("check-pr", "--base", "main", "--format", fmt, cwd=nvidia_repo)
        assert result.code == 1, (fmt, result.out)
        outputs.append(result.out + result.err)
    for fmt in ("text", "json"):
        result = run_cli("validate", "--format", fmt, cwd=nvidia_repo)
        assert result.code == 1
        outputs.append(result.out + result.err)
    assert f"{link}:1:1: $: is a symbolic link: submissions and catalog files must be regular files" in outputs[0]
    assert f"{link}:1:1: $: is a symbolic link" in outputs[3]
    assert all(SECRET not in out for out in outputs)
    assert all("Traceback" not in out for out in outputs)


def test_a_symlinked_folder_in_submissions_is_refused_and_never_entered(nvidia_repo, secret_file, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside-folder")
    (outside / "entry.yaml").write_text(nvidia_entry(SECRET))
    (nvidia_repo / "submissions/mlperf-training-v1.1/evil").symlink_to(outside, target_is_directory=True)
    (nvidia_repo / "submissions/mlperf-training-v1.1/nvidia/passwd.yaml").symlink_to(secret_file)
    commit(nvidia_repo)
    for fmt in ("text", "github", "markdown"):
        result = run_cli("check-pr", "--base", "main", "--format", fmt, cwd=nvidia_repo)
        assert result.code == 1
        assert SECRET not in result.out + result.err
    text = run_cli("check-pr", "--base", "main", cwd=nvidia_repo).out
    assert "submissions/mlperf-training-v1.1/evil:1:1: $: is a symbolic link" in text
    assert "submissions/mlperf-training-v1.1/nvidia/passwd.yaml:1:1: $: is a symbolic link" in text


def test_a_device_or_pipe_in_the_catalog_is_refused(empty_project):
    os.mkfifo(empty_project / "catalog" / "prices-pipe.yaml")
    os.symlink("/dev/zero", empty_project / "catalog" / "verified" / "zero.csv")
    result = run_cli("validate", "--format", "json", cwd=empty_project, timeout=60)
    assert result.code == 1
    problems = {(p["file"], p["message"]) for p in json.loads(result.out)["problems"]}
    assert (
        "catalog/prices-pipe.yaml",
        "is a named pipe (FIFO): submissions and catalog files must be regular files",
    ) in problems
    assert (
        "catalog/verified/zero.csv",
        "is a symbolic link: submissions and catalog files must be regular files",
    ) in problems


def test_an_entry_replaced_by_a_symlink_shows_nothing_of_its_target(nvidia_repo, secret_file):
    entry_file = nvidia_repo / "submissions/mlperf-training-v1.1/nvidia/dgx-a100.yaml"
    secret_file.write_text(nvidia_entry(SECRET))  # reads as an entry: a diff would show its fields
    entry_file.unlink()
    entry_file.symlink_to(secret_file)
    commit(nvidia_repo)
    for fmt in ("text", "github", "markdown"):
        result = run_cli("check-pr", "--base", "main", "--format", fmt, cwd=nvidia_repo)
        assert result.code == 1
        assert SECRET not in result.out + result.err and "Traceback" not in result.err
    text = run_cli("check-pr", "--base", "main", cwd=nvidia_repo).out
    assert "submissions/mlperf-training-v1.1/nvidia/dgx-a100.yaml:1:1: $: is a symbolic link" in text
