"""What a catalog change does to the catalog's own records, one line each: every accelerator,
round, compute figure (compute-epoch.yaml) and plausibility override added, removed or changed
(catalog_effect lists them beside the change's effect on the results).
"""

from __future__ import annotations

from dataclasses import fields

from leaderboard.catalog import Accelerator, Catalog, Override, PeakRate, Round, TrainingCompute
from leaderboard.problems import plural
from leaderboard.review import plausibility
from leaderboard.verification import shown

ACCELERATOR_FIELDS = tuple(f.name for f in fields(Accelerator))
ROUND_FIELDS = tuple(f.name for f in fields(Round))


def accelerator_changes(before: Catalog, after: Catalog, results: dict[str, int]) -> list[str]:
    """'id: field A -> B, ... (N results)' for each accelerator added, removed or changed;
    `results` counts the results on each part."""
    return _record_changes(
        before.accelerators, after.accelerators, ACCELERATOR_FIELDS, results, lambda old, new: "", repr
    )


def round_changes(before: Catalog, after: Catalog, results: dict[str, int]) -> list[str]:
    """'id: field A -> B, ... (N results)' for each round added, removed or changed; `results`
    counts the results of each round."""

    def named(old, new) -> str:
        kept = new or old
        return f", {shown(kept.name, 60)!r} of kind {kept.kind!r}"

    return _record_changes(before.rounds, after.rounds, ROUND_FIELDS, results, named, lambda v: repr(shown(v, 60)))


def _record_changes(before: dict, after: dict, names, results: dict[str, int], named, text) -> list[str]:
    """'id: added|removed<named(old, new)> (N results)' or 'id: field A -> B; ... (N results)' for
    each record of two catalogs' `before` and `after` (by id) that differs in one of `names`,
    each value written by `text`."""
    lines = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        used = f" ({plural(results.get(key, 0), 'result')})"
        if old is None or new is None:
            lines.append(f"{key}: {'added' if old is None else 'removed'}{named(old, new)}{used}")
            continue
        diffs = [
            f"{name} {text(getattr(old, name))} -> {text(getattr(new, name))}"
            for name in names
            if getattr(old, name) != getattr(new, name)
        ]
        if diffs:
            lines.append(f"{key}: {'; '.join(diffs)}{used}")
    return lines


def compute_changes(before: Catalog, after: Catalog, results: dict[str, int]) -> list[str]:
    """Each figure of compute-epoch.yaml added, removed or changed: 'peak FLOP/s of id: A -> B
    (N results)', `results` counting the results on each part, and 'training compute of
    'model': A -> B'. The plausibility check reads them from the base until they are merged."""
    lines = []
    for key in sorted(before.peak_flop_s.keys() | after.peak_flop_s.keys()):
        old, new = before.peak_flop_s.get(key), after.peak_flop_s.get(key)
        if old != new:
            used = plural(results.get(key, 0), "result")
            lines.append(f"peak FLOP/s of {key}: {_figure_change(old, new, 'flop_s', 'FLOP/s')} ({used})")
    for model in sorted(before.training_compute.keys() | after.training_compute.keys()):
        old, new = before.training_compute.get(model), after.training_compute.get(model)
        if old != new:
            lines.append(f"training compute of {shown(model, 80)!r}: {_figure_change(old, new, 'flop', 'FLOP')}")
    return lines


def _figure_change(
    old: PeakRate | TrainingCompute | None, new: PeakRate | TrainingCompute | None, key: str, unit: str
) -> str:
    """'3.14e23 -> 2.5e19 FLOP' (and any other field that changes), or 'added: ...', 'removed: ...'."""
    if old is None or new is None:
        kept = new or old
        others = ", ".join(
            shown(getattr(kept, f.name), 60) for f in fields(kept) if f.name not in (key, "accelerator", "model")
        )
        return (
            f"{'added' if old is None else 'removed'}: {plausibility.flop_text(getattr(kept, key))} {unit} ({others})"
        )
    changes = [
        f"{plausibility.flop_text(getattr(old, key))} -> {plausibility.flop_text(getattr(new, key))} {unit}"
        if f.name == key
        else f"{f.name} {shown(getattr(old, f.name), 60)!r} -> {shown(getattr(new, f.name), 60)!r}"
        for f in fields(new)
        if getattr(old, f.name) != getattr(new, f.name)
    ]
    return "; ".join(changes)


# What an override a pull request adds or changes does in that pull request: nothing yet.
OVERRIDE_NOT_YET = " (check-pr applies it only once a code owner has merged it)"


def override_changes(before: Catalog, after: Catalog) -> list[str]:
    """'entry: added' (removed, or the fields changed) for each plausibility override: never its
    reason or approver, which the pull request wrote and nobody has approved yet."""
    lines = []
    for key in sorted(before.plausibility_overrides.keys() | after.plausibility_overrides.keys()):
        old, new = before.plausibility_overrides.get(key), after.plausibility_overrides.get(key)
        if old is None or new is None:
            lines.append(f"{key}: {'added' if old is None else 'removed'}{OVERRIDE_NOT_YET}")
        elif old != new:
            changed = [f.name for f in fields(Override) if getattr(old, f.name) != getattr(new, f.name)]
            lines.append(f"{key}: {', '.join(changed)} changed{OVERRIDE_NOT_YET}")
    return lines
