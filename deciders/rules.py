"""Model-free deciders: they need no API key, no network and no model beyond the tokenizer.

* :class:`RuleRouter` — answers small talk directly, retrieves for everything else.
* :class:`LexicalGrader` — judges a chunk by its retrieval score and its coverage of the
  question's terms.
* :class:`FeedbackReformulator` — pseudo-relevance feedback (Rocchio 1971; Xu & Croft 1996): the
  next query is an entity that the best evidence names and the question does not (the bridge
  entity of a multi-hop question), taken from the evidence sentences that best match the question.
* :class:`LexicalGrounder` — a claim (answer sentence) is supported when the chunks it cites
  hold at least ``min_support`` of its content terms.
* :class:`ExtractiveGenerator` — extractive QA: greedily selects the evidence sentences that
  cover the most question terms not yet covered (query-focused extractive summarisation, after
  Carbonell & Goldstein 1998, MMR), each cited by its chunk.
"""

from __future__ import annotations

import re
from typing import Sequence

from langchain_core.messages import BaseMessage

from deciders.base import (
    Answer,
    ChunkVerdict,
    Decomposition,
    Expansion,
    ExpansionKind,
    GenerationMode,
    Grading,
    Grounding,
    LinkChoice,
    Reformulation,
    RouteDecision,
)
from deciders.text import coverage, names, normalise_query, sentences, strip_qualifier, term_set
from store.chunks import DENSE_WEIGHT, RRF_K, Chunk

NAME = "rules"

_SMALL_TALK = {
    "hi",
    "hello",
    "hey",
    "hiya",
    "howdy",
    "yo",
    "greetings",
    "good",
    "morning",
    "afternoon",
    "evening",
    "day",
    "thanks",
    "thank",
    "thx",
    "ty",
    "you",
    "so",
    "very",
    "much",
    "a",
    "lot",
    "ok",
    "okay",
    "k",
    "cool",
    "great",
    "nice",
    "perfect",
    "awesome",
    "got",
    "it",
    "understood",
    "alright",
    "fine",
    "sure",
    "yes",
    "no",
    "yep",
    "nope",
    "bye",
    "goodbye",
    "cheers",
    "see",
    "later",
    "again",
    "there",
    "appreciated",
    "wow",
    "that",
    "helps",
    "helped",
    "makes",
    "sense",
}
_THANKS = {"thanks", "thank", "thx", "ty", "appreciated", "cheers", "helps", "helped"}
_GREETING = {"hi", "hello", "hey", "hiya", "howdy", "yo", "greetings", "morning", "afternoon", "evening"}
_FAREWELL = {"bye", "goodbye", "later"}
_MAX_SMALL_TALK_WORDS = 8
_MONTHS = {
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
}


def citation_marks(cited: Sequence[str]) -> dict[str, int]:
    """Number each cited chunk id 1, 2, … in order of first citation."""
    marks: dict[str, int] = {}
    for cid in cited:
        marks.setdefault(cid, len(marks) + 1)
    return marks


_PRONOUN = re.compile(r"\b(he|she|him|her|it|they|them|his|its|their)\b", re.IGNORECASE)
_POSSESSIVE = {"his", "its", "their"}
_LEADING_CONNECTIVE = re.compile(r"^(?:and|so|also|then)\b[\s,]*", re.IGNORECASE)
_CITATION_MARK = re.compile(r"\s*\[\d+\]")


def contextualize(question: str, conversation: Sequence[BaseMessage]) -> str | None:
    """Rule-based anaphora resolution for follow-ups: replace the first personal pronoun with the
    entity the previous turn was about — the title of the first chunk the previous answer cited
    (without a parenthesised qualifier), else the first name in that answer, else in the
    previous question. Returns ``None`` when the question has no pronoun or no earlier turn."""
    match = _PRONOUN.search(question)
    if not match or not conversation:
        return None
    previous = [m for m in conversation if m.type in ("human", "ai")][-2:]
    entity = None
    for message in reversed(previous):  # the answer first, then the question it answered
        titles = message.additional_kwargs.get("cited_titles") or []
        found = [strip_qualifier(t) for t in titles if t] or names(_CITATION_MARK.sub("", str(message.content)))
        if found:
            entity = found[0]
            break
    if entity is None:
        return None
    replacement = f"{entity}'s" if match.group(1).lower() in _POSSESSIVE else entity
    rewritten = question[: match.start()] + replacement + question[match.end() :]
    return _LEADING_CONNECTIVE.sub("", rewritten).strip()


_COMPARISON = re.compile(
    r"\b(both|either|neither|same|compared?|than|older|oldest|younger|youngest|earlier|earliest|later|"
    r"first|larger|largest|bigger|longer|shorter|higher|more|fewer|less|difference|which one)\b",
    re.IGNORECASE,
)
_RELATION = re.compile(r"\bof\b|'s\b|(?<=\w )\b(?:who|whom|that|which|whose|where)\b", re.IGNORECASE)


def classify_complexity(question: str) -> tuple[str, str]:
    """Model-free Adaptive-RAG classifier (after Jeong et al. 2024, who train a small classifier
    on the same three labels) from cheap features: named entities, comparison words, and
    relations outside the names ("of", a possessive, a relative clause after the first word).
    ``multi`` for a comparison naming two or more things, two or more relations ("the spouse
    *of* the actress *who* played …"), or one relation in a question naming two or more
    things or longer than 14 words; otherwise ``single``. Returns (label, the features seen)."""
    found = names(question)
    outside = question
    for name in found:  # a possessive stays outside: "Anna Benson's husband" is a relation
        outside = outside.replace(re.sub(r"['’]s$", "", name), " ")
    words = len(question.split())
    relations = len(_RELATION.findall(outside))
    comparison = bool(_COMPARISON.search(outside)) or (" or " in outside and len(found) >= 2)
    features = f"{words} words, {len(found)} names, {relations} relations" + (", comparison" if comparison else "")
    if (comparison and len(found) >= 2) or relations >= 2 or (relations >= 1 and (len(found) >= 2 or words > 14)):
        return "multi", features
    return "single", features


class RuleRouter:
    """Routes a turn to ``direct`` only when every word is small talk (greeting, thanks,
    acknowledgement, farewell) and it asks nothing; anything else retrieves. Follow-ups are made
    self-contained with :func:`contextualize`; the retrieval need is classified with
    :func:`classify_complexity`."""

    def route(self, question: str, conversation: Sequence[BaseMessage]) -> RouteDecision:
        words = re.findall(r"[a-z']+", question.lower())
        if (
            words
            and len(words) <= _MAX_SMALL_TALK_WORDS
            and "?" not in question
            and all(w in _SMALL_TALK for w in words)
        ):
            return RouteDecision("direct", "small talk: no documents needed", NAME, complexity="none")
        standalone = contextualize(question, conversation)
        reason = "asks for information" + (" (follow-up made self-contained)" if standalone else "")
        complexity, features = classify_complexity(standalone or question)
        return RouteDecision(
            "retrieve", reason, NAME, standalone_question=standalone, complexity=complexity, complexity_reason=features
        )


CHAIN_WEIGHT = 0.8
"""How much a later hop's title match counts against question coverage: enough to rank the
bridge entity's page above the weaker first-hop chunks, not above the strongest ones."""


class LexicalGrader:
    """Scores each chunk ``0.7 × match + 0.3 × retrieval``, where retrieval is its fused rank
    score scaled so that first place in both rankings is 1, and match is the larger of

    * coverage: the fraction of the question's stemmed content terms found in the chunk (title
      included), and
    * chain: on a later hop, ``CHAIN_WEIGHT`` × the fraction of the terms of the query that
      found the chunk found in the chunk, or for a graph hop, of the entity it followed
      (``via``) found in the chunk's title — the page about the bridge entity that earlier
      evidence named, or a passage naming it with the question's remaining words, is relevant
      to the question through that evidence, though it shares few of the question's words.

    A chunk is relevant when its score reaches ``min_relevance``. On the first hop the evidence
    suffices only when one relevant chunk holds every question term: a multi-hop question's
    first hop usually covers its terms across several chunks without naming the answer, and a
    bridge hop pays for it (HotpotQA dev, all supporting found @5: 0.605 with union coverage on
    the first hop, 0.68 with this rule; SQuAD 2.0: 0.988 → 0.986). After that, it suffices when
    the relevant evidence together covers at least ``sufficient_coverage`` of the terms.
    """

    def __init__(self, min_relevance: float = 0.4, sufficient_coverage: float = 0.75) -> None:
        self.min_relevance = min_relevance
        self.sufficient_coverage = sufficient_coverage

    def score(self, question_terms: frozenset[str], query_terms: frozenset[str], chunk: Chunk) -> float:
        """Relevance of one chunk, 0–1 (``query_terms`` empty on the first hop)."""
        best_fused = (1.0 + DENSE_WEIGHT) / (RRF_K + 1)
        retrieval = min(1.0, chunk["score"] / best_fused)
        match = coverage(question_terms, f"{chunk['title']} {chunk['text']}")
        if chunk.get("via"):
            query_terms = term_set(chunk["via"])
        if query_terms:
            where = chunk["title"] if chunk.get("linked_from") else f"{chunk['title']} {chunk['text']}"
            match = max(match, CHAIN_WEIGHT * coverage(query_terms, where))
        return round(0.7 * match + 0.3 * retrieval, 4)

    def grade(self, question: str, query: str, chunks: Sequence[Chunk], evidence: Sequence[Chunk]) -> Grading:
        q_terms = term_set(question)
        query_terms = frozenset() if normalise_query(query) == normalise_query(question) else term_set(query)
        verdicts = []
        for chunk in chunks:
            score = self.score(q_terms, query_terms, chunk)
            verdicts.append(ChunkVerdict(chunk["chunk_id"], score >= self.min_relevance, score))
        relevant = [c for c, v in zip(chunks, verdicts, strict=True) if v.relevant]
        if not query_terms:  # first hop: only a chunk that answers the whole question suffices
            best = max((coverage(q_terms, f"{c['title']} {c['text']}") for c in relevant), default=0.0)
            return Grading(verdicts, best >= 1.0, NAME)
        relevant_text = " ".join(f"{c['title']} {c['text']}" for c in [*evidence, *relevant])
        covered = coverage(q_terms, relevant_text) if relevant_text else 0.0
        return Grading(verdicts, bool(relevant_text) and covered >= self.sufficient_coverage, NAME)


def uncovered_words(question: str, text: str) -> str:
    """The question's content words whose terms ``text`` lacks, in question order."""
    covered = term_set(text)
    return " ".join(w for w in re.findall(r"[\w'-]+", question) if term_set(w) and not term_set(w) <= covered)


class FeedbackReformulator:
    """Next hop = the names that the best relevant evidence chunk mentions and the question lacks
    (its bridge entities), best first (by how well their sentence matches the question), each
    searched with the question's words that chunk lacks (the relation still to resolve: "the
    *seat* of the county where X is" → "Mountrail County seat": the bridge substitution of
    DecompRC, Min et al. 2019, made without a model); the next chunk's names once those were
    tried. When no new name is left, the question's terms that no evidence covers are tried;
    when that was tried too (or is the question itself, as when nothing relevant was found),
    the original question is returned and the graph stops on a repeated query."""

    def __init__(self, max_queries: int = 3) -> None:
        self.max_queries = max_queries

    def candidates(self, question: str, chunk: Chunk, known_titles: frozenset[str] = frozenset()) -> list[str]:
        """Names in ``chunk`` that the question lacks, best first.

        A name scores the question-term coverage of the sentence it appears in, plus a bonus
        when it shares a term with the question (it names the kind of thing asked about, e.g.
        "Major League Soccer" for "what league") and when it has several words, less when it
        names the chunk's own subject (shares a term with its title). Names of chunks already
        in hand (``known_titles``, lower case) and dates are skipped.
        """
        q_terms = term_set(question)
        q_lower = question.lower()
        title_terms = term_set(chunk["title"])
        scored: dict[str, tuple[float, int]] = {}
        for unit in [chunk["title"], *sentences(chunk["text"])]:
            match = coverage(q_terms, unit)
            for name in names(unit):
                name_terms = term_set(name)
                if (
                    not name_terms - q_terms
                    or name.lower() in q_lower
                    or name.lower() in known_titles
                    or name.split()[0].lower() in _MONTHS
                ):
                    continue
                score = (
                    match
                    + (0.3 if name_terms & q_terms else 0.0)
                    + (0.2 if " " in name else 0.0)
                    - (0.3 if name_terms & title_terms else 0.0)
                )
                if name not in scored or score > scored[name][0]:
                    scored[name] = (score, len(scored))
        return [name for name, _ in sorted(scored.items(), key=lambda item: (-item[1][0], item[1][1]))]

    def reformulate(
        self, question: str, tried: Sequence[str], evidence: Sequence[Chunk], last_chunks: Sequence[Chunk]
    ) -> Reformulation:
        tried_norm = {normalise_query(q) for q in tried}
        # Feedback comes from relevant evidence only (names in chunks judged irrelevant are noise),
        # best chunk first; a name that is already the title of a chunk in hand needs no search.
        in_hand = [c["title"] for c in [*evidence, *last_chunks]]
        known = frozenset(t.lower() for t in [*in_hand, *map(strip_qualifier, in_hand)])
        for chunk in evidence:
            rest = uncovered_words(question, f"{chunk['title']} {chunk['text']}")
            fresh = [
                f"{name} {rest}".strip()
                for name in self.candidates(question, chunk, known)
                if normalise_query(f"{name} {rest}") not in tried_norm
            ]
            fresh = fresh[: self.max_queries]
            if fresh:
                reason = f"bridge entities named in chunk {chunk['chunk_id'][:8]} ({chunk['title']})"
                return Reformulation(fresh[0], reason, NAME, queries=fresh)
        words = uncovered_words(question, " ".join(f"{c['title']} {c['text']}" for c in evidence))
        if words and normalise_query(words) not in tried_norm:
            return Reformulation(words, "question terms no evidence covers", NAME)
        return Reformulation(question, "no new name or term left to search", NAME)

    def choose_links(self, question: str, candidates: Sequence[Chunk], k: int) -> LinkChoice:
        """The ``k`` best candidates in their ranked order (relevance to the question)."""
        return LinkChoice(list(range(min(k, len(candidates)))), "best-ranked links", NAME)


MAX_SUB_QUESTIONS = 4
_CHOICE = re.compile(r"^(?P<stem>[^,]+?),\s*(?P<options>.+?)\s+or\s+(?P<last>[^,?]+?)\s*\?*$", re.IGNORECASE)
_BOTH = re.compile(
    r"^(?P<aux>are|were|is|was|do|did|does|have|has)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+(?:both|each)\b\s*(?P<rest>.*?)\s*\?*$",
    re.IGNORECASE,
)
_CLAUSES = re.compile(
    r"^(?P<wh>which|what|who|whose)\b(?P<first>.+?)\s+and\s+"
    r"(?P<second>(?:had|has|have|was|were|is|are|did|does|also|won|played|released|wrote|starred)\b.+?)\s*\?*$",
    re.IGNORECASE,
)


class NoExpander:
    """Query expansion needs a chat model: without one every strategy is skipped, and says so."""

    def expand(self, question: str, kind: ExpansionKind) -> Expansion:
        return Expansion([], f"{kind} needs a chat model; skipped (the question is searched alone)", NAME)


class RuleDecomposer:
    """Splits on the surface form (the model-free fallback of least-to-most / decomposed
    prompting, Zhou et al. 2023; Khot et al. 2023):

    * a choice — "Which is older, Blur or Oasis?" → "Blur: which is older?", "Oasis: which is older?";
    * a joint property — "Are A and B both X?" → "Are A X?", "Are B X?";
    * two clauses on one subject — "Which band released X and had Y?" → "Which band released X?",
      "Which had Y?".
    """

    def decompose(self, question: str) -> Decomposition:
        text = question.strip()
        if match := _CHOICE.match(text):
            options = [o.strip() for o in match["options"].split(",") if o.strip()] + [match["last"].strip()]
            stem = match["stem"].strip().rstrip("?")
            subs = [f"{option}: {stem[0].lower()}{stem[1:]}?" for option in options]
            reason = "a choice between named options"
        elif match := _BOTH.match(text):
            rest = f" {match['rest']}" if match["rest"] else ""
            subs = [f"{match['aux']} {side.strip()}{rest}?" for side in (match["a"], match["b"])]
            reason = "a property asked of two things"
        elif match := _CLAUSES.match(text):
            subs = [f"{match['wh']}{match['first']}?", f"{match['wh']} {match['second']}?"]
            reason = "two clauses about one subject"
        else:
            return Decomposition([], "no conjunction or comparison to split on", NAME)
        if not 2 <= len(subs) <= MAX_SUB_QUESTIONS:
            return Decomposition([], f"{len(subs)} parts (2–{MAX_SUB_QUESTIONS} allowed)", NAME)
        return Decomposition(subs, reason, NAME)


_MARKS = re.compile(r"\[(\d+)\]")
_MARK_RUN = re.compile(r"((?:\s*\[\d+\])+)")


class LexicalGrounder:
    """Sentence-level lexical support: each answer sentence is a claim (citation marks close the
    sentence before them); it is supported when the chunks it cites (all cited chunks, when it
    cites none) hold at least ``min_support`` of its
    stemmed content terms (title included). A lexical stand-in for the entailment checks of
    attribution evaluation (Rashkin et al. 2023, "Measuring Attribution in Natural Language
    Generation Models"; Gao et al. 2023, ALCE): it catches invented names and numbers, not
    paraphrased contradictions."""

    def __init__(self, min_support: float = 0.8) -> None:
        self.min_support = min_support

    def check(self, answer: str, cited: Sequence[tuple[int, Chunk]]) -> Grounding:
        by_mark = {mark: f"{chunk['title']} {chunk['text']}" for mark, chunk in cited}
        unsupported, checked = [], 0
        pieces = _MARK_RUN.split(answer)  # text, marks, text, marks, …: marks close the text before them
        for text, marks in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
            claims = sentences(text)
            for number, claim in enumerate(claims):
                claim_terms = term_set(claim)
                if not claim_terms or claim.endswith("?") or claim.startswith(NO_ANSWER):
                    continue  # a question, or a statement of absence, asserts nothing to support
                checked += 1
                own = [int(m) for m in _MARKS.findall(marks) if int(m) in by_mark] if number == len(claims) - 1 else []
                support = " ".join(by_mark[m] for m in own) if own else " ".join(by_mark.values())
                if coverage(claim_terms, support) < self.min_support:
                    unsupported.append(claim)
        return Grounding(unsupported, checked, NAME)


NO_ANSWER = "The documents do not"
"""How every model-free statement of absence begins (the grounding check skips them)."""


def answer_sentences(chunk: Chunk, avoid: Sequence[str] = ()) -> list[str]:
    """Sentences of a chunk an extractive answer may use: not one that only repeats the chunk's
    title (a heading line), and none in ``avoid``."""
    title_terms = term_set(chunk["title"])
    return [s for s in sentences(chunk["text"]) if s not in avoid and not term_set(s) <= title_terms]


PART_COVERAGE = 0.5
"""Least share of a sub-question's terms an evidence sentence must hold to answer that part."""


class ExtractiveGenerator:
    """Answers with evidence sentences, each followed by its citation mark ``[n]``; sentences
    named in ``avoid`` are not used."""

    def __init__(self, max_sentences: int = 3) -> None:
        self.max_sentences = max_sentences

    def select(self, question: str, evidence: Sequence[Chunk], avoid: Sequence[str] = ()) -> list[tuple[str, str]]:
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

    def answer_parts(self, sub_questions: Sequence[str], evidence: Sequence[Chunk], avoid: Sequence[str]) -> Answer:
        """One line per sub-question: the evidence sentence covering most of its terms (at least
        ``PART_COVERAGE``, and every term of the part's subject — its first name — in the
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
            if best is None or best[0] < PART_COVERAGE:
                lines.append(f"({number + 1}) {sub} {NO_ANSWER} answer this part.")
                continue
            cited.append(best[4]["chunk_id"])
            marks = citation_marks(cited)
            lines.append(f"({number + 1}) {sub} {best[3]} [{marks[best[4]['chunk_id']]}]")
        marks = citation_marks(cited)
        return Answer("\n".join(lines), [(n, cid) for cid, n in marks.items()], NAME)

    def generate(
        self,
        question: str,
        evidence: Sequence[Chunk],
        mode: GenerationMode,
        conversation: Sequence[BaseMessage],
        avoid: Sequence[str] = (),
        sub_questions: Sequence[str] = (),
    ) -> Answer:
        if mode == "direct":
            words = set(re.findall(r"[a-z']+", question.lower()))
            if words & _THANKS:
                text = "You're welcome. Ask me anything about the ingested documents."
            elif words & _FAREWELL:
                text = "Goodbye!"
            elif words & _GREETING:
                text = "Hello! Ask me a question about the ingested documents."
            else:
                text = "Noted. Ask me a question about the ingested documents."
            return Answer(text, [], NAME)
        if sub_questions:
            parts = self.answer_parts(sub_questions, evidence, avoid)
            if mode == "caveat":
                parts.text = f"{NO_ANSWER} contain a clear answer to the whole question. By part:\n{parts.text}"
            return parts
        chosen = self.select(question, evidence, avoid)
        marks = citation_marks([cid for _, cid in chosen])
        body = " ".join(f"{sentence} [{marks[cid]}]" for sentence, cid in chosen)
        if mode == "caveat":
            if not chosen:
                return Answer(
                    f"{NO_ANSWER} contain an answer to this question, and nothing related was found.", [], NAME
                )
            text = f"{NO_ANSWER} contain a clear answer to this question. The closest passages found: {body}"
            return Answer(text, [(n, cid) for cid, n in marks.items()], NAME)
        return Answer(body, [(n, cid) for cid, n in marks.items()], NAME)
