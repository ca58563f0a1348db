"""Reading submission and catalog files safely, with the line and column of every node.

YAML goes through libyaml's safe composer (no Python objects, no tags beyond the core
schema, dates stay strings); JSON through a small strict parser that records positions.
"""

from __future__ import annotations

import errno
import hashlib
import json
import json.decoder
import json.scanner
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from leaderboard import yaml_syntax
from leaderboard.problems import Problem

MAX_BYTES = 1024 * 1024  # one result is a few hundred bytes; anything near this is not a result
MAX_DEPTH = 64
# Levels libyaml's composer (recursive C) may be given without a check of the depth first: a
# thread's 512 KiB stack (macOS's) held 1,000 levels and crashed at 1,500; an 8 MiB one crashed
# near 25,000. Most submissions could not nest this deep (a median of 64 lines and brackets).
COMPOSER_SAFE_DEPTH = 500
MAX_NODES = 100_000  # caps alias expansion ("billion laughs") and huge documents alike
SUFFIXES = {".yaml", ".yml", ".json"}

try:  # libyaml is far faster; PyYAML's wheels ship it, but a source build may not
    _YamlLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _YamlLoader = yaml.SafeLoader

Path_ = tuple  # a JSON path as a tuple of keys and indexes


MAX_NUMBER = 1e18  # far beyond any count, time or parameter count; keeps every value storable


@dataclass
class Document:
    """A parsed file: its data and where each value (and each mapping key) starts.

    YAML positions are looked up in the node tree only when a problem needs them; the JSON
    parser records them as it goes."""

    file: str
    data: Any = None
    root: yaml.Node | None = None
    positions: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    key_positions: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    bad_numbers: list[Path_] = field(default_factory=list)  # not finite, or beyond MAX_NUMBER
    sha256: str | None = None  # of the bytes parsed (hex), once the file is read

    def where(self, path: Path_, key: bool = False) -> tuple[int | None, int | None]:
        """Line and column of the value at path (or of its key), else of its nearest parent."""
        if self.root is not None:
            return _node_position(self.root, path, key)
        if key and path in self.key_positions:
            return self.key_positions[path]
        while True:
            if path in self.positions:
                return self.positions[path]
            if not path:
                return (None, None)
            path = path[:-1]

    def problem(self, path: Path_, message: str, hint: str | None = None, key: bool = False) -> Problem:
        from leaderboard.problems import json_path

        line, col = self.where(tuple(path), key=key)
        return Problem(self.file, line, col, json_path(path), message, hint)


class _Invalid(Exception):
    def __init__(self, message: str, line: int | None = None, col: int | None = None, hint: str | None = None):
        super().__init__(message)
        self.message, self.line, self.col, self.hint = message, line, col, hint


class _TooManyValues(Exception):
    """More than MAX_NODES values in a YAML node tree; where, the text tells (_load_yaml)."""


NOT_REGULAR_HINT = "commit the file itself: a link, folder, pipe or device is never followed or read"


def not_regular(what: str) -> str:
    """The one message for anything under submissions/ or catalog/ that is not a regular file."""
    return f"is {what}: submissions and catalog files must be regular files"


def _kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    return "not a regular file"


def special_kind(path: Path | str) -> str | None:
    """What `path` is when it is not a regular file ('a symbolic link', 'a device file'...),
    by lstat: a link is named as a link, never followed. None for a regular file or a path
    that does not exist (reading it then says so)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else _kind_of(mode)


def special_files(folder: Path | str) -> list[tuple[str, str]]:
    """(path, what it is) of `folder` itself when it is a link, else of everything under it that is
    neither a regular file nor a folder; links are listed, never followed."""
    what = special_kind(folder)
    if what is not None and what != "a folder":
        return [(str(folder), what)]
    found: list[tuple[str, str]] = []
    folders = [str(folder)]
    while folders:
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
            elif not entry.is_file(follow_symlinks=False):
                found.append((entry.path, special_kind(entry.path) or "not a regular file"))
    return sorted(found)


def read_regular(path: Path | str, limit: int = MAX_BYTES) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes; None for anything else (a link, never
    followed; a pipe, never waited on; a folder, a device, a missing or larger file)."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        try:
            content = stream.read(limit + 1)
        except OSError:
            return None
    return content if len(content) <= limit else None


def load(path: Path, display: str | None = None) -> Document:
    """Parse one file; every failure becomes a Problem on the returned Document."""
    doc = Document(file=display or str(path))
    try:
        _parse_into(doc, path)
    except _Invalid as bad:
        doc.data = None
        doc.problems.append(Problem(doc.file, bad.line, bad.col, "$", bad.message, bad.hint))
    return doc


def _parse_into(doc: Document, path: Path) -> None:
    what = special_kind(path)
    if what is not None:
        raise _Invalid(not_regular(what), hint=NOT_REGULAR_HINT)
    try:
        # Never through a link, and a pipe swapped in after the check cannot block the open:
        # what is read is what fstat says is a regular file.
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _Invalid(not_regular("a symbolic link"), hint=NOT_REGULAR_HINT) from None
        raise _Invalid(f"cannot read file: {error.strerror or error}") from None
    with os.fdopen(handle, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise _Invalid(not_regular(_kind_of(info.st_mode)), hint=NOT_REGULAR_HINT)
        size = info.st_size
        if size > MAX_BYTES:
            raise _Invalid(f"file is {size:,} bytes, over the 1 MiB limit", hint="one file holds one result; split it")
        try:
            raw = stream.read(MAX_BYTES + 1)
        except OSError as error:
            raise _Invalid(f"cannot read file: {error.strerror or error}") from None
    if len(raw) > MAX_BYTES:
        raise _Invalid("file is over the 1 MiB limit", hint="one file holds one result; split it")
    doc.sha256 = hashlib.sha256(raw).hexdigest()
    text = _decode(raw)
    if not text.strip():
        raise _Invalid("file is empty", hint="a submission is a YAML or JSON mapping; see CONTRIBUTING.md")
    if path.suffix.lower() == ".json":
        doc.data = _JsonParser(text, doc).parse()
    else:
        doc.data = _load_yaml(text, doc)


def _decode(raw: bytes) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + 1
        col = error.start - (before.rfind(b"\n") + 1) + 1
        raise _Invalid(
            f"file is not UTF-8: byte 0x{raw[error.start]:02x} cannot be decoded",
            line,
            col,
            hint="save the file as UTF-8",
        ) from None


# ---- YAML -------------------------------------------------------------------------------

_SCALAR = yaml.constructor.SafeConstructor()
_YAML_TYPES = {
    "tag:yaml.org,2002:null": lambda node: None,
    "tag:yaml.org,2002:bool": _SCALAR.construct_yaml_bool,
    "tag:yaml.org,2002:int": _SCALAR.construct_yaml_int,
    "tag:yaml.org,2002:float": _SCALAR.construct_yaml_float,
    "tag:yaml.org,2002:str": lambda node: node.value,
    "tag:yaml.org,2002:timestamp": lambda node: node.value,  # dates stay strings
}


def _could_nest_deeper_than(text: str, levels: int) -> bool:
    """Each level of nesting needs a new line, a bracket, '- ' or '? '; few of those, no deep nesting."""
    openers = text.count("\n") + text.count("[") + text.count("{") + text.count("- ") + text.count("? ")
    return openers >= levels


def _check_depth(text: str) -> None:
    """Refuse, before libyaml composes it, a document nested deeper than MAX_DEPTH, where
    _from_node would: at the first value (collection, scalar or alias; not a mapping's key) below
    MAX_DEPTH levels, or at the first mapping key that is not a plain name (a key may nest keys
    without any value). libyaml's composer recurses in C and crashes the interpreter on very deep
    nesting (see COMPOSER_SAFE_DEPTH), so the depth is measured on the (iterative) event stream."""
    open_collections: list[list] = []  # [is a mapping, children so far] of each collection open
    for event in yaml.parse(text, Loader=_YamlLoader):
        if isinstance(event, yaml.NodeEvent):
            parent = open_collections[-1] if open_collections else None
            is_key = parent is not None and parent[0] and parent[1] % 2 == 0
            if parent is not None:
                parent[1] += 1
            mark = event.start_mark
            if is_key and isinstance(event, yaml.CollectionStartEvent):  # keys nested without end
                raise _Invalid("a mapping key must be a plain name", mark.line + 1, mark.column + 1)
            if not is_key and len(open_collections) > MAX_DEPTH:
                raise _Invalid(f"nesting deeper than {MAX_DEPTH} levels", mark.line + 1, mark.column + 1)
            if isinstance(event, yaml.CollectionStartEvent):
                open_collections.append([isinstance(event, yaml.MappingStartEvent), 0])
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            open_collections.pop()


def _load_yaml(text: str, doc: Document) -> Any:
    try:
        # Below COMPOSER_SAFE_DEPTH possible levels (nearly every submission), composing is safe and
        # _from_node enforces MAX_DEPTH; the walk of the event stream (a fifth of parsing a file)
        # is for the rest.
        if _could_nest_deeper_than(text, COMPOSER_SAFE_DEPTH):
            _check_depth(text)
        nodes = list(yaml.compose_all(text, Loader=_YamlLoader))
    except yaml.MarkedYAMLError as error:
        raise _Invalid(*yaml_syntax.explain(error, text, _YamlLoader)) from None
    except yaml.YAMLError as error:
        raise _Invalid(f"YAML does not parse: {error}") from None
    except RecursionError:
        raise _Invalid(f"nesting deeper than {MAX_DEPTH} levels") from None
    if len(nodes) != 1:
        second = _mark(nodes[1]) if nodes else (None, None)
        raise _Invalid(f"file holds {len(nodes)} YAML documents; one file holds one result", *second)
    doc.root = nodes[0]
    try:
        return _from_node(nodes[0], (), doc, [MAX_NODES], 0)
    except _TooManyValues:
        raise _Invalid(
            f"document holds more than {MAX_NODES:,} values (counting what YAML aliases repeat)",
            *_where_values_pass_limit(text),
            hint="a result needs a few dozen values; aliases are not needed",
        ) from None


def _where_values_pass_limit(text: str) -> tuple[int | None, int | None]:
    """Where _from_node's count of values passes MAX_NODES: the alias whose expansion passes it,
    else the value counted past it. Counted again on the event stream, because the node tree
    keeps an alias only as its anchor's node, without the alias's own place."""
    count = 0
    sizes: dict[str, int] = {}  # anchor -> values it stands for
    open_collections: list[dict] = []
    for event in yaml.parse(text, Loader=_YamlLoader):
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            done = open_collections.pop()
            if done["anchor"]:
                sizes[done["anchor"]] = count - done["count_before"]
        elif isinstance(event, yaml.NodeEvent):  # a scalar, an alias or the start of a collection
            parent = open_collections[-1] if open_collections else None
            is_key = parent is not None and parent["mapping"] and parent["children"] % 2 == 0
            if parent is not None:
                parent["children"] += 1
            if isinstance(event, yaml.ScalarEvent) and event.anchor:
                sizes[event.anchor] = 1
            count_before = count
            if not is_key:  # as in _from_node, mapping keys are not values
                count += sizes.get(event.anchor, 1) if isinstance(event, yaml.AliasEvent) else 1
                if count > MAX_NODES:
                    return event.start_mark.line + 1, event.start_mark.column + 1
            if isinstance(event, yaml.CollectionStartEvent):
                mapping = isinstance(event, yaml.MappingStartEvent)
                open_collections.append(
                    {"anchor": event.anchor, "count_before": count_before, "mapping": mapping, "children": 0}
                )
    return None, None  # pragma: no cover - the count above is the one that passed the limit


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _node_position(node: yaml.Node, path: Path_, key: bool) -> tuple[int, int]:
    """Follow `path` down the node tree as far as it exists; the position where it stops."""
    for depth, part in enumerate(path):
        last = depth == len(path) - 1
        if isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part), None)
            if pair is None:
                break
            if last and key:
                return _mark(pair[0])
            node = pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
        else:
            break
    return _mark(node)


# The tags a node may carry: the core schema's, which the composer gives untagged values too. A tag
# on a list or mapping (`!!python/object/apply:...`, `!foo`) is refused like one on a value: the
# file's readers (yaml.safe_load among them) would refuse or misread it.
_PLAIN_TAGS = {
    yaml.ScalarNode: _YAML_TYPES.keys(),
    yaml.SequenceNode: {"tag:yaml.org,2002:seq"},
    yaml.MappingNode: {"tag:yaml.org,2002:map"},
}


def _number_is_bad(value: float) -> bool:
    return value != value or abs(value) > MAX_NUMBER  # NaN, infinities, absurd magnitudes


_STR = "tag:yaml.org,2002:str"


def _from_node(node: yaml.Node, path: Path_, doc: Document, budget: list[int], depth: int) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooManyValues
    if depth > MAX_DEPTH:
        raise _Invalid(f"nesting deeper than {MAX_DEPTH} levels", *_mark(node))
    kind = node.__class__
    if node.tag not in _PLAIN_TAGS[kind]:
        raise _Invalid(
            f"YAML tag {node.tag!r} is not allowed",
            *_mark(node),
            hint="use plain values: strings, numbers, true/false, lists and mappings",
        )
    if kind is yaml.ScalarNode:
        if node.tag == _STR:  # most values: nothing to convert
            return node.value
        make = _YAML_TYPES[node.tag]
        try:
            value = make(node)
        except (ValueError, OverflowError):
            return node.value
        if value.__class__ in (int, float) and _number_is_bad(value):
            doc.bad_numbers.append(path)
        return value
    if kind is yaml.SequenceNode:
        return [_from_node(child, (*path, i), doc, budget, depth + 1) for i, child in enumerate(node.value)]
    if kind is yaml.MappingNode:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.__class__ is not yaml.ScalarNode or key_node.tag not in _YAML_TYPES:
                raise _Invalid("a mapping key must be a plain name", *_mark(key_node))
            key = key_node.value
            if key in result:
                first = next(k for k, _ in node.value if k.__class__ is yaml.ScalarNode and k.value == key)
                raise _Invalid(
                    f"duplicate key {key!r} (first at line {first.start_mark.line + 1})",
                    *_mark(key_node),
                    hint="each key may appear once in a mapping",
                )
            result[key] = _from_node(value_node, (*path, key), doc, budget, depth + 1)
        return result
    raise _Invalid(f"unexpected YAML node {type(node).__name__}")  # pragma: no cover


# ---- JSON -------------------------------------------------------------------------------
# The standard library's json does not report where each value is; this parser follows
# the JSON grammar strictly (no NaN or Infinity, no trailing commas) and records positions,
# reusing the standard library's string and number scanners.

_WS = re.compile(r"[ \t\n\r]*")


class _JsonParser:
    def __init__(self, text: str, doc: Document):
        self.text, self.doc, self.nodes = text, doc, 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, offset: int) -> tuple[int, int]:
        import bisect

        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def fail(self, message: str, offset: int, hint: str | None = None):
        line, col = self.where(min(offset, len(self.text)))
        raise _Invalid(f"JSON does not parse: {message}", line, col, hint)

    def skip(self, offset: int) -> int:
        return _WS.match(self.text, offset).end()

    def parse(self) -> Any:
        offset = self.skip(0)
        value, offset = self.value(offset, (), 0)
        offset = self.skip(offset)
        if offset != len(self.text):
            self.fail("extra data after the value", offset)
        return value

    def value(self, offset: int, path: Path_, depth: int) -> tuple[Any, int]:
        if self.text[offset : offset + 1] == "]" and path and isinstance(path[-1], int):
            self.fail("expected a value", offset, TRAILING_COMMA)  # [1, 2, ]
        self.nodes += 1
        if self.nodes > MAX_NODES:
            self.fail(f"more than {MAX_NODES:,} values", offset)
        if depth > MAX_DEPTH:
            self.fail(f"nesting deeper than {MAX_DEPTH} levels", offset)
        self.doc.positions.setdefault(path, self.where(offset))
        text = self.text
        char = text[offset : offset + 1]
        if char == "{":
            return self.object(offset + 1, path, depth)
        if char == "[":
            return self.array(offset + 1, path, depth)
        if char == '"':
            return self.string(offset)
        for word, constant in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, offset):
                return constant, offset + len(word)
        match = json.scanner.NUMBER_RE.match(text, offset)
        if match:
            integer, fraction, exponent = match.groups()
            if fraction or exponent:
                number = float(integer + (fraction or "") + (exponent or ""))
                if math.isinf(number):
                    self.fail("number too large", offset)
                if _number_is_bad(number):
                    self.doc.bad_numbers.append(path)
                return number, match.end()
            if len(integer) > 400:
                self.fail("number too long", offset)
            value = int(integer)
            if _number_is_bad(value):
                self.doc.bad_numbers.append(path)
            return value, match.end()
        for word in ("NaN", "Infinity", "-Infinity"):
            if text.startswith(word, offset):
                self.fail(f"{word} is not valid JSON", offset, hint="use a finite number")
        self.fail("expected a value" if char else "unexpected end of file", offset)

    def string(self, offset: int) -> tuple[str, int]:
        try:
            return json.decoder.scanstring(self.text, offset + 1, True)
        except json.JSONDecodeError as error:
            self.fail(error.msg.lower(), error.pos)

    def object(self, offset: int, path: Path_, depth: int) -> tuple[dict, int]:
        result: dict[str, Any] = {}
        offset = self.skip(offset)
        if self.text[offset : offset + 1] == "}":
            return result, offset + 1
        while True:
            if self.text[offset : offset + 1] != '"':
                trailing = self.text[offset : offset + 1] == "}"
                self.fail("expected a key in double quotes", offset, TRAILING_COMMA if trailing else None)
            key_at = offset
            key, offset = self.string(offset)
            if key in result:
                first = self.doc.key_positions[path + (key,)]
                line, col = self.where(key_at)
                raise _Invalid(
                    f"duplicate key {key!r} (first at line {first[0]})",
                    line,
                    col,
                    hint="each key may appear once in an object",
                )
            self.doc.key_positions[path + (key,)] = self.where(key_at)
            offset = self.skip(offset)
            if self.text[offset : offset + 1] != ":":
                self.fail("expected ':' after the key", offset)
            offset = self.skip(offset + 1)
            result[key], offset = self.value(offset, path + (key,), depth + 1)
            offset = self.skip(offset)
            char = self.text[offset : offset + 1]
            if char == "}":
                return result, offset + 1
            if char != ",":
                self.fail("expected ',' or '}'", offset)
            offset = self.skip(offset + 1)

    def array(self, offset: int, path: Path_, depth: int) -> tuple[list, int]:
        result: list[Any] = []
        offset = self.skip(offset)
        if self.text[offset : offset + 1] == "]":
            return result, offset + 1
        while True:
            item, offset = self.value(offset, path + (len(result),), depth + 1)
            result.append(item)
            offset = self.skip(offset)
            char = self.text[offset : offset + 1]
            if char == "]":
                return result, offset + 1
            if char != ",":
                self.fail("expected ',' or ']'", offset)
            offset = self.skip(offset + 1)


TRAILING_COMMA = "JSON allows no comma after the last item: remove the comma before the closing bracket"


def dump_yaml(data: Any) -> str:
    """Write data as YAML the way submission files are written: block style, key order kept."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)


# libyaml's emitter when PyYAML has it (a tenth of the time of the Python one, the same text).
class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    pass


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Quote strings that YAML 1.1 would read back as something else (dates, numbers, yes/no).
    style = '"' if _looks_typed(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_RESOLVER = yaml.resolver.Resolver()


def _looks_typed(value: str) -> bool:
    return _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) != "tag:yaml.org,2002:str"


_Dumper.add_representer(str, _str_representer)
