"""Grading deciders (deciders/grader.py): lexical scores from a 0–1 retrieval score, the LLM grader."""

from __future__ import annotations

import json

import pytest
from conftest import scripted

from core.tuning import Tuning
from deciders.grader import LexicalGrader, LLMGrader
from deciders.lexicon import MODEL_FREE
from deciders.llm import CallLimits

QUESTION = "Which league does Donnie Smith play in?"


def chunk(cid: str, title: str, text: str, score: float = 0.0, **extra) -> dict:
    return {"chunk_id": cid, "text": text, "source": "s", "title": title, "score": score, "dense_rank": None,
            "lexical_rank": None, **extra}  # fmt: skip


ANSWER = chunk("donnie", "Donnie Smith", "Donnie Smith plays in Major League Soccer for the Revolution.", 1.0)
OFF_TOPIC = chunk("tungsten", "Tungsten", "Tungsten is a chemical element with the symbol W.", 0.5)


def test_retrieval_score_is_used_as_given_beside_term_coverage():
    grading = LexicalGrader().grade(QUESTION, QUESTION, [ANSWER, OFF_TOPIC], [])
    scores = {v.chunk_id: v.score for v in grading.verdicts}
    assert scores == {"donnie": 1.0, "tungsten": 0.15}  # 0.7 × coverage + 0.3 × the store's 0–1 score
    assert [v.relevant for v in grading.verdicts] == [True, False]
    low = LexicalGrader().grade(QUESTION, QUESTION, [{**ANSWER, "score": 0.0}], []).verdicts[0]
    assert low.score == 0.7 and low.relevant


def test_a_chunk_holding_the_entry_the_question_names_is_relevant_however_little_of_it_it_says():
    table = chunk("row", "String Functions", "| concat ( val1 ) → text Concatenates … NULL arguments are ignored. |")
    question = "Does concat() give me NULL back if one of the things I'm gluing together is NULL?"
    plain, named = LexicalGrader().grade(question, question, [table, {**table, "entry_named": True}], []).verdicts
    assert not plain.relevant and named.relevant and named.score == 0.4


def test_the_wording_of_what_does_x_stand_for_is_not_a_term_to_find():
    glossary = chunk("wal", "Glossary", "WAL: See Write-ahead log.", 0.6)
    question = "What does WAL stand for?"
    grading = LexicalGrader().grade(question, question, [glossary], [])
    assert grading.sufficient and grading.verdicts[0].score == 0.88  # "stand" is no term the answer holds
    kind = "What kind of index does a primary key create?"
    key = chunk("pk", "Keys", "A primary key creates a unique index.")
    assert LexicalGrader().grade(kind, kind, [key], []).sufficient


def test_weights_and_threshold_come_from_the_tuning_and_the_constructor():
    only_coverage = LexicalGrader(tuning=Tuning(coverage_weight=1.0)).grade(QUESTION, QUESTION, [OFF_TOPIC], [])
    assert only_coverage.verdicts[0].score == 0.0
    strict = LexicalGrader(min_relevance=0.99).grade(QUESTION, QUESTION, [{**ANSWER, "score": 0.5}], [])
    assert strict.verdicts[0].score == 0.85 and not strict.verdicts[0].relevant


def test_first_hop_suffices_only_when_one_relevant_chunk_holds_every_term():
    halves = [
        chunk("a", "Donnie Smith", "Donnie Smith is an American footballer.", 1.0),
        chunk("b", "Revolution", "The Revolution play in a soccer league.", 1.0),
    ]
    split = LexicalGrader().grade(QUESTION, QUESTION, halves, [])
    assert all(v.relevant for v in split.verdicts) and not split.sufficient
    assert LexicalGrader().grade(QUESTION, QUESTION, [ANSWER], []).sufficient


def test_later_hop_counts_the_query_or_followed_entity_and_the_evidence_together():
    question = "What is the seat of the county where Van Hook Township is located?"
    township = chunk("vh", "Van Hook Township", "Van Hook Township is a township in Mountrail County.", 1.0)
    county = chunk("mc", "Mountrail County", "Its seat is Stanley.", 0.0, via="Mountrail County", linked_from="vh")
    grader = LexicalGrader()
    grading = grader.grade(question, "Mountrail County seat located", [county], [township])
    # the linked page shares little with the question, but its title is the followed entity: 0.7 × 0.8
    assert grading.verdicts[0].score == 0.56 and grading.verdicts[0].relevant
    assert grading.sufficient  # the township and the county page together cover the question
    assert not grader.grade(question, "Mountrail County seat located", [county], []).sufficient


PER_CHUNK = CallLimits(grading="per_chunk")


def donnie_grade(prompt: str) -> str:
    return json.dumps({"relevant": "Donnie Smith plays" in prompt})


def test_llm_grader_grades_a_hop_in_one_call():
    model = scripted(grade_hop='{"relevant": [1], "sufficient": true}')
    grading = LLMGrader(model).grade(QUESTION, QUESTION, [ANSWER, OFF_TOPIC], [])
    assert [(v.relevant, v.score) for v in grading.verdicts] == [(True, 1.0), (False, 0.0)]
    assert grading.sufficient and grading.note is None and model.calls == {"grade_hop": 1}


def test_llm_grader_batch_prompt_numbers_the_passages_and_shows_kept_evidence_briefly():
    prompts_seen = []
    model = scripted(grade_hop=lambda p: prompts_seen.append(p) or '{"relevant": [2], "sufficient": false}')
    kept = chunk("kept", "Kept page", "K" * 1000)
    grading = LLMGrader(model).grade(QUESTION, "Donnie Smith league", [OFF_TOPIC, ANSWER], [kept])
    assert [v.relevant for v in grading.verdicts] == [False, True] and not grading.sufficient
    prompt = prompts_seen[0]
    assert "[1] title: Tungsten" in prompt and "[2] title: Donnie Smith" in prompt
    assert "found by the search: Donnie Smith league" in prompt and "K" * 400 in prompt and "K" * 401 not in prompt


@pytest.mark.parametrize("reply", ["I think so", '{"relevant": "yes"}', ""])
def test_llm_grader_unusable_batch_reply_grades_the_hop_model_free(reply):
    grading = LLMGrader(scripted(grade_hop=reply)).grade(QUESTION, QUESTION, [ANSWER, OFF_TOPIC], [])
    assert [v.relevant for v in grading.verdicts] == [True, False]  # the lexical grader's verdicts
    assert grading.decider == MODEL_FREE and grading.note.endswith("model-free grading instead")


def test_llm_grader_nothing_relevant_and_nothing_kept_is_never_sufficient():
    grading = LLMGrader(scripted(grade_hop='{"relevant": [], "sufficient": true}')).grade(
        QUESTION, QUESTION, [ANSWER], []
    )
    assert not grading.sufficient


def test_llm_grader_passage_numbers_out_of_range_choose_nothing_and_are_noted():
    grading = LLMGrader(scripted(grade_hop='{"relevant": [0, 3, 99], "sufficient": true}')).grade(
        QUESTION, QUESTION, [ANSWER, OFF_TOPIC], []
    )
    assert [v.relevant for v in grading.verdicts] == [False, False]
    assert not grading.sufficient  # found by the fuzz test: "sufficient" with no passage chosen and none kept
    assert grading.note == "passage number(s) [0, 3, 99] out of range 1–2 ignored"


def test_llm_grader_per_chunk_grades_each_chunk_then_asks_about_sufficiency():
    model = scripted(grade=donnie_grade, sufficient='{"sufficient": true}')
    grading = LLMGrader(model, limits=PER_CHUNK).grade(QUESTION, QUESTION, [ANSWER, OFF_TOPIC], [])
    assert [(v.relevant, v.score) for v in grading.verdicts] == [(True, 1.0), (False, 0.0)]
    assert grading.sufficient and grading.note is None and model.calls == {"grade": 2, "sufficient": 1}


@pytest.mark.parametrize("sufficient", ["not json", '{"sufficient": true}'])
def test_llm_grader_per_chunk_garbage_is_not_relevant_and_nothing_kept_is_never_sufficient(sufficient):
    model = scripted(grade="I think so", sufficient=sufficient)
    grading = LLMGrader(model, limits=PER_CHUNK).grade(QUESTION, QUESTION, [ANSWER], [])
    assert not grading.verdicts[0].relevant and not grading.sufficient
    assert grading.note.startswith("donnie: invalid reply") and grading.note.endswith("graded not relevant")
    assert "sufficient" not in model.calls  # no evidence kept: the sufficiency question is not asked


def test_llm_grader_per_chunk_garbage_sufficiency_is_insufficient_with_a_note():
    model = scripted(grade='{"relevant": true}', sufficient="maybe")
    grading = LLMGrader(model, limits=PER_CHUNK).grade(QUESTION, QUESTION, [ANSWER], [])
    assert grading.verdicts[0].relevant and not grading.sufficient
    assert grading.note.startswith("sufficiency: invalid reply") and grading.note.endswith("treated as insufficient")
