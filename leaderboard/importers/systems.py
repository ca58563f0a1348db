"""MLPerf system descriptions mapped to our fields: submitter, system name, division,
availability, the accelerator (through catalog aliases) and how many chips.

Real system files are messy; every rule here that forgives a spelling says which one.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from leaderboard.catalog import Catalog
from leaderboard.importers import legacy_systems

MAX_SYSTEM_FILE_BYTES = 1 << 20

# MLPerf system files' `status` -> our availability. Later rounds spell it out ("Available
# cloud", "Research, Development, or Internal (RDI)"): the first word decides.
AVAILABILITY = {
    "onprem": "available",
    "on-premise": "available",
    "available": "available",
    "cloud": "available",
    "preview": "preview",
    "research": "research",
    "rdi": "research",
}

# Division spellings that mean one of the two divisions, and the note the import prints.
DIVISIONS = {"closed": "closed", "open": "open", "close": "closed"}

# Misspelled keys seen in published system files (v0.7: "divison", "number of nodes").
KEY_SPELLINGS = {"divison": "division"}

REQUIRED = (
    "submitter",
    "system_name",
    "division",
    "status",
    "number_of_nodes",
    "accelerators_per_node",
    "accelerator_model_name",
)


@dataclass(frozen=True)
class SystemInfo:
    submitter: str
    name: str
    division: str
    availability: str
    accelerator: str
    chips: int
    nodes: int
    host_processor: str | None
    host_processor_count: int | None
    framework: str | None
    notes: tuple[str, ...] = field(default=(), compare=False)  # what was read generously, for the report


def whole(value: Any) -> int | None:
    """A count given as a number or a string ("8", " 8 ", "8.0"); None when it is not a whole number."""
    if isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if math.isfinite(number) and number.is_integer() else None


def text(value: Any) -> str | None:
    return " ".join(value.split()) or None if isinstance(value, str) else None


def availability_of(status: Any) -> str | None:
    words = re.findall(r"[a-z-]+", str(status).casefold())
    if not words:
        return None
    return AVAILABILITY.get(words[0]) or next((AVAILABILITY[w] for w in words if w == "rdi"), None)


_TPU_GENERATION = re.compile(r"(?<![a-z0-9])(?:tpu[-_ ]?)?(v\d+[a-z]?|trillium)(?![a-z0-9])", re.IGNORECASE)


def tpu_generation(system_name: str, catalog: Catalog):
    """The TPU a bare "TPU" means, from the system name ("tpu-v3-1024" -> TPU v3), when the name
    names exactly one generation the catalog knows; else None."""
    found = {m.group(1).casefold() for m in _TPU_GENERATION.finditer(system_name)}
    parts = {catalog.accelerator_by_alias(f"TPU {g}") for g in found} - {None}
    return parts.pop() if len(parts) == 1 else None


def _key(name: str) -> str:
    return "".join(c for c in name.casefold() if c.isalnum())


_FIELDS = {_key(k): k for k in (*REQUIRED, "host_processors_per_node", "host_processor_model_name", "framework")}


def canonical_keys(desc: dict, notes: list[str]) -> dict:
    """The description with its keys as the format spells them: a key that differs only in case,
    spaces or punctuation ("number of nodes"), or is a known misspelling ("divison"), is read
    as the key it means (noted), unless the file also has that key itself."""
    result = dict(desc)
    for key, value in desc.items():
        if not isinstance(key, str) or key in _FIELDS.values():
            continue
        meant = _FIELDS.get(_key(KEY_SPELLINGS.get(key.strip().casefold(), key)))
        if meant and meant not in desc:
            result[meant] = value
            notes.append(f"key {key!r} read as {meant}")
    return result


def system_info(desc: Any, catalog: Catalog) -> tuple[SystemInfo | None, str | None]:
    """A system description mapped to our fields, or (None, the reason it cannot be)."""
    if not isinstance(desc, dict):
        return None, "system description is not a JSON object"
    notes: list[str] = []
    desc = canonical_keys(desc, notes)
    cpu_result = whole(desc.get("accelerators_per_node")) == 0
    missing = [
        k
        for k in REQUIRED
        if text(str(desc.get(k) if desc.get(k) is not None else "")) is None
        and not (cpu_result and k == "accelerator_model_name")
    ]
    if missing:
        return None, f"system description lacks {', '.join(missing)}"
    division = DIVISIONS.get(str(desc["division"]).strip().casefold())
    if division is None:
        return None, f"division {desc['division']!r} is neither closed nor open"
    if str(desc["division"]).strip().casefold() != division:
        notes.append(f"division {desc['division']!r} read as {division}")
    availability = availability_of(desc["status"])
    if availability is None:
        return None, f"status {desc['status']!r} is not one of {', '.join(AVAILABILITY)}"
    nodes, per_node = whole(desc["number_of_nodes"]), whole(desc["accelerators_per_node"])
    hosts_per_node = whole(desc.get("host_processors_per_node"))
    host = text(desc.get("host_processor_model_name"))
    name = text(str(desc["system_name"]))
    if not nodes or nodes < 1 or per_node is None or per_node < 0:
        return None, (
            f"number_of_nodes {desc['number_of_nodes']!r} x accelerators_per_node "
            f"{desc['accelerators_per_node']!r} is not a positive whole number"
        )
    if per_node == 0:
        # A CPU result (Intel Xeon): the host processors do the training and count as the chips.
        if not host or not hosts_per_node or hosts_per_node < 1:
            return None, "accelerators_per_node is 0 (a CPU result) but the host processors are not given"
        accelerator = catalog.accelerator_by_alias(host)
        if accelerator is None:
            return None, (
                f"unknown processor {host!r} of a CPU result: add it to the aliases of its part in "
                "catalog/accelerators.yaml"
            )
        per_node = hosts_per_node
        notes.append(f"a CPU result: its {nodes * per_node} host processors counted as chips")
    else:
        model = text(str(desc["accelerator_model_name"])) or ""
        accelerator = catalog.accelerator_by_alias(model)
        if accelerator is None and model.casefold() == "tpu":
            accelerator = tpu_generation(name, catalog)
            if accelerator is not None:
                notes.append(f"accelerator 'TPU' read as {accelerator.name} from the system name {name!r}")
        if accelerator is None:
            return None, (
                f"unknown accelerator {model!r}: add it to the aliases of its accelerator in catalog/accelerators.yaml"
            )
    return SystemInfo(
        submitter=text(str(desc["submitter"])),
        name=name,
        division=division,
        availability=availability,
        accelerator=accelerator.id,
        chips=nodes * per_node,
        nodes=nodes,
        host_processor=host,
        host_processor_count=nodes * hosts_per_node if hosts_per_node and hosts_per_node > 0 else None,
        framework=text(desc.get("framework")),
        notes=tuple(notes),
    ), None


def read_system(stream: BinaryIO, org: str) -> Any:
    """A system description as v0.7+ system files have it: their JSON as it is; v0.5 and v0.6
    descriptions (entry.json, `key: {json}` lines, JSON without accelerators_per_node) through
    legacy_systems. ValueError with a one-line reason when it cannot be read."""
    raw = stream.read(MAX_SYSTEM_FILE_BYTES + 1)
    if len(raw) > MAX_SYSTEM_FILE_BYTES:
        raise ValueError("system description is over 1 MiB")
    try:
        desc = json.loads(raw.decode("utf-8-sig", errors="replace"))
    except ValueError as error:
        desc, problem = None, f"system description is not valid JSON ({error})"
    else:
        problem = None
    if isinstance(desc, dict) and any(_key(k) == "acceleratorspernode" for k in desc if isinstance(k, str)):
        return desc
    try:
        return legacy_systems.describe(raw, org)
    except ValueError as error:
        if isinstance(desc, dict):
            return desc  # a modern description missing fields: system_info names them
        raise ValueError(problem or str(error)) from None
