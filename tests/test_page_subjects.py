"""What a page is about, on real PostgreSQL 15 manual pages (Debian's postgresql-doc-15): "What
does the ANALYZE command do?" is answered by the page titled ANALYZE, not by EXPLAIN's option of
that name; "What does the pg_stat_activity view show?" by the view's description, not by the
back-of-book index's link text; a how-to by the command doing it, not by one a sentence names as
where to look ("… using the same syntax as CREATE FOREIGN TABLE"); a size by the table row of what
it measures."""

from __future__ import annotations

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


def test_a_command_named_as_where_to_look_is_no_answer():
    question = "How do I add a column to an existing table?"
    assert spans("This form adds a column, using the same syntax as CREATE FOREIGN TABLE.", "command", question) == []
    assert spans("To add a column, use ALTER TABLE; see CREATE TABLE.", "command", question) == ["ALTER TABLE"]
