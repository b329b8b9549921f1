"""Generation: the final answer, citing the evidence by number ``[n]``, with a short answer.

* :class:`ExtractiveGenerator` — answer-type extractive QA (Moldovan et al. 2000; Brill et al.
  2002): the question's expected answer type (:mod:`deciders.answer_types`), evidence sentences
  ranked by IDF-weighted, proximity-aware support and embedding similarity
  (:mod:`deciders.answer_support`), the best one holding a span of that type as the answer and
  the span as the short answer (:mod:`deciders.short_answer`); comparisons answered by comparing values
  (:mod:`deciders.comparison`); an abstention when nothing supports an answer.
* :class:`deciders.llm_generator.LLMGenerator` — the model's version.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, Mapping, Protocol, Sequence

from langchain_core.embeddings import Embeddings
from langchain_core.messages import BaseMessage

from core.text import coverage, names, strip_qualifier, term_set, terms
from core.tuning import TUNING, Tuning
from core.wording import PLAIN_FORM, Synonyms, asked, equated, focus_weights
from deciders import yes_no
from deciders.answer_support import (
    Candidate,
    answer_sentences,
    blended_support,
    joint_support,
    rank_candidates,
)
from deciders.answer_types import UNTYPED, AnswerType, counted_phrase, default_check, expected_type, subject_weights
from deciders.chunks import HopChunk
from deciders.comparison import Comparison, compare
from deciders.contrast import contradicted, denied, unmentioned, unnegated
from deciders.decomposer import PARALLEL
from deciders.lexicon import MODEL_FREE, measured_subject
from deciders.passages import citation_marks, cite, closest_passages, renumbered, with_context
from deciders.rare_names import unsaid_rare_names
from deciders.rivals import rival_entry
from deciders.roles import reversed_roles
from deciders.router import classify_complexity, direct_reply
from deciders.short_answer import chosen_option, short_answer
from deciders.spans import spans

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
    short_answer: str | None = None
    """The value, name, date, command or yes/no the question asks for, when one was found."""
    abstained: bool = False
    """True when the answer says the documents do not answer the question."""
    support: float | None = None
    """How well the evidence supports the answer (or, for an abstention, the closest sentence),
    0–1: the blended term and embedding support of the answer sentences, scaled by
    ``untyped_support`` when no answer span backs it, by ``unsaid_focus_support`` when a value's
    sentence does not say the question's rarest term; 0 for an abstention on a thing no document
    names; 1 for an abstention on a question with no content word (nothing was looked for, so
    the abstention is not sure); ``None`` when the generator cannot say (an LLM answer)."""


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


def _unsaid_focus(best: Candidate, weights: Mapping[str, float], request: AnswerRequest) -> bool:
    """Whether a rarest term of the question (``weights``' heaviest; any of several as heavy) is not said by
    ``best``'s sentence, its context or its chunk's title, nor by an equivalent (``request.synonyms``)."""
    text = f"{best.chunk['title']} {with_context(best)}"
    said = equated(term_set(text) | term_set(text.replace("_", " ")), request.synonyms or {})  # "naptime" too
    return bool(weights) and any(t not in said for t, w in weights.items() if w == max(weights.values()))


class ExtractiveGenerator:
    """Answers with the evidence sentence that best supports an answer of the expected type
    (:func:`deciders.answer_support.rank_candidates`), plus up to ``answer_sentences − 1``
    sentences adding question terms it lacks, each followed by its citation mark ``[n]``; the
    short answer is the typed span of the best sentence. Abstains — says the documents do not
    answer, and shows the closest passages — when the question names something no document
    contains (``absent_terms``) or names only in passing elsewhere than the answer's chunks
    (``rare_names``), or a single-hop question names something no evidence chunk mentions
    (:func:`deciders.contrast.unmentioned`) or asks with a negation the answer does not state
    (:func:`deciders.contrast.unnegated`), or no sentence holding such a span supports at least
    ``min_answer_support`` of the question — for a single-hop question the best sentence alone
    (one fact is stated in one place: two half-matching sentences from different chunks are no
    answer), for a chain the chosen sentences together."""

    def __init__(self, tuning: Tuning = TUNING, embeddings: Embeddings | None = None) -> None:
        self.tuning = tuning
        self.embeddings = embeddings

    def select(self, ranked: Sequence[Candidate], kind: AnswerType, weights: dict[str, float]) -> list[Candidate]:
        """The answer sentences: the best candidate holding a span of type ``kind`` (any for
        ``other``), then — for a chain across documents — the best candidates from other chunks
        that raise the sentences' joint support: any gain from a chunk about something a chosen
        sentence names (the next link of the chain), at least ``new_terms_share`` otherwise."""
        best = next((c for c in ranked if kind in UNTYPED or c.spans), None)
        if best is None:
            return []
        chosen = [best]
        while len(chosen) < self.tuning.answer_sentences:
            named = " ".join(c.sentence for c in chosen).lower()
            used = {c.chunk["chunk_id"] for c in chosen}
            before = joint_support([c.credits for c in chosen], weights)
            gains = [
                (len(title := strip_qualifier(c.chunk["title"]).lower()) > 2 and title in named, gain, c)
                for c in ranked
                if c.chunk["chunk_id"] not in used
                and (gain := joint_support([x.credits for x in [*chosen, c]], weights) - before) > 0
            ]
            linked = [g for g in gains if g[0]]
            pick = linked[0] if linked else next((g for g in gains if g[1] >= self.tuning.new_terms_share), None)
            if pick is None:
                break
            chosen.append(pick[2])
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
        """The answer to the whole question (a comparison's winner, a yes or no, or the best
        typed sentence), or an abstention showing the closest passages (see the class)."""
        question, evidence, mode = request.question, request.evidence, request.mode
        kind = expected_type(question)
        weights = subject_weights(question, kind, focus_weights(question, request.term_weights))
        if mode == "answer" and not request.absent_terms:
            verdict = compare(question, evidence)
            if verdict is None and kind == "yes_no":
                verdict = yes_no.check(question, evidence, weights, self.tuning.yes_no_share)
            if verdict is not None:
                return compared(verdict, weights)
        ranked = rank_candidates(
            question, kind, evidence, weights, self.tuning, request.avoid, self.embeddings, request.synonyms
        )
        # the entry of an option the question names ("vacuumdb -f"): the link to an answer another page states
        link = next((c for c in ranked if c.chunk.get("entry_named") and c.sentence in c.chunk["matched_entry"]), None)
        if ranked and denied(question, with_context(ranked[0])):  # a denying best yields to an as well supported one
            top = ranked[0].support
            ranked = sorted(ranked, key=lambda c: c.support < top or bool(denied(question, with_context(c))))
        # a yes/no or lock about named code needs a sentence naming it ("CONNECT BY", not "connections"): the best,
        # else none ("Which lock does VACUUM FULL take?" is not answered by CLUSTER's lock); a plain form's
        # sentence names it itself, not by its page's title (the VACUUM page also says VACUUM FULL's lock)
        missing: list[str] = []
        if kind in ("yes_no", "lock"):
            by_title = not (kind == "lock" and PLAIN_FORM.search(question))
            said = [f"{c.chunk['title'] if by_title else ''} {with_context(c)}" for c in ranked]
            gaps = [yes_no.unnamed(question, text, weights) for text in said]
            naming = [c for c, gap in zip(ranked, gaps, strict=True) if not gap]
            missing = [] if naming or not gaps else gaps[0]
            ranked = naming or ranked
        if kind == "lock":  # "plain VACUUM" is not the "VACUUM FULL" of the ACCESS EXCLUSIVE entry, and the lock
            # that blocks SELECT is not the one SELECT takes
            ranked = [
                c
                for c in ranked
                if not (yes_no.longer_command(question, with_context(c)) or yes_no.conflict_only(question, c.sentence))
            ] or ranked
        chosen = self.select(ranked, kind, weights)
        if kind == "lock" and blended_support(chosen[:1], weights, self.tuning) < self.tuning.min_answer_support:
            kind = "definition"  # no mode is said well of it: the best sentence, with no short answer, unsure
            chosen = self.select(ranked, kind, weights)
        if link is not None and chosen and link.chunk["chunk_id"] != chosen[0].chunk["chunk_id"]:
            named = replace(link, context=link.context or link.chunk.get("matched_names"))  # "-f --full: Perform …"
            chosen = [*(c for c in chosen if c.sentence != link.sentence), named]
        chain = classify_complexity(question)[0] == "multi"
        support = blended_support(chosen, weights, self.tuning)
        # one fact is stated in one sentence: a single-hop answer's best sentence must support it alone
        alone = support if chain else blended_support(chosen[:1], weights, self.tuning)
        answerable = not request.absent_terms  # a question about a thing no document names
        # a name mentioned only in passing is a thing the documents are not about, unless the answer is from there
        scene_free = asked(question)
        rare = [n for n in request.rare_names if n in scene_free]
        missing += unsaid_rare_names(question, rare, chosen, evidence, chain)
        # a question about a name or year no evidence chunk mentions ("recognized in Japan", "in 1765"); not one
        # that much of the collection holds ("PostgreSQL" in its manual), nor one of the scene before it ("OLTP")
        if chosen and not chain:
            unsaid = unmentioned(scene_free, " ".join(f"{c['title']} {c['text']}" for c in evidence))
            idf = request.term_weights or {}
            missing += [n for n in unsaid if any(idf.get(t, 99.0) >= self.tuning.common_name_idf for t in terms(n))]
        # a measure of what the sentence does not name ("1kB is 1024 bytes" for "How many bytes is a bigint?"; a
        # chain's bridge names it otherwise: "the animal" of a question about scorpions)
        if kind == "quantity" and chosen and not chain and (measured := measured_subject(question)):
            said_of = term_set(f"{chosen[0].chunk['title']} {with_context(chosen[0])}")
            missing += [measured] if not term_set(measured) <= said_of else []
        # a count of what the sentence, its context and title name none of ("How many client connections …?" is not
        # answered by "-p port: … (normally 5432)"), counts something else
        if kind in ("number", "default") and chosen and not chain and (counted := counted_phrase(question)):
            said_of = term_set(f"{chosen[0].chunk['title']} {with_context(chosen[0])}".replace("_", " "))
            missing += [counted] if not term_set(counted) & said_of else []  # autovacuum_max_workers says workers
        said = with_context(chosen[0]) if chosen else ""
        swaps = contradicted(question, said) if chosen else []  # "the second German Empire" for "the third …"
        # a question asking what did not happen, against sentences saying only what did
        denial = unnegated(question, " ".join(with_context(c) for c in chosen)) if chosen else ""
        # … saying "not" of what the question takes as given ("reached no decision"), or roles swapped (deciders.roles)
        denying = (denied(question, said) or reversed_roles(question, chosen[0].sentence)) if chosen else ""
        objection = bool(swaps or denial or denying)
        supported = chosen and alone >= self.tuning.min_answer_support and not objection
        if mode == "answer" and answerable and not missing and supported:
            # a default stated differently by another page's entry of the name: show both, unsure
            rival = rival_entry(chosen[0], ranked) if kind == "default" and not chain else None
            chosen = [chosen[0], rival] if rival else chosen
            text, cited = cite(chosen)
            if rival:
                text = text.replace(
                    f" {with_context(rival)} [", f" Under {rival.chunk['title']}: {with_context(rival)} ["
                )
            # a chain's answer is at its end: "the drummer of the band that released X" is named by the last link
            last = chain and kind != "command"  # a how-to's command is in its best sentence, not an example after it
            source = next((c for c in reversed(chosen) if c.spans or kind in UNTYPED), chosen[0]) if last else chosen[0]
            short = chosen_option(question, chosen) or short_answer(kind, source, question, None if chain else weights)
            untyped = (kind in UNTYPED and short is None) or kind == "yes_no"  # unchecked: no span, or negation cues
            # a value read where the question's rarest term is not said ("49 characters" of a C array, for a varchar)
            unsaid = (
                kind in ("default", "quantity", "number") and not chain and _unsaid_focus(chosen[0], weights, request)
            )
            support *= (self.tuning.untyped_support if untyped else 1.0) * (self.tuning.rival_support if rival else 1.0)
            support *= self.tuning.unsaid_focus_support if unsaid else 1.0
            support = round(support, 4)
            return Answer(text, cited, MODEL_FREE, short_answer=short, support=support)
        closest = closest_passages(ranked)
        # an abstention with a stated reason (a name never mentioned, a contradiction, a negation
        # the passage lacks) is as sure as its reason, however well the closest sentence matches
        support = closest[0].support if closest and answerable and not (missing or objection) else 0.0
        if not weights:  # nothing in the question to look for ("and when was that?"): no sure abstention
            support = 1.0
        never = f" (they never mention {', '.join(request.absent_terms)})" if request.absent_terms else ""
        if missing and not never:
            never = f" (no passage found says it of {', '.join(dict.fromkeys(missing))})"
        if swaps and not never:
            never = f" (the closest passage speaks of '{swaps[0][1]}', not '{swaps[0][0]}')"
        if denial and not never:
            never = f" (the question asks with '{denial}'; the closest passage says nothing in the negative)"
        if denying and not never:
            never = f" (the closest passage says '{denying}')"
        if not closest:
            text = f"{NO_ANSWER} contain an answer to this question{never}, and nothing related was found."
            return Answer(text, [], MODEL_FREE, abstained=True, support=0.0)
        body, cited = cite(closest)
        text = f"{NO_ANSWER} contain a clear answer to this question{never}. The closest passages found: {body}"
        return Answer(text, cited, MODEL_FREE, abstained=True, support=support)


def compared(comparison: Comparison, weights: dict[str, float]) -> Answer:
    """The answer to a comparison: the winner as the short answer, each option's sentence cited."""
    marks = citation_marks([chunk["chunk_id"] for *_, chunk in comparison.values])
    text = " ".join(f"{sentence} [{marks[chunk['chunk_id']]}]" for _, _, sentence, chunk in comparison.values)
    held = set().union(*(term_set(f"{chunk['title']} {sentence}") for _, _, sentence, chunk in comparison.values))
    support = round(sum(w for t, w in weights.items() if t in held) / (sum(weights.values()) or 1.0), 4)
    cited = [(n, cid) for cid, n in marks.items()]
    return Answer(text, cited, MODEL_FREE, short_answer=comparison.winner, support=support)
