"""Plain descriptions of a database's tables: each table's name, its columns in order (a name, one
of five kinds, a comment, whether it is in the primary key) and what it holds; and SQLAlchemy's
tables made from them where SQLAlchemy writes. schema_tables.py describes the tables with these,
so a build, which only reads the descriptions, never imports SQLAlchemy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlalchemy as sa


class Kind:
    """A column's type: one of the five the tables use, named as SQLAlchemy's type is (its str()
    is the SQL that SQLAlchemy's gives)."""

    sql = ""

    def __str__(self) -> str:
        return self.sql

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Text(Kind):
    sql = "TEXT"


class Double(Kind):
    sql = "DOUBLE"


class BigInteger(Kind):
    sql = "BIGINT"


class Boolean(Kind):
    sql = "BOOLEAN"


class Date(Kind):
    sql = "DATE"


def kind_name(column) -> str:
    """The name of a column's kind ("Text", "Double", "BigInteger", "Boolean", "Date"): the same for
    a column of these tables and one of SQLAlchemy's, so code that reads a table's columns takes
    either."""
    return type(column.type).__name__


@dataclass(frozen=True)
class Column:
    name: str
    type: Kind
    comment: str
    primary_key: bool = False


@dataclass(frozen=True)
class PrimaryKey:
    columns: tuple[Column, ...]


class Table:
    """A table: its name, its columns in order, its primary key and what it holds (`comment`)."""

    def __init__(self, name: str, schema: Schema, *columns: Column, comment: str):
        self.name, self.columns, self.comment = name, list(columns), comment
        self.primary_key = PrimaryKey(tuple(c for c in columns if c.primary_key))
        schema.tables[name] = self


class Schema:
    """Every table, by name, in the order they are described."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}

    @property
    def sorted_tables(self) -> list[Table]:
        """By name, as SQLAlchemy sorts tables no key links."""
        return sorted(self.tables.values(), key=lambda table: table.name)


def as_sqlalchemy(schema: Schema) -> sa.MetaData:
    """The tables of `schema` as SQLAlchemy's, in the order they are described."""
    import sqlalchemy as sa

    kinds = {"Text": sa.Text, "Double": sa.Double, "BigInteger": sa.BigInteger, "Boolean": sa.Boolean, "Date": sa.Date}
    made = sa.MetaData()
    for table in schema.tables.values():
        columns = (
            sa.Column(c.name, kinds[kind_name(c)], comment=c.comment, primary_key=c.primary_key) for c in table.columns
        )
        sa.Table(table.name, made, *columns, comment=table.comment)
    return made
