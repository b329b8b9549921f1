"""A built-in function asked for by what it does (agentic_rag/function_search.py): the rows of the
collection's function tables, each scored against the question; on real pages of the PostgreSQL 15 manual."""

from __future__ import annotations

from pathlib import Path

from agentic_rag.function_search import best_function, function_rows, with_called_function, with_function
from graph.context import RunContext

RULES = RunContext(deciders="rules")
PAGES = [
    "functions-admin.html",  # "| pg_cancel_backend ( pid integer ) → boolean Cancels the current query …"
    "functions-string.html",  # "| octet_length ( text ) → integer Returns number of bytes in the string. …"
    "sql-dropdatabase.html",  # "DROP DATABASE — remove a database"
    "hot-standby.html",  # "cancel queries" in prose, many times
    "adminpack.html",  # "| pg_catalog.pg_file_rename ( … ) → boolean Renames a file." — no column's rename
]

ROWS = """| Function Description |
|---|
| pg_tablespace_size ( name ) → bigint Computes the total disk space used in the tablespace with the specified name. |
| pg_database_size ( name ) → bigint Computes the total disk space used by the database with the specified name. |
| pg_cancel_backend ( pid integer ) → boolean Cancels the current query of the session. |
"""


def test_function_rows_are_read_with_the_first_sentence_after_their_result_type():
    rows = function_rows([("c1", ROWS), ("c2", ROWS)])  # overlapping chunks: each row once, the first chunk's
    assert [r.name for r in rows] == ["pg_tablespace_size", "pg_database_size", "pg_cancel_backend"]
    assert rows[2].said == "Cancels the current query of the session." and {r.chunk_id for r in rows} == {"c1"}
    assert rows[2].row.startswith("| pg_cancel_backend ( pid integer ) → boolean")


def test_an_operators_row_is_named_by_its_operator_not_its_operand_type():
    operators = """| json -> text → json jsonb -> text → jsonb Extracts JSON object field with the given key. |
| json ->> text → text jsonb ->> text → text Extracts JSON object field with the given key, as text. |
| jsonb @> jsonb → boolean Does the first JSON value contain the second? |"""
    assert [r.name for r in function_rows([("c1", operators)])] == ["->", "->>", "@>"]


def test_the_row_saying_nearly_all_of_the_question_is_the_best_and_a_name_breaks_a_tie():
    rows = function_rows([("c1", ROWS)])
    assert best_function(rows, {"cancel": 4.4, "queri": 1.5, "run": 2.1}).name == "pg_cancel_backend"
    # both rows say "disk space used"; the name pg_database_size says "database" too
    assert best_function(rows, {"disk": 3.4, "space": 3.3, "databas": 1.5}).name == "pg_database_size"
    assert best_function(rows, {"delet": 2.7, "databas": 1.5}) is None  # no function says most of it
    # what the question asks not to happen is no term a row must say
    weights = {"cancel": 4.4, "queri": 1.5, "restart": 5.0, "session": 2.8}
    assert best_function(rows, weights, "How do I cancel a query without restarting?").name == "pg_cancel_backend"
    assert best_function(rows, weights, "How do I cancel a query and restart?") is None
    # a row without brackets, its first sentence ended by "; see …"
    now = function_rows([("c2", "| current_time → time with time zone Current time of day; see Section 9.9.5 |")])
    assert (
        best_function(now, {"function": 1.0, "return": 1.5, "current": 1.7, "time": 1.8}).said == "Current time of day;"
    )


def test_a_row_saying_the_other_way_round_what_is_turned_into_something_is_no_answer():
    rows = function_rows(
        [
            (
                "c3",
                "| json_populate_recordset ( base anyelement, from_json json ) → setof anyelement Expands the "
                "top-level JSON array of objects to a set of rows having the composite type of the base argument. |\n"
                "| json_agg ( anyelement ) → json Collects all the input values, including nulls, into a JSON array. |",
            )
        ]
    )
    weights = {"aggreg": 1.0, "row": 1.4, "json": 2.5, "array": 2.6}
    question = "Which function aggregates rows into a JSON array?"
    assert best_function(rows, weights).name == "json_populate_recordset"  # without the question: said most
    assert best_function(rows, weights, question) is None  # "JSON array … to a set of rows" is the reverse
    asked = "how can I expand a json array into a set of rows?"
    assert best_function(rows, {"expand": 1.0, "json": 2.5, "array": 2.6, "row": 1.4}, asked).name == (
        "json_populate_recordset"
    )


def test_a_how_to_a_function_does_is_answered_with_its_name(manual):
    result = manual.ask("How do I cancel a running query?", context=RULES)
    assert result["short_answer"] == "pg_cancel_backend", result["answer"]
    assert Path(result["citations"][0]["source"]).name == "functions-admin.html"
    result = manual.ask("Which function returns the number of bytes in a string?", context=RULES)
    assert result["short_answer"] == "octet_length", result["answer"]
    # a question asking to see something is no job for a function that acts ("Releases all … locks held …")
    services = manual.services
    asked = "How can I see which locks are currently held in the database?"
    found = services.store.search(asked, 5)
    assert with_function(services.store, asked, services.function_rows, found, services.weigh) is None
    acting = "How do I terminate another session by its backend process ID?"  # not asked to see: an acting row
    joined = with_function(services.store, acting, services.function_rows, found, services.weigh)
    assert "pg_terminate_backend" in {c.get("matched_term") for c in joined}
    # a statement's how-to is no function's ("pg_file_rename" renames a file, not a database; "lock a table" is
    # LOCK's, not pg_advisory_lock's)
    assert (
        with_function(services.store, "How do I lock a table?", services.function_rows, found, services.weigh) is None
    )
    result = manual.ask("How do I delete a database?", context=RULES)
    assert result["short_answer"] == "DROP DATABASE", result["answer"]


def test_a_function_the_question_names_as_a_call_is_answered_from_its_row(manual):
    asked = "Does concat() give me NULL back if one of the things I'm gluing together is NULL?"
    result = manual.ask(asked, context=RULES)
    assert "NULL arguments are ignored" in result["answer"], result["answer"]
    assert Path(result["citations"][0]["source"]).name == "functions-string.html"
    services = manual.services
    found = services.store.search(asked, 5)
    row = next(
        c for c in with_called_function(services.store, asked, services.function_rows, found) if c.get("entry_named")
    )
    assert row["matched_names"] == "concat" and row["matched_entry"].startswith("| concat ( val1")
    # a function named only in words is not called: no row is joined
    assert with_called_function(services.store, "Does concat give NULL?", services.function_rows, found) is None
