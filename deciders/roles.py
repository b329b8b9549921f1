"""A sentence that holds the question's words in swapped roles.

SQuAD 2.0's unanswerable questions (Rajpurkar et al. 2018) include a passage's sentence with its
roles exchanged: "What was absorbed into the Anglo-Norman language?" against "The Anglo-Norman
language was … absorbed into the Anglo-Saxon language", "What precedes the period of Anglo-Saxon
architecture?" against "… Norman architecture … succeeds that of the Anglo-Saxon and precedes
the Early Gothic". Nearly every word matches, so coverage alone calls it an answer; word order
around the verb does not: what the question puts after its verb, the sentence puts before it.
"""

from __future__ import annotations

import re

from core.text import STOPWORDS, terms

_SUBJECT_QUESTION = re.compile(
    r"^\s*(?:what|who)\s+(?P<aux>(?:was|were|is|are|has been|have been|had been)\s+)?(?P<verb>[a-z]+(?:s|ed|en))\s+"
    r"(?P<rest>(?:the|a|an|into|to|by|from|of|in|on|with|for|this|that|his|her|its|their)\b[^?]*)",
    re.I,
)
"""A question whose "what" or "who" is its verb's subject, the verb spelled as one (-s, -ed, -en)
and followed by its object or a preposition: "What precedes the period …", "Who argued for …",
"What was absorbed into …" (not "What church in Virginia is …": no verb ending)."""
_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
_AUX = frozenset({"is", "are", "was", "were", "be", "been", "being"})
REACH = 8
"""Words after the verb that count as its object's (a rule, not a tuned value)."""


def reversed_roles(question: str, sentence: str) -> str:
    """Where ``sentence`` uses the verb of a subject question (:data:`_SUBJECT_QUESTION`) in the
    same voice, with a term of what the question puts after the verb only before it in the
    sentence, and other words after it: the sentence says the reverse.

    A passive sentence with its agent ("was challenged by the work of …") answers an active
    question, so it is never a reversal; nor is a participle ("a film starring X") or a
    capitalised name ("the IPCC Trust Fund" for "funds").

    Returns:
        The sentence's words from the verb on (``"absorbed into the Anglo-Saxon"``), or ``""``.
    """
    asked = _SUBJECT_QUESTION.match(question)
    if not asked or asked["verb"].lower() in STOPWORDS or not (verb := terms(asked["verb"])):
        return ""
    objects = terms(asked["rest"])
    words = _WORD.findall(sentence)
    stems = [terms(w) for w in words]
    for at, stem in enumerate(stems):
        if stem != verb or not words[at].islower() or words[at].endswith("ing"):
            continue
        passive = any(w.lower() in _AUX for w in words[max(0, at - 3) : at])
        if passive != bool(asked["aux"]) or (passive and words[at + 1 : at + 2] == ["by"]):
            continue
        before = {t for s in stems[max(0, at - 12) : at] for t in s}
        after = {t for s in stems[at + 1 : at + 1 + REACH] for t in s}
        if after and any(t in before and t not in after for t in objects):
            return " ".join(words[at : at + 4])
    return ""
