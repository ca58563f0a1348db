"""Validation of submission files: the JSON Schema, then the domain rules the schema cannot say.

Returns every problem in every file (never stops at the first) and the valid entries.
"""

from __future__ import annotations

import datetime as dt
import gc
import math
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlparse

from leaderboard import bounds, known_ids, schemas
from leaderboard.cache import ParsedFiles, ValidationCache, digest
from leaderboard.catalog import Catalog, catalog_name, load_catalog
from leaderboard.families import family
from leaderboard.files import MAX_BYTES, NOT_REGULAR_HINT, SUFFIXES, Document, load, not_regular, read_regular
from leaderboard.memory import collector_paused
from leaderboard.normalize import olympic_mean, slug
from leaderboard.problems import Problem, did_you_mean, plural
from leaderboard.progress import progress_problems
from leaderboard.quality import direction_problems, quality_direction, worst_counted_problems
from leaderboard.review import names
from leaderboard.tree import (
    NOT_DATA,
    Entry,
    not_a_submission_file,
    placement_problem,
    set_aside_duplicates,
    shown_relative_to,
)
from leaderboard.workers import available_cpus, end_with

MINUTES_TOLERANCE_ABS = 0.0005  # minutes written with three decimals
MINUTES_TOLERANCE_REL = 1e-5


UNCHECKED = "{} not checked until every catalog file can be read"
PARSED_CATALOG = "catalog.json"  # the catalog files as parsed (cache.ParsedFiles), beside the validation cache


@dataclass
class ValidationResult:
    files: list[str] = field(default_factory=list)  # the files checked (not those only compared with)
    problems: list[Problem] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    catalog: Catalog | None = None
    duplicates: list[Entry] = field(default_factory=list)  # valid files set aside: each duplicates another
    ignored: list[tuple[str, str]] = field(default_factory=list)  # (file, why): named, or met in a folder, not read
    # Submission files not checked because a catalog file could not be read (catalog.unread):
    # against a catalog missing a file's worth of records, each would fail for the catalog's fault.
    unchecked: list[str] = field(default_factory=list)
    # The hash of the catalog's files (with a cache file: what its entries were checked against).
    catalog_digest: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def iter_files(paths: Iterable[Path], others: list[str] | None = None) -> Iterator[tuple[Path, Problem | None]]:
    """Submission-like files under the given files and folders, sorted, each with a problem
    when it cannot be taken (a symbolic link, never followed; a missing path). A file named is
    given whatever its name; files met in folders that are not .yaml, .yml or .json go to `others`."""
    for path in paths:
        if not path.exists() and not path.is_symlink():
            yield path, Problem(str(path), None, None, "$", "no such file or folder")
        elif path.is_symlink():
            yield path, _link_problem(path)
        elif path.is_dir():
            for candidate, is_link in _walk(str(path), others):
                yield Path(candidate), _link_problem(Path(candidate)) if is_link else None
        else:
            yield path, None


def _walk(top: str, others: list[str] | None = None) -> list[tuple[str, bool]]:
    """(path, is a link) of every submission-like file under `top`, and of every link (never
    followed), in the order of their path parts; any other file goes to `others`.
    Strings and scandir: at 100,000 files, path objects and a stat per file cost seconds."""
    found: list[tuple[str, bool]] = []
    folders = [top]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # unreadable: its files are simply not there to check
        for entry in entries:
            if entry.is_symlink():
                found.append((entry.path, True))  # whatever its name or target: refused, never followed
            elif entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
            elif os.path.splitext(entry.name)[1].lower() in SUFFIXES:
                found.append((entry.path, False))
            elif others is not None:
                others.append(entry.path)
    found.sort(key=lambda item: item[0].split(os.sep))
    return found


def _link_problem(path: Path) -> Problem:
    """A link under submissions/ or catalog/ is refused whatever it points at: following it could
    read a file outside the repository (and show its content in a message)."""
    return Problem(str(path), None, None, "$", not_regular("a symbolic link"), NOT_REGULAR_HINT)


class CheckFailed(RuntimeError):
    """The files could not all be checked (a worker process died)."""


PARALLEL_FROM = 400  # files to check; below this a pool of workers costs more than it saves


def validate_paths(
    paths: Iterable[Path],
    catalog_dir: Path,
    today: dt.date | None = None,
    progress: Callable[[int], None] | None = None,
    cache_file: Path | None = None,
    jobs: int | None = None,
    tree: Path | None = None,
    root: Path | None = None,
) -> ValidationResult:
    """Validate catalog files and submission files under `paths` against the catalog in `catalog_dir`;
    with `cache_file`, valid files seen before (same path, same bytes, same catalog) are reused.

    With `tree`, the submissions folder, the files are checked as part of it: each against every
    entry in it (duplicates) and in its place in it, and a file named inside it that is not
    .yaml, .yml or .json is a problem. Only the problems of the files under `paths` are reported,
    and a duplicate's in another file that names one of them; a catalog file stands for every
    submission (a change to the catalog can invalidate any of them). `entries` then holds every
    valid entry of the tree. With `root`, files are shown relative to it.

    Many files are checked by a pool of `jobs` worker processes (default: one per available
    CPU); each file's check is the same function either way, so the problems are the same."""
    # The entries hold no cycles: at 100,000 files the collector walking them again and again cost
    # a sixth of the time.
    with collector_paused():
        return _validate_paths(paths, catalog_dir, today, progress, cache_file, jobs, tree, root)


def _validate_paths(paths, catalog_dir, today, progress, cache_file, jobs, tree, root) -> ValidationResult:
    result = ValidationResult()
    parsed = ParsedFiles(cache_file.with_name(PARSED_CATALOG)) if cache_file is not None else None
    catalog = load_catalog(catalog_dir, parsed)
    if parsed is not None:
        parsed.save()
    cache = ValidationCache(cache_file, _catalog_digest(catalog)) if cache_file is not None else None
    result.catalog = catalog
    result.catalog_digest = cache.catalog_digest if cache is not None else None
    result.problems += catalog.problems
    catalog_files = {os.path.abspath(p) for p in catalog.files}
    catalog_folder = os.path.abspath(catalog_dir)
    tree_folder = os.path.abspath(tree) if tree is not None and os.path.isdir(tree) else None
    today = today or dt.datetime.now(dt.UTC).date()
    tick = progress or (lambda n: None)
    met_in_folders: list[str] = []
    candidates = [(path, problem, True) for path, problem in iter_files(paths, met_in_folders)]
    result.ignored += [
        (name, NOT_DATA)
        for name in sorted(met_in_folders)
        if not os.path.abspath(name).startswith(catalog_folder + os.sep)  # vendored sources, not data
    ]
    if tree_folder is not None:
        candidates = _with_the_rest_of_the_tree(candidates, tree_folder, catalog_files, catalog_folder)
    # In file order: an Entry (cached), or the path of a submission still to check; and whether
    # the file is one to report on (else it is only compared with).
    pending: list[tuple[Entry | Path, bool]] = []
    keys: dict[Path, str] = {}
    for path, problem, named in candidates:
        absolute = os.path.abspath(path)  # links are refused below, so no need to resolve them
        if not problem and absolute.startswith(catalog_folder + os.sep) and not catalog_name(path):
            continue  # the catalog's vendored sources (catalog/mlperf-logging/): data, not submissions
        if not problem and path.suffix.lower() not in SUFFIXES and absolute not in catalog_files:
            tick(1)  # named on the command line: a folder's other files never come this far
            if tree_folder is not None and absolute.startswith(tree_folder + os.sep):
                result.files.append(str(path))
                result.problems.append(not_a_submission_file(path, os.path.basename(tree_folder)))
            else:
                result.ignored.append((str(path), NOT_DATA))
            continue
        if named:
            result.files.append(str(path))
        if problem or absolute in catalog_files:  # a catalog file was checked with the catalog
            tick(1)
            if problem and named:
                result.problems.append(problem)
            continue
        if catalog_name(path) and os.path.dirname(absolute) != catalog_folder:
            tick(1)
            if named:
                doc = load(path)
                result.problems += doc.problems or schemas.check(doc, catalog_name(path))
            continue
        content = _small_file_bytes(path) if cache is not None else None
        key = ValidationCache.key(f"{absolute}\0{path}", content) if content is not None else None
        cached = cache.get(key) if key is not None else None
        if cached is not None:
            tick(1)
            pending.append((Entry(cached[0], str(path), cached[1], None, digest(content)), named))
            continue
        if key is not None:
            keys[path] = key
        pending.append((path, named))
    if catalog.unread:
        waiting = [(item, named) for item, named in pending if isinstance(item, Path)]
        result.unchecked = [str(item) for item, named in waiting if named]
        pending = [(item, named) for item, named in pending if not isinstance(item, Path)]
        tick(len(waiting))
    to_check = [item for item, _ in pending if isinstance(item, Path)]
    checked = dict(zip(to_check, _check_all(to_check, catalog, today, jobs, tick), strict=True))
    valid: list[tuple[Entry, bool]] = []
    elsewhere: list[Entry] = []  # named files in the wrong place, otherwise valid
    for item, named in pending:
        if isinstance(item, Entry):
            entry = item
        else:
            entry, problems = checked[item]
            if named:
                result.problems += problems
            if entry is None:
                continue
            if item in keys:
                cache.put(keys[item], entry.entry_id, entry.data)
        misplaced = placement_problem(entry, tree_folder)
        if misplaced is not None:
            if named:
                result.problems.append(misplaced)
                elsewhere.append(entry)
            continue
        valid.append((entry, named))
    shown = shown_relative_to(root)
    result.entries, result.duplicates, found = set_aside_duplicates(valid, catalog, shown, elsewhere)
    result.problems += found
    result.problems += names.clash_problems(valid, shown, lambda entry: _as_imported(entry, catalog))
    # A link in the catalog is met twice (loading the catalog, walking the files): said once.
    result.problems = list(dict.fromkeys(replace(p, file=shown(p.file)) for p in result.problems))
    result.problems.sort(key=lambda p: (p.file, p.line, p.col, p.json_path, p.message))
    result.ignored = [(shown(name), why) for name, why in result.ignored]
    result.unchecked = [shown(name) for name in result.unchecked]
    if cache is not None:
        cache.save()
    return result


def _with_the_rest_of_the_tree(
    candidates: list[tuple[Path, Problem | None, bool]], tree: str, catalog_files: set[str], catalog_folder: str
) -> list[tuple[Path, Problem | None, bool]]:
    """The named files plus every other file of the tree, in path order: those only compared
    with, unless a catalog file is named (then every submission is to report on)."""
    named_absolute = {os.path.abspath(path) for path, _, _ in candidates}
    catalog_named = bool(named_absolute & catalog_files)
    submissions_named = any(
        not absolute.startswith(catalog_folder + os.sep) and absolute not in catalog_files
        for absolute in named_absolute
    )
    if not (catalog_named or submissions_named):
        return candidates
    rest = [
        (path, problem, catalog_named)
        for path, problem in iter_files([Path(tree)])
        if os.path.abspath(path) not in named_absolute
    ]
    return sorted(candidates + rest, key=lambda item: os.path.abspath(item[0]).split(os.sep))


def entries_in(tree: Path, catalog: Catalog, today: dt.date) -> list[Entry]:
    """Every valid entry in its place under `tree`, the submissions folder."""
    paths = [path for path, problem in iter_files([tree]) if problem is None and path.suffix.lower() in SUFFIXES]
    checked = _check_all(paths, catalog, today, None, lambda n: None)
    entries = [entry for entry, _ in checked if entry is not None]
    return [entry for entry in entries if placement_problem(entry, os.path.abspath(tree)) is None]


def _check_all(
    paths: list[Path], catalog: Catalog, today: dt.date, jobs: int | None, tick: Callable[[int], None]
) -> Iterator[tuple[Entry | None, list[Problem]]]:
    """check_submission on each path, in order: in this process, or in a pool of forked workers
    that inherit the catalog (nothing but paths and results cross between processes)."""
    workers = jobs if jobs is not None else available_cpus() if len(paths) >= PARALLEL_FROM else 1
    if workers <= 1 or len(paths) < 2:
        for path in paths:
            yield _check_one(path, catalog, today)
            tick(1)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("fork")
    chunk = max(1, min(256, len(paths) // (workers * 8)))
    # A worker that dies (killed for memory, say) breaks the pool: an error, never a hang.
    started = (catalog, today, os.getpid())
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=started) as pool:
        try:
            for outcome in pool.map(_check_in_worker, paths, chunksize=chunk):
                yield outcome
                tick(1)
        except BrokenProcessPool:
            raise CheckFailed(
                "a worker process checking the files died before it finished (out of memory, or killed)"
            ) from None


def _check_one(path: Path, catalog: Catalog, today: dt.date) -> tuple[Entry | None, list[Problem]]:
    entry, problems = check_submission(path, catalog, today)
    if entry is not None:
        # A valid file's node tree is only needed for a duplicate's line: parsed again then
        # (Entry.document), not held for every file (gigabytes at 100,000 files) nor sent
        # between processes.
        entry.doc = None
    return entry, problems


_worker: tuple[Catalog, dt.date] | None = None


def _start_worker(catalog: Catalog, today: dt.date, parent: int) -> None:
    global _worker
    end_with(parent)  # a killed build leaves no worker behind
    _worker = (catalog, today)
    gc.enable()  # the parent pauses its collector; a worker's garbage is its own
    gc.freeze()  # what the worker inherited is never garbage: the collector skips it


def _check_in_worker(path: Path) -> tuple[Entry | None, list[Problem]]:
    return _check_one(path, *_worker)


def _catalog_digest(catalog: Catalog) -> str:
    parts = []
    for name in sorted(str(p) for p in catalog.files):
        content = read_regular(name, 64 * MAX_BYTES)  # a link in the catalog is never followed
        parts.append(name + "\0" + (digest(content) if content is not None else "missing"))
    return digest("\n".join(parts))


def _small_file_bytes(path: Path) -> bytes | None:
    """A regular file's bytes when it is small enough to be a submission; None sends it down
    the full path (files.load), which reports anything odd about it."""
    try:
        # One lookup of the name, no file object: a rebuild reads every submission. A link is
        # refused (O_NOFOLLOW), and a pipe is not waited on (O_NONBLOCK).
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        data = os.read(handle, MAX_BYTES + 1)
        while len(data) < info.st_size:  # a read may return less than asked (never, for a small file)
            more = os.read(handle, MAX_BYTES + 1 - len(data))
            if not more:
                break
            data += more
        return data
    except OSError:
        return None
    finally:
        os.close(handle)


def check_submission(path: Path, catalog: Catalog, today: dt.date) -> tuple[Entry | None, list[Problem]]:
    """One file: parse, schema, domain rules. The entry is None when anything is wrong."""
    doc = load(path)
    if doc.problems:
        return None, doc.problems
    if not isinstance(doc.data, dict):
        return None, [
            doc.problem(
                (),
                "a submission must be a mapping of fields",
                "start from an example in submissions/ (see README: Submission format)",
            )
        ]
    problems = schemas.check(doc, "submission")
    if problems:
        # The ids it names are still looked up: a typo shows with the schema's problems, not after;
        # and when a misspelt field name is all the schema finds, the domain rules check the rest.
        flagged = {p.json_path for p in problems}
        more = known_ids.unknown_ids(doc, catalog)
        known = schemas.without_unknown_fields(doc.data, "submission")
        if known is not None:
            # The numbers of the fields left out are left out too (an unknown field's huge value).
            bad = [where for where in doc.bad_numbers if _holds(known, where)]
            more = list(_domain_problems(replace(doc, data=known, bad_numbers=bad), path, catalog, today))
        return None, problems + [p for p in dict.fromkeys(more) if p.json_path not in flagged]
    problems = list(_domain_problems(doc, path, catalog, today))
    if problems:
        return None, problems
    data = doc.data
    entry_id = f"{data['round']}/{slug(data['submitter'])}/{path.stem}"
    return Entry(entry_id, str(path), data, doc, doc.sha256), []


def _holds(data, path: tuple) -> bool:
    """Whether `data` has a value at `path`."""
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return False
    return True


def _value_at(data, path: tuple):
    for part in path:
        data = data[part]
    return data


def _domain_problems(doc: Document, path: Path, catalog: Catalog, today: dt.date) -> Iterator[Problem]:
    data = doc.data
    for where in doc.bad_numbers:
        value = _value_at(data, where)
        shown = f"{value:.3g}" if isinstance(value, float) else f"a {len(str(abs(value)))}-digit number"
        yield doc.problem(where, f"must be a finite number of magnitude at most 1e18, not {shown}")
    if doc.bad_numbers:
        return
    system, result, source = data["system"], data["result"], data["source"]
    yield from names.name_problems(doc)

    yield from known_ids.unknown_ids(doc, catalog)
    round_ = catalog.rounds.get(data["round"])
    benchmark = catalog.benchmarks.get(data["benchmark"])
    accelerator = catalog.accelerators.get(system["accelerator"])

    unit = system.get("unit", "chip")
    if accelerator and unit == "core" and not accelerator.cores_per_chip:
        yield doc.problem(
            ("system", "unit"), f"{accelerator.name} is not counted in cores", "use unit: chip or unit: device"
        )
    if unit == "chip" and isinstance(system["count"], float) and not system["count"].is_integer():
        yield doc.problem(("system", "count"), f"a chip count must be a whole number, not {system['count']}")
    yield from bounds.size_problems(doc, accelerator)
    yield from bounds.time_problems(doc)

    try:
        date = dt.date.fromisoformat(data["date"])
    except ValueError:
        yield doc.problem(("date",), f"{data['date']!r} is not a real date")
    else:
        if date > today:
            yield doc.problem(("date",), f"date {data['date']} lies in the future", "give the publication date")
        yield from bounds.date_problems(doc, date, round_, accelerator)

    url = source.get("url")
    if url is not None:
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            yield doc.problem(
                ("source", "url"), f"{url!r} is not an http(s) URL", "give the full address, starting with https://"
            )
        elif any(c.isspace() for c in parsed.netloc):
            yield doc.problem(
                ("source", "url"),
                f"{url!r} has a space in its host name, which no address has",
                "copy the address from the browser's address bar",
            )

    if round_ and benchmark:
        if benchmark.kind != round_.kind:
            choices = [b.id for b in catalog.benchmarks.values() if b.kind == round_.kind]
            yield doc.problem(
                ("benchmark",),
                f"benchmark {benchmark.id!r} is not part of round {round_.id!r}",
                did_you_mean(benchmark.id, choices),
            )
        elif family(round_.kind).round_rules and round_.id not in benchmark.rounds:
            run = sorted(b.id for b in catalog.benchmarks.values() if round_.id in b.rounds)
            yield doc.problem(
                ("benchmark",),
                f"benchmark {benchmark.id!r} is not part of round {round_.id!r}",
                f"{round_.name} ran {', '.join(run)}" if run else "the catalog lists no benchmark of this round",
            )
        else:
            yield from _result_problems(doc, result, data["division"], round_, benchmark)
    if round_ and family(round_.kind).model_runs and not (data.get("model") or {}).get("name"):
        yield doc.problem(
            ("model",) if "model" in data else (),
            "a published run names the model it trained (model.name): its compute floor and duplicates need it",
            "add model: {name: <the model's name, as its paper gives it>}",
        )
    if round_ and not family(round_.kind).divisions and data["division"] != "open":
        yield doc.problem(("division",), f"results of {round_.name} have no divisions", "write division: open")
    yield from _run_list_problems(doc, result, data.get("provenance") or {})


# Lists that give one value per run, in the order of result.runs_minutes.
PER_RUN_LISTS = (("result", "runs_quality"), ("result", "energy", "runs_kwh"), ("provenance", "run_logs"))


def _run_list_problems(doc: Document, result: dict, provenance: dict) -> Iterator[Problem]:
    """Each per-run list has one value per run; a run's log stays inside the result's folder."""
    runs = result.get("runs_minutes")
    sections = {"result": result, "provenance": provenance}
    for path in PER_RUN_LISTS:
        values = sections[path[0]]
        for key in path[1:]:
            values = values.get(key) if isinstance(values, dict) else None
        if not isinstance(values, list):
            continue
        if runs is None:
            yield doc.problem(path, f"{path[-1]} is given without result.runs_minutes", "list every run's minutes too")
        elif len(values) != len(runs):
            yield doc.problem(
                path,
                f"{plural(len(values), 'value')} for {plural(len(runs), 'run')}",
                "give one value per run, in the order of runs_minutes (null where there is none)",
            )
    for index, log in enumerate(provenance.get("run_logs") or []):
        if isinstance(log, str) and ".." in log.split("/"):
            yield doc.problem(("provenance", "run_logs", index), f"log path {log!r} leaves the result's folder")


def _models_problems(doc: Document, result: dict, benchmark) -> Iterator[Problem]:
    """result.models belongs to weak-scaling benchmarks (MLPerf HPC), which need it."""
    if benchmark.scaling == "weak" and result.get("models") is None:
        yield doc.problem(
            ("result",),
            f"missing required field 'models' ({benchmark.name} is a weak-scaling benchmark)",
            "the number of models trained to the target at once; minutes is the time to train them all",
        )
    elif benchmark.scaling != "weak" and result.get("models") is not None:
        yield doc.problem(
            ("result", "models"),
            f"models is for weak-scaling benchmarks; {benchmark.name} trains one model",
            f"a weak-scaling result goes to {benchmark.id}-weak" if benchmark.kind == "mlperf-hpc" else None,
        )


def _result_problems(doc: Document, result: dict, division: str, round_, benchmark) -> Iterator[Problem]:
    rules = benchmark.rounds.get(round_.id)
    quality, target = result.get("quality"), result.get("quality_target")
    yield from _models_problems(doc, result, benchmark)
    if family(round_.kind).round_rules:
        for name, value in (("quality", quality), ("quality_target", target)):
            if value is None:
                yield doc.problem(
                    ("result",),
                    f"missing required field {name!r} (required in MLPerf rounds)",
                    f"the {benchmark.metric} reached"
                    if name == "quality"
                    else f"the closed-division target is {rules.quality_target}",
                )
    closed_targets = [rules.quality_target, *(t for _, t in rules.batch_size_targets)] if rules else []
    if (
        rules
        and division == "closed"
        and target is not None
        and not any(math.isclose(target, allowed, abs_tol=1e-12) for allowed in closed_targets)
    ):
        batch = "".join(f", or {t} from a global batch size of {b:g}" for b, t in rules.batch_size_targets)
        yield doc.problem(
            ("result", "quality_target"),
            f"closed division target for {benchmark.name} in {round_.name} is {rules.quality_target}{batch}, "
            f"not {target}",
            "the closed division trains to the round's target; or use division: open",
        )
    yield from direction_problems(doc, result, benchmark, rules.log_scale if rules else 1.0)

    yield from progress_problems(doc, result, benchmark)
    runs = result.get("runs_minutes")
    if runs is not None:
        if rules and len(runs) != rules.runs:
            yield doc.problem(
                ("result", "runs_minutes"),
                f"{plural(len(runs), 'run')} given; {round_.name} {benchmark.name} needs {rules.runs}",
            )
            return
        drop_fastest, drop_slowest = (rules.drop_fastest, rules.drop_slowest) if rules else (0, 0)
        mean = olympic_mean(runs, drop_fastest, drop_slowest)
        # An MLPerf score scaled by a reference convergence point is the mean times that factor.
        provenance = doc.data.get("provenance") or {}
        factor = provenance.get("rcp_factor", 1.0) if provenance.get("scaling") == "rcp-scaled" else 1.0
        scaled = f" times the RCP factor {factor}" if factor != 1.0 else ""
        if mean is None:
            yield doc.problem(("result", "runs_minutes"), "more failed runs than the scoring may drop")
        elif abs(mean * factor - result["minutes"]) > max(MINUTES_TOLERANCE_ABS, MINUTES_TOLERANCE_REL * mean * factor):
            yield doc.problem(
                ("result", "minutes"),
                f"minutes {result['minutes']} is not the olympic mean of runs_minutes{scaled} ({mean * factor:.4f})",
                f"drop the {drop_fastest} fastest and {drop_slowest} slowest runs and average the rest",
            )
        yield from worst_counted_problems(doc, result, drop_fastest, drop_slowest, quality_direction(result, benchmark))


def _as_imported(entry: Entry, catalog: Catalog) -> bool:
    """Whether the entry's file is byte for byte what an importer wrote (its manifest digest)."""
    expected = catalog.verified.get(entry.entry_id)
    return expected is not None and entry.read_from(expected) is True
