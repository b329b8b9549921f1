"""Decomposers (deciders/decomposer.py): surface-form splits, the LLM split and its fallback."""

from __future__ import annotations

import pytest
from conftest import scripted

from core.tuning import Tuning
from deciders.decomposer import LLMDecomposer, RuleDecomposer


@pytest.mark.parametrize(
    ("question", "subs"),
    [
        ("Which is older, Blur or Oasis?", ["Blur: which is older?", "Oasis: which is older?"]),
        ("Are Random House Tower and 888 7th Avenue both used for real estate?",
         ["Are Random House Tower used for real estate?", "Are 888 7th Avenue used for real estate?"]),
        ("Which band released Counterparts and had a drummer in the Hall of Fame?",
         ["Which band released Counterparts?", "Which had a drummer in the Hall of Fame?"]),
        ("Which is older, the Tennessee State Tigers or \"...And God Created Them\"?",
         ["the Tennessee State Tigers: which is older?", '"...And God Created Them": which is older?']),
        ("What are the default values of wal_keep_size and max_slot_wal_keep_size?",
         ["What are the default values of wal_keep_size?", "What are the default values of max_slot_wal_keep_size?"]),
        ("Which band released Counterparts, and had a drummer?",
         ["Which band released Counterparts?", "Which had a drummer?"]),
        ("Which lock does ALTER TABLE ADD COLUMN take, and does it block SELECT?", []),  # a second question, of "it"
        ("What is the capital of France and Spain?", []),  # two names, not spelled as code: not split this way
        ("When was Neil Peart born?", []),
        ("Which is best, A, B, C, D or E?", []),  # five parts: more than 4
        ("How do I find how much disk a database takes, shown in MB or GB?", []),  # an 'or' in a clause
        ("If I ask for READ UNCOMMITTED, will I see other sessions' rows, or what does it behave like?", []),
    ],
)  # fmt: skip
def test_rule_decomposer_splits_choices_joint_properties_and_clauses(question, subs):
    assert RuleDecomposer().decompose(question).sub_questions == subs


def test_the_most_parts_come_from_the_tuning():
    question = "Which is oldest, Blur, Oasis or Pulp?"
    assert len(RuleDecomposer().decompose(question).sub_questions) == 3
    refused = RuleDecomposer(Tuning(max_sub_questions=2)).decompose(question)
    assert (refused.sub_questions, refused.reason, refused.decider) == ([], "3 parts (2–2 allowed)", "rules")


def test_llm_decomposer_splits_as_the_model_says():
    model = scripted(decompose='{"sub_questions": ["When was Blur formed?", " When was Oasis formed? "]}')
    result = LLMDecomposer(model).decompose("Which is older, Blur or Oasis?")
    assert result.sub_questions == ["When was Blur formed?", "When was Oasis formed?"]
    assert (result.reason, result.decider, result.note) == ("split by the model", "llm:ScriptedChatModel", None)
    nothing = LLMDecomposer(scripted(decompose='{"sub_questions": []}')).decompose("Who sang Blur and Oasis songs?")
    assert (nothing.sub_questions, nothing.reason, nothing.note) == ([], "the model found nothing to split", None)


@pytest.mark.parametrize(
    ("reply", "note"),
    [
        ('{"sub_questions": ["Which is older?"]}', "1 sub-questions (2–4 allowed); rule-based split instead"),
        ('{"sub_questions": ["a", "b", "c", "d", "e"]}', "5 sub-questions (2–4 allowed); rule-based split instead"),
    ],
)
def test_llm_decomposer_wrong_count_falls_back_to_the_rules(reply, note):
    result = LLMDecomposer(scripted(decompose=reply)).decompose("Which is older, Blur or Oasis?")
    assert result.sub_questions == ["Blur: which is older?", "Oasis: which is older?"]
    assert result.decider == "rules" and result.note == note


def test_llm_decomposer_garbage_falls_back_to_the_rules_with_the_reason():
    result = LLMDecomposer(scripted(decompose="two parts, I'd say")).decompose("Which is older, Blur or Oasis?")
    assert result.sub_questions == ["Blur: which is older?", "Oasis: which is older?"]
    assert result.note.startswith("invalid reply") and result.note.endswith("; rule-based split instead")
