"""The LLM generator: the model writes the short answer and a cited answer (a JSON reply, which
an OpenAI-compatible server's grammar enforces), or abstains; caveat and small-talk replies are
plain text. A failed call or an unusable reply gives :class:`ExtractiveGenerator`'s answer.

Small models often write the bare value and cite nothing; the answer is then made checkable the
way the extractive generator's is: the evidence sentence holding the short answer, cited.
"""

from __future__ import annotations

import re
from typing import Sequence

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from core.text import sentences, term_set
from core.tuning import TUNING, Tuning
from deciders.answer_types import expected_type, options
from deciders.chunks import HopChunk
from deciders.generator import NO_ANSWER, Answer, AnswerRequest, ExtractiveGenerator
from deciders.lexicon import MARKS, NO_SHORT_ANSWER, NOT_IN_DOCUMENTS
from deciders.llm import DEFAULT_LIMITS, CallLimits, LLMDecider, brief, format_conversation, format_evidence
from deciders.router import dangling_pronoun
from deciders.spans import spans
from prompts import generator as prompts

WORDS = re.compile(r"\w+")


class AnswerOut(BaseModel):
    """The LLM generator's reply in ``answer`` mode."""

    short_answer: brief(120) = ""
    """The value, name, date, command or yes/no asked for; ``none`` when the passages do not say."""
    answer: brief(400) = ""
    """One to three sentences citing the passages as ``[n]``."""


def holding(short: str, evidence: Sequence[HopChunk]) -> tuple[int, str] | None:
    """The first passage (1-based number) whose text holds ``short`` (case-insensitive), and its
    first sentence that does; ``None`` when no passage holds it."""
    needle = short.lower()
    for number, chunk in enumerate(evidence, 1):
        if needle in chunk["text"].lower():
            found = [s for s in sentences(chunk["text"]) if needle in s.lower()]
            return number, (found[0] if found else short)
    return None


def plain(text: str) -> str:
    """Lower-case words only, single-spaced: for finding a short answer in a passage."""
    return " ".join(WORDS.findall(text.lower()))


def invented(short: str, question: str, evidence: Sequence[HopChunk]) -> bool:
    """Whether a short answer appears in no passage (title or text, compared word by word); a
    yes/no answer is never literal, so never invented."""
    if expected_type(question) == "yes_no" or short.lower() in {"yes", "no"}:
        return False
    needle = plain(short)
    return bool(needle) and not any(needle in plain(f"{c['title']} {c['text']}") for c in evidence)


CHECKED_TYPES = frozenset({"yes_no", "date", "number", "quantity"})
"""Expected answer types whose short answers are checked by form (names are not: a name's form
says little)."""


def wrong_type(short: str, question: str) -> bool:
    """Whether a short answer lacks the form the question asks for (:func:`expected_type`): a
    yes/no question answered with neither, or a date, number or quantity question answered
    without one — the answer-type check of typed QA (Moldovan et al. 2000)."""
    kind = expected_type(question)
    if kind not in CHECKED_TYPES:
        return False
    if kind == "yes_no":
        return plain(short).split(" ")[0] not in {"yes", "no"}
    return not spans(short, kind)


def same_answer(one: str, other: str) -> bool:
    """Whether two short answers name the same thing: one's words contain the other's."""
    one, other = plain(one), plain(other)
    return bool(one and other) and (one in other or other in one)


def cited_answer(short: str, text: str, evidence: Sequence[HopChunk]) -> str:
    """``text`` with its marks kept when it has any; otherwise cited to the passage holding the
    short answer — replaced by that passage's sentence when ``text`` adds nothing to the short
    answer (a bare value)."""
    if MARKS.search(text) or not short:
        return text
    found = holding(short, evidence)
    if found is None:
        return text
    number, sentence = found
    bare = not text or term_set(text) <= term_set(short)
    return f"{sentence if bare else text} [{number}]"


def with_options(question: str, text: str, evidence: Sequence[HopChunk]) -> str:
    """``text`` followed, for a choice question ("…, A or B?"), by the first evidence sentence
    naming each option ``text`` does not name, cited: the reader sees both sides of the choice."""
    added = []
    for option in options(question):
        if option.lower() in text.lower():
            continue
        if found := holding(option, evidence):
            added.append(f"{found[1]} [{found[0]}]")
    return " ".join([text, *added])


class LLMGenerator(LLMDecider):
    """Asks the model for the answer: in ``answer`` mode a JSON reply (:class:`AnswerOut`), in
    ``caveat`` and ``direct`` mode plain text. Citation marks that point to no passage are
    dropped; an uncited answer is cited by :func:`cited_answer`; the answer to a choice question
    cites each option's evidence (:func:`with_options`). A short answer of "none" or an
    answer saying the documents do not contain it abstains. A failed call, an empty reply, a
    short answer no passage holds (:func:`invented`) or one of the wrong form
    (:func:`wrong_type`) gives :class:`ExtractiveGenerator`'s answer (and says so); so does a
    short answer that disagrees with an extractive answer whose support is at least
    ``tuning.extractive_over_model``, and so does the regeneration of a draft the grounding
    check rejected (``request.avoid``): quoted evidence sentences instead of a second model call,
    which on HotpotQA repeated unsupported claims in 23 of 29 regenerations. The answer's
    ``support`` is the extractive answer's, so its confidence is the learned reader's calibrated
    probability, as in model-free mode: one confidence whichever generator writes the answer.

    Args:
        model: the chat model.
        tuning: answer and call budgets.
        limits: timeout, retries and concurrency of each call.
        embeddings: the extractive answer's sentence embeddings (as the model-free generator's).
    """

    def __init__(
        self,
        model: BaseChatModel,
        tuning: Tuning = TUNING,
        limits: CallLimits = DEFAULT_LIMITS,
        embeddings: Embeddings | None = None,
    ) -> None:
        super().__init__(model, tuning, limits)
        self._fallback = ExtractiveGenerator(tuning, embeddings)

    def _doubt(self, short: str, request: AnswerRequest, extractive: Answer) -> str | None:
        """Why the model's short answer is not kept — in no passage, of the wrong form, or against
        a well-supported extractive one — or ``None``."""
        question = request.question
        if invented(short, question, request.evidence):
            return f"short answer {short!r} is in no passage"
        if wrong_type(short, question):
            return f"short answer {short!r} is not the {expected_type(question)} asked for"
        strong = not extractive.abstained and (extractive.support or 0.0) >= self.tuning.extractive_over_model
        if strong and extractive.short_answer and not same_answer(short, extractive.short_answer):
            return f"short answer {short!r} disagrees with a well-supported {extractive.short_answer!r}"
        return None

    def generate(self, request: AnswerRequest) -> Answer:
        evidence = request.evidence
        if request.mode == "direct" and dangling_pronoun(request.question):  # a fixed clarifying question
            return self._fallback.generate(request)
        if request.avoid and request.mode == "answer":  # the model's draft failed the grounding check
            regenerated = self._fallback.generate(request)
            regenerated.note = (
                f"the model's draft had {len(request.avoid)} unsupported claim(s); extractive answer instead"
            )
            return regenerated
        user = prompts.USER.format(
            evidence=format_evidence(evidence, self.tuning.llm_passage_chars),
            conversation=format_conversation(request.conversation),
            question=request.question,
        )
        if request.sub_questions:
            parts = "\n".join(f"({i}) {q}" for i, q in enumerate(request.sub_questions, 1))
            user += prompts.SUB_QUESTIONS.format(sub_questions=parts)
        short = None
        if request.mode == "answer":
            out, failure = self.ask(AnswerOut, prompts.ANSWER_SYSTEM, user, self.tuning.llm_answer_tokens)
            short = (out.short_answer.strip(" .*`'\"\n") or None) if out else None
            text = out.answer.strip() if out else ""
            if out is not None and not (short or text):
                failure = "empty reply"
        else:
            system = prompts.CAVEAT_SYSTEM if request.mode == "caveat" else prompts.DIRECT_SYSTEM
            text, failure = self.ask_text(system, user, self.tuning.llm_answer_tokens)
            text = text or ""
            bare = text.strip(" .`'\"").lower()
            failure = failure or ("empty reply" if not bare or bare in NO_SHORT_ANSWER else None)
        named = bool(short) and short.lower() not in NO_SHORT_ANSWER  # a short answer exists in answer mode only
        extractive = self._fallback.generate(request)  # its reader's probability is the answer's confidence too
        failure = failure or (self._doubt(short, request, extractive) if named else None)
        if failure:
            extractive.note = f"{failure}; extractive answer instead"
            return extractive
        if request.mode == "caveat" and not NOT_IN_DOCUMENTS.match(text):  # say it first, whatever the model wrote
            text = f"{NO_ANSWER} contain a clear answer to this question. {text}"
        abstained = request.mode == "caveat" or bool(NOT_IN_DOCUMENTS.match(text))
        if request.mode == "answer":
            abstained = abstained or (short or "").lower() in NO_SHORT_ANSWER
            text = f"{NO_ANSWER} contain the answer to this question." if abstained and not text else text
            text = (
                text
                if abstained
                else with_options(request.question, cited_answer(short or "", text or short, evidence), evidence)
            )
        text = MARKS.sub(lambda m: m.group(0) if 1 <= int(m.group(1)) <= len(evidence) else "", text).strip()
        numbers = [int(n) for n in MARKS.findall(text)]
        cited = [(n, evidence[n - 1]["chunk_id"]) for n in dict.fromkeys(numbers)]
        short = None if abstained or request.mode != "answer" else short
        return Answer(text, cited, self.name, short_answer=short, abstained=abstained, support=extractive.support)
