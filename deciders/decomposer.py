"""Decomposition: splitting a compound or comparison question into sub-questions searched apart.

* :class:`RuleDecomposer` — splits on the surface form (choices, joint properties, two clauses).
* :class:`LLMDecomposer` — asks the model; an unusable reply falls back to the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel

from core.text import exact_names
from core.tuning import TUNING, Tuning
from deciders.lexicon import BOTH, CHOICE, CLAUSES, MODEL_FREE
from deciders.llm import LLMDecider, brief
from prompts import decomposer as prompts

_NAME_START = re.compile(r"[\W_]*(?:(?:[Tt]he|[Aa]n?)\s+)?[A-Z0-9]")
PARALLEL = re.compile(r"^(?P<stem>.*\b(?:of|for))\s+(?P<a>[\w.]+)\s+and\s+(?P<b>[\w.]+)\s*\?$", re.I)
"""One property asked of two names: "What are the default values of log_rotation_size and
log_truncate_on_rotation?" (split when both are spelled as code: :func:`core.text.exact_names`)."""


def named(option: str) -> bool:
    """Whether a choice's option is a name — capitalised or a number after any quote marks and
    article ("the French Bulldog", "...And God Created Them") — not a clause ("shown in MB",
    "what does it behave like")."""
    return bool(_NAME_START.match(option))


@dataclass
class Decomposition:
    sub_questions: list[str]
    """2 to ``max_sub_questions`` sub-questions, or empty when the question does not split."""
    reason: str
    decider: str
    note: str | None = None


class Decomposer(Protocol):
    """Splits a compound or comparison question into 2–4 sub-questions (none when it does not
    split)."""

    def decompose(self, question: str) -> Decomposition: ...


class RuleDecomposer:
    """Splits on the surface form (the model-free fallback of least-to-most / decomposed
    prompting, Zhou et al. 2023; Khot et al. 2023):

    * a choice between names — "Which is older, Blur or Oasis?" → "Blur: which is older?",
      "Oasis: which is older?" (not "…, shown in MB or GB?");
    * a joint property — "Are A and B both X?" → "Are A X?", "Are B X?";
    * one property of two names spelled as code — "What is the default of A and B?" → "What is
      the default of A?", "What is the default of B?" (:data:`PARALLEL`);
    * two clauses on one subject — "Which band released X and had Y?" → "Which band released X?",
      "Which had Y?".

    A split into more than ``max_sub_questions`` parts is refused.
    """

    def __init__(self, tuning: Tuning = TUNING) -> None:
        self.max_sub_questions = tuning.max_sub_questions

    def decompose(self, question: str) -> Decomposition:
        text = question.strip()
        if match := CHOICE.match(text):
            options = [o.strip() for o in match["options"].split(",") if o.strip()] + [match["last"].strip()]
            if not all(map(named, options)):
                return Decomposition([], "an 'or' between clauses, not named options", MODEL_FREE)
            stem = match["stem"].strip().rstrip("?")
            subs = [f"{option}: {stem[0].lower()}{stem[1:]}?" for option in options]
            reason = "a choice between named options"
        elif match := BOTH.match(text):
            rest = f" {match['rest']}" if match["rest"] else ""
            subs = [f"{match['aux']} {side.strip()}{rest}?" for side in (match["a"], match["b"])]
            reason = "a property asked of two things"
        elif (match := PARALLEL.match(text)) and exact_names(f"{match['a']} {match['b']}") == [match["a"], match["b"]]:
            subs = [f"{match['stem']} {match['a']}?", f"{match['stem']} {match['b']}?"]
            reason = "one property asked of two names"
        elif match := CLAUSES.match(text):
            subs = [f"{match['wh']}{match['first']}?", f"{match['wh']} {match['second']}?"]
            reason = "two clauses about one subject"
        else:
            return Decomposition([], "no conjunction or comparison to split on", MODEL_FREE)
        if not 2 <= len(subs) <= self.max_sub_questions:
            return Decomposition([], f"{len(subs)} parts (2–{self.max_sub_questions} allowed)", MODEL_FREE)
        return Decomposition(subs, reason, MODEL_FREE)


class DecomposeOut(BaseModel):
    """The LLM decomposer's reply."""

    sub_questions: list[brief(300)]


class LLMDecomposer(LLMDecider):
    """Asks the model for 2–4 sub-questions; a reply that is not JSON, or has 1 or more than
    ``max_sub_questions`` sub-questions, falls back to :class:`RuleDecomposer` (and says so).
    (The graph asks only about questions with a conjunction or choice word:
    :func:`graph.policy.could_split`.)"""

    fallback = RuleDecomposer

    def decompose(self, question: str) -> Decomposition:
        user = prompts.USER.format(question=question)
        out, note = self.ask(DecomposeOut, prompts.SYSTEM, user)
        subs = [q.strip() for q in out.sub_questions if q.strip()] if out else []
        if out is not None and not subs:
            return Decomposition([], "the model found nothing to split", self.name)
        if out is None or not 2 <= len(subs) <= self.tuning.max_sub_questions:
            note = note or f"{len(subs)} sub-questions (2–{self.tuning.max_sub_questions} allowed)"
            fallback = self._fallback.decompose(question)
            fallback.note = f"{note}; rule-based split instead"
            return fallback
        return Decomposition(subs, "split by the model", self.name)
