"""Link choice: which of the chunks a graph hop reached through mention links to keep.

* :class:`RankedLinkChooser` — the ``k`` best-ranked candidates (no model).
* :class:`LLMLinkChooser` — the model picks by number; an unusable or invalid pick falls back to
  the ranked order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from pydantic import BaseModel

from deciders.chunks import HopChunk
from deciders.lexicon import MODEL_FREE
from deciders.llm import LLMDecider, brief
from prompts import link_chooser as prompts


@dataclass
class LinkChoice:
    chosen: list[int]
    """Indices into the offered candidates, in the order to keep them."""
    reason: str
    decider: str
    note: str | None = None


class LinkChooser(Protocol):
    """Chooses which mention links a graph hop follows."""

    def choose(self, question: str, candidates: Sequence[HopChunk], k: int) -> LinkChoice:
        """Pick at most ``k`` of ``candidates`` (chunks reached by links, each with ``via`` and
        ``linked_from``, ranked best first by relevance to the question) to keep."""
        ...


def ranked(candidates: Sequence[HopChunk], k: int) -> list[int]:
    """The indices of the ``k`` best-ranked candidates (the first ``k``)."""
    return list(range(min(k, len(candidates))))


class RankedLinkChooser:
    """The ``k`` best candidates in their ranked order (relevance to the question)."""

    def choose(self, question: str, candidates: Sequence[HopChunk], k: int) -> LinkChoice:
        return LinkChoice(ranked(candidates, k), "best-ranked links", MODEL_FREE)


class LinksOut(BaseModel):
    """The LLM link chooser's reply."""

    follow: list[int]
    """1-based numbers of the candidates to follow, best first."""
    reason: brief(120) = ""


CANDIDATE_CHARS = 400
"""Text shown to the model of each candidate, in characters."""


class LLMLinkChooser(LLMDecider):
    """Asks the model which of the candidate links to follow (at most ``k``, by number); a
    reply out of range, repeated or over ``k`` falls back to the ranked order (with a note)."""

    def choose(self, question: str, candidates: Sequence[HopChunk], k: int) -> LinkChoice:
        best = ranked(candidates, k)
        offered = "\n\n".join(
            f"[{i}] {c['title']} (linked as '{c['via']}'): {c['text'][:CANDIDATE_CHARS]}"
            for i, c in enumerate(candidates, 1)
        )
        user = prompts.USER.format(question=question, k=k, candidates=offered)
        out, note = self.ask(LinksOut, prompts.SYSTEM, user)
        if out is None:
            return LinkChoice(best, "fallback: best-ranked links", self.name, note)
        picks = [n - 1 for n in out.follow]
        if len(picks) > k or len(set(picks)) != len(picks) or any(not 0 <= p < len(candidates) for p in picks):
            note = f"invalid choice {out.follow} (allowed: up to {k} distinct numbers 1–{len(candidates)})"
            return LinkChoice(best, "fallback: best-ranked links", self.name, note)
        return LinkChoice(picks, out.reason or "chosen by the model", self.name)
