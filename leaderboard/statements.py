"""What a query holds, read by DuckDB's own SQL parser: exactly one read-only statement, or a
refusal that says why (no statement, several, or one that writes). No regular expressions.
"""

from __future__ import annotations

import duckdb

# The kinds of statement a query may be: SELECT covers WITH, FROM-first, VALUES, DESCRIBE,
# SHOW and SUMMARIZE, which DuckDB's parser turns into selects.
READ_ONLY = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})
ALLOWED = "SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE or EXPLAIN"


class EmptyQuery(ValueError):
    """The SQL holds no statement: nothing but whitespace, comments and semicolons."""


class RefusedQuery(PermissionError):
    """The SQL holds several statements, or one that is not a read-only query."""


def single_statement(sql: str) -> str:
    """The one read-only statement of `sql`, as DuckDB's parser cut it out (from its first
    word; a trailing ';' and comment kept). Raises EmptyQuery, RefusedQuery, or duckdb.ParserException
    with DuckDB's own message (the caret under the bad word included) for SQL it cannot read."""
    statements = duckdb.extract_statements(sql)
    if not statements:
        raise EmptyQuery("no SQL to run: give one statement, such as SELECT * FROM results LIMIT 5")
    if len(statements) > 1:
        raise RefusedQuery(
            f"only a single read-only query is allowed: this SQL holds {len(statements)} statements "
            "(run them one at a time)"
        )
    (statement,) = statements
    if statement.type not in READ_ONLY:
        raise RefusedQuery(f"only a single read-only query ({ALLOWED}) is allowed, not {_kind(statement.type)}")
    return statement.query


def _kind(kind: duckdb.StatementType) -> str:
    """CREATE, DELETE, ... as the statement type's name says it (StatementType.CREATE -> CREATE)."""
    return str(kind).rsplit(".", 1)[-1].replace("_", " ")
