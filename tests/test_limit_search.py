"""A limit asked of something (agentic_rag/limit_search.py): the rows of the collection's limits
tables, the row whose item the question names; on real pages of the PostgreSQL 15 manual."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_rag.limit_search import asked_limit, limit_rows, with_forms
from graph.context import RunContext

RULES = RunContext(deciders="rules")
PAGES = [
    "limits.html",  # "| Item | Upper Limit | Comment |", "| field size | 1 GB | |", "| indexes per table | unlimited |"
    "lo-intro.html",  # "… TOASTed fields can be at most 1 GB"
    "storage-toast.html",  # "… limiting the logical size of any value of a TOAST-able data type to 1 GB"
    "indexes-partial.html",  # many indexes, many tables
]

TABLE = """Table K.1. PostgreSQL Limitations
| Item | Upper Limit | Comment |
|---|---|---|
| database size | unlimited |  |
| rows per table | limited by the number of tuples that can fit onto 4,294,967,295 pages |  |
| columns per table | 1,600 | further limited by tuple size |
"""
CONTINUED = """| columns per index | 32 | can be increased by recompiling |
| field size | 1 GB |  |

The maximum number of columns for a table is further reduced as the tuple being stored must fit."""


def test_limit_rows_are_read_across_a_pages_chunks_until_the_table_ends():
    rows = limit_rows([("c1", TABLE), ("c2", CONTINUED), ("c3", "| Name | Size |\n| bigint | 8 bytes |")])
    assert [(r.item, r.limit, r.chunk_id) for r in rows] == [
        ("database size", "unlimited", "c1"),
        ("rows per table", "limited by the number of tuples that can fit onto 4,294,967,295 pages", "c1"),
        ("columns per table", "1,600", "c1"),
        ("columns per index", "32", "c2"),
        ("field size", "1 GB", "c2"),
    ]  # a cell saying "limited by …" heads nothing; another table's rows are no limits


@pytest.mark.parametrize(
    ("question", "item", "said"),
    [
        ("How big can a field value be?", "field size", {"field", "big"}),
        ("How large can a database get?", "database size", {"databas", "larg"}),
        (
            "What's the max number of columns a table can have?",
            "columns per table",
            {"column", "tabl", "number", "maximum"},
        ),
        ("How many columns can an index have at most?", "columns per index", {"column", "index", "mani"}),
        ("What's the largest value a single field can hold?", "field size", {"field", "largest"}),
    ],
)
def test_the_row_asked_is_the_one_whose_item_the_question_names_with_the_measure_it_asks(question, item, said):
    row, matched = asked_limit(limit_rows([("c1", TABLE), ("c2", CONTINUED)]), question)
    assert row.item == item and matched == said


def test_a_row_whose_item_the_question_does_not_say_is_not_asked():
    rows = limit_rows([("c1", TABLE), ("c2", CONTINUED)])
    assert asked_limit(rows, "How big can a single table get?") is None  # "relation size" is not said
    assert asked_limit(rows, "How many columns does my table have?") is None  # asks no limit
    assert asked_limit(rows, "What is the maximum size of a table?") is None  # "columns per table" is a number


RELATIONS = """| Item | Upper Limit | Comment |
|---|---|---|
| number of databases | 4,294,950,911 |  |
| relations per database | 1,431,650,303 |  |
| relation size | 32 TB | with the default BLCKSZ of 8192 bytes |
"""


def test_a_limit_of_a_term_is_a_limit_of_its_common_form():
    rows = limit_rows([("c1", RELATIONS)])
    assert asked_limit(rows, "How big can a single table get?") is None  # "relation size" is not said
    formed = with_forms(rows, {"relation": "table"})  # the glossary's "A table is the most common form of relation"
    assert [r.item for r in formed[3:]] == ["tables per database", "table size"]
    assert asked_limit(formed, "With 8 kB blocks, how big can a single table get?")[0].item == "table size"
    # of two rows it names, the one naming most: not "number of databases"
    assert asked_limit(formed, "How many tables can a database have?")[0].item == "tables per database"
    assert asked_limit(formed, "What's the longest a table name can be?") is None  # a length, not a table's size


def test_a_limit_asked_in_everyday_words_is_answered_from_the_limits_table(manual):
    result = manual.ask("How large can one individual field value be at most?", context=RULES)
    assert result["short_answer"] == "1 GB" and not result["abstained"], result["answer"]
    assert Path(result["citations"][0]["source"]).name == "limits.html"
    result = manual.ask("How many indexes can a table have?", context=RULES)
    assert result["short_answer"] == "unlimited", result["answer"]
    result = manual.ask("What's the largest value a single field can hold?", context=RULES)  # no measure asked
    assert result["short_answer"] == "1 GB", result["answer"]


def test_the_collections_own_name_is_read_from_its_titles_and_a_short_form_is_searched_as_it(manual):
    services = manual.services
    assert services.store.names.own_names(0.15) == ["PostgreSQL"]  # "Appendix K. PostgreSQL Limits"
    assert services.store.names.own_names(0.99) == []  # no name is in every chunk
    asked = services.searched_question("How big can a field value be in Postgres?")
    assert asked == "How big can a field value be in PostgreSQL?"
