"""The largest or smallest value of a type (agentic_rag/limit_search.py): the rows of the collection's type
tables ("| Name | … | Range |", "| … | Low Value | High Value | … |"), the row of the type the question names;
on real pages of the PostgreSQL 15 manual."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_rag.limit_search import asked_bound, asked_limit, limit_rows
from graph.context import RunContext

RULES = RunContext(deciders="rules")
PAGES = [
    "datatype-numeric.html",  # "| smallint | 2 bytes | small-range integer | -32768 to +32767 |"
    "datatype-datetime.html",  # "| date | 4 bytes | date (no time of day) | 4713 BC | 5874897 AD | 1 day |"
    "functions-math.html",  # "floor … nearest integer less than or equal to argument"
    "functions-aggregate.html",  # "bit_xor ( smallint ) → smallint …": rows naming the types, holding no range
]

NUMERIC = """Table 8.2. Numeric Types
| Name | Storage Size | Description | Range |
|---|---|---|---|
| smallint | 2 bytes | small-range integer | -32768 to +32767 |
| integer | 4 bytes | typical choice for integer | -2147483648 to +2147483647 |
| double precision | 8 bytes | variable-precision, inexact | 15 decimal digits precision |
"""
DATETIME = """Table 8.9. Date/Time Types
| Name | Storage Size | Description | Low Value | High Value | Resolution |
|---|---|---|---|---|---|
| timestamp [ (p) ] [ without time zone ] | 8 bytes | date and time | 4713 BC | 294276 AD | 1 microsecond |
| date | 4 bytes | date (no time of day) | 4713 BC | 5874897 AD | 1 day |
"""


def test_a_type_tables_rows_give_each_type_its_lowest_and_highest_value():
    rows = limit_rows([("c1", NUMERIC), ("c2", DATETIME)])
    assert [(r.item, r.low, r.limit, r.chunk_id) for r in rows] == [
        ("smallint", "-32768", "+32767", "c1"),
        ("integer", "-2147483648", "+2147483647", "c1"),
        ("timestamp", "4713 BC", "294276 AD", "c2"),  # its optional parts left out
        ("date", "4713 BC", "5874897 AD", "c2"),
    ]  # "15 decimal digits precision" is no range
    assert asked_limit(rows, "What is the largest value a smallint can hold?") is None  # no limits table's row


@pytest.mark.parametrize(
    ("question", "item", "value"),
    [
        ("What is the largest value a smallint can hold?", "smallint", "+32767"),
        ("What is the smallest value an integer can hold?", "integer", "-2147483648"),
        ("What's the latest year a value of type date can represent?", "date", "5874897 AD"),
        ("What's the earliest date a timestamp without time zone can store?", "timestamp", "4713 BC"),
        ("what is the range of smallint", "smallint", "-32768 to +32767"),  # its whole range
    ],
)
def test_the_value_asked_is_the_bound_of_the_type_the_question_names(question, item, value):
    row, bound = asked_bound(limit_rows([("c1", NUMERIC), ("c2", DATETIME)]), question)
    assert (row.item, bound) == (item, value)


def test_a_question_holding_nothing_or_asking_both_bounds_asks_no_bound():
    rows = limit_rows([("c1", NUMERIC), ("c2", DATETIME)])
    assert asked_bound(rows, "Which function returns the largest integer not greater than its argument?") is None
    assert asked_bound(rows, "What are the smallest and largest values a smallint can hold?") is None
    assert asked_bound(rows, "What is the largest value a bigint can hold?") is None  # no row of the type


def test_a_types_bound_asked_in_everyday_words_is_answered_from_its_row(manual):
    result = manual.ask("What is the largest value a smallint can hold?", context=RULES)
    assert result["short_answer"] == "+32767" and not result["abstained"], result["answer"]
    assert Path(result["citations"][0]["source"]).name == "datatype-numeric.html"
    result = manual.ask("What's the latest year a value of type date can represent?", context=RULES)
    assert result["short_answer"] == "5874897 AD", result["answer"]
    assert Path(result["citations"][0]["source"]).name == "datatype-datetime.html"
