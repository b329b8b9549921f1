"""Routing deciders (deciders/router.py): small talk, follow-ups, complexity, the LLM router."""

from __future__ import annotations

import pytest
from conftest import scripted
from langchain_core.messages import AIMessage, HumanMessage

from deciders.lexicon import MODEL_FREE
from deciders.router import LLMRouter, RuleRouter, classify_complexity, contextualize, dangling_pronoun, subject_of

CONVERSATION = [
    HumanMessage("Who was the drummer of Rush?"),
    AIMessage("Neil Peart was the drummer of Rush [1].", additional_kwargs={"cited_titles": ["Neil Peart (drummer)"]}),
]


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("Who is the spouse of the actress who played Susan Walker in Miracle on 34th Street?", "multi"),
        ("Which is older, Blur or Oasis?", "multi"),
        ("Who is the father of Empress Wang's husband?", "multi"),
        ("When was Neil Peart born?", "single"),
        ("What does itertools.groupby do?", "single"),
    ],
)
def test_complexity_classifier_from_cheap_features(question, label):
    assert classify_complexity(question)[0] == label


@pytest.mark.parametrize("turn", ["hello, thanks!", "ok cool", "thank you so much", "bye"])
def test_small_talk_is_routed_direct_without_retrieval(turn):
    decision = RuleRouter().route(turn, [])
    assert (decision.route, decision.complexity, decision.decider) == ("direct", "none", "rules")


@pytest.mark.parametrize(
    "turn",
    ["hello?", "thanks, what league does Donnie Smith play in", "ok ok ok ok ok ok ok ok ok", "Donnie Smith"],
)
def test_anything_that_asks_or_is_not_only_small_talk_retrieves(turn):
    decision = RuleRouter().route(turn, [])
    assert decision.route == "retrieve" and decision.standalone_question is None
    assert decision.complexity in ("single", "multi") and "words" in decision.complexity_reason


def test_follow_up_pronoun_becomes_the_entity_the_previous_answer_cited():
    assert contextualize("and when was he born?", CONVERSATION) == "when was Neil Peart born?"
    assert contextualize("What was his first band?", CONVERSATION) == "What was Neil Peart's first band?"
    assert contextualize("When was Neil Peart born?", CONVERSATION) is None  # no pronoun
    assert contextualize("and when was he born?", []) is None  # no earlier turn
    decision = RuleRouter().route("and when was he born?", CONVERSATION)
    assert decision.standalone_question == "when was Neil Peart born?"
    assert decision.reason == "asks for information (follow-up made self-contained)"


def test_without_cited_titles_the_first_name_of_the_answer_is_used():
    conversation = [HumanMessage("Who drummed for Rush?"), AIMessage("Neil Peart [1] did.")]
    assert contextualize("Where was he born?", conversation) == "Where was Neil Peart born?"


def test_llm_router_reads_route_rewrite_and_complexity():
    reply = '{"route": "retrieve", "reason": "factual", "standalone_question": "When was Neil Peart born?", '
    model = scripted(route=reply + '"complexity": "single"}')
    decision = LLMRouter(model).route("and when was he born?", CONVERSATION)
    assert (decision.route, decision.complexity, decision.note) == ("retrieve", "single", None)
    assert decision.standalone_question == "When was Neil Peart born?"
    assert decision.decider == "llm:ScriptedChatModel" and model.calls == {"route": 1}
    # without a conversation there is nothing to rewrite against: the rewrite is dropped
    assert LLMRouter(model).route("When was he born?", []).standalone_question is None


def test_llm_router_direct_has_no_complexity_and_garbage_gets_the_model_free_route_with_a_note():
    direct = LLMRouter(scripted(route='{"route": "direct", "reason": "greeting"}')).route("hi", [])
    assert (direct.route, direct.complexity, direct.reason) == ("direct", "none", "greeting")
    garbage = LLMRouter(scripted(route="sure, let me look that up"))
    assert garbage.route("hi", []).route == "direct"  # the rule router's verdict on small talk
    decision = garbage.route("Which league does Donnie Smith play in?", [])
    assert (decision.route, decision.decider) == ("retrieve", MODEL_FREE)
    assert decision.note.startswith("invalid reply") and decision.note.endswith("model-free route instead")


def test_it_refers_to_the_subject_of_the_previous_question_never_to_a_section_heading():
    record = {"subject": "work_mem", "answer_type": "default", "short_answer": "4MB",
              "cited_titles": ["20.4. Resource Consumption"]}  # fmt: skip
    conversation = [
        HumanMessage("What is the default of work_mem?"),
        AIMessage("The default value is four megabytes (4MB). [1]", additional_kwargs=record),
    ]
    assert contextualize("How do I change it for a single transaction?", conversation) == (
        "How do I change work_mem for a single transaction?"
    )
    older = [conversation[0], AIMessage("See [1].", additional_kwargs={"cited_titles": ["13.1. Introduction"]})]
    assert contextualize("How do I change it?", older) is None  # a section heading is not an entity


def test_what_about_asks_the_previous_question_of_another_thing():
    record = {"question": "What is the default value of work_mem?", "subject": "work_mem", "short_answer": "4MB"}
    conversation = [
        HumanMessage("What's work_mem's default?"),  # the record keeps the question as made self-contained
        AIMessage("The default value is four megabytes (4MB). [1]", additional_kwargs=record),
    ]
    assert contextualize("And what about maintenance_work_mem?", conversation) == (
        "What is the default value of maintenance_work_mem?"
    )
    assert contextualize("how about temp_buffers", conversation) == "What is the default value of temp_buffers?"
    assert (
        contextualize("What about it?", conversation) != "What is the default value of it?"
    )  # a pronoun names nothing
    assert contextualize("What about maintenance_work_mem?", []) is None  # no earlier turn
    record = {"question": "What is the default opt-level of the release profile?", "subject": "default"}
    profiles = [HumanMessage(record["question"]), AIMessage("It is 3. [1]", additional_kwargs=record)]
    assert contextualize("and what about the dev profile?", profiles) == (  # the phrase of the same head noun
        "What is the default opt-level of the dev profile?"
    )


def test_he_is_the_short_answer_when_the_previous_question_asked_for_a_person():
    record = {"subject": "Rush", "answer_type": "person", "short_answer": "Neil Peart", "cited_titles": []}
    conversation = [HumanMessage("Who drummed for Rush?"), AIMessage("Neil Peart did. [1]", additional_kwargs=record)]
    assert contextualize("Where was he born?", conversation) == "Where was Neil Peart born?"
    assert contextualize("When did it form?", conversation) == "When did Rush form?"


def test_subject_of_prefers_exact_names():
    assert subject_of("What is the default of work_mem in PostgreSQL?") == "work_mem"
    assert subject_of("Who drummed for Rush?") == "Rush"
    assert subject_of("what is this?") is None


def test_subject_of_a_what_does_x_do_question_is_x_never_the_pronoun_i():
    assert subject_of("What does enumerate do?") == "enumerate"
    assert subject_of("How does asyncio work?") == "asyncio"
    assert subject_of("How do I read a file line by line?") is None  # not "I"
    record = {"subject": subject_of("What does enumerate do?"), "answer_type": "other", "short_answer": None,
              "cited_titles": ["Built-in Functions"]}  # fmt: skip
    conversation = [
        HumanMessage("What does enumerate do?"),
        AIMessage("Return an enumerate object. [1]", additional_kwargs=record),
    ]
    assert contextualize("What is its start argument's default?", conversation) == (
        "What is enumerate's start argument's default?"
    )


def test_llm_router_never_answers_a_question_without_the_documents():
    model = scripted(route='{"route": "direct", "reason": "general knowledge"}')
    decision = LLMRouter(model).route("Which league does Donnie Smith play in?", [])
    assert decision.route == "retrieve" and decision.complexity != "none"
    assert decision.note == "the model routed a question direct; retrieving instead"
    assert LLMRouter(model).route("thanks, bye", []).route == "direct"  # small talk stays direct


@pytest.mark.parametrize(
    ("question", "pronoun"),
    [
        ("Is it used by hash tables?", "it"),
        ("What is its default?", "its"),
        ("How do they differ?", "they"),
        ("Is it possible to rename a database?", None),  # the empty "it"
        ("How long does it take?", None),
        ("What does it mean?", None),
        ("Does it support pg_dump?", None),  # names what it is about
        ("Other than its main business district, where are San Diego's districts?", None),
        ("Can I change it per session?", None),  # a verb before it: not told apart from a noun
    ],
)
def test_a_pronoun_that_refers_to_nothing_in_the_question_is_dangling(question, pronoun):
    assert dangling_pronoun(question) == pronoun


def test_a_first_turn_leaning_on_a_pronoun_gets_a_clarifying_question_without_a_model_call():
    decision = RuleRouter().route("Is it used by hash tables?", [])
    assert (decision.route, decision.complexity) == ("direct", "none")
    assert decision.reason == '"it" refers to nothing: the thread has no earlier turn'
    model = scripted(route='{"route": "retrieve", "reason": "asks"}')
    assert LLMRouter(model).route("Is it used by hash tables?", []).route == "direct"
    assert model.calls == {}
    followed = RuleRouter().route("Is it used by hash tables?", CONVERSATION)  # a follow-up resolves it
    assert followed.route == "retrieve" and "Neil Peart" in followed.standalone_question


def test_it_is_never_the_previous_short_answer_a_value_or_token():
    record = {"subject": None, "answer_type": "command", "short_answer": "HEAD",
              "cited_titles": ["git-reset"]}  # fmt: skip
    conversation = [
        HumanMessage("Which ref does reset move by default?"),
        AIMessage("It moves HEAD. [1]", additional_kwargs=record),
    ]
    assert contextualize("Can I undo it?", conversation) == "Can I undo git-reset?"  # the page, not "HEAD"
