"""Entries on real PostgreSQL 15 manual pages (Debian's postgresql-doc-15): "What is X?" is
answered by the entry that defines X — the glossary's, a reference page's name line — not by a
sentence that mentions X in passing; a default asked of a name two pages document differently
shows both, unsure; a default of another product the manual names once is declined."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_rag.spelling import own_names_spelled
from core.tuning import TUNING
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


@pytest.mark.parametrize(
    ("question", "opening", "page"),
    [
        ("What is a tablespace?", "Tablespace: A named location on the server file system.", "glossary.html"),
        ("What is MVCC?", "Multi-version concurrency control (MVCC): A mechanism designed to allow", "glossary.html"),
        ("What does TRUNCATE do?", "TRUNCATE — empty a table or set of tables", "sql-truncate.html"),
        ("What is psql?", "psql — PostgreSQL interactive terminal", "app-psql.html"),
        ("What does VACUUM FULL do?", "VACUUM FULL can reclaim more disk space", "routine-vacuuming.html"),
        # "WAL" / "See Write-ahead log.": the entry it refers to defines it
        ("What is WAL?", "Write-ahead log: The journal that keeps track of the changes", "glossary.html"),
        ("What is the optimizer?", "Query planner: The part of PostgreSQL that is devoted to", "glossary.html"),
        # "Standby (server)" / "See Replica (server).": a term's last word in brackets is still the term
        ("What is a standby server?", "Replica (server): A database that is paired with a primary", "glossary.html"),
        # the entry's first sentence, not the first of a chunk continuing it
        ("What does lock_timeout do?", "lock_timeout (integer): Abort any statement", "runtime-config-client.html"),
    ],
)
def test_a_definition_question_is_answered_by_the_entry_defining_it(manual, question, opening, page):
    result = manual.ask(question, context=RULES)
    assert not result["abstained"]
    assert result["answer"].startswith(opening), result["answer"]
    assert Path(result["citations"][0]["source"]).name == page




def test_what_noun_is_answered_by_the_entry_the_noun_names(manual):
    # "port (integer)" / "The TCP port the server listens on; 5432 by default.", though its
    # sentence lacks "Postgres" and "use", which sentences of app-postgres.html hold
    result = manual.ask("What port does Postgres use?", context=RULES)
    assert result["short_answer"] == "5432", result["answer"]
    assert Path(result["citations"][0]["source"]).name == "runtime-config-connection.html"


@pytest.mark.parametrize(
    ("question", "spelled", "short"),
    [
        (
            "What is the default effective io concurrency?",
            "What is the default effective_io_concurrency?",
            "1 on supported systems",  # its term line ends a chunk, its text opens the next
        ),
        ("What is the default max connections?", "What is the default max_connections?", "100 connections"),
        ("What is the default max connections in MySQL?", "What is the default max_connections in MySQL?", None),
        (  # the entry says its last word in the plural
            "What is the default shared buffer setting?",
            "What is the default shared_buffers setting?",
            "128 megabytes (128MB)",
        ),
    ],
)
def test_a_setting_written_with_spaces_is_read_as_its_entrys_name(manual, question, spelled, short):
    assert manual.services.searched_question(question) == spelled
    result = manual.ask(question, context=RULES)
    assert result["short_answer"] == short, result["answer"]


def test_a_size_is_read_from_the_table_row_of_what_it_measures(manual):
    # the row "| integer | 4 bytes | …", not "two-, four-, and eight-byte integers" above the table
    result = manual.ask("How many bytes does an integer take?", context=RULES)
    assert result["short_answer"] == "4 bytes", result["answer"]
    assert Path(result["citations"][0]["source"]).name == "datatype-numeric.html"


def test_a_misspelt_name_is_read_as_the_collection_spells_it(manual):
    asked = "What is the defualt value of shared_bufers in pscl?"
    assert manual.services.searched_question(asked) == "What is the default value of shared_buffers in psql?"
    result = manual.ask("what is shared_bufers set to if I never touch it?", context=RULES)
    assert result["short_answer"] == "128 megabytes (128MB)" and not result["abstained"], result["answer"]
    # of variants with one stem ("automatical", "automatically"), the one a chunk holds as written
    assert "automatically readable" in manual.services.searched_question("Are new tables automaticaly readable?")
    # an everyday "max" is searched as the documents' "maximum", the aggregate max() as written
    assert manual.services.searched_question("What's the max size of max() input?") == (
        "What's the maximum size of max() input?"
    )
    # a setting's name two edits off is the setting it is most like
    assert "maintenance_work_mem" in manual.services.searched_question("What is maintainance_work_mem by default?")
    # a question word's "'s" typed without its apostrophe asks as written with it
    assert manual.services.searched_question("Whats the default port?") == "What's the default port?"
    # a name one edit from nothing the collection holds is left as written: the documents do not mention it
    assert manual.services.searched_question("Does pgbouncer pool connections?") == "Does pgbouncer pool connections?"


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


def test_a_default_two_pages_state_differently_shows_both_unsure(manual):
    result = manual.ask("What is the default of synchronous_commit?", context=RULES)
    assert result["short_answer"] in {"on", "off"} and not result["abstained"]
    assert "Valid values are remote_apply, on (the default)" in result["answer"], result["answer"]
    assert "The default value is off." in result["answer"]
    assert "Under " in result["answer"]  # the second value names its page
    assert {Path(c["source"]).name for c in result["citations"]} == {
        "runtime-config-wal.html",
        "sql-createsubscription.html",
    }
    assert result["confidence"] < TUNING.confidence_trust


def test_the_default_of_a_product_the_manual_names_only_in_passing_is_declined(manual):
    server = manual.ask("What port does the server listen on by default?", context=RULES)
    assert server["short_answer"] == "5432" and not server["abstained"]
    other = manual.ask("What port does pgbouncer listen on by default?", context=RULES)
    assert other["abstained"] and other["short_answer"] is None
    assert "pgbouncer" in other["answer"], other["answer"]  # says what no passage speaks of
    never = manual.ask("How do I turn a table into a timescaledb hypertable?", context=RULES)
    assert never["abstained"] and never["stop_reason"] == "not_in_collection" and "timescaledb" in never["answer"]


def test_a_default_of_a_setting_named_by_one_word_is_read_from_its_entry_in_any_case(manual):
    store = manual.services.store
    assert store.names.entries("timezone", 1, typed=True)  # "TimeZone (string)"
    assert not store.names.entries("timezone", 1)  # untyped terms keep their case: not the option "TABLESPACE"
    result = manual.ask("What is the default timezone?", context=RULES)  # "The built-in default is GMT, …"
    assert result["short_answer"] == "GMT", result["answer"]
    assert Path(result["citations"][0]["source"]).name == "runtime-config-client.html"


def test_a_default_the_entry_does_not_state_is_declined(manual):
    # runtime-config-wal.html lists fsync as a value of wal_sync_method, then "The default is the first
    # method in the above list …": that is wal_sync_method's default; fsync's own entry states none
    result = manual.ask("What is the default value of fsync?", context=RULES)
    assert result["abstained"] and result["short_answer"] is None, result["answer"]


def test_a_default_in_a_chunk_after_its_entrys_term_line_is_read_as_the_entrys(manual):
    result = manual.ask("What is the default of effective_io_concurrency?", context=RULES)
    assert result["short_answer"] == "1 on supported systems", result["answer"]  # not maintenance_io_concurrency's 10
    assert result["answer"].startswith("effective_io_concurrency (integer): The default is 1")
    # an entry the search finds by its term line, cut by a chunk boundary before its default: the next chunk is read
    reserved = manual.ask("What is the default value of superuser_reserved_connections?", context=RULES)
    assert reserved["short_answer"] == "three connections" and not reserved["abstained"], reserved["answer"]
    assert reserved["answer"].startswith("superuser_reserved_connections (integer): The default value is three")


def test_a_default_asked_in_words_names_the_default_setting_it_is(manual):
    # "the default transaction isolation level" is default_transaction_isolation's value, not transaction_isolation's
    result = manual.ask("What is the default transaction isolation level?", context=RULES)
    assert result["short_answer"] == "read committed", result["answer"]
    assert result["standalone_question"] == "What is the default default_transaction_isolation level?"
    checked = manual.ask("Is the default transaction isolation level serializable?", context=RULES)
    assert checked["short_answer"] == "No" and "read committed" in checked["answer"]


@pytest.mark.parametrize(
    ("question", "mode", "page"),
    [
        ("Which lock mode does VACUUM FULL acquire?", "ACCESS EXCLUSIVE", "explicit-locking.html"),
        # "SHARE (ShareLock)": "Acquired by CREATE INDEX (without CONCURRENTLY)."
        ("What lock mode does CREATE INDEX CONCURRENTLY acquire?", "SHARE UPDATE EXCLUSIVE", "explicit-locking.html"),
        ("Which lock mode does a SELECT command acquire?", "ACCESS SHARE", "explicit-locking.html"),
        ("What lock does TRUNCATE take?", "ACCESS EXCLUSIVE", "sql-truncate.html"),
        # not the ROW SHARE "still taken in the ordinary way", nor the ACCESS EXCLUSIVE that "blocks a SELECT"
        ("What table-level lock does an ordinary SELECT take?", "ACCESS SHARE", "explicit-locking.html"),
        # an entry the first one's conflicts name: the VACUUM page says only VACUUM FULL's lock
        ("What lock does a plain VACUUM take?", "SHARE UPDATE EXCLUSIVE", "explicit-locking.html"),
        # the program runs CLUSTER
        ("Which lock does the clusterdb utility end up taking on each table?", "ACCESS EXCLUSIVE", "sql-cluster.html"),
    ],
)
def test_a_lock_asked_of_a_command_is_the_mode_whose_entry_or_sentence_names_the_command(manual, question, mode, page):
    # the entries of the lock modes the search finds are read too; a sentence about another command is no answer
    result = manual.ask(question, context=RULES)
    assert result["short_answer"] == mode, result["answer"]
    assert Path(result["citations"][0]["source"]).name == page


def test_the_glossarys_cross_references_are_read_as_equivalent_terms(manual):
    references = manual.services.store.names.see_references()
    assert ("Standby (server)", "Replica (server)") in references and ("WAL", "Write-ahead log") in references
    known = manual.services.question_terms("Which file makes a server start as a replica?")
    assert known.synonyms["replica"] == (frozenset({"standbi"}),)


def test_the_glossarys_common_forms_are_read_by_the_term_they_are_a_form_of(manual):
    assert manual.services.store.names.common_forms() == {"relation": "table"}  # "A table is the most common form …"


def test_the_other_names_of_an_alias_table_are_equivalent_terms(manual):
    aliases = manual.services.store.names.alias_rows()
    assert ("character varying", "varchar") in aliases and ("integer", "int4") in aliases
    assert ("timestamp with time zone", "timestamptz") in aliases  # a row of the table's second chunk
    known = manual.services.question_terms("How is a timestamptz value stored?")
    assert known.synonyms["timestamptz"] == (frozenset({"timestamp", "time", "zone"}),)
    result = manual.ask("Does a timestamptz column keep the time zone I inserted? How is it stored?", context=RULES)
    assert "UTC" in result["answer"] and Path(result["citations"][0]["source"]).name == "datatype-datetime.html"


def test_a_program_that_wraps_an_sql_command_is_asked_about_as_that_command(manual):
    assert manual.services.store.names.wrapped_commands() == {"clusterdb": "CLUSTER", "vacuumdb": "VACUUM"}
    spelled = manual.services.searched_question("Which lock does clusterdb take?")
    assert spelled == "Which lock does clusterdb (CLUSTER) take?"
    assert manual.services.searched_question(spelled) == spelled  # spelled once
    # an option's long form ("-f" is "--full") in capitals when the collection says it so: VACUUM FULL, not VACUUM
    assert (
        manual.services.searched_question("What does vacuumdb -f lock?") == "What does vacuumdb -f (VACUUM FULL) lock?"
    )
    assert manual.services.searched_question("Is vacuumdb --full slow?") == "Is vacuumdb --full (VACUUM FULL) slow?"
    assert (
        manual.services.searched_question("What does vacuumdb -e do?") == "What does vacuumdb -e do?"
    )  # no VACUUM ECHO
    assert manual.services.question_terms(spelled).synonyms["clusterdb"] == (frozenset({"cluster"}),)




def test_a_count_asked_of_a_default_names_the_setting_capping_it(manual):
    asked = "How many client connections does PostgreSQL allow by default?"
    assert manual.services.searched_question(asked) == (
        "How many client connections (max_connections) does PostgreSQL allow by default?"
    )
    result = manual.ask(asked, context=RunContext(deciders="rules"))
    assert result["short_answer"] == "100 connections", result["answer"]
    # no max_ setting caps it, or the question asks no default or limit: as asked
    assert manual.services.searched_question("How many pages does a table have?") == "How many pages does a table have?"
    counted = "How many connections are open right now?"
    assert manual.services.searched_question(counted) == counted




def test_a_short_form_of_the_collections_name_is_its_name_unless_used_as_a_program():
    names = ["PostgreSQL"]
    assert own_names_spelled("Does Postgres support it? postgres does.", names) == (
        "Does PostgreSQL support it? PostgreSQL does."
    )
    assert own_names_spelled("What does postgres -D do?", names) == "What does postgres -D do?"
    assert own_names_spelled("Is the postgres process running?", names) == "Is the postgres process running?"
    assert own_names_spelled("Configure postgres_fdw in PostgreSQL.", names) == "Configure postgres_fdw in PostgreSQL."
    assert own_names_spelled("Is it postgre?", []) == "Is it postgre?"


