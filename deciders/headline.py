"""The short answer an answer sentence holds (its headline), or none: then the sentence itself is
the answer. A typed span only where the sentence holds it (answer-type QA, Moldovan et al. 2000),
the proximity of a name to the question's words among several (Brill et al. 2002), and the phrase
naming a "which NOUN" question's noun."""

from __future__ import annotations

import re
from typing import Mapping

from core.text import term_set, terms, tidy_span
from deciders.answer_types import AnswerType, head_noun
from deciders.passages import with_context
from deciders.reader import Candidate
from deciders.spans import asks_negated, spans

_PHRASE_TOKEN = re.compile(r"[\w’'.-]*\w|[^\w\s]")
NAME_TYPES = frozenset({"person", "place", "organisation", "nationality", "date"})
"""Answer types whose spans are names or dates: of several in a sentence, the one nearest the
question's words is the answer (:func:`nearest_first`)."""


def noun_phrase(sentence: str, noun: str, question: str) -> str | None:
    """The phrase of ``sentence`` that names a ``noun`` (a stemmed term: what a "what/which
    NOUN …?" question asks for), at its first mention: the capitalised name right after it
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
        while end < len(tokens) and tokens[end].group(0)[:1].isupper() and not set(stems[end]) & asked:
            end += 1
        if end > i + 1:
            return tidy_span(sentence[tokens[i + 1].start() : tokens[end - 1].end()])
        start = i
        while start > 0 and stems[start - 1] and not set(stems[start - 1]) & asked:
            start -= 1
        return tidy_span(sentence[tokens[start].start() : token.end()]) if start < i else None
    return None


def nearest_first(sentence: str, found: list[str], weights: dict[str, float]) -> list[str]:
    """``found`` spans of ``sentence`` ordered by the question terms near them: each term in the
    sentence adds its weight over one plus its distance, in words, to the span (sentence order
    among equals). The answer stands next to what the question says of it ("Nixon named William
    E. Simon as the first administrator" → "William E. Simon" for "Who was the first
    administrator?"): the proximity feature of answer ranking (Brill et al. 2002)."""
    tokens = list(_PHRASE_TOKEN.finditer(sentence))
    at: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):
        for term in set(terms(token.group(0))) & weights.keys():
            at.setdefault(term, []).append(i)
    if not at or len(found) < 2:
        return found

    def nearness(span: str) -> float:
        start = sentence.find(span)
        inside = [i for i, t in enumerate(tokens) if start <= t.start() < start + len(span)] if start >= 0 else []
        if not inside:
            return 0.0
        return sum(weights[t] / (1 + min(abs(p - i) for p in places for i in inside)) for t, places in at.items())

    return sorted(found, key=nearness, reverse=True)


def headline(kind: AnswerType, best: Candidate, question: str, weights: Mapping[str, float]) -> str | None:
    """The short answer the best sentence holds: its polarity for a yes/no question ("No" when a
    negation cue negates a question term in it, :func:`deciders.spans.spans`); its one span of the
    expected type, or of several names or dates the one nearest the question's words
    (:func:`nearest_first`); for a "which/what NOUN" question of no type, the
    name holding that noun, else the phrase naming it (:func:`noun_phrase`), else the
    name nearest the question's words — unless it asks with a negation; else ``None`` (the sentence
    itself is the answer)."""
    if kind == "yes_no":
        return next(iter(spans(with_context(best), "yes_no", question)), None)
    found = list(dict.fromkeys(best.spans))
    if len(found) == 1:
        return found[0]
    if found and kind in NAME_TYPES:
        return nearest_first(best.sentence, found, dict(weights))[0]
    if kind == "other" and not asks_negated(question) and (noun := head_noun(question)):  # not the opposite's name
        named = nearest_first(best.sentence, spans(best.sentence, "person", question), dict(weights))
        holding = [n for n in named if noun in term_set(n)]  # "Which league …?": "Major League Soccer"
        return next(iter(holding), None) or noun_phrase(best.sentence, noun, question) or next(iter(named), None)
    return None
