"""Generation: the final answer, citing the evidence by number ``[n]``, with a short answer.

* :class:`ExtractiveGenerator` — extractive QA by answer sentence selection: the learned reader
  (:mod:`deciders.reader`) ranks the evidence sentences, the best one is the answer and its span
  of the question's expected answer type (:mod:`deciders.answer_types`) the short answer; an
  abstention when the reader's calibrated probability is too low.
* :class:`deciders.llm_generator.LLMGenerator` — the model's version.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Literal, Mapping, Protocol, Sequence

from langchain_core.embeddings import Embeddings
from langchain_core.messages import BaseMessage

from core.text import coverage, is_heading, names, strip_qualifier, term_set
from core.tuning import TUNING, Tuning
from core.wording import Synonyms
from deciders.answer_types import ARTICLE, default_check, expected_type, options
from deciders.chunks import HopChunk
from deciders.comparison import Comparison, both_verdict, chosen_option, compare, page_key
from deciders.decomposer import PARALLEL
from deciders.headline import headline
from deciders.lexicon import MODEL_FREE
from deciders.passages import answer_sentences, citation_marks, cite, closest_passages, renumbered
from deciders.reader import Candidate, ReaderModel, load_model, rank
from deciders.router import classify_complexity, direct_reply
from deciders.spans import spans

GenerationMode = Literal["answer", "caveat", "direct"]

CHAIN_SENTENCES = 3
"""Most sentences a multi-hop answer cites: its best and the links it names (HotpotQA's chains
are two hops, MuSiQue's up to four; three keeps an answer short)."""

COMPLETING_WEIGHT = 0.5
"""Least IDF, as a share of the question's rarest term's, of the unsaid term a one-hop answer cites
another page for (:func:`completing`): a name asked through ("Corliss Archer"), not a common word
("value")."""

NO_ANSWER = "The documents do not"
"""How every model-free statement of absence begins (the grounding check skips them)."""


@dataclass
class Answer:
    text: str
    cited: list[tuple[int, str]] = field(default_factory=list)
    """(mark, chunk id) for every citation mark ``[mark]`` used in ``text``."""
    decider: str = ""
    note: str | None = None
    short_answer: str | None = None
    """The value, name, date, command or yes/no the question asks for, when one was found."""
    abstained: bool = False
    """True when the answer says the documents do not answer the question."""
    support: float | None = None
    """The reader's calibrated probability (0–1) that the answer sentence holds the answer (for an
    abstention, that the closest sentence would have; 0 when the question names something no
    document contains); an LLM answer has its extractive answer's; ``None`` for a direct reply."""


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
    term_weights: Mapping[str, float] = field(default_factory=dict)
    """IDF of each question term over the collection (:func:`core.text.terms` keys); empty:
    every term weighs the same."""
    absent_terms: Sequence[str] = ()
    """The question's identifiers that no document contains (named in an abstention)."""
    rare_names: Sequence[str] = ()
    """The question's code-like names and coined words that only a few chunks hold (``MySQL``,
    ``pgbouncer`` in the PostgreSQL manual): an answer must come from a chunk holding them."""
    synonyms: Synonyms = field(default_factory=dict)
    """Question terms the collection's glossary equates with others: a sentence saying "standby"
    says "replica" (:func:`core.wording.equivalents`)."""
    sub_questions: Sequence[str] = ()
    """For a decomposed question (evidence chunks carry ``sub_question``, an index into these):
    the answer says which sub-question answered which part, and which part stayed unanswered."""


class Generator(Protocol):
    """Writes the final answer, citing chunk ids of the request's evidence."""

    def generate(self, request: AnswerRequest) -> Answer: ...


class ExtractiveGenerator:
    """Answers with the evidence sentence the learned reader (:mod:`deciders.reader`) ranks best,
    after its context and followed by its citation mark ``[n]`` — for a chain across documents,
    also the best sentence of another chunk (the next link) — with the reader's calibrated
    probability as the answer's ``support``. The short answer is the sentence's span of the
    expected type when it holds exactly one (:mod:`deciders.spans`), its polarity for a yes/no
    question, else none (the sentence is the headline). Abstains — says the documents do not
    answer and shows the closest passages — when the question names something no document
    contains (``absent_terms``) or the calibrated probability is below the model's
    ``decline_below``. A comparison of named options ("Which is older, A or B?") is answered
    by comparing the values the evidence gives each (:mod:`deciders.comparison`)."""

    def __init__(
        self, tuning: Tuning = TUNING, embeddings: Embeddings | None = None, reader: ReaderModel | None = None
    ) -> None:
        self.tuning = tuning
        self.embeddings = embeddings
        self.reader = reader or load_model()

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
            if best is None or best[0] < self.tuning.part_coverage:
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
            return Answer(direct_reply(question), [], MODEL_FREE)
        if checked := default_check(question):  # "Is the default X Y?": X's default, then whether it is Y
            rare = [n for n in request.rare_names if n.lower() not in checked[1].lower()]  # the value is asked about
            value = self.answer_whole(replace(request, question=checked[0], rare_names=rare))
            if value.short_answer and not value.abstained:  # any default the answer states: "(normally 5432)"
                stated = " ".join([value.short_answer, *spans(value.text, "default", checked[0])]).lower()
                return replace(value, short_answer="Yes" if checked[1].lower() in stated else "No")
        if len(request.sub_questions) == 2 and (two := PARALLEL.match(question)):  # "the defaults of A and B"
            return self.answer_each(request, two.group("a", "b"))  # (an LLM decomposer may split it otherwise)
        whole = self.answer_whole(request)
        if not (whole.abstained and request.sub_questions) or request.absent_terms:
            return whole
        # a split question the evidence does not answer as a whole: what each part's best sentence says
        parts = self.answer_parts(request.sub_questions, evidence, request.avoid)
        parts.text = f"{NO_ANSWER} contain a clear answer to the whole question. By part:\n{parts.text}"
        parts.abstained, parts.support = True, whole.support
        return parts

    def answer_each(self, request: AnswerRequest, names: Sequence[str]) -> Answer:
        """One property asked of several names (:data:`deciders.decomposer.PARALLEL`): each part's
        answer, renumbered into one text, short answers named ("A: 10 megabytes; B: -1"), a part not
        answered said so; support: the weakest answered part's times the share of parts answered."""
        parts = [self.answer_whole(replace(request, question=sub, sub_questions=())) for sub in request.sub_questions]
        answered = [(name, part) for name, part in zip(names, parts, strict=True) if not part.abstained]
        if not answered:
            return self.answer_whole(request)
        text, cited = renumbered([(part.text, part.cited) for _, part in answered])
        if unanswered := [name for name, part in zip(names, parts, strict=True) if part.abstained]:
            text += f" {NO_ANSWER} say it of {' or '.join(unanswered)}."
        short = "; ".join(f"{name}: {part.short_answer}" for name, part in answered if part.short_answer)
        support = min(part.support or 0.0 for _, part in answered) * len(answered) / len(parts)
        return Answer(text, cited, MODEL_FREE, short_answer=short or None, support=round(support, 4))

    def answer_whole(self, request: AnswerRequest) -> Answer:
        """The answer to the whole question from the reader's best sentence, or an abstention
        showing the closest passages (see the class)."""
        question, evidence, mode = request.question, request.evidence, request.mode
        kind = expected_type(question)
        ranked = rank(question, kind, evidence, request.term_weights, self.reader, self.embeddings, request.avoid)
        confidence = round(self.reader.calibrated(ranked[0].score), 4) if ranked else 0.0
        if mode == "answer" and not request.absent_terms and (verdict := compare(question, evidence)):
            return compared(verdict, confidence)
        if mode == "answer" and ranked and not request.absent_terms and confidence >= self.reader.decline_below:
            chosen = chosen_sentences(question, ranked, request.term_weights)
            text, cited = cite(chosen)
            short = chosen_option(question, ranked) if options(question) else both_verdict(question, evidence)
            short = short or headline(kind, chosen, question, request.term_weights, evidence, self.reader)
            return Answer(text, cited, MODEL_FREE, short_answer=short, support=confidence)
        closest = closest_passages(ranked)
        never = f" (they never mention {', '.join(request.absent_terms)})" if request.absent_terms else ""
        if not closest:
            text = f"{NO_ANSWER} contain an answer to this question{never}, and nothing related was found."
            return Answer(text, [], MODEL_FREE, abstained=True, support=0.0)
        body, cited = cite(closest)
        text = f"{NO_ANSWER} contain a clear answer to this question{never}. The closest passages found: {body}"
        return Answer(text, cited, MODEL_FREE, abstained=True, support=0.0 if never else confidence)


def chosen_sentences(
    question: str, ranked: Sequence[Candidate], weights: Mapping[str, float] | None = None
) -> list[Candidate]:
    """The sentences an answer cites: the reader's best of ``ranked`` (best first; a heading line
    gives way to the sentence it heads), the best sentence of the chunk whose mention led a graph
    hop to it, and for a chain — :func:`deciders.router.classify_complexity` says ``multi``, or a
    graph hop reached some chunk of the evidence (``linked_from``) — the pages the question names
    (:func:`_named_pages`), then up to :data:`CHAIN_SENTENCES` sentences in all, each the next link
    (:func:`next_link`) of the one before; for one hop, a sentence :func:`completing` the
    question from another page. Measured (both supporting passages cited): on
    2WikiMultihopQA dev 164, 0.439 → 0.537 with the graph-hop rules, → 0.567 with the named pages;
    HotpotQA dev 200 (held out) 0.400 → 0.470 → 0.595."""
    chosen = [_headed(ranked[0], ranked)] if ranked else []
    if chosen and (source := chosen[0].chunk.get("linked_from")):
        chosen += [c for c in ranked if c.chunk["chunk_id"] == source][:1]
    chain = classify_complexity(question)[0] == "multi" or any(c.chunk.get("linked_from") for c in ranked)
    if chain:
        chosen += _named_pages(question, ranked, {c.chunk["chunk_id"] for c in chosen})[: CHAIN_SENTENCES - len(chosen)]
    while chain and chosen and len(chosen) < CHAIN_SENTENCES:  # each link after the first only to a page named
        used = {c.chunk["chunk_id"] for c in chosen}
        link = next_link(chosen[-1], [c for c in ranked if c.chunk["chunk_id"] not in used], len(chosen) > 1)
        if link is None:
            break
        chosen.append(link)
    if not chain and chosen:
        chosen += completing(question, chosen, ranked, weights or {})
    return chosen


def _said(candidate: Candidate) -> frozenset[str]:
    """The terms of a candidate as shown: its page title, its context line and the sentence."""
    return term_set(f"{candidate.chunk.get('title', '')} {candidate.context or ''} {candidate.sentence}")


def completing(
    question: str, chosen: Sequence[Candidate], ranked: Sequence[Candidate], weights: Mapping[str, float]
) -> list[Candidate]:
    """The best-ranked sentence of ``ranked`` from a page none of ``chosen`` is on that says the
    question term ``chosen`` leaves unsaid — the rarest one by its IDF in ``weights``, when that is
    at least :data:`COMPLETING_WEIGHT` of the rarest question term's (any, without weights) — as a
    list of one; empty when there is none (a term no chunk holds has the highest IDF, so a question
    whose unsaid part the documents lack gets no second page). The
    question's other part, on another page — a bridge question the complexity classifier took
    for one hop ("What position was held by the woman who portrayed Corliss Archer?") is answered
    on one page and asked through another. Greedy coverage of the question's terms, as in
    extractive multi-document summarisation (Gillick & Favre 2009). Measured on HotpotQA dev 200:
    both supporting passages cited 0.600 → 0.630, the gold answer in the answer 0.655 → 0.680."""
    missing = term_set(question) - frozenset().union(*map(_said, chosen))
    if weights and missing:
        rarest = max(sorted(missing), key=lambda term: weights.get(term, math.inf))
        heaviest = max(weights.values(), default=0.0)
        missing = {rarest} if weights.get(rarest, math.inf) >= COMPLETING_WEIGHT * heaviest else set()
    pages = {c.chunk.get("title") for c in chosen}
    return next(([c] for c in ranked if c.chunk.get("title") not in pages and _said(c) & missing), [])


def _named_pages(question: str, ranked: Sequence[Candidate], used: set[str]) -> list[Candidate]:
    """For each name of ``question`` (:func:`core.text.names`) that is the title of a page of the
    evidence (without its qualifier and article: "Robert Mcfarlane" and "Robert McFarlane
    (photographer)"), the best-ranked sentence of that page — of the page whose whole title the
    question says, when several share the name — unless a chunk in ``used`` is cited already:
    a question about two named things is answered from both their pages."""
    lowered, found = question.lower(), []
    for name in names(question):
        said = ARTICLE.sub("", name.lower())
        pages = [
            c
            for c in ranked
            if (key := page_key(c.chunk["title"], qualified=True)) and (said == key or said.endswith(f" {key}"))
        ]
        pages.sort(key=lambda c: c.chunk["title"].lower() not in lowered)  # stable: best-ranked first within each
        if pages and pages[0].chunk["chunk_id"] not in used and pages[0] not in found:
            found.append(pages[0])
            used.add(pages[0].chunk["chunk_id"])
    return found


def _headed(best: Candidate, ranked: Sequence[Candidate]) -> Candidate:
    """``best``, or when it is a heading line (:func:`core.text.is_heading`: "contextlib.suppress(
    *exceptions)", "work_mem (integer)") the sentence of its chunk it heads, which is shown after
    it (:func:`deciders.passages.with_context`): a heading names what is asked about, the
    sentence under it says it. A heading with no sentence under it in the evidence stays (a code
    line is heading-like too, and may be the answer)."""
    if not is_heading(best.sentence):
        return best
    own = best.chunk["chunk_id"]
    return next((c for c in ranked if c.chunk["chunk_id"] == own and c.context == best.sentence), best)


def next_link(last: Candidate, others: Sequence[Candidate], named_only: bool = False) -> Candidate | None:
    """A chain's next link after ``last``: the best-ranked of ``others`` (sentences of other chunks)
    from a page ``last`` names (its title, as a bridge entity: "… drummer of Rush", then Rush's
    page), else — unless ``named_only`` — the best of them (the bridge-entity hop of multi-hop QA,
    as in HotpotQA's bridge questions, Yang et al. 2018); ``None`` when there is none."""
    said = f"{last.context or ''} {last.sentence}".lower()
    named = [c for c in others if len(title := strip_qualifier(c.chunk["title"]).lower()) > 2 and title in said]
    return next(iter(named or ([] if named_only else others)), None)


def compared(comparison: Comparison, support: float) -> Answer:
    """The answer to a comparison: the winner as the short answer, each option's sentence cited."""
    marks = citation_marks([chunk["chunk_id"] for *_, chunk in comparison.values])
    text = " ".join(f"{sentence} [{marks[chunk['chunk_id']]}]" for _, _, sentence, chunk in comparison.values)
    cited = [(n, cid) for cid, n in marks.items()]
    return Answer(text, cited, MODEL_FREE, short_answer=comparison.winner, support=support)
