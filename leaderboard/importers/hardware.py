"""Free-text hardware descriptions ("8 * V100 (AWS p3.16xlarge)", "1/4 of a TPUv2 Pod") read into
accelerator, count, provider and instance type through catalog data only, or the reason they cannot be.

The catalog decides every fact: instance types and providers (catalog/instance-types.yaml) and
accelerator names (catalog/accelerators.yaml aliases). Numbers come from the text itself; a
description that leaves the accelerator or its count open is unresolved, never guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from leaderboard.catalog import Catalog, InstanceType

# Words that may stand between a count and a part's name ("1 NVidia GTX-1080 Ti").
_VENDOR_WORDS = r"(?:(?:nvidia|tesla|geforce|intel)[\s-]+)*"
_TIMES = r"[x×*]"


@dataclass(frozen=True)
class Hardware:
    accelerator: str
    count: int
    unit: str  # chip | device
    nodes: int | None
    provider: str | None
    instance_type: str | None
    how: str  # one line: which catalog facts and which words of the text gave the result


@dataclass(frozen=True)
class Unresolved:
    reason: str


def _name_pattern(name: str) -> str:
    """A name matched without case, with any run of spaces, hyphens or underscores where it has
    punctuation or spaces ("GTX 1080 Ti" matches "GTX-1080 Ti"), and never inside a longer word."""
    parts = [re.escape(p) for p in re.split(r"[\s\-_]+", name.strip()) if p]
    return r"(?<![A-Za-z0-9])" + r"[\s\-_]*".join(parts) + r"(?![A-Za-z0-9])"


def _find_all(text: str, names: dict[str, object]) -> list[tuple[int, int, object]]:
    """Non-overlapping matches of the names in text, the longest name winning at each place."""
    found = []
    for name in sorted(names, key=len, reverse=True):
        for match in re.finditer(_name_pattern(name), text, re.IGNORECASE):
            if not any(match.start() < end and start < match.end() for start, end, _ in found):
                found.append((match.start(), match.end(), names[name]))
    return sorted(found, key=lambda f: f[0])


def _provider(text: str, catalog: Catalog) -> str | None:
    names = {alias: p.name for p in catalog.providers for alias in (p.name, *p.aliases)}
    found = _find_all(text, names)
    return found[0][2] if found else None


def _instances(text: str, catalog: Catalog, provider: str | None) -> list[tuple[int, int, InstanceType]]:
    """Instance types named in the text. A name without a digit ("Volta", "Cloud TPU") counts only
    beside its provider's name: alone it is an ordinary word."""
    names = {}
    for instance in catalog.instance_types:
        for name in (instance.name, *instance.aliases):
            if any(c.isdigit() for c in name) or provider == instance.provider:
                names[name] = instance
    return _find_all(text, names)


def _number_before(before: str) -> list[int] | None:
    """The count just before a name: '8 * ', '4x ', '16 * 8 * ', '1 NVidia ' (a product's factors)."""
    match = re.search(rf"((?:\d+\s*{_TIMES}\s*)*\d+)\s*{_TIMES}?\s*{_VENDOR_WORDS}$", before, re.IGNORECASE)
    if match is None:
        return None
    return [int(n) for n in re.findall(r"\d+", match.group(1))]


def _stated_count(text: str, start: int, end: int) -> tuple[int | None, int | None, str]:
    """(count, nodes, which words said it) for the part named at text[start:end]."""
    factors = _number_before(text[:start])
    if factors is None:
        after = re.match(rf"\s*{_TIMES}\s*(\d+)(?!\d)", text[end:])
        if after:
            factors = [int(after.group(1))]
    if factors is None:
        gpus = re.search(r"(?<![\d.])(\d+)\s+GPUs?\b", text, re.IGNORECASE)
        if gpus:
            factors = [int(gpus.group(1))]
    if factors is None:
        return None, None, ""
    count, nodes = math.prod(factors), (factors[0] if len(factors) > 1 else None)
    per_node = re.search(r"\b(?:for each|per) node\b", text, re.IGNORECASE)
    node_count = re.search(r"(?<![\d.])(\d+)\s+nodes\b", text, re.IGNORECASE)
    if per_node and node_count and len(factors) == 1:
        nodes = int(node_count.group(1))
        return nodes * count, nodes, f"{nodes} nodes of {count}"
    return count, nodes, " x ".join(str(f) for f in factors)


def _pod_fraction(before: str) -> Fraction | None:
    match = re.search(r"(?:(\d+)\s*/\s*(\d+)|(half)|(quarter))\s+of\s+an?\s+$", before, re.IGNORECASE)
    if match is None:
        return None
    if match.group(3):
        return Fraction(1, 2)
    if match.group(4):
        return Fraction(1, 4)
    numerator, denominator = int(match.group(1)), int(match.group(2))
    return Fraction(numerator, denominator) if 0 < numerator <= denominator else None


def _machines(text: str, before: str) -> tuple[int, str]:
    """How many instances: '4 machines', '128 nodes', or a number just before the name ('16 p3.16xlarge')."""
    match = re.search(r"(?<![\d.])(\d+)\s+(?:machines?|nodes?)\b", text, re.IGNORECASE)
    if match:
        return int(match.group(1)), match.group(0)
    match = re.search(r"(?<![\w.])(\d+)\s*$", before)
    if match:
        return int(match.group(1)), match.group(1)
    return 1, ""


def read_hardware(text: str, catalog: Catalog) -> Hardware | Unresolved:
    """The accelerator, count, nodes, provider and instance type a hardware description names."""
    text = " ".join(text.split())
    if not text:
        return Unresolved("no hardware description")
    provider = _provider(text, catalog)
    instances = _instances(text, catalog, provider)
    kinds = {i.name for _, _, i in instances}
    if len(kinds) > 1:
        return Unresolved(f"names several instance types ({', '.join(sorted(kinds))})")
    parts = _find_all(text, {a: acc.id for acc in catalog.accelerators.values() for a in (acc.id, *acc.aliases)})
    named = {p for _, _, p in parts}
    if len(named) > 1:
        return Unresolved(f"names several accelerators ({', '.join(sorted(named))})")
    stated = None
    if parts:
        start, end, accelerator = parts[0]
        count, nodes, words = _stated_count(text, start, end)
        stated = (accelerator, count, nodes, words, text[start:end])
    if instances:
        return _from_instance(text, instances[0], stated)
    if stated is None:
        return Unresolved(
            "names no accelerator or instance type the catalog knows "
            "(add an alias to catalog/accelerators.yaml or a row to catalog/instance-types.yaml)"
        )
    accelerator, count, nodes, words, name = stated
    if count is None:
        return Unresolved(f"names {name!r} ({accelerator}) but not how many")
    if count <= 0:
        return Unresolved(f"a count of {count} {name!r}")
    return Hardware(accelerator, count, "chip", nodes, provider, None, f"{words} x {name!r} ({accelerator})")


def _from_instance(text: str, found: tuple[int, int, InstanceType], stated) -> Hardware | Unresolved:
    start, end, instance = found
    label = f"{instance.provider} {instance.name}"
    if instance.unresolved_reason:
        return Unresolved(f"{label}: {instance.unresolved_reason}")
    before = text[:start]
    if instance.pod:
        fraction = _pod_fraction(before)
        if fraction is None:
            return Unresolved(f"names a {instance.name} without saying how much of it (1/4 of a, half of a)")
        total = fraction * Fraction(str(instance.count))
        if total.denominator != 1:
            return Unresolved(f"{fraction} of a {instance.name} ({instance.count:g} {instance.unit}s) is not whole")
        machines, count, how = 1, int(total), f"{fraction} of a {label} ({instance.count:g} {instance.unit}s)"
    else:
        machines, words = _machines(text, before)
        count = int(machines * instance.count)
        plural = "s" if instance.count != 1 else ""
        how = f"{machines} x {label} ({instance.count:g} {instance.accelerator} {instance.unit}{plural} each)"
        if words:
            how += f", from {words!r}"
    if stated is not None:
        accelerator, stated_count, _, _, name = stated
        if accelerator != instance.accelerator:
            return Unresolved(f"names {name!r} ({accelerator}) but a {label} holds {instance.accelerator}")
        chips_said = stated_count if instance.unit == "chip" else None
        if chips_said is not None and chips_said != count:
            return Unresolved(f"says {stated_count} x {name!r} but {machines} x {label} hold {count}")
    nodes = machines if not instance.pod else None
    return Hardware(instance.accelerator, count, instance.unit, nodes, instance.provider, instance.name, how)
