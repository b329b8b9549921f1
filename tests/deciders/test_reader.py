"""The learned reader (deciders/reader.py) and the extractive generator built on it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import scripted

from core.text import terms
from deciders.generator import NO_ANSWER, AnswerRequest, ExtractiveGenerator
from deciders.headline import SPAN_FEATURES, span_features
from deciders.lexicon import MODEL_FREE
from deciders.llm_generator import LLMGenerator
from deciders.reader import FEATURES, MODEL_FILE, ReaderModel, featurize, load_model, rank

QUESTION = "Which league does Donnie Smith play in?"
WEIGHTS = {t: 3.0 for t in terms(QUESTION)}


def chunk(cid: str, title: str, text: str, **extra) -> dict:
    return {"chunk_id": cid, "text": text, "source": f"/docs/{cid}.html", "title": title, "score": 1.0, **extra}


DONNIE = chunk("donnie", "Donnie Smith", "He is an American soccer player.\n\nHe plays in Major League Soccer.")
REVS = chunk("revs", "New England Revolution", "The Revolution are a soccer club. Donnie Smith joined them in 2014.")
PORT = chunk("port", "Connections", "port (integer)\n\nThe TCP port the server listens on; 5432 by default.")


def lexical_model(decline_below: float = 0.0, trust_from: float = 0.9, span_from: float = 0.5) -> ReaderModel:
    """A model scoring sentences on the sentence-and-context IDF share alone and spans on their
    type and their nearness to the question's words (a decider-logic fixture)."""
    coef = [8.0 if name == "lexical_context" else 0.0 for name in FEATURES]
    span_coef = {"typed": 4.0, "nearness": 8.0, "in_question": -8.0}
    return ReaderModel(
        tuple(coef),
        -4.0,
        (0.0, 1.0),
        (0.0, 1.0),
        decline_below,
        trust_from,
        SPAN_FEATURES,
        tuple(span_coef.get(name, 0.0) for name in SPAN_FEATURES),
        -3.0,
        span_from,
    )


def test_every_distinct_sentence_is_a_candidate_with_one_row_of_features():
    candidates, rows = featurize(QUESTION, "other", [DONNIE, REVS, DONNIE], WEIGHTS)
    assert [c.sentence for c in candidates] == [
        "He is an American soccer player.",
        "He plays in Major League Soccer.",
        "The Revolution are a soccer club.",
        "Donnie Smith joined them in 2014.",
    ]
    assert rows.shape == (4, len(FEATURES)) and np.isfinite(rows).all()
    assert candidates[1].context == "He is an American soccer player."  # the sentence before it, shown with it
    assert rows[3, FEATURES.index("chunk_rank")] == 0.5  # the second chunk


def test_a_heading_that_says_the_question_terms_is_shown_as_the_context():
    weights = {t: 2.0 for t in terms("What is the default port?")}
    candidates, _ = featurize("What is the default port?", "default", [PORT], weights)
    value = next(c for c in candidates if "5432" in c.sentence)
    assert value.spans == ("5432",)


def test_a_sentence_under_another_entry_than_the_one_asked_about_is_marked_so():
    question = "What is the default value of maintenance_work_mem?"
    text = (
        "maintenance_work_mem (integer)\n\nSpecifies the memory used by maintenance operations. "
        "It defaults to 64 megabytes (64MB).\n\nautovacuum_work_mem (integer)\n\nSpecifies the memory "
        "used by each autovacuum worker process. It defaults to -1, indicating that the value of "
        "maintenance_work_mem should be used instead."
    )
    entries = {"chunk_id": "mem", "text": text, "source": "s", "title": "Resource Consumption", "score": 1.0}
    candidates, rows = featurize(question, "default", [entries], {t: 2.0 for t in terms(question)})
    same, other = FEATURES.index("entry_same"), FEATURES.index("entry_other")
    own = next(i for i, c in enumerate(candidates) if "64MB" in c.sentence)
    neighbour = next(i for i, c in enumerate(candidates) if "-1" in c.sentence)
    assert (rows[own, same], rows[own, other]) == (1.0, 0.0)
    assert (rows[neighbour, same], rows[neighbour, other]) == (0.0, 1.0)


def test_the_best_scored_sentence_is_the_answer_with_its_mark_and_the_calibrated_support():
    answer = ExtractiveGenerator(reader=lexical_model()).generate(
        AnswerRequest(QUESTION, [DONNIE, REVS], "answer", term_weights=WEIGHTS)
    )
    assert answer.text == "He is an American soccer player. He plays in Major League Soccer. [1]"
    assert answer.cited == [(1, "donnie")] and answer.decider == MODEL_FREE and not answer.abstained
    ranked = rank(QUESTION, "other", [DONNIE, REVS], WEIGHTS, lexical_model())
    assert answer.support == round(ranked[0].score, 4)  # the identity calibration of the fixture


def test_below_the_decline_threshold_the_answer_says_so_and_shows_the_closest_passages():
    answer = ExtractiveGenerator(reader=lexical_model(decline_below=0.99)).generate(
        AnswerRequest(QUESTION, [DONNIE, REVS], "answer", term_weights=WEIGHTS)
    )
    assert answer.abstained and answer.text.startswith(f"{NO_ANSWER} contain a clear answer to this question.")
    assert "The closest passages found: " in answer.text and answer.cited


def test_a_question_naming_what_no_document_holds_is_declined_saying_so():
    answer = ExtractiveGenerator(reader=lexical_model()).generate(
        AnswerRequest(QUESTION, [DONNIE], "answer", term_weights=WEIGHTS, absent_terms=["Kubernetes"])
    )
    assert answer.abstained and "(they never mention Kubernetes)" in answer.text and answer.support == 0.0


@pytest.mark.parametrize(
    ("question", "text", "short"),
    [
        ("What is the default port?", "The TCP port the server listens on; 5432 by default.", "5432"),
        ("Is the port 5432 by default?", "The TCP port the server listens on; 5432 by default.", "Yes"),
        ("Is logging enabled by default?", "Logging is not enabled by default.", "No"),
    ],
)
def test_the_short_answer_is_the_one_typed_span_or_the_polarity_the_sentence_states(question, text, short):
    weights = {t: 2.0 for t in terms(question)}
    answer = ExtractiveGenerator(reader=lexical_model()).generate(
        AnswerRequest(question, [chunk("c", "Settings", text)], "answer", term_weights=weights)
    )
    assert answer.short_answer == short


def test_of_two_values_the_span_scorer_picks_the_one_beside_the_question_words():
    question = "How many workers can run at once?"
    text = "With the pooler 8 connections are open, and 3 workers can run at once."
    request = AnswerRequest(
        question, [chunk("c", "Settings", text)], "answer", term_weights={t: 2.0 for t in terms(question)}
    )
    assert ExtractiveGenerator(reader=lexical_model()).generate(request).short_answer == "3"
    # below the model's span level no span is the short answer: the sentence is
    unsure = ExtractiveGenerator(reader=lexical_model(span_from=0.999)).generate(request)
    assert not unsure.abstained and unsure.short_answer is None


def test_the_span_features_name_each_candidate_once_with_a_row():
    question = "Which league does Donnie Smith play in?"
    ranked = rank(question, "other", [DONNIE, REVS], WEIGHTS, lexical_model())
    found, rows = span_features("other", ranked[:2], question, WEIGHTS, [DONNIE, REVS])
    assert "Major League Soccer" in found and len(found) == len(set(found)) == len(rows)
    assert rows.shape[1] == len(SPAN_FEATURES) and np.isfinite(rows).all()
    league = rows[found.index("Major League Soccer")]
    assert league[SPAN_FEATURES.index("holds_noun")] == 1.0  # "Which league": the name holding the noun


def test_an_unusable_llm_reply_gives_the_extractive_answer_with_a_note():
    request = AnswerRequest(QUESTION, [DONNIE], "answer", term_weights=WEIGHTS)
    answer = LLMGenerator(scripted(generate="not json at all")).generate(request)
    assert answer.decider == MODEL_FREE and answer.note.endswith("; extractive answer instead")
    assert answer.text == ExtractiveGenerator().generate(request).text


def test_the_shipped_model_loads_and_a_model_of_other_features_is_refused(tmp_path, monkeypatch):
    shipped = json.loads(MODEL_FILE.read_text())
    assert shipped["features"] == list(FEATURES) and shipped["manifest"]["held_out_scores"]
    model = load_model()
    assert 0.0 <= model.decline_below <= 1.0 and model.calibrated(1.0) <= 1.0
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**shipped, "features": ["lexical"]}))
    with pytest.raises(ValueError, match="fitted on other features"):
        load_model(other)
    assert model.span_features == SPAN_FEATURES and len(model.span_coef) == len(SPAN_FEATURES)
    fold = tmp_path / "fold.json"
    fold.write_text(json.dumps({**shipped, "decline_below": 0.123}))
    monkeypatch.setenv("AGENTIC_RAG_READER_MODEL", str(fold))
    assert load_model().decline_below == 0.123  # a leave-one-corpus-out run's fold model
