"""readback.py: a table's rows as the database gives them back, without the database; the same
rows DuckDB gives back after loading them (test_store holds a whole build's data to it too)."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest
import sqlalchemy as sa

from leaderboard import loading
from leaderboard.render.model import _rows
from leaderboard.render.readback import read_back, sort_rows
from leaderboard.store import _queries

TABLE = sa.Table(
    "trial",
    sa.MetaData(),
    sa.Column("id", sa.Text),
    sa.Column("minutes", sa.Double),
    sa.Column("chips", sa.BigInteger),
    sa.Column("verified", sa.Boolean),
    sa.Column("date", sa.Date),
    sa.Column("note", sa.Text),
)


@pytest.mark.parametrize(
    "row, back",
    [
        # Each column in the table's order, whatever the row's; NULL for a column it lacks; a key
        # that is no column left out.
        ({"note": "n", "id": "a", "other": 1}, ["a", None, None, None, None, "n"]),
        # An integer in a DOUBLE column is a float; a float in a BIGINT one an integer.
        ({"id": "b", "minutes": 12, "chips": 8.0}, ["b", 12.0, 8, None, None, None]),
        # Dates as 'YYYY-MM-DD' text, from text or a date.
        ({"id": "c", "date": dt.date(2024, 5, 1)}, ["c", None, None, None, "2024-05-01", None]),
        ({"id": "d", "date": "2024-05-02", "verified": True}, ["d", None, None, True, "2024-05-02", None]),
        # A number or a truth in a text column is its text.
        ({"id": "e", "note": 7}, ["e", None, None, None, None, "7"]),
        ({"id": "f", "note": False}, ["f", None, None, None, None, "false"]),
    ],
)
def test_a_row_comes_back_as_duckdb_gives_it(row, back):
    assert list(read_back(TABLE, [row])[0].items()) == list(zip([c.name for c in TABLE.columns], back, strict=True))
    assert _through_duckdb([row]) == read_back(TABLE, [row])
    assert [type(v) for v in _through_duckdb([row])[0].values()] == [type(v) for v in back]


# Every column, in the table's order, as the build's rows are: read_back copies each and converts
# what is not of its column's type in the copy.
FULL = [
    {"id": "g", "minutes": 12, "chips": 8.0, "verified": None, "date": dt.date(2024, 5, 3), "note": 7},
    {"id": "h", "minutes": 1.5, "chips": 2, "verified": False, "date": "2024-05-04", "note": True},
    {"id": "i", "minutes": None, "chips": None, "verified": True, "date": None, "note": None},
]


def test_rows_of_every_column_come_back_as_duckdb_gives_them():
    before = [dict(row) for row in FULL]
    back, through = read_back(TABLE, FULL), _through_duckdb(FULL)
    assert back == through
    assert [[type(v) for v in row.values()] for row in back] == [[type(v) for v in row.values()] for row in through]
    assert [list(row) for row in back] == [[c.name for c in TABLE.columns]] * len(FULL)
    assert FULL == before and [type(v) for v in FULL[0].values()][1:3] == [int, float]  # the rows are left as they were


def test_rows_come_back_under_plain_names():
    """A catalog's rows may be keyed by SQLAlchemy's column names, a subclass of str that a page's
    reuse key cannot hash: every page showing them would be drawn again on every build."""
    keyed = [{column.name: row[str(column.name)] for column in TABLE.columns} for row in FULL]
    assert {type(key) for row in keyed for key in row} == {sa.sql.elements.quoted_name}
    back = read_back(TABLE, keyed)
    assert {type(key) for row in back for key in row} == {str}
    assert back == read_back(TABLE, FULL)


class OrderedRow(dict):
    pass


def _plain(name):
    return str(name)


def _sqlalchemys(name):
    return sa.sql.elements.quoted_name(name, None)


@pytest.mark.parametrize(
    "keyed, kind, given_back",
    [
        (_plain, dict, True),  # a build's own rows, given up: themselves, converted in place
        (_sqlalchemys, dict, False),  # under SQLAlchemy's names: copied under plain ones
        (_plain, OrderedRow, False),  # of another kind (model.ResultRow): made of that kind
    ],
)
def test_rows_given_up_come_back_themselves_where_they_can(keyed, kind, given_back):
    """read_back(owned=True) gives back the very rows, in the query's order and converted as a
    copy would be, where they are plain dicts under plain names of the kind asked for; else copies."""
    rows = [{keyed(c.name): v for c, v in zip(TABLE.columns, row.values(), strict=True)} for row in FULL]
    rows.reverse()
    back = read_back(TABLE, rows, ["id"], kind=kind, owned=True)
    assert back == read_back(TABLE, FULL, ["id"]) == _through_duckdb(FULL)
    assert {type(key) for row in back for key in row} == {str} and {type(row) for row in back} == {kind}
    assert [row is original for row, original in zip(back, reversed(rows), strict=True)] == [given_back] * len(FULL)


ROWS = [
    {"id": "b", "minutes": 2.0, "chips": None},
    {"id": "a", "minutes": None, "chips": 8},
    {"id": "c", "minutes": 2.0, "chips": 4},
    {"id": "d", "minutes": 1.0, "chips": None},
]


@pytest.mark.parametrize(
    "order, ids",
    [
        ([], ["b", "a", "c", "d"]),  # the rows' own order
        (["id"], ["a", "b", "c", "d"]),
        (["minutes"], ["d", "b", "c", "a"]),  # NULL last; ties in the rows' order
        ([("minutes", True)], ["b", "c", "d", "a"]),  # NULL last descending too
        (["minutes", ("id", True)], ["d", "c", "b", "a"]),
        (["chips", "id"], ["c", "a", "b", "d"]),
        ([("chips", True), "minutes"], ["a", "c", "d", "b"]),
    ],
)
def test_rows_come_back_in_order_by_order(order, ids):
    assert [r["id"] for r in read_back(TABLE, ROWS, order)] == ids
    assert [r["id"] for r in sort_rows(list(ROWS), order)] == ids
    if order:
        by = ", ".join(f"{o[0]} DESC" if isinstance(o, tuple) else o for o in order)
        assert [r["id"] for r in _through_duckdb(ROWS, by)] == ids


# No NULL in the ordering columns, ascending: sort_rows sorts by them all at once.
WITHOUT_NULLS = [
    {"id": "b", "minutes": 2.0, "chips": 8},
    {"id": "a", "minutes": 2.0, "chips": 4},
    {"id": "c", "minutes": 1.0, "chips": 8},
    {"id": "d", "minutes": 1.0, "chips": 4},
]


@pytest.mark.parametrize(
    "order, ids",
    [
        (["minutes"], ["c", "d", "b", "a"]),  # ties in the rows' order
        (["minutes", "chips"], ["d", "c", "a", "b"]),
        (["chips", "minutes"], ["d", "a", "c", "b"]),
        (["chips", "minutes", "id"], ["d", "a", "c", "b"]),
        (["chips", ("id", True)], ["d", "a", "c", "b"]),  # a descending column: one sort a column
    ],
)
def test_rows_without_nulls_come_back_in_order_by_order(order, ids):
    assert [r["id"] for r in sort_rows(list(WITHOUT_NULLS), order)] == ids
    by = ", ".join(f"{o[0]} DESC" if isinstance(o, tuple) else o for o in order)
    assert [r["id"] for r in _through_duckdb(WITHOUT_NULLS, by)] == ids


def test_equal_texts_come_back_as_one_object():
    texts: dict[str, str] = {}
    first, second = read_back(TABLE, [{"id": "".join(["sha", "red"])}, {"id": "".join(["sh", "ared"])}], texts=texts)
    assert first["id"] is second["id"] is texts["shared"]


def _through_duckdb(rows: list[dict], order: str = "") -> list[dict]:
    connection = duckdb.connect()
    connection.execute(
        "CREATE TABLE trial (id VARCHAR, minutes DOUBLE, chips BIGINT, verified BOOLEAN, date DATE, note VARCHAR)"
    )
    loading.load_json(connection, TABLE, rows)
    return _rows(_queries(connection), f"SELECT * FROM trial{' ORDER BY ' + order if order else ''}")
