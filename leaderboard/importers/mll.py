"""Reading one MLPerf Training v0.6 log (`:::MLL <unix seconds> <key>: {"value": ..., "metadata": ...}`)
into the run record of runlog.py.

Each line with the marker is read wherever the marker sits (NVIDIA's multi-node logs put
`[1,0]<stdout>:` or `Binding...` before it, as MLCommons' v0.6 parser allows), and becomes the
MLLOG-style record that runlog.RunReader takes (`key`, `value`, `time_ms`, `metadata`):

- `time_ms` is the logged unix time in seconds times 1,000.
- `run_start`, `init_start`, `init_stop`, `global_batch_size` pass through as logged.
- `run_stop`: `metadata.status` as logged, the format's `"abort"` (Google, a ResNet run that
  never reached its target) spelled `"aborted"` as MLLOG spells it.
- `eval_accuracy`: `value` as logged, with `metadata.epoch_num`; three shapes are brought to the
  one MLLOG uses: a number written as a string (NVIDIA Transformer, `"value": "25.74"`) is that
  number; Mask R-CNN's `{"accuracy": {"BBOX": b, "SEGM": s}}` (NVIDIA) and `[b, s]` (Google,
  box AP first: it is always the larger) are both `{"BBOX": b, "SEGM": s}`.
- `eval_result` (MiniGo): v0.6 MiniGo evaluates the saved models after training, so its
  `run_stop`, when it has one (Intel; NVIDIA's logs have none), marks the end of that untimed
  evaluation. Its time to train is `metadata.timestamp` of `eval_result`: seconds from
  `run_start` to the saving of the first model that reached the target (what MLCommons' v0.6
  score rules print, and 0 when no model did). `eval_result` is read as the run's `run_stop`, at
  `run_start` + timestamp, with status success (aborted for timestamp 0), and a `run_stop`
  after it is not read.

Lines that are not records are skipped: Intel's MiniGo logs have other processes' output
written into the middle of records (`:::MLL 1560874508.385522 o[2019-06-18 10:15:47] iteration
time 3`). A record that cannot be read fails the run when its key decides the score
(run_start, run_stop, eval_accuracy, eval_result) and is skipped otherwise: two of Intel's ten
MiniGo runs lose a `global_batch_size` line that way, a key with no bearing on a v0.6 score
(MLCommons published the result with all ten runs). Payloads are JSON, or Python literals
where a logger printed a dict with repr (Intel's `'lineno': 742`); `loads_lenient` reads both,
without eval. A record printed twice in a row, byte for byte (a logger writing to stdout and to
Python's logging), counts once.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any, BinaryIO

from leaderboard.importers.fieldlog import FieldLogReader
from leaderboard.importers.runlog import KEYS, RunLog, Targets, number

try:  # orjson parses JSON several times faster than json
    from orjson import JSONDecodeError as _FastError
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover
    _fast_loads, _FastError = json.loads, ValueError

MARKER = b":::MLL"

# ---- payloads --------------------------------------------------------------------------

_NAMES = {
    "null": None,
    "None": None,
    "true": True,
    "True": True,
    "false": False,
    "False": False,
    "NaN": math.nan,
    "nan": math.nan,
    "Infinity": math.inf,
    "inf": math.inf,
}


def loads_lenient(text: str | bytes) -> Any:
    """A JSON value, or a Python literal (single-quoted strings, tuples, True/None) mixed with
    JSON's null/true/false, read from its syntax tree: nothing is evaluated. ValueError when
    the text is neither."""
    try:
        return _fast_loads(text)
    except _FastError:
        pass
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    try:
        return json.loads(text)  # NaN, Infinity
    except ValueError:
        pass
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return _literal(tree.body)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise ValueError(f"neither JSON nor a Python literal ({type(error).__name__})") from None


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (str, int, float, bool))):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _literal(node.operand)
        if isinstance(operand, bool) or not isinstance(operand, (int, float)):
            raise ValueError("sign before a non-number")
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        result = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # {**other}
                raise ValueError("dict unpacking")
            name = _literal(key)
            if isinstance(name, (list, dict)):
                raise ValueError("unhashable key")
            result[name] = _literal(value)
        return result
    raise ValueError(f"{type(node).__name__} is not a literal")


# ---- values shared with the v0.5 reader --------------------------------------------------


def accuracy_value(value: Any) -> Any:
    """An evaluation's value in the shape MLLOG logs it: a number (also from a numeric
    string), or Mask R-CNN's {"BBOX": box AP, "SEGM": mask AP} (also from {"accuracy": {...}}
    and from a [box, mask] pair). Anything else is kept as logged (and scores as no number)."""
    if isinstance(value, str):
        try:
            result = float(value.strip())
        except ValueError:
            return value
        return result if math.isfinite(result) else value
    if isinstance(value, dict) and set(value) == {"accuracy"} and isinstance(value["accuracy"], dict):
        return value["accuracy"]
    if isinstance(value, list) and len(value) == 2 and all(number(item) is not None for item in value):
        return {"BBOX": value[0], "SEGM": value[1]}
    return value


def stop_status(status: Any) -> str | None:
    """A run_stop status as MLLOG spells it: success or aborted."""
    if isinstance(status, bool):
        return "success" if status else "aborted"
    if not isinstance(status, str):
        return None
    word = status.strip().lower()
    if word in ("success", "true"):
        return "success"
    if word in ("abort", "aborted", "false", "fail", "failed", "failure"):
        return "aborted"
    return status


# ---- the reader ------------------------------------------------------------------------

# Keys read beyond runlog.KEYS: MiniGo's eval_result. A record of the first set that cannot be
# read fails the run; one of the others is skipped (see the module's docstring).
_READ = KEYS | {"eval_result"}
_MUST_READ = frozenset({"run_start", "run_stop", "eval_accuracy", "eval_result"})

# Every line with the marker is a record read; `<seconds> <key>: <payload>` after the marker
# gives its fields (a line without them has no key and is skipped).
_FIELDS = re.compile(rb"[ \t]+(\S+)[ \t]+([A-Za-z0-9_]+)[ \t]*:[ \t]*(.*?)[ \t\r]*")


class _Reader(FieldLogReader):
    MARKER, FIELDS, FORMAT = MARKER, _FIELDS, "MLL"
    TIME_GROUP, KEY_GROUP, PAYLOAD_GROUP = 1, 2, 3
    READ, MUST_READ = _READ, _MUST_READ

    def __init__(self, targets: Targets):
        super().__init__(targets)
        self.stopped_by_result = False

    def record(self, key: str, time_ms: float, payload: bytes | None) -> str | None:
        try:
            data = loads_lenient(payload or b"")
        except ValueError:
            return f"{key} payload is neither JSON nor a Python literal"
        if type(data) is not dict:
            return f"{key} payload is not an object"
        metadata = data.get("metadata")
        metadata = dict(metadata) if isinstance(metadata, dict) else {}
        record = {"key": key, "value": data.get("value"), "time_ms": time_ms, "metadata": metadata}
        if key == "eval_accuracy":
            record["value"] = accuracy_value(record["value"])
        elif key == "run_stop":
            if self.stopped_by_result:
                return None
            metadata["status"] = stop_status(metadata.get("status"))
        elif key == "eval_result":
            return self.result(metadata)
        return self.runs.record(record, key)

    def result(self, metadata: dict) -> str | None:
        """MiniGo's eval_result, read as the run's run_stop (see the module's docstring)."""
        run = self.run
        if run.run_stops or self.stopped_by_result:
            return None
        seconds = number(metadata.get("timestamp"))
        if seconds is None:
            return "eval_result without a numeric metadata.timestamp"
        if run.start_ms is None:
            return "eval_result before run_start"
        self.stopped_by_result = True
        status = "success" if seconds > 0 else "aborted"
        record = {"key": "run_stop", "value": None, "time_ms": run.start_ms + seconds * 1000.0}
        record["metadata"] = {"status": status, "from": "eval_result"}
        return self.runs.record(record, "run_stop")


def read_run(stream: BinaryIO, targets: Targets) -> RunLog:
    """Score-relevant facts of one v0.6 log, read from a binary stream in blocks of whole lines."""
    return _Reader.read_run(stream, targets)
