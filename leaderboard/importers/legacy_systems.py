"""System descriptions of MLPerf Training v0.5 and v0.6, brought to the shape of v0.7 and later
system files (`<org>/systems/<system>.json`), which the importer reads.

Three shapes come in:

- v0.5 `.../results/<system>/entry.json` (every organization) and v0.6 Alibaba's
  `<org>/results/<system>/entry.json`: JSON with `division`, `status`, `hardware`, `framework`
  and `nodes: [{num_nodes, cpu, num_cores, accelerator, num_accelerators, ...}]`; no submitter
  and no system name.
- v0.6 `<org>/systems/<system>.json` of Google, Intel and Fujitsu: JSON, Google's already in the
  v0.7 shape, Intel's half in it (`"sumitter"`, `"number of nodes"`) with an entry.json `nodes`
  list, Fujitsu's an entry.json.
- v0.6 NVIDIA `<org>/systems/<system>.json`: not JSON but the `submission_*` lines of its logs,
  `key: {"value": ..., "metadata": ...}`, where `entry` is a Python repr of a dict whose `nodes`
  and `libraries` are Python reprs again (read with ast.literal_eval, never eval).

Out comes a dict with the v0.7 keys `submitter`, `system_name`, `division`, `status`,
`number_of_nodes`, `accelerators_per_node`, `accelerator_model_name`,
`host_processor_model_name`, `host_processors_per_node`, `framework` (counts as strings, as in
v0.7 files; a key the source has nothing for is left out). Names are kept as the source spells
them; only a leading count (`2x Intel(R) Xeon(R) ...`) is taken out into the count.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

MAX_BYTES = 1 << 20

# Organization folders of v0.5 and v0.6 -> the submitter's name as MLCommons displays it.
ORGANIZATIONS = {
    "alibaba": "Alibaba",
    "fujitsu": "Fujitsu",
    "google": "Google",
    "intel": "Intel",
    "nvidia": "NVIDIA",
}

# Availability as the old files spell it -> the v0.7 status words.
_STATUS = {
    "onprem": "onprem",
    "on-prem": "onprem",
    "on-premise": "onprem",
    "on premise": "onprem",
    "available": "onprem",
    "cloud": "cloud",
    "preview": "preview",
    "research": "research",
    "rdi": "research",
}

_NONE = {"", "na", "n/a", "none", "-"}

# v0.5 Google names its accelerator by the Cloud TPU slice, `tpuv<generation>-<cores>`
# (tpuv2-8, tpuv3-32, tpuv2-512, tpuv3-512), and counts cores in num_accelerators: a tpuv3-8 is
# one Cloud TPU v3 device, 4 chips of 2 cores each, logged as num_accelerators 8. Its num_nodes
# (1, 2, 32, 64) is not a count of anything it multiplies with (a tpuv3-512 with 32 "nodes" of 512).
# MLPerf's own v0.6 Google files count the same slices in chips (tpu-v3-32: accelerators_per_node
# 16, accelerator_core_count 2; tpu-v3-2048: 1024, Google's "1024 TPU chips"), so a v0.5 slice of
# N cores becomes one node of N / 2 chips.
_TPU_SLICE = re.compile(r"tpu-?v([23])[-.](\d+)", re.IGNORECASE)
TPU_CORES_PER_CHIP = 2

_LEADING_COUNT = re.compile(r"^\s*(\d+)\s*x\s+(.+)$", re.IGNORECASE)
_HOSTS_IN_HARDWARE = re.compile(r"\b(\d+)\s*x\s+(?:Intel|AMD)\b", re.IGNORECASE)


def describe(raw: bytes, org: str) -> dict:
    """The v0.7-shaped system description of one v0.5/v0.6 description file of organization
    folder `org`; ValueError with a one-line reason when it cannot be read as one."""
    if len(raw) > MAX_BYTES:
        raise ValueError("system description is over 1 MiB")
    text = raw.decode("utf-8-sig", errors="replace")
    desc = _parse(text)
    nodes = desc.get("nodes")
    if isinstance(nodes, str):  # NVIDIA v0.6: a repr inside the entry
        nodes = _literal(nodes, "nodes")
    if isinstance(nodes, dict):
        nodes = [nodes]
    if nodes is None:
        nodes = []
    if not isinstance(nodes, list) or not all(isinstance(node, dict) for node in nodes):
        raise ValueError("`nodes` is not a list of objects")
    if len(nodes) > 1:
        raise ValueError(f"describes {len(nodes)} groups of nodes; one is supported")
    node = nodes[0] if nodes else {}

    result: dict[str, str] = {}
    result["submitter"] = _submitter(desc, org)
    name = _first_text(desc, "system_name", "platform", "hardware")
    if name is None:
        raise ValueError("no system_name, platform or hardware to name the system")
    result["system_name"] = name

    division = (_first_text(desc, "division") or "").lower()
    if division not in ("closed", "open"):
        raise ValueError(f"division {desc.get('division')!r} is neither closed nor open")
    result["division"] = division
    status = _first_text(desc, "status")
    if status is None or status.lower() not in _STATUS:
        raise ValueError(f"status {desc.get('status')!r} is not one of {', '.join(sorted(set(_STATUS)))}")
    result["status"] = _STATUS[status.lower()]

    _accelerators(desc, node, result)
    _hosts(desc, node, result)
    framework = _first_text(desc, "framework")
    if framework is not None:
        result["framework"] = framework
    return result


# ---- reading the three shapes ------------------------------------------------------------


def _parse(text: str) -> dict:
    try:
        desc = json.loads(text)
    except ValueError:
        desc = _mll_lines(text)
    if not isinstance(desc, dict):
        raise ValueError("system description is not a JSON object")
    entry = desc.get("entry")
    if isinstance(entry, str):  # NVIDIA v0.6: the entry.json fields, as a Python repr
        entry = _literal(entry, "entry")
    if isinstance(entry, dict):
        desc = {**entry, **{k: v for k, v in desc.items() if k != "entry"}}
    return desc


def _mll_lines(text: str) -> dict:
    """NVIDIA v0.6: `key: {"value": ..., "metadata": ...}` lines -> {key: value}."""
    desc: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, colon, payload = line.partition(":")
        if not colon or not re.fullmatch(r"[A-Za-z0-9_ ]+", key.strip()):
            raise ValueError(f"line {number} is neither JSON nor a `key: {{json}}` line")
        try:
            record = json.loads(payload)
        except ValueError:
            raise ValueError(f"line {number} ({key.strip()}) has no JSON after its key") from None
        if not isinstance(record, dict) or "value" not in record:
            raise ValueError(f"line {number} ({key.strip()}) has no value")
        desc[key.strip().removeprefix("submission_")] = record["value"]
    if not desc:
        raise ValueError("system description is empty")
    return desc


def _literal(text: str, what: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError(f"`{what}` is not a Python literal") from None


# ---- fields ------------------------------------------------------------------------------


def _text(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    text = " ".join(str(value).split())
    return None if text.lower() in _NONE else text


def _first_text(desc: dict, *keys: str) -> str | None:
    for key in keys:
        text = _text(desc.get(key))
        if text is not None:
            return text
    return None


def _count(value: Any, what: str) -> int | None:
    """A whole non-negative count given as a number or a string; None when absent."""
    if value is None or (isinstance(value, str) and value.strip().lower() in _NONE):
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ValueError(f"{what} {value!r} is not a number") from None
    if isinstance(value, bool) or not math.isfinite(number) or not number.is_integer() or number < 0:
        raise ValueError(f"{what} {value!r} is not a whole count")
    return int(number)


def _submitter(desc: dict, org: str) -> str:
    known = ORGANIZATIONS.get(org.strip().lower())
    if known:
        return known
    named = _first_text(desc, "submitter", "org", "sumitter")
    if named:
        return named
    if org.strip():
        return org.strip()
    raise ValueError("no submitter: the file names none and the organization folder is empty")


def _accelerators(desc: dict, node: dict, result: dict) -> None:
    nodes = _count(_first_of(desc, "number_of_nodes", "number of nodes"), "number_of_nodes")
    if nodes is None:
        nodes = _count(node.get("num_nodes"), "num_nodes")
    if nodes is None or nodes < 1:
        raise ValueError("no positive number of nodes (number_of_nodes or nodes[].num_nodes)")
    per_node = _count(desc.get("accelerators_per_node"), "accelerators_per_node")
    if per_node is None:
        per_node = _count(node.get("num_accelerators"), "num_accelerators")
    model = _first_text(desc, "accelerator_model_name") or _text(node.get("accelerator"))

    if model is None:
        if per_node:
            raise ValueError(f"{per_node} accelerators per node of no named model")
        per_node = 0  # CPU only: host processors do the work
    elif per_node is None or per_node == 0:
        raise ValueError(f"accelerator {model!r} with no count per node")
    else:
        tpu = _TPU_SLICE.fullmatch(model)
        if tpu:  # a v0.5 Cloud TPU slice, counted in cores (see _TPU_SLICE)
            cores = int(tpu.group(2))
            if per_node != cores:
                raise ValueError(f"TPU slice {model!r} of {cores} cores counts {per_node} accelerators")
            if cores % TPU_CORES_PER_CHIP:
                raise ValueError(f"TPU slice {model!r} has an odd number of cores")
            nodes, per_node = 1, cores // TPU_CORES_PER_CHIP
        result["accelerator_model_name"] = model
    result["number_of_nodes"] = str(nodes)
    result["accelerators_per_node"] = str(per_node)
    if per_node == 0 and not _hosts_known(desc, node):
        raise ValueError("no accelerator and no host processor: nothing to count")


def _first_of(desc: dict, *keys: str) -> Any:
    for key in keys:
        if desc.get(key) is not None:
            return desc[key]
    return None


def _hosts_known(desc: dict, node: dict) -> bool:
    return _first_text(desc, "host_processor_model_name") is not None or _text(node.get("cpu")) is not None


def _hosts(desc: dict, node: dict, result: dict) -> None:
    model = _first_text(desc, "host_processor_model_name")
    per_node = _count(desc.get("host_processors_per_node"), "host_processors_per_node")
    if model is None:
        model = _text(node.get("cpu"))
        if model is not None:
            leading = _LEADING_COUNT.match(model)  # "2x Intel(R) Xeon(R) CPU E5-2698 v4 @ 2.20GHz"
            if leading:
                per_node = per_node or int(leading.group(1))
                model = leading.group(2)
    if model is not None and per_node is None:
        hardware = _first_text(desc, "hardware") or ""  # "8-nodes 2x Intel(R) Xeon(R) Platinum 8180 processor"
        match = _HOSTS_IN_HARDWARE.search(hardware)
        if match:
            per_node = int(match.group(1))
    if model is not None:
        result["host_processor_model_name"] = model
    if per_node:
        result["host_processors_per_node"] = str(per_node)
    if result["accelerators_per_node"] == "0" and not per_node:
        raise ValueError(f"CPU-only system without a count of host processors ({model})")
