"""Grounding: which claims of an answer its cited evidence does not support.

* :class:`LexicalGrounder` — a claim (answer sentence) is supported when the chunks it cites hold
  at least ``min_support`` of its content terms.
* :class:`LLMGrounder` — asks the model when the lexical check finds an unsupported claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from pydantic import BaseModel

from core.text import coverage, sentences, term_set
from core.tuning import TUNING, Tuning
from deciders.chunks import HopChunk
from deciders.generator import NO_ANSWER
from deciders.lexicon import MARK_RUN, MARKS, MODEL_FREE
from deciders.llm import LLMDecider, brief
from prompts import grounder as prompts


@dataclass
class Grounding:
    unsupported: list[str]
    """The answer's claims that the cited evidence does not support (empty: grounded)."""
    checked: int
    """How many claims were checked."""
    decider: str
    note: str | None = None


class Grounder(Protocol):
    """Lists the claims of an answer that its cited evidence does not support."""

    def check(self, answer: str, cited: Sequence[tuple[int, HopChunk]]) -> Grounding: ...


class LexicalGrounder:
    """Sentence-level lexical support: each answer sentence is a claim (citation marks close the
    sentence before them); it is supported when the chunks it cites (all cited chunks, when it
    cites none) hold at least ``min_support`` of its stemmed content terms (title included). A
    lexical stand-in for the entailment checks of attribution evaluation (Rashkin et al. 2023,
    "Measuring Attribution in Natural Language Generation Models"; Gao et al. 2023, ALCE): it
    catches invented names and numbers, not paraphrased contradictions."""

    def __init__(self, tuning: Tuning = TUNING) -> None:
        self.min_support = tuning.min_support

    def check(self, answer: str, cited: Sequence[tuple[int, HopChunk]]) -> Grounding:
        by_mark = {mark: f"{chunk['title']} {chunk['text']}" for mark, chunk in cited}
        unsupported, checked = [], 0
        pieces = MARK_RUN.split(answer)  # text, marks, text, marks, …: marks close the text before them
        for text, marks in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
            claims = sentences(text)
            for number, claim in enumerate(claims):
                claim_terms = term_set(claim)
                if not claim_terms or claim.endswith("?") or claim.startswith(NO_ANSWER):
                    continue  # a question, or a statement of absence, asserts nothing to support
                checked += 1
                own = [int(m) for m in MARKS.findall(marks) if int(m) in by_mark] if number == len(claims) - 1 else []
                support = " ".join(by_mark[m] for m in own) if own else " ".join(by_mark.values())
                if coverage(claim_terms, support) < self.min_support:
                    unsupported.append(claim)
        return Grounding(unsupported, checked, MODEL_FREE)


class GroundOut(BaseModel):
    """The LLM grounder's reply."""

    unsupported: list[brief(300)]


class LLMGrounder(LLMDecider):
    """Runs :class:`LexicalGrounder` first and returns its verdict when every claim passes (the
    words of each claim are in its sources: no model call); otherwise asks the model which
    claims the cited passages do not support. An unusable reply keeps the lexical verdict (and
    says so)."""

    fallback = LexicalGrounder

    def check(self, answer: str, cited: Sequence[tuple[int, HopChunk]]) -> Grounding:
        lexical = self._fallback.check(answer, cited)
        if not lexical.unsupported:  # every claim's words are in its sources: no call needed
            return lexical
        chars = self.tuning.llm_passage_chars
        evidence = "\n\n".join(f"[{mark}] ({c['title']}) {c['text'][:chars]}" for mark, c in cited)
        user = prompts.USER.format(answer=answer, evidence=evidence or "(no evidence cited)")
        out, note = self.ask(GroundOut, prompts.SYSTEM, user)
        if out is None:
            lexical.note = f"{note}; lexical check instead"
            return lexical
        unsupported = [claim.strip() for claim in out.unsupported if claim.strip()]
        return Grounding(unsupported, max(len(unsupported), len(sentences(answer))), self.name)
