"""`leaderboard new`: a valid file at the right path from flags or prompts; suggestions for unknown ids."""

import subprocess
import sys

import yaml
from conftest import run_cli

FLAGS = [
    "--round",
    "mlperf-training-v1.1",
    "--benchmark",
    "resnet",
    "--division",
    "closed",
    "--submitter",
    "Intel-HabanaLabs",
    "--date",
    "2021-12-01",
    "--system",
    "HLS-1H-N64",
    "--accelerator",
    "gaudi",
    "--count",
    "256",
    "--minutes",
    "3.386",
    "--quality",
    "0.7601",
    "--source-url",
    "https://example.com/r",
    "--no-input",
]


def test_writes_a_valid_file_from_flags(empty_project):
    result = run_cli("new", *FLAGS, cwd=empty_project)
    assert result.code == 0, result.err
    path = empty_project / "submissions/mlperf-training-v1.1/intel-habanalabs/hls-1h-n64-resnet.yaml"
    assert f"wrote {path.relative_to(empty_project)}" in result.out
    data = yaml.safe_load(path.read_text())
    assert data["result"] == {"minutes": 3.386, "quality": 0.7601, "quality_target": 0.759}
    assert data["system"] == {"name": "HLS-1H-N64", "accelerator": "gaudi", "count": 256, "unit": "chip"}
    assert run_cli("validate", cwd=empty_project).code == 0
    again = run_cli("new", *FLAGS, cwd=empty_project)
    assert again.code == 1 and "exists already" in again.out


def test_unknown_id_gets_a_suggestion(empty_project):
    flags = [f if f != "gaudi" else "gaudy" for f in FLAGS]
    result = run_cli("new", *flags, cwd=empty_project)
    assert result.code == 1
    assert "unknown accelerator 'gaudy' (did you mean 'gaudi'" in result.err
    assert not (empty_project / "submissions/mlperf-training-v1.1").exists()


def test_invalid_answers_write_nothing(empty_project):
    flags = [f if f != "0.7601" else "0.70" for f in FLAGS]
    result = run_cli("new", *flags, cwd=empty_project)
    assert result.code == 1
    assert "$.result.quality: quality 0.7 misses the target 0.759" in result.out
    assert not list((empty_project / "submissions").rglob("*.yaml"))


def test_missing_flag_with_no_input_is_a_usage_error(empty_project):
    result = run_cli("new", "--round", "published", "--no-input", cwd=empty_project)
    assert result.code == 2 and "--benchmark is required with --no-input" in result.err


def test_prompts_ask_again_after_an_unknown_id(empty_project):
    answers = (
        "\n".join(
            [
                "published",
                "langauge",
                "language",
                "open",
                "available",
                "Acme Labs",
                "2019-01-01",
                "16 Cloud TPU v3",
                "tpu-v3",
                "device",
                "16",
                "5760",
                "https://example.com/acme",
            ]
        )
        + "\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", "new"],
        cwd=empty_project,
        input=answers,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "unknown benchmark 'langauge' (did you mean 'language'?)" in done.stderr
    data = yaml.safe_load((empty_project / "submissions/published/acme-labs/16-cloud-tpu-v3-language.yaml").read_text())
    assert data["system"]["unit"] == "device" and data["result"] == {"minutes": 5760.0}
