"""Reformulation deciders (deciders/reformulator.py): bridge entities without a model, the LLM rewrite."""

from __future__ import annotations

from conftest import scripted

from core.tuning import Tuning
from deciders.lexicon import MODEL_FREE
from deciders.reformulator import FeedbackReformulator, LLMReformulator, uncovered_words

QUESTION = "What is the seat of the county where Van Hook Township is located?"
TOWNSHIP = {
    "chunk_id": "vh", "title": "Van Hook Township, Mountrail County, North Dakota", "source": "s", "score": 0.0,
    "dense_rank": None, "lexical_rank": None,
    "text": "Van Hook Township is a township in Mountrail County in the U.S. state of North Dakota.",
}  # fmt: skip


def test_bridge_names_are_searched_with_the_words_the_first_chunk_lacks():
    result = FeedbackReformulator().reformulate(QUESTION, [QUESTION], [TOWNSHIP], [TOWNSHIP])
    # the county (shares "county" with the question) first, each with "seat located": the relation left
    assert result.queries[0] == "Mountrail County seat located"
    assert all(q.endswith(" seat located") for q in result.queries) and len(result.queries) <= 3
    again = FeedbackReformulator().reformulate(QUESTION, [QUESTION, *result.queries], [TOWNSHIP], [TOWNSHIP])
    assert not set(again.queries or [again.query]) & set(result.queries)


def test_a_documents_furniture_is_no_bridge_and_see_opens_no_name():
    text = "WAL. See Write-ahead log. For details, see Section 26 and Chapter 30 of the Archiving Guide."
    glossary = {**TOWNSHIP, "chunk_id": "g", "title": "Glossary", "text": text}
    names = FeedbackReformulator().candidates("What does WAL stand for?", glossary)
    assert "Write-ahead" in names and "Archiving Guide" in names
    assert not {"See Write-ahead", "Section 26", "Chapter 30"} & set(names)


def test_bridge_queries_per_hop_come_from_the_tuning():
    one = FeedbackReformulator(Tuning(bridge_queries=1)).reformulate(QUESTION, [QUESTION], [TOWNSHIP], [TOWNSHIP])
    assert one.queries == ["Mountrail County seat located"] and one.query == one.queries[0]
    assert one.decider == "rules" and one.reason.startswith("bridge entities named in chunk vh")


def test_uncovered_words_are_the_question_words_the_text_lacks():
    assert uncovered_words(QUESTION, f"{TOWNSHIP['title']} {TOWNSHIP['text']}") == "seat located"
    assert uncovered_words("Who is Donnie Smith?", "Donnie Smith plays soccer.") == ""


def test_once_no_new_name_is_left_the_uncovered_terms_then_the_question_itself():
    reformulator = FeedbackReformulator(Tuning(bridge_queries=10))
    tried = [QUESTION, *reformulator.reformulate(QUESTION, [QUESTION], [TOWNSHIP], [TOWNSHIP]).queries]
    words = reformulator.reformulate(QUESTION, tried, [TOWNSHIP], [TOWNSHIP])
    assert (words.query, words.queries, words.reason) == ("seat located", [], "question terms no evidence covers")
    last = reformulator.reformulate(QUESTION, [*tried, words.query], [TOWNSHIP], [TOWNSHIP])
    assert last.query == QUESTION and last.reason == "no new name or term left to search"
    # nothing relevant found: the uncovered terms are the question itself, so it is returned at once
    assert reformulator.reformulate(QUESTION, [QUESTION], [], [TOWNSHIP]).query == QUESTION


def test_llm_reformulator_takes_the_first_line_unquoted():
    model = scripted(reformulate='"Mountrail County seat"\nbecause the county is the bridge')
    result = LLMReformulator(model).reformulate(QUESTION, [QUESTION], [TOWNSHIP], [])
    assert (result.query, result.reason, result.note) == ("Mountrail County seat", "rewritten by the model", None)


def test_llm_reformulator_falls_back_to_the_model_free_query_on_an_empty_null_or_overlong_reply():
    tried = [QUESTION, "Van Hook Township county"]
    expected = FeedbackReformulator().reformulate(QUESTION, tried, [TOWNSHIP], []).query
    for reply in ["", "x" * 501, "null", "None."]:
        result = LLMReformulator(scripted(reformulate=reply)).reformulate(QUESTION, tried, [TOWNSHIP], [])
        assert result.query == expected and result.decider == MODEL_FREE
        assert result.note == "empty, null or overlong reply; model-free query instead"
