"""A program's option asked in words (agentic_rag/option_search.py): the option entries of its
reference page, each scored against the question; on real pages of the PostgreSQL 15 manual."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_rag.option_search import (
    asks_of,
    best_option,
    lettered_member,
    named_entry,
    option_chunk,
    option_entries,
)
from evaluation.pgdocs import DEFAULT_CORPUS
from graph.context import RunContext

RULES = RunContext(deciders="rules")
PAGES = [
    "app-initdb.html",  # "- -k" / "--data-checksums" / "- Use checksums on data pages to help detect corruption …"
    "app-vacuumdb.html",  # "- -Z" / "--analyze-only" / "- Only calculate statistics for use by the optimizer …"
    "checksums.html",  # "Checksums can be enabled when the cluster is initialized using initdb."
    "routine-vacuuming.html",  # ANALYZE and VACUUM in prose
    "app-pgrewind.html",  # "… data checksums enabled when the cluster was initialized with initdb"
    "app-psql.html",  # "- \\x [ on | off | auto ]" / "- Sets or toggles expanded table formatting mode. …"
]

PAGE = """- -k
--data-checksums
- Use checksums on data pages to help detect corruption by the I/O system.
- Enabling checksums may incur a noticeable performance penalty.
- --locale=locale
- Sets the default locale for the database cluster.
- -N
--no-sync"""


def test_option_entries_are_term_lines_with_their_other_forms_and_description():
    entries = option_entries([("c1", PAGE)])
    assert [(e.terms, e.chunk_id) for e in entries] == [("-k --data-checksums", "c1"), ("--locale=locale", "c1")]
    assert entries[0].description.startswith("Use checksums on data pages") and "performance" in entries[0].description
    # the entry cut by the chunk's end (-N, no description here) is not one; a repeated entry is read once
    assert len(option_entries([("c1", PAGE), ("c2", PAGE)])) == 2


def test_a_meta_commands_entry_is_an_option_entry_too():
    psql = "- \\timing [ on | off ]\n- With a parameter, turns displaying of how long each statement takes on or off."
    (entry,) = option_entries([("c1", psql + "\n- \\x [ on | off | auto ]")])
    assert entry.terms == "\\timing [ on | off ]" and entry.description.startswith("With a parameter")
    weights = {"long": 3.4, "statement": 2.0}
    assert best_option("How long does each statement take?", [entry], weights) == entry


def test_an_option_is_sought_when_the_question_asks_one_or_asks_the_program_to_do_something():
    assert asks_of("With the createuser program, how do I make the role a superuser?", "createuser")
    assert asks_of("How can I make pg_restore use several workers?", "pg_restore")
    assert not asks_of("How do I dump a database into an archive that pg_restore can read?", "pg_restore")


def test_an_option_named_as_written_is_its_entry_whatever_the_question_asks():
    entries = option_entries([("c1", PAGE)])
    assert named_entry(entries, "What does initdb --data-checksums cost?").terms.startswith("-k")
    assert named_entry(entries, "With -k, is initdb slower?").terms.startswith("-k")
    assert named_entry(entries, "Is a non-k option there?") is None  # "-k" inside a word is none
    assert named_entry(entries, "What does -N do?") is None  # no description here: no entry


GROUP = """- \\dE[S+] [ pattern ]
\\di[S+] [ pattern ]
\\dt[S+] [ pattern ]
- In this group of commands, the letters E, i, and t stand for foreign table, index, and table, respectively.
- \\dP[itn+] [ pattern ]
- Lists partitioned relations."""


def test_a_group_entry_answers_with_the_command_whose_letter_stands_for_what_is_listed():
    group, partitioned = option_entries([("c1", GROUP + "\n- \\q")])
    assert lettered_member(group, "How do I list tables in psql?") == "\\dt"
    assert lettered_member(group, "Which command shows me the list of foreign tables?") == "\\dE"  # the longest
    assert lettered_member(group, "How do I list the columns of a table?") is None  # it lists columns
    assert lettered_member(partitioned, "How do I list tables?") is None  # no key to letters
    weights = {"list": 2.1, "tabl": 1.0}
    assert best_option("How do I list tables in psql?", [partitioned, group], weights) == group


def test_the_best_option_says_most_of_the_question():
    entries = option_entries([("c1", PAGE)])
    weights = {"checksum": 4.9, "page": 2.9, "switch": 4.2}
    assert best_option("Which switch turns on checksums for data pages?", entries, weights).terms.startswith("-k")
    assert best_option("Which switch is fast?", entries, {"fast": 3.0}) is None  # no entry says a term of it


DUMP = """- -a
--data-only
- Dump only the data, not the schema (data definitions). Table data, large objects, and sequence values are dumped.
- -s
--schema-only
- Dump only the object definitions (schema), not data.
- --enable-row-security
- This option is relevant only when dumping the contents of a table which has row security.
"""


def test_an_option_is_read_the_way_the_question_asks_and_by_its_long_name():
    entries = option_entries([("c1", DUMP)])
    weights = {"dump": 3.6, "schema": 2.4, "without": 2.3, "data": 1.1}
    # "without any data" is said by "not data", and "not the schema" says no schema
    asked = "pg_dump option to dump only the schema without any data"
    assert best_option(asked, entries, weights).terms.startswith("-s")
    # every entry says "dump" and "data": "only the data" says the long name --data-only word for word
    assert best_option("How do I dump only the data?", entries, {"dump": 3.6, "data": 1.1}).terms.startswith("-a")


@pytest.mark.skipif(not DEFAULT_CORPUS.is_dir(), reason=f"{DEFAULT_CORPUS} missing: apt-get install postgresql-doc-15")
@pytest.mark.parametrize(
    ("question", "option", "page"),
    [
        ("When creating a new cluster, which initdb switch turns on checksums for data pages?", "--data-checksums",
         "app-initdb.html"),
        ("How do I make vacuumdb only calculate statistics for the optimizer?", "--analyze-only", "app-vacuumdb.html"),
        ("In psql, how do I get a list of the tables in my database?", "\\dt", "app-psql.html"),
    ],
)  # fmt: skip
def test_a_programs_option_asked_in_words_is_read_from_its_entry(manual, question, option, page):
    chunk = option_chunk(manual.services.store, question, manual.services.weigh)
    assert option in chunk["text"] and chunk["matched_entry"] in chunk["text"]
    result = manual.ask(question, context=RULES)
    assert result["short_answer"] == option, result["answer"]
    assert Path(result["citations"][0]["source"]).name == page


@pytest.mark.skipif(not DEFAULT_CORPUS.is_dir(), reason=f"{DEFAULT_CORPUS} missing: apt-get install postgresql-doc-15")
@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What does the -Z option of vacuumdb do?", "Only calculate statistics for use by the optimizer"),
        ("What does initdb --data-checksums do?", "Use checksums on data pages"),
        ("What does the \\x meta-command do in psql?", "Sets or toggles expanded table formatting"),
    ],
)
def test_a_programs_option_named_as_written_is_answered_from_its_entry(manual, question, said):
    chunk = option_chunk(manual.services.store, question, manual.services.weigh, in_words=False)
    assert said in chunk["matched_entry"]
    result = manual.ask(question, context=RULES)
    assert said in result["answer"].split(" [1]")[0] and not result["abstained"], result["answer"]  # its first
