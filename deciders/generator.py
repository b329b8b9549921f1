"""Generation: the final answer, citing the evidence by number ``[n]``.

* :class:`ExtractiveGenerator` — extractive QA: greedily selects the evidence sentences that
  cover the most question terms not yet covered (query-focused extractive summarisation, after
  Carbonell & Goldstein 1998, MMR), each cited by its chunk.
* :class:`LLMGenerator` — the model writes the answer; a failed call or an empty reply gives the
  extractive answer instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from core.text import coverage, names, sentences, term_set
from core.tuning import TUNING, Tuning
from deciders.chunks import HopChunk
from deciders.lexicon import FAREWELLS, GREETINGS, MARKS, MODEL_FREE, THANKS, WORD
from deciders.llm import LLMDecider, format_conversation, format_evidence, short_error
from prompts import generator as prompts

GenerationMode = Literal["answer", "caveat", "direct"]

NO_ANSWER = "The documents do not"
"""How every model-free statement of absence begins (the grounding check skips them)."""


@dataclass
class Answer:
    text: str
    cited: list[tuple[int, str]] = field(default_factory=list)
    """(mark, chunk id) for every citation mark ``[mark]`` used in ``text``."""
    decider: str = ""
    note: str | None = None


@dataclass(frozen=True)
class AnswerRequest:
    """What a generator is asked to answer, and from what."""

    question: str
    evidence: Sequence[HopChunk]
    """The chunks to answer from, cited as ``[1]``, ``[2]``, … in this order."""
    mode: GenerationMode
    """``answer`` from enough evidence, ``caveat`` (say the documents do not answer, show the
    closest passages), or ``direct`` (small talk, no evidence)."""
    conversation: Sequence[BaseMessage] = ()
    avoid: Sequence[str] = ()
    """Claims a grounding check found unsupported in the previous draft: leave them out."""
    sub_questions: Sequence[str] = ()
    """For a decomposed question (evidence chunks carry ``sub_question``, an index into these):
    the answer says which sub-question answered which part, and which part stayed unanswered."""


class Generator(Protocol):
    """Writes the final answer, citing chunk ids of the request's evidence."""

    def generate(self, request: AnswerRequest) -> Answer: ...


def citation_marks(cited: Sequence[str]) -> dict[str, int]:
    """Number each cited chunk id 1, 2, … in order of first citation."""
    marks: dict[str, int] = {}
    for cid in cited:
        marks.setdefault(cid, len(marks) + 1)
    return marks


def answer_sentences(chunk: HopChunk, avoid: Sequence[str] = ()) -> list[str]:
    """Sentences of a chunk an extractive answer may use: not one that only repeats the chunk's
    title (a heading line), and none in ``avoid``."""
    title_terms = term_set(chunk["title"])
    return [s for s in sentences(chunk["text"]) if s not in avoid and not term_set(s) <= title_terms]


class ExtractiveGenerator:
    """Answers with at most ``answer_sentences`` evidence sentences, each followed by its
    citation mark ``[n]``; sentences named in ``avoid`` are not used."""

    def __init__(self, tuning: Tuning = TUNING) -> None:
        self.max_sentences = tuning.answer_sentences
        self.part_coverage = tuning.part_coverage

    def select(self, question: str, evidence: Sequence[HopChunk], avoid: Sequence[str] = ()) -> list[tuple[str, str]]:
        """Greedy selection of (sentence, chunk id) maximising newly covered question terms,
        ties broken by evidence order; returned in selection order."""
        q_terms = term_set(question)
        # A sentence counts its chunk's title: "He was born in 1990" answers a question about
        # the person the chunk is titled after.
        pool = [
            (sentence, chunk["chunk_id"], rank, (term_set(sentence) | term_set(chunk["title"])) & q_terms)
            for rank, chunk in enumerate(evidence)
            for sentence in answer_sentences(chunk, avoid)
        ]
        chosen: list[tuple[str, str]] = []
        covered: frozenset[str] = frozenset()
        while pool and len(chosen) < self.max_sentences:
            best = max(pool, key=lambda item: (len(item[3] - covered), -item[2]))
            if chosen and not best[3] - covered:
                break
            chosen.append((best[0], best[1]))
            covered |= best[3]
            pool.remove(best)
        return chosen

    def answer_parts(self, sub_questions: Sequence[str], evidence: Sequence[HopChunk], avoid: Sequence[str]) -> Answer:
        """One line per sub-question: the evidence sentence covering most of its terms (at least
        ``part_coverage``, and every term of the part's subject — its first name — in the
        sentence or its chunk's title; a chunk retrieved for that sub-question wins ties), or a
        plain statement that the documents do not answer that part."""
        lines, cited = [], []
        for number, sub in enumerate(sub_questions):
            terms = term_set(sub)
            subject = term_set(names(sub)[0]) if names(sub) else frozenset()
            candidates = [
                (coverage(terms, f"{chunk['title']} {text}"), chunk.get("sub_question") == number, -rank, text, chunk)
                for rank, chunk in enumerate(evidence)
                for text in answer_sentences(chunk, avoid)
                if subject <= term_set(f"{chunk['title']} {text}")  # about the part's own subject
            ]
            best = max(candidates, default=None, key=lambda item: item[:3])
            if best is None or best[0] < self.part_coverage:
                lines.append(f"({number + 1}) {sub} {NO_ANSWER} answer this part.")
                continue
            cited.append(best[4]["chunk_id"])
            marks = citation_marks(cited)
            lines.append(f"({number + 1}) {sub} {best[3]} [{marks[best[4]['chunk_id']]}]")
        marks = citation_marks(cited)
        return Answer("\n".join(lines), [(n, cid) for cid, n in marks.items()], MODEL_FREE)

    def generate(self, request: AnswerRequest) -> Answer:
        question, evidence, mode = request.question, request.evidence, request.mode
        if mode == "direct":
            words = set(WORD.findall(question.lower()))
            if words & THANKS:
                text = "You're welcome. Ask me anything about the ingested documents."
            elif words & FAREWELLS:
                text = "Goodbye!"
            elif words & GREETINGS:
                text = "Hello! Ask me a question about the ingested documents."
            else:
                text = "Noted. Ask me a question about the ingested documents."
            return Answer(text, [], MODEL_FREE)
        if request.sub_questions:
            parts = self.answer_parts(request.sub_questions, evidence, request.avoid)
            if mode == "caveat":
                parts.text = f"{NO_ANSWER} contain a clear answer to the whole question. By part:\n{parts.text}"
            return parts
        chosen = self.select(question, evidence, request.avoid)
        marks = citation_marks([cid for _, cid in chosen])
        body = " ".join(f"{sentence} [{marks[cid]}]" for sentence, cid in chosen)
        if mode == "caveat":
            if not chosen:
                return Answer(
                    f"{NO_ANSWER} contain an answer to this question, and nothing related was found.", [], MODEL_FREE
                )
            text = f"{NO_ANSWER} contain a clear answer to this question. The closest passages found: {body}"
            return Answer(text, [(n, cid) for cid, n in marks.items()], MODEL_FREE)
        return Answer(body, [(n, cid) for cid, n in marks.items()], MODEL_FREE)


class LLMGenerator(LLMDecider):
    """Asks the model for the answer (system prompt by mode), then reads its citation marks; a
    failed call or an empty reply gives :class:`ExtractiveGenerator`'s answer (and says so)."""

    fallback = ExtractiveGenerator

    def generate(self, request: AnswerRequest) -> Answer:
        question, evidence, mode = request.question, request.evidence, request.mode
        system = {
            "answer": prompts.ANSWER_SYSTEM,
            "caveat": prompts.CAVEAT_SYSTEM,
            "direct": prompts.DIRECT_SYSTEM,
        }[mode]
        user = prompts.USER.format(
            conversation=format_conversation(request.conversation),
            question=question,
            evidence=format_evidence(evidence, self.tuning.llm_passage_chars),
        )
        if request.sub_questions:
            parts = "\n".join(f"({i}) {q}" for i, q in enumerate(request.sub_questions, 1))
            user += prompts.SUB_QUESTIONS.format(sub_questions=parts)
        if request.avoid:
            user += prompts.AVOID.format(claims="\n".join(f"- {claim}" for claim in request.avoid))
        try:
            text = str(self.model.invoke([SystemMessage(system), HumanMessage(user)]).content).strip()
            failure = None if text else "empty reply"
        except Exception as exc:
            text, failure = "", f"model call failed ({short_error(exc)})"
        if failure:
            answer = self._fallback.generate(request)
            answer.note = f"{failure}; extractive answer instead"
            return answer
        numbers = [int(n) for n in MARKS.findall(text)]
        cited = [(n, evidence[n - 1]["chunk_id"]) for n in dict.fromkeys(numbers) if 1 <= n <= len(evidence)]
        return Answer(text, cited, self.name)
