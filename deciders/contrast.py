"""A passage that says the opposite of what the question asks.

SQuAD 2.0's unanswerable questions (Rajpurkar et al. 2018, "Know What You Don't Know") are often
a passage's sentence with one word swapped for its opposite: "When was the third German empire
founded?" against "… the second German Empire …". Such a sentence matches nearly every word of
the question, so coverage alone calls it an answer. The check aligns each question word the
sentence lacks with its neighbours: when the sentence holds both neighbours with, between them,
a word opposite to it (:data:`deciders.lexicon.CONTRASTS`), the sentence is about something else.
"""

from __future__ import annotations

import re

from core.text import STOPWORDS, terms
from deciders.lexicon import CONTRASTS

_TOKEN = re.compile(r"[a-z0-9']+")
_ARTICLES = frozenset({"the", "a", "an"})
MAX_GAP = 2
"""Most words (articles aside) a swapped word may span between the neighbours."""


def _opposite(asked: str, said: str) -> bool:
    return any(
        any(asked in pole for pole in scale) and any(said in pole and asked not in pole for pole in scale)
        for scale in CONTRASTS
    )


def _stem(token: str) -> str:
    found = terms(token)
    return found[0] if found else token


def contradicted(question: str, sentence: str) -> list[tuple[str, str]]:
    """Where ``sentence`` says the opposite of a word of ``question``.

    Args:
        question: the question.
        sentence: the candidate answer sentence (with its context).

    Returns:
        (question word, the sentence's words from neighbour to neighbour) pairs, e.g.
        ``("third", "the second german")``; empty when nothing is contradicted.
    """
    asked = _TOKEN.findall(question.lower())
    said = _TOKEN.findall(sentence.lower())
    stems = [_stem(t) for t in said]
    held = set(stems) | set(said)
    found = []
    for i in range(1, len(asked) - 1):
        word, left, right = asked[i], asked[i - 1], asked[i + 1]
        if word in held or _stem(word) in held or (left in STOPWORDS and right in STOPWORDS):
            continue
        left, right = _stem(left), _stem(right)
        for j, stem in enumerate(stems):
            if stem != left:
                continue
            for k in range(j + 2, min(j + 2 + MAX_GAP + 1, len(stems))):
                between = [t for t in said[j + 1 : k] if t not in _ARTICLES]
                if stems[k] == right and 0 < len(between) <= MAX_GAP and any(_opposite(word, t) for t in between):
                    found.append((word, " ".join(said[j : k + 1])))
    return found
