"""Reading YAML and JSON safely, with the line and column of every value and of every failure."""

from pathlib import Path

import pytest

from leaderboard.files import MAX_BYTES, dump_yaml, load


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def alias_bomb(mapping: bool = False) -> str:
    """A "billion laughs": ten anchors, each repeating the one before nine times. Counted, the
    values pass 100,000 at the first alias of line 6 (the mappings' keys are not values)."""

    def collection(items: list[str]) -> str:
        if mapping:
            return "{" + ", ".join(f"k{i}: {item}" for i, item in enumerate(items)) + "}"
        return "[" + ",".join(items) + "]"

    lines = [f"a: &a {collection(['lol'] * 9)}"]
    for i in range(1, 10):
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} {collection(['*' + chr(96 + i)] * 9)}")
    return "\n".join(lines) + "\n"


def test_yaml_positions_of_values_and_keys(tmp_path):
    doc = load(write(tmp_path, "a.yaml", "a: 1\nsystem:\n  name: x\n  count: 8\n"))
    assert doc.problems == []
    assert doc.data == {"a": 1, "system": {"name": "x", "count": 8}}
    assert doc.where(("system", "count")) == (4, 10)
    assert doc.where(("system", "count"), key=True) == (4, 3)
    assert doc.where(("system", "missing")) == (3, 3)  # the parent mapping


def test_yaml_dates_stay_strings_and_values_keep_types(tmp_path):
    doc = load(write(tmp_path, "a.yaml", "date: 2021-12-01\nn: 1e3\nm: 1.5\nb: true\nz: ~\n"))
    assert doc.data == {"date": "2021-12-01", "n": "1e3", "m": 1.5, "b": True, "z": None}


def test_json_positions(tmp_path):
    doc = load(write(tmp_path, "a.json", '{\n  "system": {"count": 8,\n    "name": "x"}\n}\n'))
    assert doc.problems == []
    assert doc.where(("system", "name")) == (3, 13)
    assert doc.where(("system", "name"), key=True) == (3, 5)


@pytest.mark.parametrize(
    "name, content, message, line, col",
    [
        ("dup.yaml", "a: 1\nb: 2\na: 3\n", "duplicate key 'a' (first at line 1)", 3, 1),
        ("dup.json", '{"a": 1,\n "a": 2}', "duplicate key 'a' (first at line 1)", 2, 2),
        ("bad.yaml", "a: [1, 2\nb: 3\n", "while parsing a flow sequence that starts at line 1, column 4", 2, 2),
        # A quote left open is placed where it opens, not where YAML gives up.
        ("open.yaml", 'a: 1\nb: "abc\nc: 2\n', "the quoted value that opens here is never closed", 2, 4),
        ("open-single.yaml", "a: 1\nb: 'abc\n", "the quoted value that opens here is never closed", 2, 4),
        ("runs-on.yaml", 'a: "abc\nb: "x"\nc: 2\n', "opens here runs on to line 2, where YAML stops", 1, 4),
        ("bad.json", '{"a": 1,}', "JSON does not parse: expected a key", 1, 9),
        ("nan.json", '{"a": NaN}', "NaN is not valid JSON", 1, 7),
        ("inf.json", '{"a": -Infinity}', "JSON does not parse", 1, 7),
        ("trail.json", '{"a": 1} x', "extra data", 1, 10),
        ("empty.yaml", "  \n", "file is empty", 1, 1),
        ("comment.yaml", "# nothing yet\n", "file holds 0 YAML documents", 1, 1),
        ("latin1.yaml", b"name: Montr\xe9al\n", "file is not UTF-8", 1, 12),
        ("tag.yaml", "a: !!python/object:os.system x\n", "is not allowed", 1, 4),
        # A tag on a list or a mapping, or on a key, as well as on a value.
        ("tag-seq.yaml", "a: !!python/object/apply:os.system [echo]\n", "is not allowed", 1, 4),
        ("tag-map.yaml", "a: 1\nmodel: !foo\n  name: x\n", "YAML tag '!foo' is not allowed", 2, 8),
        ("tag-key.yaml", "!!python/name:os.system a: 1\n", "a mapping key must be a plain name", 1, 1),
        ("two.yaml", "a: 1\n---\nb: 2\n", "2 YAML documents", 3, 1),  # where the second begins
        ("deep.json", "[" * 100 + "]" * 100, "nesting deeper than 64", 1, 66),
        # Refused at the same place whether the composer's depth is checked first (enough brackets,
        # lines, '- ' and '? ' to pass COMPOSER_SAFE_DEPTH levels) or by the values' walk after it.
        ("deep.yaml", "[" * 100 + "]" * 100, "nesting deeper than 64", 1, 66),
        ("deeper.yaml", "[" * 1_000 + "]" * 1_000, "nesting deeper than 64", 1, 66),
        (
            "deep-block.yaml",
            "".join(" " * i + "k:\n" for i in range(100)) + " " * 100 + "v\n",
            "nesting deeper than 64",
            66,
            66,
        ),
        (
            "deep-lines.yaml",
            "".join(" " * i + "k:\n" for i in range(100)) + "#\n" * 600,
            "nesting deeper than 64",
            66,
            66,
        ),
        ("deep-dashes.yaml", "- " * 70 + "x\n", "nesting deeper than 64", 1, 131),
        ("keys.yaml", "? " * 10 + "x\n", "a mapping key must be a plain name", 1, 3),
        ("deep-keys.yaml", "? " * 600 + "x\n", "a mapping key must be a plain name", 1, 3),
        # A limit crossed: the alias whose expansion crosses it, else the value counted past it.
        ("bomb.yaml", alias_bomb(), "holds more than 100,000 values", 6, 8),
        ("bomb-of-mappings.yaml", alias_bomb(mapping=True), "holds more than 100,000 values", 6, 12),
        ("huge.yaml", "- 1\n" * 100_001, "holds more than 100,000 values", 100_000, 3),
        ("huge.json", "[" + ",\n".join(["1"] * 100_001) + "]", "more than 100,000 values", 100_000, 1),
    ],
)
def test_parse_failures_have_line_and_column(tmp_path, name, content, message, line, col):
    doc = load(write(tmp_path, name, content))
    assert doc.data is None
    [problem] = doc.problems
    assert message in problem.message
    assert (problem.line, problem.col) == (line, col)


def test_a_quote_left_open_has_a_hint_and_a_quote_spanning_lines_is_fine(tmp_path):
    [problem] = load(write(tmp_path, "open.yaml", 'a: 1\nb: "abc\n')).problems
    assert problem.hint.startswith("close the quote on this line")
    doc = load(write(tmp_path, "long.yaml", 'note: "a long note\n  on two lines"\nb: 1\n'))
    assert doc.problems == [] and doc.data == {"note": "a long note on two lines", "b": 1}


@pytest.mark.parametrize(
    "name, content, hint",
    [
        ("tab.yaml", "system:\n\tname: x\n", "indent with spaces: YAML does not allow a tab in indentation"),
        ("colon.yaml", "note: ratio: 2\n", 'a value that holds ": " is quoted: note: "ratio: 2"'),
        ("comma.json", '{"a": 1,\n}\n', "JSON allows no comma after the last item"),
        ("list-comma.json", '{"a": [1, 2, ]}', "JSON allows no comma after the last item"),
        ("other.yaml", "a: [1, 2\nb: 3\n", None),  # no hint that would mislead
        ("other.json", '{"a": }', None),
    ],
)
def test_the_commonest_parse_errors_say_what_to_do(tmp_path, name, content, hint):
    [problem] = load(write(tmp_path, name, content)).problems
    assert problem.hint == hint if hint is None else problem.hint.startswith(hint), problem


def test_utf8_bom_is_accepted(tmp_path):
    doc = load(write(tmp_path, "bom.yaml", b"\xef\xbb\xbfa: 1\n"))
    assert doc.problems == [] and doc.data == {"a": 1}


def test_oversized_file_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)
    [problem] = load(path).problems
    assert "over the 1 MiB limit" in problem.message
    assert (problem.line, problem.col) == (1, 1)


def test_unreadable_path_is_a_problem(tmp_path):
    [problem] = load(tmp_path / "missing.yaml").problems
    assert "cannot read file" in problem.message
    assert (problem.line, problem.col) == (1, 1)


def test_dump_yaml_quotes_what_would_read_back_as_another_type(tmp_path):
    text = dump_yaml({"date": "2021-12-01", "flag": "yes", "n": "12", "name": "x", "v": 1.5})
    doc = load(write(tmp_path, "round.yaml", text))
    assert doc.data == {"date": "2021-12-01", "flag": "yes", "n": "12", "name": "x", "v": 1.5}
    assert 'date: "2021-12-01"' in text
