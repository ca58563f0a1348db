"""Where an MLPerf results tree keeps its logs and system descriptions: one reader per tree
layout (named in catalog/rounds.yaml), mapping each path of the source to what it holds.

Paths are '/'-separated and may start with folders above the tree (an archive's top folder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class ResultDir:
    """One result directory: the runs of one system on one benchmark."""

    repo_path: str  # the folder inside the round's results repository
    top: str  # folders of the source above the repository's root ('' for none)
    org: str  # organization folder
    system: str  # the system's key within its organization (unique there)
    folder: str  # benchmark folder name (which benchmark it is: the round's benchmark_folders)
    system_files: tuple[str, ...]  # where its system description may be, repository paths, best first

    @property
    def path(self) -> str:
        """The folder's path inside the source."""
        return in_source(self.top, self.repo_path)

    @property
    def system_slug(self) -> str:
        """The system key as one file-name part."""
        return self.system.replace("/", "-")


@dataclass(frozen=True)
class LogFile:
    """A log of one run: its result (`kind` 'run'), or one power log of it ('node' or 'switch')."""

    kind: str
    result: ResultDir
    run: int | str  # the run's number (result_<run>.txt); a power log's folder name after result_ (power/result_<run>/)
    name: str  # file name


def in_source(top: str, repo_path: str) -> str:
    return f"{top}/{repo_path}" if top else repo_path


class Layout:
    """A tree layout: which paths are logs, power logs and system descriptions."""

    name = ""
    _result: re.Pattern
    _power: re.Pattern | None = None
    _system: tuple[re.Pattern, ...] = ()

    def log_file(self, path: str) -> LogFile | None:
        match = self._result.match(path)
        if match:
            return LogFile("run", self._result_dir(match), int(match["run"]), path.rsplit("/", 1)[-1])
        match = self._power.match(path) if self._power else None
        if match:
            kind = "node" if match["kind"] == "node" else "switch"
            return LogFile(kind, self._result_dir(match), match["run"], path.rsplit("/", 1)[-1])
        return None

    def system_file(self, path: str) -> tuple[str, str] | None:
        """(repository path, organization) of a system description, or None when `path` is none."""
        for pattern in self._system:
            match = pattern.match(path)
            if match:
                return match["repo"], match["org"]
        return None

    def wanted(self, path: str) -> bool:
        if path.endswith(".json"):
            return self.system_file(path) is not None
        return path.endswith(".txt") and self.log_file(path) is not None

    def _result_dir(self, match: re.Match) -> ResultDir:
        raise NotImplementedError


class OrgSystems(Layout):
    """v0.6 on: <org>/results/<system>/<benchmark>/result_<i>.txt, power logs (v4.0 on) in
    .../<benchmark>/power/result_<i>/node_<n>.txt and sw_<n>.txt, the system described in
    <org>/systems/<system>.json or, in some v0.6 organizations, <org>/results/<system>/entry.json."""

    name = "org-systems"
    _dir = r"^(?:(?P<top>.*)/)?(?P<repo>(?P<org>[^/]+)/results/(?P<system>[^/]+)/(?P<folder>[^/]+))"
    _result = re.compile(_dir + r"/result_(?P<run>\d+)\.txt$")
    _power = re.compile(_dir + r"/power/result_(?P<run>[^/]+)/(?P<kind>node|sw)_[^/]+\.txt$")
    _system = (
        re.compile(r"^(?:(?P<top>.*)/)?(?P<repo>(?P<org>[^/]+)/systems/[^/]+\.json)$"),
        re.compile(r"^(?:(?P<top>.*)/)?(?P<repo>(?P<org>[^/]+)/results/[^/]+/entry\.json)$"),
    )

    def _result_dir(self, match: re.Match) -> ResultDir:
        org, system = match["org"], match["system"]
        return ResultDir(
            match["repo"],
            match["top"] or "",
            org,
            system,
            match["folder"],
            (f"{org}/systems/{system}.json", f"{org}/results/{system}/entry.json"),
        )


class V05Entries(Layout):
    """v0.5: v0.5.0/<org>/<folders>/results/<system>/<benchmark>/result_<i>.txt, the system
    described in results/<system>/entry.json; a system's key is every folder from the
    organization down to it, since one organization reuses a system folder name (`tpu`) many times."""

    name = "v0.5-entries"
    _dir = (
        r"^(?:(?P<top>.*)/)?(?P<repo>(?P<suite>v\d+\.\d+\.\d+)/(?P<org>[^/]+)/(?P<sub>(?:[^/]+/)*?)"
        r"results/(?P<system>[^/]+)/(?P<folder>[^/]+))"
    )
    _result = re.compile(_dir + r"/result_(?P<run>\d+)\.txt$")
    _system = (
        re.compile(r"^(?:(?P<top>.*)/)?(?P<repo>v\d+\.\d+\.\d+/(?P<org>[^/]+)/(?:[^/]+/)*?results/[^/]+/entry\.json)$"),
    )

    def _result_dir(self, match: re.Match) -> ResultDir:
        sub = match["sub"] or ""
        return ResultDir(
            match["repo"],
            match["top"] or "",
            match["org"],
            f"{sub}{match['system']}",
            match["folder"],
            (f"{match['suite']}/{match['org']}/{sub}results/{match['system']}/entry.json",),
        )


class HpcOrgSystems(OrgSystems):
    """MLPerf HPC v1.0 on: <org>/results/<system>/<strong|weak>/<benchmark>/result_<i>.txt; the
    results folder is '<strong|weak>/<benchmark>' (the round's benchmark_folders say which
    benchmark); a weak-scaling folder's pruned_results/ lies deeper and is not read."""

    name = "hpc-org-systems"
    _dir = r"^(?:(?P<top>.*)/)?(?P<repo>(?P<org>[^/]+)/results/(?P<system>[^/]+)/(?P<folder>(?:strong|weak)/[^/]+))"
    _result = re.compile(_dir + r"/result_(?P<run>\d+)\.txt$")
    _power = None


LAYOUTS: dict[str, Layout] = {layout.name: layout for layout in (OrgSystems(), V05Entries(), HpcOrgSystems())}
