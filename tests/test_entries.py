"""Entries on real PostgreSQL 15 manual pages (Debian's postgresql-doc-15): "What is X?" is
answered by the entry that defines X — the glossary's, a reference page's name line — not by a
sentence that mentions X in passing; a default asked of a name two pages document differently
shows both, unsure; a default of another product the manual names once is declined."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_rag.spelling import own_names_spelled
from evaluation.pgdocs import DEFAULT_CORPUS
from graph.context import RunContext

RULES = RunContext(deciders="rules")
PAGES = [
    "glossary.html",  # "- Tablespace" / "- A named location …", "MVCC", "- Standby (server)" / "- See Replica …"
    "sql-truncate.html",  # "TRUNCATE — empty a table or set of tables"
    "sql-reindex.html",  # the option "- TABLESPACE": an entry, but not the one "tablespace" asks for
    "app-psql.html",  # "psql — PostgreSQL interactive terminal"
    "tutorial-accessdb.html",  # quotes psql's banner "psql (15.18)" as a line of its own
    "manage-ag-tablespaces.html",
    "routine-vacuuming.html",  # mentions VACUUM FULL in passing, and says what it does
    "runtime-config-wal.html",  # the setting synchronous_commit: "on (the default)"
    "sql-createsubscription.html",  # the subscription option synchronous_commit: "The default value is off."
    "runtime-config-connection.html",  # port: "5432 by default"
    "release-15-5.html",  # names pgbouncer once, in a release note
    "runtime-config-resource.html",  # effective_io_concurrency's default, a chunk after its term line
    "sql-createuser.html",  # "CREATE USER — define a new database role"
    "sql-createusermapping.html",  # "CREATE USER MAPPING": "a user can create a user mapping …", many times
    "app-postgres.html",  # "More than one postgres instance can run …", "e.g., 1234"
    "server-start.html",  # "port numbers under 1024"
    "sql-alterschema.html",  # its parameters' bare term lines: "new_name", "new_owner"
    "sql-update.html",  # "UPDATE — update rows of a table"
    "datatype-numeric.html",  # "| integer | 4 bytes | typical choice for integer | …"
    "runtime-config-client.html",  # lock_timeout's entry, and a chunk continuing it: "Unlike statement_timeout, …"
    "sql-copy.html",  # "COPY — copy data between a file and a table"; sql-createsubscription.html has copy_data
    "explicit-locking.html",  # "- ACCESS EXCLUSIVE (AccessExclusiveLock)" / … "Acquired by the DROP TABLE, …"
    "sql-cluster.html",  # "When a table is being clustered, an ACCESS EXCLUSIVE lock is acquired on it."
    "progress-reporting.html",  # "both VACUUM FULL and CLUSTER rewrite the table": no lock mode
    "app-clusterdb.html",  # "clusterdb is a wrapper around the SQL command CLUSTER."
    "app-vacuumdb.html",  # "vacuumdb is a wrapper around the SQL command VACUUM.", its option "-f --full"
    "sql-vacuum.html",  # "VACUUM FULL rewrites … This form … requires an ACCESS EXCLUSIVE lock"
    "datatype.html",  # Table 8.1 "| Name | Aliases | Description |", over two chunks: "| integer | int, int4 | …"
    "runtime-config-file-locations.html",  # "config_file (string)": the setting, not what "which config file" asks
    "datatype-datetime.html",  # "For timestamp with time zone, the internally stored value is always in UTC …"
    "sql-select.html",  # "the required ROW SHARE table-level lock is still taken in the ordinary way"
]

pytestmark = pytest.mark.skipif(
    not DEFAULT_CORPUS.is_dir(), reason=f"{DEFAULT_CORPUS} missing: apt-get install postgresql-doc-15"
)


def test_a_long_question_is_searched_as_its_last_sentence_when_that_names_the_collections_setting(manual):
    setting = "We run Postgres behind Django and watch it with Grafana. Where do we start?"
    asked = f"{setting} What is the default value of checkpoint_timeout?"
    assert manual.services.searched_question(asked) == "What is the default value of checkpoint_timeout?"
    result = manual.ask(asked, context=RULES)
    assert result["short_answer"] == "five minutes (5min)" and not result["abstained"], result["answer"]
    assert result["question"] == asked  # the record keeps what was asked
    # a last sentence naming nothing of the collection's is read with the rest ("MySQL" still counts), and so
    # is one after sentences naming only what the collection holds: they say what is asked
    other = "We are moving off MySQL. What is the maximum number of columns in a table?"
    context = "Writes pile up every few minutes. What is the default value of checkpoint_timeout?"
    assert [manual.services.searched_question(q) for q in (other, context)] == [other, context]


def test_a_long_story_before_a_question_naming_a_setting_is_not_searched(manual):
    story = "We run a large OLTP cluster and have tuned many knobs over the years without writing down why. " * 8
    assert manual.services.searched_question(f"{story}So, what is the default of lock_timeout?") == (
        "What is the default of lock_timeout?"
    )
    short = "Our database is busy at night. What is the default of lock_timeout?"  # a short scene is read with it
    assert manual.services.searched_question(short) == short


def test_a_statements_placeholder_is_no_setting_to_spell(manual):
    assert manual.services.store.names.entries("new_owner", 1, said=False)  # "- new_owner" / "The new owner …"
    assert manual.services.searched_question("Who is the new owner of a schema?") == "Who is the new owner of a schema?"


def test_the_kind_a_question_asks_for_is_no_setting_to_spell(manual):
    assert manual.services.store.names.entries("config_file", 1, said=False, typed=True)  # "config_file (string)"
    asked = "Which config file decides who may connect?"  # a file, not the setting config_file
    assert manual.services.searched_question(asked) == asked
    assert manual.services.searched_question("Where is the config file set?") == "Where is the config_file set?"


def test_entries_are_term_lines_spelled_as_asked_and_followed_by_what_they_say(manual):
    store = manual.services.store

    def pages(term: str) -> set[str]:
        return {Path(c["source"]).name for c in store.fetch(store.names.entries(term, 20)).values()}

    assert pages("tablespace") == {"glossary.html"}  # not REINDEX's option "TABLESPACE"
    assert "app-psql.html" in pages("psql")
    assert pages("tablespaces_and_more") == set()
    assert pages("standby server") == {"glossary.html"}  # "Standby (server)"


def test_a_default_of_a_setting_named_by_one_word_is_read_from_its_entry_in_any_case(manual):
    store = manual.services.store
    assert store.names.entries("timezone", 1, typed=True)  # "TimeZone (string)"
    assert not store.names.entries("timezone", 1)  # untyped terms keep their case: not the option "TABLESPACE"
    result = manual.ask("What is the default timezone?", context=RULES)  # "The built-in default is GMT, …"
    assert result["short_answer"] == "GMT", result["answer"]
    assert Path(result["citations"][0]["source"]).name == "runtime-config-client.html"


def test_a_default_asked_in_words_names_the_default_setting_it_is(manual):
    # "the default transaction isolation level" is default_transaction_isolation's value, not transaction_isolation's
    result = manual.ask("What is the default transaction isolation level?", context=RULES)
    assert result["short_answer"] == "read committed", result["answer"]
    assert result["standalone_question"] == "What is the default default_transaction_isolation level?"
    checked = manual.ask("Is the default transaction isolation level serializable?", context=RULES)
    assert checked["short_answer"] == "No" and "read committed" in checked["answer"]


def test_the_glossarys_cross_references_are_read_as_equivalent_terms(manual):
    references = manual.services.store.names.see_references()
    assert ("Standby (server)", "Replica (server)") in references and ("WAL", "Write-ahead log") in references
    known = manual.services.question_terms("Which file makes a server start as a replica?")
    assert known.synonyms["replica"] == (frozenset({"standbi"}),)


def test_a_short_form_of_the_collections_name_is_its_name_unless_used_as_a_program():
    names = ["PostgreSQL"]
    assert own_names_spelled("Does Postgres support it? postgres does.", names) == (
        "Does PostgreSQL support it? PostgreSQL does."
    )
    assert own_names_spelled("What does postgres -D do?", names) == "What does postgres -D do?"
    assert own_names_spelled("Is the postgres process running?", names) == "Is the postgres process running?"
    assert own_names_spelled("Configure postgres_fdw in PostgreSQL.", names) == "Configure postgres_fdw in PostgreSQL."
    assert own_names_spelled("Is it postgre?", []) == "Is it postgre?"


