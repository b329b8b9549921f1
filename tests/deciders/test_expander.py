"""Expanders (deciders/expander.py): skipped without a model; multi-query, HyDE and step-back with one."""

from __future__ import annotations

import json

import pytest
from conftest import scripted

from deciders.expander import LLMExpander, NoExpander

QUESTION = "Which league does Donnie Smith play in?"


@pytest.mark.parametrize("kind", ["multi_query", "hyde", "step_back"])
def test_without_a_model_every_strategy_is_skipped_and_says_so(kind):
    expansion = NoExpander().expand(QUESTION, kind)
    assert expansion.queries == [] and expansion.decider == "rules"
    assert expansion.reason == f"{kind} needs a chat model; skipped (the question is searched alone)"


def test_multi_query_keeps_three_distinct_new_phrasings():
    reply = {"queries": ["Donnie Smith league", QUESTION, "Donnie Smith league", " Donnie Smith team ", "a", "b"]}
    model = scripted(expand=json.dumps(reply))
    expansion = LLMExpander(model).expand(QUESTION, "multi_query")
    assert expansion.queries == ["Donnie Smith league", "Donnie Smith team", "a"]
    assert (expansion.reason, expansion.note) == ("multi_query by the model", None)
    assert model.calls == {"expand": 1}


@pytest.mark.parametrize("kind", ["hyde", "step_back"])
def test_hyde_and_step_back_keep_one_query(kind):
    model = scripted(expand='{"queries": ["Donnie Smith plays for a Major League Soccer club.", "second"]}')
    assert LLMExpander(model).expand(QUESTION, kind).queries == ["Donnie Smith plays for a Major League Soccer club."]


def test_garbage_or_empty_reply_skips_the_strategy_with_a_note():
    garbage = LLMExpander(scripted(expand="here are some queries")).expand(QUESTION, "hyde")
    assert garbage.queries == [] and garbage.reason == "hyde skipped" and garbage.note.startswith("invalid reply")
    only_the_question = LLMExpander(scripted(expand=json.dumps({"queries": [QUESTION, "x" * 2001]})))
    empty = only_the_question.expand(QUESTION, "multi_query")
    assert empty.queries == [] and empty.note == "the model wrote no usable query"
