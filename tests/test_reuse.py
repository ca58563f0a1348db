"""A page's reuse key (render/reuse.py): the same inputs give the same key, any change another;
a result row, read-only once loaded, is hashed once however many pages show it."""

from __future__ import annotations

import copy
import pickle

import pytest
from markupsafe import Markup

from leaderboard.render.model import ResultRow
from leaderboard.render.reuse import PageReuse


def frozen(**values: object) -> ResultRow:
    row = ResultRow(values)
    row.frozen = True
    return row


def key(context: dict) -> str | None:
    return PageReuse(previous=None, manifest=None).key("a.html", "a.html", context)


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ({"row": frozen(minutes=1.0)}, {"row": frozen(minutes=1.0)}, True),
        ({"row": frozen(minutes=1.0)}, {"row": frozen(minutes=2.0)}, False),
        ({"row": frozen(costs={"spot": 1})}, {"row": frozen(costs={"spot": 2})}, False),
        # A row and a plain dict of the same values are different inputs (they could draw differently).
        ({"row": frozen(minutes=1.0)}, {"row": {"minutes": 1.0}}, False),
        ({"rows": [frozen(a=1), frozen(b=2)]}, {"rows": [frozen(b=2), frozen(a=1)]}, False),
        ({"text": Markup("<b>")}, {"text": "<b>"}, False),
        ({"text": Markup("<b>")}, {"text": Markup("<b>")}, True),
    ],
)
def test_a_key_changes_exactly_when_an_input_does(first, second, same):
    assert key(first) is not None and key(second) is not None
    assert (key(first) == key(second)) is same


def test_a_row_is_hashed_once_for_every_page_it_is_on():
    reuse = PageReuse(previous=None, manifest=None)
    row = frozen(minutes=1.0, system="x" * 1000)
    reuse.key("a.html", "t", {"row": row})
    assert [text for _, text in reuse._objects.values()] == [reuse._stable(row)]
    assert reuse._stable(row).startswith("ResultRow ")


@pytest.mark.parametrize(
    "change",
    [
        lambda row: row.__setitem__("minutes", 2.0),
        lambda row: row.__delitem__("minutes"),
        lambda row: row.update(minutes=2.0),
        lambda row: row.setdefault("chips", 8),
        lambda row: row.pop("minutes"),
        lambda row: row.popitem(),
        lambda row: row.clear(),
        lambda row: row.__ior__({"minutes": 2.0}),
    ],
)
def test_a_loaded_row_cannot_change_under_its_hash(change):
    row = frozen(minutes=1.0)
    with pytest.raises(TypeError, match="read-only"):
        change(row)
    assert row == {"minutes": 1.0}


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy, lambda row: pickle.loads(pickle.dumps(row))])
def test_a_copy_of_a_loaded_row_is_a_row_that_can_change(duplicate):
    row = frozen(minutes=1.0, costs={"spot": 1})
    copied = duplicate(row)
    assert type(copied) is ResultRow and copied == row and not copied.frozen
    copied["minutes"] = 2.0
    assert row["minutes"] == 1.0


def test_a_row_still_loading_is_hashed_as_it_stands():
    reuse = PageReuse(previous=None, manifest=None)
    row = ResultRow(minutes=1.0)
    before = reuse.key("a.html", "t", {"row": row})
    row["minutes"] = 2.0
    assert reuse.key("a.html", "t", {"row": row}) != before


def test_a_copied_files_hash_is_remembered_by_its_identity_until_it_changes(tmp_path):
    """PageReuse.source_digest: a file the site copies (DuckDB-WASM's 35 MB) is hashed once; a
    rebuild takes its hash from the manifest while the file keeps its size, time and inode."""
    import hashlib
    import json

    source, manifest = tmp_path / "duckdb-eh.wasm", tmp_path / "manifest.json"
    source.write_bytes(b"wasm " * 1000)
    first = PageReuse(tmp_path / "site", manifest)
    assert first.source_digest(source) == hashlib.sha256(source.read_bytes()).hexdigest()
    first.save()
    stored = json.loads(manifest.read_text())
    [(name, [identity, _])] = stored["sources"].items()
    stored["sources"][name] = [identity, "remembered"]  # not the file's: shows it is not read again
    manifest.write_text(json.dumps(stored))
    assert PageReuse(tmp_path / "site", manifest).source_digest(source) == "remembered"
    source.write_bytes(b"other wasm")
    assert PageReuse(tmp_path / "site", manifest).source_digest(source) == hashlib.sha256(b"other wasm").hexdigest()
    linked = tmp_path / "linked.wasm"  # a bundle linked in: its target's bytes
    linked.symlink_to(source)
    assert PageReuse(tmp_path / "site", manifest).source_digest(linked) == hashlib.sha256(b"other wasm").hexdigest()


def test_a_copied_file_changed_after_it_was_hashed_fails_the_build(tmp_path):
    """SiteWriter.copy_file: the bytes written are those hashed, or the build stops (FileChanged)."""
    from types import SimpleNamespace

    from leaderboard.render.writer import SiteWriter
    from leaderboard.tree import FileChanged

    source = tmp_path / "site.css"
    source.write_bytes(b"body {}")
    written = []
    reuse = SimpleNamespace(source_digest=lambda path: PageReuse(None, None).source_digest(path))
    writer = SimpleNamespace(reuse=reuse, copy=lambda relative, content, digest: written.append(content()))
    SiteWriter.copy_file(writer, "static/site.css", source)
    assert written == [b"body {}"]
    reuse.source_digest = lambda path: "the hash of bytes since changed"
    with pytest.raises(FileChanged, match="site.css changed while the site was built"):
        SiteWriter.copy_file(writer, "static/site.css", source)


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ({"a b": [[0, 1, 2]]}, True),
        ([{"name": "x", "spec": {"width": 1.5}}], True),
        ({"pair": (0, 1)}, False),  # JSON gives a list back: not exactly the value
        ({1: "key not a string"}, False),
        ({"set": {1, 2}}, False),
    ],
)
def test_a_value_is_remembered_for_its_inputs_alone_and_only_as_exact_json(tmp_path, value, kept):
    """PageReuse.value/record_value (SiteWriter.remembered): a rebuild gets back what was made
    from the same inputs, nothing when they differ, and only values JSON gives back exactly."""
    manifest = tmp_path / "manifest.json"
    first = PageReuse(tmp_path / "site", manifest)
    assert first.value("made", [frozen(minutes=1.0), "x"]) is None
    assert first.record_value("made", [frozen(minutes=1.0), "x"], value) is kept
    first.save()
    again = PageReuse(tmp_path / "site", manifest)
    assert again.value("made", [frozen(minutes=1.0), "x"]) == (value if kept else None)
    assert again.value("made", [frozen(minutes=2.0), "x"]) is None
    assert again.value("other", [frozen(minutes=1.0), "x"]) is None
