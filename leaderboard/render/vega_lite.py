"""Vega-Lite specs as plain dicts, built with the part of Altair's API the site's charts use
(`alt.Chart(data).mark_point(...).encode(x=alt.X("chips:Q", scale=alt.Scale(type="log")))`,
`alt.layer`, `alt.selection_point`...), each object's to_dict() the dict Altair's gives.

Written by hand rather than with Altair: importing Altair takes 0.2 to 0.3 s, a tenth of a
rebuild after one changed file, which builds the specs of the charts that file changes; and
Altair checks and copies every object it makes. Altair stays the reference:
tests/test_vega_lite.py builds every chart of the shipped site with both and compares them,
and checks that SCHEMA_VERSION is the installed Altair's. The chart modules import this module
as `alt`. Anything it does not know (another mark, an aggregate in a shorthand) is an error
here, never a spec that differs from Altair's.
"""

from __future__ import annotations

import re
from typing import Any

SCHEMA_VERSION = "v6.4.1"  # Altair's altair.SCHEMA_VERSION (the test compares them)
SCHEMA_URL = f"https://vega.github.io/schema/vega-lite/{SCHEMA_VERSION}.json"
# Altair's default theme: a chart's config holds it unless the chart sets its own.
DEFAULT_CONFIG = {"view": {"continuousWidth": 300, "continuousHeight": 300}}
TYPES = {"Q": "quantitative", "N": "nominal", "O": "ordinal", "T": "temporal"}
SHORTHAND = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):([QNOT])")


def plain(value: Any) -> Any:
    """`value` as Vega-Lite JSON: this module's objects by their to_dict(), dicts and lists copied
    (a finished spec is changed in place by the chart modules; nothing is shared between specs)."""
    if isinstance(value, _Properties):
        return value.to_dict()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def shorthand_fields(shorthand: str) -> dict[str, str]:
    """ "chips:Q" -> {"field": "chips", "type": "quantitative"}: a field name and a type letter,
    nothing more (Altair's aggregates, time units and escaped names are not used here)."""
    found = SHORTHAND.fullmatch(shorthand)
    if found is None:
        raise ValueError(f"not a shorthand this module knows: {shorthand!r} (a field name, ':' and Q, N, O or T)")
    return {"field": found.group(1), "type": TYPES[found.group(2)]}


class _Properties:
    """A Vega-Lite object given by its properties (a scale, an axis, a legend...); a property
    given as None is written as null, as Altair writes it."""

    def __init__(self, **properties: Any) -> None:
        self.properties = properties

    def to_dict(self, validate: bool = False) -> dict:
        return {key: plain(value) for key, value in self.properties.items()}


class Scale(_Properties):
    pass


class Axis(_Properties):
    pass


class Legend(_Properties):
    pass


class OverlayMarkDef(_Properties):
    pass


class NamedData(_Properties):
    pass


class FieldOneOfPredicate(_Properties):
    def __invert__(self) -> _Not:
        return _Not(self)


class _Not(_Properties):
    def __init__(self, predicate: _Properties) -> None:
        super().__init__(**{"not": predicate})


class _Channel(_Properties):
    """An encoding channel: a shorthand ("chips:Q") and properties (title, scale, sort...)."""

    def __init__(self, shorthand: str, **properties: Any) -> None:
        super().__init__(**properties)
        self.shorthand = shorthand

    def to_dict(self, validate: bool = False) -> dict:
        return {**shorthand_fields(self.shorthand), **super().to_dict()}


class X(_Channel):
    pass


class Y(_Channel):
    pass


class Color(_Channel):
    pass


class Shape(_Channel):
    pass


class Size(_Channel):
    pass


class Stroke(_Channel):
    pass


class StrokeDash(_Channel):
    pass


class Detail(_Channel):
    pass


class Text(_Channel):
    pass


class Href(_Channel):
    pass


class Tooltip(_Channel):
    pass


def _encoding(channels: dict[str, Any]) -> dict:
    """Channels as given to encode(): a shorthand string stands for the field and its type."""
    return {
        name: shorthand_fields(value) if isinstance(value, str) else plain(value) for name, value in channels.items()
    }


def selection_point(*, name: str, fields: list[str], bind: str) -> dict:
    return {"name": name, "select": {"type": "point", "fields": list(fields)}, "bind": bind}


def binding_select(*, options: list, labels: list[str], name: str) -> dict:
    return {"input": "select", "options": list(options), "labels": list(labels), "name": name}


def param(*, name: str, value: Any, bind: dict) -> dict:
    return {"name": name, "bind": bind, "value": value}


class Chart:
    """One mark over one data set. Each method returns a new chart, as Altair's do."""

    def __init__(self, data: NamedData | None = None) -> None:
        self.data = data
        self.mark: dict | None = None
        self.encoding: dict[str, Any] = {}
        self.transform: list[dict] = []
        self.params: list[dict] = []

    def _changed(self, **changes: Any) -> Chart:
        chart = Chart(self.data)
        chart.mark, chart.encoding, chart.transform, chart.params = (
            self.mark,
            self.encoding,
            self.transform,
            self.params,
        )
        for name, value in changes.items():
            setattr(chart, name, value)
        return chart

    def _marked(self, kind: str, properties: dict) -> Chart:
        return self._changed(mark={"type": kind, **properties})

    def mark_point(self, **properties: Any) -> Chart:
        return self._marked("point", properties)

    def mark_line(self, **properties: Any) -> Chart:
        return self._marked("line", properties)

    def mark_text(self, **properties: Any) -> Chart:
        return self._marked("text", properties)

    def mark_rule(self, **properties: Any) -> Chart:
        return self._marked("rule", properties)

    def encode(self, **channels: Any) -> Chart:
        return self._changed(encoding={**self.encoding, **channels})

    def transform_filter(self, predicate: str | _Properties) -> Chart:
        return self._changed(transform=[*self.transform, {"filter": predicate}])

    def add_params(self, *params: dict) -> Chart:
        return self._changed(params=[*self.params, *params])

    def to_dict(self, validate: bool = False, top: bool = True) -> dict:
        spec: dict[str, Any] = {"config": plain(DEFAULT_CONFIG)} if top else {}
        if self.data is not None:
            spec["data"] = self.data.to_dict()
        if self.mark is not None:
            spec["mark"] = plain(self.mark)
        if self.encoding:
            spec["encoding"] = _encoding(self.encoding)
        if self.transform:
            spec["transform"] = plain(self.transform)
        if self.params:
            spec["params"] = plain(self.params)
        if top:
            spec["$schema"] = SCHEMA_URL
        return spec


class LayerChart:
    """Charts drawn one over the other (alt.layer), with an encoding they share."""

    def __init__(self, layers: tuple[Chart, ...], encoding: dict | None = None) -> None:
        if any(chart.params for chart in layers):
            raise ValueError("layers with parameters are not supported here (Altair moves them to the top)")
        self.layers, self.encoding = layers, encoding or {}

    def encode(self, **channels: Any) -> LayerChart:
        return LayerChart(self.layers, {**self.encoding, **channels})

    def to_dict(self, validate: bool = False) -> dict:
        # As Altair does: when every layer draws the very same data object, it is given once, on top.
        shared = self.layers[0].data if self.layers else None
        hoisted = shared is not None and all(chart.data is shared for chart in self.layers)
        layers = [(chart._changed(data=None) if hoisted else chart).to_dict(top=False) for chart in self.layers]
        spec: dict[str, Any] = {"config": plain(DEFAULT_CONFIG), "layer": layers}
        if hoisted:
            spec["data"] = shared.to_dict()
        if self.encoding:
            spec["encoding"] = _encoding(self.encoding)
        spec["$schema"] = SCHEMA_URL
        return spec


def layer(*charts: Chart) -> LayerChart:
    return LayerChart(charts)
