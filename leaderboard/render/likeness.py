"""What makes results on one page unlike: the model each trained (name and parameter count) and
whether an open division's entries train different models. Pure functions over result rows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from leaderboard.identity import name_key

SHOWN = 6  # models named in a notice; the rest are counted
_SCALES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"))


def parameters_text(parameters: float | None) -> str | None:
    """480000000000 -> '480B', 336000000 -> '336M', 1.6e12 -> '1.6T' (three significant digits)."""
    if parameters is None:
        return None
    for scale, suffix in _SCALES:
        if parameters >= scale:
            return f"{parameters / scale:.3g}{suffix}"
    return f"{parameters:.3g}"


def model_text(name: str | None, parameters: float | None) -> str | None:
    """A result's model as a page shows it: 'name, 480B parameters', or either part alone."""
    count = parameters_text(parameters)
    parts = [name, f"{count} parameters" if count else None]
    return ", ".join(p for p in parts if p) or None


@dataclass(frozen=True)
class ModelNotice:
    """An open division's models: each one named (with how many of its results train it) and how
    many results name none; said above its table when they are not all one model."""

    models: tuple[tuple[str, int], ...]  # (model text, results), most results first
    unstated: int
    reference: str | None  # the closed division's model

    @property
    def text(self) -> str:
        shown = [f"{model} ({count} result{'s' if count > 1 else ''})" for model, count in self.models[:SHOWN]]
        if len(self.models) > SHOWN:
            shown.append(f"{len(self.models) - SHOWN} other models")
        parts = [f"These results train different models: {'; '.join(shown)}"]
        if self.unstated:
            parts.append(f"{self.unstated} result{'s' if self.unstated > 1 else ''} name no model")
        reference = f" The closed division trains the reference model, {self.reference}." if self.reference else ""
        return (
            "; ".join(parts) + ". Their times measure different amounts of work: they are ranked together only because "
            "they reached the same quality target." + reference
        )


def open_division_notice(rows: list[dict], reference_model: str | None) -> ModelNotice | None:
    """The notice for an open division's results, or None when they do not visibly differ: no
    result names a model, or every result names the same one."""
    texts = [model_text(r.get("model_name"), r.get("model_parameters")) for r in rows]
    # One model however its name is written (ResNet50, Resnet 50, ResNet-50), shown as most of
    # its results write it.
    spellings: dict[str, Counter] = {}
    for text in texts:
        if text:
            spellings.setdefault(name_key(text), Counter())[text] += 1
    named = Counter({min(c.items(), key=lambda item: (-item[1], item[0]))[0]: c.total() for c in spellings.values()})
    unstated = sum(1 for t in texts if not t)
    if not named or (len(named) == 1 and not unstated):
        return None
    models = tuple(sorted(named.items(), key=lambda item: (-item[1], item[0])))
    return ModelNotice(models, unstated, reference_model)
