"""Reading one MLPerf Training v0.5 log (`:::MLPv0.5.0 <benchmark> <unix seconds> (<file>:<line>)
<key>[: <value>]`, the lines of the `mlperf_compliance` 0.0.x logger) into the run record of runlog.py.

No reference tool reads v0.5 any more; what follows comes from the round's 600 public logs
(ResNet, SSD, GNMT, Transformer and NCF of Google, Intel and NVIDIA; the Mask R-CNN and MiniGo
logs are not in the public copy). Each line with the marker is read wherever the marker sits
(NVIDIA's loggers put `INFO:mlperf_compliance:`, `DEBUG:mlperf_compliance:` or a stray `)` before
it), and a line of a key that scoring reads becomes the MLLOG-style record that
runlog.RunReader takes (`key`, `value`, `time_ms`, `metadata`):

- `time_ms` is the logged unix time in seconds (Intel Caffe: whole seconds; NVIDIA: to the
  nanosecond) times 1,000.
- `run_start` (no value) starts the timed run. v0.5 has no init_start/init_stop, so no
  initialization limit applies.
- `run_stop` ends it. Its success is logged four ways: `{"success": true}`, `{"success": false}`
  (NCF runs that stopped without reaching the target: 96 of the round's 400), `{"success":
  "true"}` (Google's TPU code, a string) and no value at all (NVIDIA's MXNet ResNet and PyTorch
  Transformer). true/"true" is metadata.status success, false/"false" aborted; without a value
  the run's own evaluations decide: success when one before run_stop reached the caller's
  target, else aborted (so the open division too counts only runs that reached it; all 55 such
  runs of the round did).
- `run_final` (end of untimed cleanup) is not read: the time is run_start to run_stop, as
  v0.5's rules define it.
- `eval_accuracy` `{"epoch": e, "value": v}` (either key order) is value v with metadata.epoch_num
  e, as logged (Intel Caffe and NVIDIA Transformer count epochs from -1). v is a fraction for
  ResNet (top-1), SSD (mAP) and NCF (HR@10) and BLEU 0-100 for GNMT and Transformer (the
  catalog's `log_scale: 100`: Targets hold the targets as logged, scoring stores BLEU 0-1,
  as v0.6 does); the value shapes of v0.6 (a numeric string, a Mask R-CNN box/mask pair)
  are read as the v0.6 reader reads them. `eval_iteration_accuracy` (SSD: the same
  evaluation once more, by iteration) is not read, so an evaluation counts once.
- `eval_target` (0.749, 0.212, 21.8, 25.0, 0.635 in the round's logs: the round's targets) is
  not read; the caller's Targets decide.
- `input_batch_size` is not read as `global_batch_size`: in v0.5 it is the batch of one
  worker in some logs (NVIDIA ResNet: 208 of 1,664; Intel Caffe: 32 per process) and the
  global batch in others (Google TPU), so it says nothing reliable.

A record printed twice in a row, byte for byte, counts once: NVIDIA's DGX-2 MXNet ResNet logs
print every line to stdout and again through Python's logging, which would otherwise log two
run_start and two run_stop. Lines with the marker that are not records of this shape, or of
keys not read, are skipped; a record of a key read that cannot be read fails the run.
"""

from __future__ import annotations

import re
from typing import Any, BinaryIO

from leaderboard.importers.fieldlog import FieldLogReader
from leaderboard.importers.mll import accuracy_value, loads_lenient, stop_status
from leaderboard.importers.runlog import RunLog, Targets

MARKER = b":::MLPv0.5.0"

_READ = frozenset({"run_start", "run_stop", "eval_accuracy"})

# After the marker: `<benchmark> <seconds> (<file>:<line>) <key>[: <value>]` (a line without these
# fields has no key and is skipped).
_FIELDS = re.compile(rb"[ \t]+(\S+)[ \t]+(\S+)[ \t]+\((.*?)\)[ \t]+([A-Za-z0-9_]+)[ \t]*(?::[ \t]*(.*?))?[ \t\r]*")


class _Reader(FieldLogReader):
    MARKER, FIELDS, FORMAT = MARKER, _FIELDS, "MLPv0.5.0"
    TIME_GROUP, KEY_GROUP, PAYLOAD_GROUP = 2, 4, 5
    READ = MUST_READ = _READ

    def record(self, key: str, time_ms: float, payload: bytes | None) -> str | None:
        value: Any = None
        if payload:
            try:
                value = loads_lenient(payload)
            except ValueError:
                return f"{key} value is neither JSON nor a Python literal"
        record: dict[str, Any] = {"key": key, "value": None, "time_ms": time_ms, "metadata": {}}
        if key == "run_stop":
            success = value.get("success") if isinstance(value, dict) else None
            status = stop_status(success) if success is not None else None
            if status is None:  # no success flag: the run's evaluations decide
                status = "success" if self.run.reached_target else "aborted"
            record["metadata"]["status"] = status
        elif key == "eval_accuracy":
            if isinstance(value, dict) and "value" in value:
                epoch = value.get("epoch")
                record["value"] = accuracy_value(value["value"])
                if epoch is not None:
                    record["metadata"]["epoch_num"] = epoch
            elif value is None:
                return "eval_accuracy without a value"
            else:
                record["value"] = accuracy_value(value)
        return self.runs.record(record, key)


def read_run(stream: BinaryIO, targets: Targets) -> RunLog:
    """Score-relevant facts of one v0.5 log, read from a binary stream in blocks of whole lines."""
    return _Reader.read_run(stream, targets)
