"""The JSON Schemas under schemas/ (the public contract) and checking a Document against one.

Schema errors become Problems with the line and column of the offending value and a hint.
"""

from __future__ import annotations

import copy
import difflib
import functools
import json
import re
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard.files import Document
from leaderboard.problems import Problem, did_you_mean

if TYPE_CHECKING:
    import jsonschema


def schema_dir(package: Path | None = None, data: str | None = None) -> Path:
    """schemas/ of the checkout the package sits in (an editable install); a wheel (a
    non-editable `pip install`) puts them under <prefix>/share/leaderboard/schemas (pyproject's
    data-files): `data` is that prefix, the running interpreter's by default."""
    beside = (package or Path(__file__).resolve().parent).parent / "schemas"
    if (beside / "submission.schema.json").is_file():
        return beside
    return Path(data or sysconfig.get_path("data")) / "share" / "leaderboard" / "schemas"


SCHEMA_DIR = schema_dir()


@functools.cache
def schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


@functools.cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """The full validator, for a document's messages; imported here, as a build whose documents
    are all valid (or validated before, by hash) never needs it (jsonschema: 0.07 s to import)."""
    import jsonschema

    body = schema(name)
    cls = jsonschema.validators.validator_for(body)
    return cls(body, format_checker=cls.FORMAT_CHECKER)


@functools.cache
def fast_validator(name: str):
    """A compiled validator (jsonschema-rs) for the common case of a valid document; None if unavailable.

    It only says valid or not: the messages of an invalid document come from jsonschema,
    whose error details are richer, so they are the same whichever path ran.
    """
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - optional speed-up
        return None
    return jsonschema_rs.validator_for(schema(name))


def check(doc: Document, name: str) -> list[Problem]:
    """Every schema error of the document, deepest first within one place."""
    fast = fast_validator(name)
    if fast is not None:
        try:
            if fast.is_valid(doc.data):
                return []
        except (ValueError, OverflowError, TypeError):
            pass  # values it cannot represent (huge integers): the full validator decides
    problems = []
    for error in validator(name).iter_errors(doc.data):
        problems.extend(_problems(doc, error))
    return sorted(set(problems), key=lambda p: (p.line or 0, p.col or 0, p.json_path))


def without_unknown_fields(data: object, name: str) -> object | None:
    """`data` with every field the schema does not know left out, when that is all the schema
    finds wrong (a misspelt field name, the most common mistake): the rest of the document can
    then be checked by the domain rules in the same pass. A required field missing beside an
    unknown one spelt like it (`minuts` for `minutes`) is read as that field for those checks.
    None when anything else is wrong."""
    unknown: dict[tuple, list[str]] = {}
    missing: list[tuple[tuple, str]] = []
    for error in validator(name).iter_errors(data):
        path = tuple(error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            missing += [(path, field) for field in error.validator_value if field not in error.instance]
        elif error.validator == "additionalProperties":
            allowed = error.schema.get("properties", {})
            unknown.setdefault(path, []).extend(key for key in error.instance if key not in allowed)
        else:
            return None
    stripped = copy.deepcopy(data)
    for path, field in missing:
        near = difflib.get_close_matches(field, unknown.get(path, []), n=1, cutoff=0.75)
        if not near:
            return None
        unknown[path].remove(near[0])
        _at(stripped, path)[field] = _at(stripped, path).pop(near[0])
    for path, keys in unknown.items():
        for key in keys:
            _at(stripped, path).pop(key, None)
    return stripped if validator(name).is_valid(stripped) else None


def _at(data, path: tuple):
    for part in path:
        data = data[part]
    return data


def _problems(doc: Document, error: jsonschema.ValidationError) -> list[Problem]:
    path = tuple(error.absolute_path)
    kind = error.validator
    if kind == "additionalProperties":
        allowed = error.schema.get("properties", {})
        extra = [k for k in error.instance if k not in allowed]
        return [doc.problem(path + (k,), f"unknown field {k!r}", did_you_mean(k, allowed), key=True) for k in extra]
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return [doc.problem(path, f"missing required field {missing!r}", _describe(error.schema, missing))]
    if kind == "anyOf" and all("required" in option for option in error.validator_value):
        names = " or ".join(repr(option["required"][0]) for option in error.validator_value)
        return [doc.problem(path, f"needs {names}")]
    if kind == "enum":
        return [
            doc.problem(
                path,
                f"{error.instance!r} is not one of {', '.join(map(str, error.validator_value))}",
                did_you_mean(error.instance, map(str, error.validator_value)),
            )
        ]
    if kind == "const":
        return [doc.problem(path, f"must be {error.validator_value!r}, not {error.instance!r}")]
    if kind == "type":
        wanted = error.validator_value if isinstance(error.validator_value, str) else " or ".join(error.validator_value)
        return [
            doc.problem(
                path,
                f"must be {_article(wanted)}, not {_json_type(error.instance)}{_shown_after_type(error.instance)}",
                _type_hint(wanted, error.instance, yaml=not doc.file.lower().endswith(".json")),
            )
        ]
    if kind == "pattern" and error.validator_value.startswith("^[0-9]{4}"):
        hint = 'write year, month and day, with their zeros: "2021-12-01"'
        return [doc.problem(path, f"{error.instance!r} is not a date in the form YYYY-MM-DD", hint)]
    if kind in ("exclusiveMinimum", "minimum"):
        return [
            doc.problem(
                path,
                f"must be greater than {error.validator_value}"
                if kind == "exclusiveMinimum"
                else f"must be at least {error.validator_value}",
                None,
            )
        ]
    return [doc.problem(path, error.message)]


def _describe(body: dict, field: str) -> str | None:
    description = body.get("properties", {}).get(field, {}).get("description")
    return description


def _article(wanted: str) -> str:
    return {
        "integer": "an integer",
        "object": "a mapping",
        "array": "a list",
        "string": "a string",
        "number": "a number",
        "boolean": "true or false",
        "null": "null",
    }.get(wanted, wanted)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "list", dict: "mapping"}.get(
        type(value), type(value).__name__
    )


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _shown_after_type(value: object) -> str:
    """The value after its type's name, as the file writes it: ' true', ' 'one'', and nothing
    for null (the type says it all)."""
    if value is None:
        return ""
    return " " + ("true" if value is True else "false" if value is False else _short(value))


# Exponent forms PyYAML (YAML 1.1) reads as text: its floats need a dot and a signed exponent.
_TEXT_EXPONENT = re.compile(r"([-+]?[0-9]+)(?:\.([0-9]*))?[eE]([-+]?)([0-9]+)")


def _type_hint(wanted: str, value: object, yaml: bool = True) -> str | None:
    if wanted in ("number", "integer") and isinstance(value, str):
        found = _TEXT_EXPONENT.fullmatch(value.strip())
        if found and yaml:
            whole, fraction, sign, exponent = found.groups()
            number = f"{whole}.{fraction or '0'}e{sign or '+'}{exponent}"
            return f"YAML reads {value.strip()} as text, not a number (it needs a dot and a signed exponent): write {number}"
        return "write the number without quotes or units"
    if wanted == "string" and isinstance(value, (int, float)):
        return "put the value in quotes"
    return None
