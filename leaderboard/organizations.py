"""Organizations that submit under several names (catalog/organizations.yaml) and the one name
results.organization gives each submitter; pure functions, checked against the catalog file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from leaderboard.problems import Problem

FILE = "organizations"


@dataclass(frozen=True)
class Organization:
    id: str
    name: str
    aliases: tuple[str, ...]
    source: str
    note: str | None = None


def name_key(name: str) -> str:
    """Names are matched without case, spaces or punctuation: "Dell EMC" and "DellEMC" are one name."""
    return "".join(c for c in name.casefold() if c.isalnum())


def from_data(content: Mapping[str, Any]) -> tuple[Organization, ...]:
    return tuple(Organization(**{**item, "aliases": tuple(item["aliases"])}) for item in content["organizations"])


def canonical_names(organizations: Iterable[Organization]) -> dict[str, str]:
    """name_key of every name and alias -> the organization's canonical name."""
    return {name_key(n): o.name for o in organizations for n in (o.name, *o.aliases)}


def organization_of(submitter: str, names: Mapping[str, str]) -> str:
    """The canonical name of the organization a submitter names (its name or an alias, by
    canonical_names); a submitter the catalog does not list is its own organization, its name as
    published."""
    return names.get(name_key(submitter), submitter)


def problems(doc, content: Mapping[str, Any]) -> list[Problem]:
    """Duplicate ids, and a name or alias that two organizations claim (matched as organization_of
    matches them): each with the file, line and column of the second claim."""
    found: list[Problem] = []
    ids: set[str] = set()
    owner: dict[str, str] = {}
    for i, item in enumerate(content["organizations"]):
        if item["id"] in ids:
            found.append(doc.problem(("organizations", i, "id"), f"duplicate id {item['id']!r}"))
        ids.add(item["id"])
        names = [(("organizations", i, "name"), item["name"])]
        names += [(("organizations", i, "aliases", j), alias) for j, alias in enumerate(item["aliases"])]
        for path, name in names:
            key = name_key(name)
            if key in owner and owner[key] != item["id"]:
                found.append(
                    doc.problem(
                        path,
                        f"{name!r} already names organization {owner[key]!r}",
                        "a submitter belongs to one organization: remove the name here or there",
                    )
                )
            owner.setdefault(key, item["id"])
    return found
