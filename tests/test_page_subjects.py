"""What a page is about, on real PostgreSQL 15 manual pages (Debian's postgresql-doc-15): "What
does the ANALYZE command do?" is answered by the page titled ANALYZE, not by EXPLAIN's option of
that name; "What does the pg_stat_activity view show?" by the view's description, not by the
back-of-book index's link text; a how-to by the command doing it, not by one a sentence names as
where to look ("… using the same syntax as CREATE FOREIGN TABLE"); a size by the table row of what
it measures."""

from __future__ import annotations

from pathlib import Path

import pytest

from deciders.spans import spans
from evaluation.pgdocs import DEFAULT_CORPUS
from graph.context import RunContext

RULES = RunContext(deciders="rules")
PAGES = [
    "sql-analyze.html",  # "ANALYZE — collect statistics about a database"
    "sql-explain.html",  # its option "- ANALYZE" / "Carry out the command and show actual run times …"
    "monitoring-stats.html",  # "The pg_stat_activity view will have one row per server process, …"
    "bookindex.html",  # the back-of-book index: "- pg_stat_activity, Viewing Statistics, pg_stat_activity"
    "sql-altertable.html",  # "To add a column of type varchar to a table: ALTER TABLE distributors ADD COLUMN …"
    "sql-alterforeigntable.html",  # "This form adds a new column …, using the same syntax as CREATE FOREIGN TABLE."
    "sql-altersequence.html",  # "ALTER SEQUENCE — change the definition of a sequence generator"
    "sql-createsequence.html",  # "Create an ascending sequence called serial, starting at 101: …"
    "sql-copy.html",  # "COPY — copy data between a file and a table"
    "datatype-numeric.html",  # Table 8.2: "| bigint | 8 bytes | large-range integer | …"
    "functions-admin.html",  # "… so 1kB is 1024 bytes", and many "… bigint … bytes" function rows
    "sql-createindex.html",  # CONCURRENTLY: "… without taking any locks that prevent concurrent inserts", no mode
    "explicit-locking.html",  # "SHARE UPDATE EXCLUSIVE (ShareUpdateExclusiveLock)" / "Acquired by … CREATE INDEX
    # CONCURRENTLY …"
]

pytestmark = pytest.mark.skipif(
    not DEFAULT_CORPUS.is_dir(), reason=f"{DEFAULT_CORPUS} missing: apt-get install postgresql-doc-15"
)


@pytest.mark.parametrize(
    ("question", "opening", "page"),
    [
        ("What does the ANALYZE command do?", "ANALYZE — collect statistics about a database", "sql-analyze.html"),
        (
            "What does the pg_stat_activity view show?",
            "The pg_stat_activity view will have one row per server process",
            "monitoring-stats.html",
        ),
    ],
)
def test_a_definition_is_read_from_the_page_about_its_subject(manual, question, opening, page):
    result = manual.ask(question, context=RULES)
    assert not result["abstained"]
    assert result["short_answer"] is None  # a sentence answers it, no name
    assert result["answer"].startswith(opening), result["answer"]
    assert Path(result["citations"][0]["source"]).name == page


@pytest.mark.parametrize(
    ("question", "short", "page"),
    [
        ("How do I add a column to an existing table?", "ALTER TABLE … ADD COLUMN", "sql-altertable.html"),
        ("How do I reset a sequence so that it starts again at 1?", "ALTER SEQUENCE", "sql-altersequence.html"),
        ("How do I export a table to a CSV file?", "COPY", "sql-copy.html"),
    ],
)
def test_a_how_to_is_answered_by_the_command_doing_it(manual, question, short, page):
    result = manual.ask(question, context=RULES)
    assert result["short_answer"].startswith(short), result["answer"]
    assert Path(result["citations"][0]["source"]).name == page


def test_a_size_is_read_from_the_table_row_of_what_it_measures(manual):
    assert manual.services.store.fetch(manual.services.store.names.table_rows("bigint", 5))  # "| bigint | 8 bytes |"
    result = manual.ask("How many bytes is a bigint?", context=RULES)
    assert result["short_answer"] == "8 bytes", result["answer"]
    assert Path(result["citations"][0]["source"]).name == "datatype-numeric.html"




def test_a_command_named_as_where_to_look_is_no_answer():
    question = "How do I add a column to an existing table?"
    assert spans("This form adds a column, using the same syntax as CREATE FOREIGN TABLE.", "command", question) == []
    assert spans("To add a column, use ALTER TABLE; see CREATE TABLE.", "command", question) == ["ALTER TABLE"]
