"""The short answer the cited sentences hold (their headline), or none: then the sentence itself is
the answer.

A yes/no question's headline is the best sentence's polarity, negation read
(:func:`deciders.spans.spans`). Any other question's is picked by a fitted span scorer: every
span of the cited sentences that could be an answer — a span of the expected type, a name, a
number or date, the phrase naming a "which NOUN" question's noun — is described by general
features (does it have the expected type, does it repeat the question, how near the question's
words it stands — the proximity feature of Brill et al. 2002 —, its sentence's rank and
score, how often the evidence says it, whether it names a page or is the sentence's own page's
subject, a candidate too, whether it is quoted or the sentence's first name) and a logistic regression
(fitted with the reader, :mod:`evaluation.train_reader`) gives the probability that it is the
answer. The best span is the headline when that probability reaches the model's ``span_from``
(the level that made the most of the training questions' token F1); else there is none. Answer
extraction from candidate spans ranked by a learned model, as in answer-type QA (Moldovan et
al. 2000) and feature-based span ranking (Ravichandran & Hovy 2002; Yao et al. 2013).
"""

from __future__ import annotations

import math
import re
from typing import Mapping, Sequence

import numpy as np

from core.text import strip_qualifier, term_set, terms, tidy_span
from deciders.answer_types import UNTYPED, AnswerType, head_noun, options
from deciders.chunks import HopChunk
from deciders.negation import negated
from deciders.passages import with_context
from deciders.reader import VALUES, Candidate, ReaderModel
from deciders.spans import asks_negated, spans

_PHRASE_TOKEN = re.compile(r"[\w’'.-]*\w|[^\w\s]")
_INITIAL = re.compile(r"(?:[A-Z]\.)*[A-Z]")
"""An initial or initials before their last dot ("T", "T.S"): the dot after them is inside a name."""
_QUOTED = re.compile(r"[\"“]([^\"“”]{2,80})[\"”]")
"""A quoted phrase: a title, a nickname, a literal."""
_CLAUSE = re.compile(r";|,\s*(?:but|whereas|while)\b")
"""Where one clause of a sentence ends and a contrasting one begins."""
NAME_TYPES = frozenset({"person", "place", "organisation", "nationality"})
"""Answer types whose spans are names."""

SPAN_FEATURES = (
    "typed",
    "name",
    "value",
    "noun_phrase",
    "name_for_name",
    "value_for_value",
    "name_for_untyped",
    "in_question",
    "nearness",
    "holds_noun",
    "first_sentence",
    "last_link",
    "sentence_score",
    "tokens",
    "position",
    "frequency",
    "is_title",
    "own_title",
    "quoted",
    "first_name",
)
"""Feature names of a span, in the order of its feature vector."""


def noun_phrase(sentence: str, noun: str, question: str) -> str | None:
    """The phrase of ``sentence`` that names a ``noun`` (a stemmed term: what a "what/which
    NOUN …?" question asks for), at its first mention: the capitalised name it is part of ("in
    Major League Soccer" → "Major League Soccer"), else the capitalised name right after it
    ("the river Aare" → "Aare"), else the words before it that are neither stop words nor other
    question terms, with it ("the RNA interference pathway" → "RNA interference pathway");
    ``None`` when the sentence does not mention the noun or nothing qualifies it. The question's
    focus noun as the answer's type (Moldovan et al. 2000)."""
    asked = term_set(question) - {noun}
    tokens = list(_PHRASE_TOKEN.finditer(sentence))
    stems = [terms(t.group(0)) for t in tokens]  # () for a stop word or punctuation
    for i, token in enumerate(tokens):
        if stems[i] != (noun,):
            continue
        end = i + 1
        while end < len(tokens) and not set(stems[end]) & asked and _in_name(tokens, end, i + 1):
            end += 1
        if token.group(0)[:1].isupper():  # the noun inside a name: the whole name ("Major League Soccer")
            start = i
            while start > 0 and tokens[start - 1].group(0)[:1].isupper() and not set(stems[start - 1]) & asked:
                start -= 1
            return tidy_span(sentence[tokens[start].start() : tokens[end - 1].end()]) if end - start > 1 else None
        if end > i + 1:
            return tidy_span(sentence[tokens[i + 1].start() : tokens[end - 1].end()])
        start = i
        while start > 0 and stems[start - 1] and not set(stems[start - 1]) & asked:
            start -= 1
        return tidy_span(sentence[tokens[start].start() : token.end()]) if start < i else None
    return None


def _in_name(tokens: list[re.Match], k: int, start: int) -> bool:
    """Whether token ``k`` continues a name begun at ``start``: a capitalised word, or an "&"
    between two ("Smith & Jones Records"), or the dot after an initial ("T.S. Moore")."""
    word = tokens[k].group(0)
    joins = (word == "&" and k > start) or (word == "." and k > start and _INITIAL.fullmatch(tokens[k - 1].group(0)))
    return word[:1].isupper() or bool(joins and k < len(tokens) - 1 and tokens[k + 1].group(0)[:1].isupper())


def _words(text: str) -> set[str]:
    """The words of ``text``, lowercased, as written (not stemmed: "--deploy" is not "deployment")."""
    return set(re.findall(r"\w+", text.lower()))


def _said_negated(sentence: str, span: str) -> bool:
    """Whether the clause of ``sentence`` (split at semicolons and at a comma before "but",
    "whereas" or "while") holding ``span`` has a negation cue (:func:`deciders.negation.negated`),
    or the sentence has none at all: a "which … are not …?" question is answered from the clause
    that says "not", never from the one that says the opposite."""
    clauses = _CLAUSE.split(sentence)
    if not any(negated(c, frozenset()) for c in clauses):
        return True
    return any(span in c and negated(c, frozenset()) for c in clauses)


def nearness(sentence: str, span: str, weights: Mapping[str, float]) -> float:
    """How near ``span`` stands to the question's terms in ``sentence``: each term in the sentence
    adds its weight over one plus its distance, in words, to the span; as a share (0–1) of the
    question's whole weight. The answer stands next to what the question says of it ("Nixon
    named William E. Simon as the first administrator"): Brill et al. 2002."""
    tokens = list(_PHRASE_TOKEN.finditer(sentence))
    start = sentence.find(span)
    inside = [i for i, t in enumerate(tokens) if start <= t.start() < start + len(span)] if start >= 0 else []
    total = sum(weights.values())
    if not inside or not total:
        return 0.0
    at: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):
        for term in set(terms(token.group(0))) & weights.keys():
            at.setdefault(term, []).append(i)
    near = sum(weights[t] / (1 + min(abs(p - i) for p in places for i in inside)) for t, places in at.items())
    return near / total


def span_features(
    kind: AnswerType,
    chosen: Sequence[Candidate],
    question: str,
    weights: Mapping[str, float],
    evidence: Sequence[HopChunk],
) -> tuple[list[str], np.ndarray]:
    """Every candidate span of the ``chosen`` (cited) sentences, each once at its first sentence,
    and its row of :data:`SPAN_FEATURES`.

    Args:
        kind: the question's expected answer type.
        chosen: the cited sentences, the best first, then a chain's later links.
        question: the standalone question.
        weights: IDF of each question term.
        evidence: every chunk handed to the generator (for how often a span is said, and titles).

    Returns:
        (spans, a ``(len(spans), len(SPAN_FEATURES))`` float matrix).
    """
    noun = head_noun(question)
    asked = term_set(question)
    asks_not = asks_negated(question)
    restates, said = not options(question), _words(question)  # a span only repeating the question answers nothing
    texts = [c["text"].lower() for c in evidence]
    titles = {strip_qualifier(c.get("title", "")).lower() for c in evidence}
    found: list[str] = []
    rows = []
    for index, candidate in enumerate(chosen):
        sentence = candidate.sentence
        typed = set(candidate.spans)
        in_order = spans(sentence, "organisation", question)
        named, first = set(in_order), next(iter(in_order), None)
        values = set(spans(sentence, "number", question)) | set(spans(sentence, "date", question))
        phrase = noun_phrase(sentence, noun, question) if noun else None
        # the page's own subject: a sentence about it often names it "it" or "he" only
        title = strip_qualifier(candidate.chunk.get("title", ""))
        subject = [title] if title and not term_set(title) <= asked else []
        quoted = [tidy_span(m[1]) for m in _QUOTED.finditer(sentence)]
        candidates = [*candidate.spans, *([phrase] if phrase else []), *named, *values, *subject, *quoted]
        for span in dict.fromkeys(s for s in candidates if s):
            if (
                span in found
                or (asks_not and not _said_negated(sentence, span))
                or (restates and set() < _words(span) <= said)
            ):
                continue
            found.append(span)
            own = term_set(span)
            is_name, is_value = span in named, span in values
            rows.append(
                [
                    float(span in typed),
                    float(is_name),
                    float(is_value),
                    float(span == phrase),
                    float(is_name and kind in NAME_TYPES),
                    float(is_value and kind in VALUES),
                    float(is_name and kind in UNTYPED),
                    len(own & asked) / len(own) if own else 0.0,
                    nearness(sentence, span, weights),
                    float(bool(noun) and noun in own),
                    float(index == 0),
                    float(index == len(chosen) - 1 and index > 0),
                    1.0 / (1.0 + math.exp(-candidate.score)),  # the sentence's score on a bounded scale
                    math.log1p(len(span.split())) / 3,
                    max(sentence.find(span), 0) / (len(sentence) or 1),
                    sum(span.lower() in t for t in texts) / (len(texts) or 1),
                    float(span.lower() in titles),
                    float(span == title),
                    float(span in quoted),
                    float(span == first),
                ]
            )
    return found, np.asarray(rows, dtype=float).reshape(len(found), len(SPAN_FEATURES))


def headline(
    kind: AnswerType,
    chosen: Sequence[Candidate],
    question: str,
    weights: Mapping[str, float],
    evidence: Sequence[HopChunk],
    model: ReaderModel,
) -> str | None:
    """The short answer of the cited sentences ``chosen`` (best first): a yes/no question's
    polarity of the best one; else the span the model's span scorer ranks best when its
    probability reaches ``model.span_from``; else ``None`` (the sentence is the answer)."""
    if not chosen:
        return None
    if kind == "yes_no":
        return next(iter(spans(with_context(chosen[0]), "yes_no", question)), None)
    if not model.span_coef:
        return None
    if model.span_features != SPAN_FEATURES:
        raise ValueError(
            "the reader model's span scorer was fitted on other features; refit it: python -m evaluation.train_reader"
        )
    found, rows = span_features(kind, chosen, question, weights, evidence)
    if not found:
        return None
    scores = model.span_probability(rows)
    best = int(np.argmax(scores))
    return found[best] if scores[best] >= model.span_from else None
