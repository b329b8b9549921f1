"""Negation scope: whether a sentence says "not" of what a question asks (NegEx's trigger-and-scope
rules, Chapman et al. 2001, "A Simple Algorithm for Identifying Negated Findings and Diseases in
Discharge Summaries"): a cue negates the words after it in its clause, or — an auxiliary's
negation ending the clause — the words before it."""

from __future__ import annotations

import re

from core.text import terms

_NEGATION_CUE = re.compile(
    r"^(?:not|no|never|cannot|(?:ca|does|do|did|is|are|was|were|wo|has|have|had|should|must|could|would)n't|without|"
    r"neither|nor|disables?|disabled)$"
)
"""Pre-negation cues; "disables" says there is none ("A value of zero (the default) disables the timeout")."""
_CLAUSE_END = re.compile(r"[,;:()]")
_CUE_WORD = re.compile(r"[\w'-]+|[,;:()]")
_POST_CUE = re.compile(r"^(?:cannot|(?:ca|does|do|did|is|are|was|were|wo|should|must|may)n't)$")
_AUXILIARIES = frozenset("can does do did is are was were will would should must may".split())
NEGATION_REACH = 4
"""Words before a predicate term within which a negation cue negates it (NegEx, Chapman et al. 2001)."""


def negated(sentence: str, predicate: frozenset[str]) -> bool:
    """Whether a negation cue stands within ``NEGATION_REACH`` words before a predicate term of
    ``sentence``, in the same clause (no comma, semicolon, colon or bracket between): a cue
    negates what follows it, as NegEx's pre-negation triggers do ("not supported", but not the
    "changes" of "any changes that have not been applied … can be redone"), or — an auxiliary's
    negation ending the clause — what comes before it ("but CREATE INDEX CONCURRENTLY cannot.");
    with no predicate term given, whether the sentence holds a negation cue at all."""
    words = _CUE_WORD.findall(sentence.lower().replace("’", "'"))  # a typographic apostrophe: "doesn’t"
    if not predicate:
        return any(_NEGATION_CUE.match(word) for word in words)
    for at, word in enumerate(words):
        if not (set(terms(word)) & predicate):
            continue
        for other in range(at - 1, at - NEGATION_REACH - 1, -1):
            if other < 0 or _CLAUSE_END.match(words[other]):
                break
            if _NEGATION_CUE.match(words[other]):
                return True
        for other in range(at + 1, min(at + NEGATION_REACH + 1, len(words))):  # a cue closing the clause
            if _CLAUSE_END.match(words[other]):
                break
            if _closes_negated(words, other):
                return True
    return False


def _closes_negated(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` is an auxiliary's negation that ends its clause, negating what comes
    before it (NegEx's post-negation triggers): "…, but CREATE INDEX CONCURRENTLY cannot.", "… it does not"."""
    last = at + 1 == len(words) or bool(_CLAUSE_END.match(words[at + 1]))
    auxiliary = words[at] == "not" and at > 0 and words[at - 1] in _AUXILIARIES
    return last and (auxiliary or bool(_POST_CUE.match(words[at])))
