"""What a query holds, read by DuckDB's own SQL parser: exactly one read-only statement, or a
refusal that says why (no statement, several, or one that writes). No regular expressions.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

ALLOWED = "SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE or EXPLAIN"


@cache
def read_only() -> frozenset[duckdb.StatementType]:
    """The kinds of statement a query may be: SELECT covers WITH, FROM-first, VALUES, DESCRIBE,
    SHOW and SUMMARIZE, which DuckDB's parser turns into selects. (DuckDB is imported where it is
    used: a build's own process never needs it, its database's process does.)"""
    import duckdb

    return frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})


class EmptyQuery(ValueError):
    """The SQL holds no statement: nothing but whitespace, comments and semicolons."""


class RefusedQuery(PermissionError):
    """The SQL holds several statements, or one that is not a read-only query."""


class NulInQuery(ValueError):
    """The SQL holds a NUL character, where DuckDB's parser may stop reading it (a C string ends
    there): the rest of the SQL would be dropped without a word, or read as something else."""


class UndecodableQuery(ValueError):
    """The SQL is not UTF-8 text: bytes of another encoding (Latin-1, say), which reach Python from
    the command line and stdin as lone surrogates (surrogateescape) that DuckDB's parser refuses."""


def single_statement(sql: str) -> str:
    """The one read-only statement of `sql`, as DuckDB's parser cut it out (from its first
    word; a trailing ';' and comment kept). Raises EmptyQuery, RefusedQuery, or duckdb.ParserException
    with DuckDB's own message (the caret under the bad word included) for SQL it cannot read;
    UndecodableQuery for SQL that is not UTF-8, NulInQuery for SQL holding a NUL character."""
    import duckdb

    _check_utf8(sql)
    _check_no_nul(sql)
    statements = duckdb.extract_statements(sql)
    if not statements:
        raise EmptyQuery("no SQL to run: give one statement, such as SELECT * FROM results LIMIT 5")
    if len(statements) > 1:
        raise RefusedQuery(
            f"only a single read-only query is allowed: this SQL holds {len(statements)} statements "
            "(run them one at a time)"
        )
    (statement,) = statements
    if statement.type not in read_only():
        raise RefusedQuery(f"only a single read-only query ({ALLOWED}) is allowed, not {_kind(statement)}")
    if written := _written_in_with(statement):
        raise RefusedQuery(f"only a single read-only query ({ALLOWED}) is allowed, not {written} inside WITH")
    if statement.type == duckdb.StatementType.EXPLAIN:
        explained = _explained(statement.query)
        change = None
        if explained is not None:
            change = _kind(explained) if explained.type not in read_only() else _written_in_with(explained)
        if change:
            raise RefusedQuery(
                f"only a single read-only query ({ALLOWED}) is allowed: EXPLAIN of {change} "
                "plans a change the database refuses"
            )
    return statement.query


def _check_utf8(sql: str) -> None:
    """Raise UndecodableQuery, naming the first byte that is not UTF-8 and its offset in the
    bytes as given (from 0, as Python counts), when `sql` holds one."""
    try:
        sql.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeDecodeError as error:
        byte = error.object[error.start]
        raise UndecodableQuery(f"the SQL is not valid UTF-8 (byte 0x{byte:02x} at position {error.start})") from None
    except UnicodeEncodeError as error:  # a surrogate no byte stands for: only from Python
        character = ord(error.object[error.start])
        raise UndecodableQuery(
            f"the SQL is not valid UTF-8 (a lone surrogate U+{character:04X} at character {error.start})"
        ) from None


def _check_no_nul(sql: str) -> None:
    """Raise NulInQuery, naming the first NUL's line and column (from 1, in characters), when `sql`
    holds one. A value that needs the character has chr(0)."""
    at = sql.find("\0")
    if at < 0:
        return
    line = sql.count("\n", 0, at) + 1
    column = at - (sql.rfind("\n", 0, at) + 1) + 1
    raise NulInQuery(
        f"the SQL holds a NUL character (\\0) at line {line}, column {column}, where the database may stop "
        "reading it: remove it (chr(0) gives the character in a value)"
    )


def _written_in_with(statement) -> str | None:
    """INSERT, UPDATE, DELETE or COPY when a SELECT hides one in a WITH clause (WITH d AS (DELETE
    ... RETURNING *) SELECT ...), which the statement's type does not show. Read from DuckDB's own
    parse tree (json_serialize_sql), where such a body is an INSERT_QUERY_NODE, DELETE_QUERY_NODE,
    ...; the reading ones are SELECT_NODE, SET_OPERATION_NODE and the CTE nodes. A cursor of
    its own: the default connection is not safe to share between threads."""
    import duckdb

    if statement.type != duckdb.StatementType.SELECT:
        return None
    with duckdb.cursor() as cursor:
        ((tree,),) = cursor.execute("SELECT json_serialize_sql(?)", [statement.query]).fetchall()
    nodes = [json.loads(tree)]
    while nodes:
        node = nodes.pop()
        if isinstance(node, dict):
            kind = node.get("type")
            if isinstance(kind, str) and kind.endswith("_QUERY_NODE"):
                return kind.removesuffix("_QUERY_NODE").replace("_", " ")
            nodes.extend(node.values())
        elif isinstance(node, list):
            nodes.extend(node)
    return None


def _explained(query: str):
    """The statement an EXPLAIN [ANALYZE] [(options)] plans, read by DuckDB's tokenizer and parser."""
    import duckdb

    tokens = duckdb.tokenize(query)
    words = [
        query[start:end].strip().upper()
        for (start, _), (end, _) in zip(tokens, [*tokens[1:], (len(query), None)], strict=True)
    ]
    index, depth = 1, 0
    while index < len(tokens) and (depth or words[index] in ("ANALYZE", "(")):
        depth += words[index] == "("
        depth -= words[index] == ")"
        index += 1
    if index >= len(tokens):
        return None
    inner = duckdb.extract_statements(query[tokens[index][0] :])
    return inner[0] if inner else None


def _kind(statement) -> str:
    """CREATE, DELETE, ... as the statement type's name says it (StatementType.CREATE -> CREATE);
    INSTALL and LOAD, one type to the parser, by the statement's first word."""
    import duckdb

    if statement.type == duckdb.StatementType.LOAD and statement.query.split():
        return statement.query.split(None, 1)[0].upper()
    return str(statement.type).rsplit(".", 1)[-1].replace("_", " ")
