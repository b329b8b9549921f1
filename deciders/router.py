"""Routing: does a turn need documents, is it a follow-up to make self-contained, and how much
retrieval does it need (Adaptive-RAG's three labels, Jeong et al. 2024)?

* :class:`RuleRouter` — answers small talk directly, retrieves for everything else; resolves a
  follow-up's pronoun from the previous turn (:func:`contextualize`) and classifies complexity
  from cheap features (:func:`classify_complexity`).
* :class:`LLMRouter` — asks the model for all three; an unusable reply retrieves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol, Sequence

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from core.text import STOPWORDS, exact_names, identifiers, names, strip_qualifier
from deciders.answer_types import asking_sentence
from deciders.lexicon import (
    ASKED_ABOUT,
    CITATION_MARK,
    COMPARISON,
    FAREWELLS,
    GREETINGS,
    LEADING_CONNECTIVE,
    MAX_SMALL_TALK_WORDS,
    MODEL_FREE,
    PERSONAL,
    POSSESSIVE,
    POSSESSIVE_SUFFIX,
    PRONOUN,
    RELATION,
    SECTION,
    SMALL_TALK,
    THANKS,
    WORD,
)
from deciders.llm import LLMDecider, brief, format_conversation
from prompts import router as prompts

RouteName = Literal["retrieve", "direct"]
Complexity = Literal["none", "single", "multi"]
"""Adaptive-RAG query complexity (Jeong et al. 2024): no retrieval, one retrieval, or the
iterative loop."""


@dataclass
class RouteDecision:
    route: RouteName
    reason: str
    decider: str
    note: str | None = None
    standalone_question: str | None = None
    """The question rewritten to stand alone when it refers to earlier turns ("and when was he
    born?" → "when was Neil Peart born?"); ``None`` when it already stands alone."""
    complexity: Complexity = "multi"
    """How much retrieval the question needs (``none`` for a direct route); used when the run's
    ``adaptive`` switch is on."""
    complexity_reason: str = ""


class Router(Protocol):
    """Decides whether a turn needs documents (when unsure: ``retrieve``), and rewrites a
    follow-up that leans on the conversation into a self-contained question."""

    def route(self, question: str, conversation: Sequence[BaseMessage]) -> RouteDecision: ...


def subject_of(question: str) -> str | None:
    """What a question is about, for a later "it" to refer to: its first exact name
    (``work_mem``, ``pg_dump``, a dotted name), else its first capitalised name, else its first
    other identifier (``MongoDB``, ``VACUUM``), else the word a "what does X do?" / "what is X?"
    question asks about (``enumerate``); ``None`` when it names nothing."""
    for found in (exact_names(question), names(question), identifiers(question)):
        if found := [name for name in found if name.lower() not in STOPWORDS]:  # not "I" of "How do I …?"
            return found[0]
    asked = ASKED_ABOUT.match(question)
    return asked[1] if asked and asked[1].lower() not in STOPWORDS else None


_CLAUSE_AFTER = re.compile(r"\b(?:to|that|if|when|whether|than|for)\b", re.IGNORECASE)
_EXPLETIVE_VERBS = frozenset(
    "take takes took mean means meant matter matters cost costs seem seems happen happens".split()
)
"""Verbs after which "it" refers to nothing ("how long does it take?", "what does it mean?")."""


def dangling_pronoun(question: str) -> str | None:
    """The pronoun a question leans on for its whole subject — "Is *it* used by hash tables?",
    "What is *its* default?" — when nothing in the question names what it refers to: only
    function words come before it, the question names nothing (:func:`subject_of`), and it is
    not the empty "it" of "is it possible to …", "how long does it take?". On a thread with no
    earlier turn such a question cannot be answered: any answer would be about a guess.

    Returns:
        The pronoun as written, or ``None``.
    """
    match = PRONOUN.search(question)
    if not match or any(word not in STOPWORDS for word in WORD.findall(question[: match.start()].lower())):
        return None
    after = question[match.end() :]
    following = WORD.findall(after.lower())[:1]
    if _CLAUSE_AFTER.search(after) or set(following) & _EXPLETIVE_VERBS or subject_of(question):
        return None
    return match.group(1)


def direct_reply(turn: str) -> str:
    """The reply to a turn routed ``direct``: to thanks, a farewell or a greeting in kind; to a
    question whose pronoun refers to nothing (:func:`dangling_pronoun`), a clarifying question;
    else an invitation to ask."""
    words = set(WORD.findall(turn.lower()))
    if words & THANKS:
        return "You're welcome. Ask me anything about the ingested documents."
    if words & FAREWELLS:
        return "Goodbye!"
    if words & GREETINGS:
        return "Hello! Ask me a question about the ingested documents."
    if pronoun := dangling_pronoun(turn):
        return (
            f'What does "{pronoun}" refer to? This thread has no earlier question for it to point back to: '
            "ask again with the name in its place, or on the thread where you asked about it."
        )
    return "Noted. Ask me a question about the ingested documents."


_WHAT_ABOUT = re.compile(
    r"^\s*(?:(?:and|but|so|ok|okay)\b[\s,]*)?(?:what|how)\s+about\s+(?P<other>[^?]+?)\s*\?*\s*$", re.I
)
"""An elliptical follow-up: "And what about maintenance_work_mem?" asks the previous question of another thing."""


def _aligned_phrase(asked: str, other: str) -> tuple[int, int] | None:
    """The (start, end) offsets in ``asked`` of the phrase ``other`` stands for in an elliptical
    follow-up: as many words as it has, ending in its last word (its head noun: "the dev profile"
    stands for "the release profile" in "What is the default opt-level of the release profile?");
    ``None`` when ``asked`` does not say that word, or says ``other`` itself."""
    length, head = len(other.split()), other.split()[-1].lower()
    words = list(re.finditer(r"[\w.$-]+", asked))
    end = max((at for at, word in enumerate(words) if word.group().lower() == head), default=-1)
    if end + 1 < length:  # not said, or said too early for the phrase to fit
        return None
    start, stop = words[end + 1 - length].start(), words[end].end()
    return None if asked[start:stop].lower() == other.lower() else (start, stop)


def contextualize(question: str, conversation: Sequence[BaseMessage]) -> str | None:
    """Rule-based resolution of follow-ups. An elliptical one ("And what about maintenance_work_mem?",
    :data:`_WHAT_ABOUT`) is the previous question with the phrase of the same head noun
    (:func:`_aligned_phrase`: "the dev profile" for "the release profile"), else its subject,
    replaced by the thing named ("What is the default value of maintenance_work_mem?").
    Otherwise anaphora: replace the first personal pronoun with the entity the previous turn was
    about. The previous answer records
    (``additional_kwargs``) its (standalone) ``question``, the question's ``subject``, its
    ``short_answer`` and the question's ``answer_type``: "he", "she" and "his" become the short
    answer when the question asked for a person, else the subject; "it", "they" and "its" become
    the subject — never the short answer, a value or token ("HEAD", "64") that is no thing asked
    about. An answer without that record (older threads, LLM
    answers) gives the title of the first chunk it cited that is not a numbered section heading
    ("13.1. Introduction"), else the first name in it, else in the previous question. Returns
    ``None`` when the question has neither form or there is no earlier turn."""
    previous = [m for m in conversation if m.type in ("human", "ai")][-2:]
    about = _WHAT_ABOUT.match(question)
    record = previous[-1].additional_kwargs if previous else {}
    asked, subject = record.get("question"), record.get("subject")
    if about and asked and not PRONOUN.fullmatch(about["other"]):
        other = about["other"].strip()
        if aligned := _aligned_phrase(asked, other):
            return asked[: aligned[0]] + other + asked[aligned[1] :]
        if subject and subject in asked:
            return asked.replace(subject, other, 1)
    match = PRONOUN.search(question)
    if not match or not conversation:
        return None
    pronoun = match.group(1).lower()
    entity = None
    for message in reversed(previous):  # the answer first, then the question it answered
        record = message.additional_kwargs
        subject, short = record.get("subject"), record.get("short_answer")
        if pronoun in PERSONAL and record.get("answer_type") == "person":
            entity = short or subject
        else:
            entity = subject
        if entity:
            break
        titles = [strip_qualifier(t) for t in record.get("cited_titles") or [] if t and not SECTION.match(t)]
        found = titles or names(CITATION_MARK.sub("", str(message.content)))
        if found:
            entity = found[0]
            break
    if entity is None:
        return None
    replacement = f"{entity}'s" if pronoun in POSSESSIVE else entity
    rewritten = question[: match.start()] + replacement + question[match.end() :]
    return LEADING_CONNECTIVE.sub("", rewritten).strip()


def classify_complexity(question: str) -> tuple[Complexity, str]:
    """Model-free Adaptive-RAG classifier (after Jeong et al. 2024, who train a small classifier
    on the same three labels) from cheap features: named entities, comparison words, and
    relations outside the names ("of", a possessive, a relative clause after the first word).
    ``multi`` for a comparison naming two or more things, two or more relations ("the spouse
    *of* the actress *who* played …"), or one relation in a question naming two or more
    things or longer than 14 words; otherwise ``single``. Read from the question's
    :func:`deciders.answer_types.asking_sentence`: the names of a scene set before it ("We run
    Postgres behind Django. What is the default of work_mem?") are not what it asks of. Returns
    (label, the features seen)."""
    question = asking_sentence(question)
    found = names(question)
    outside = question
    for name in found:  # a possessive stays outside: "Anna Benson's husband" is a relation
        outside = outside.replace(POSSESSIVE_SUFFIX.sub("", name), " ")
    words = len(question.split())
    relations = len(RELATION.findall(outside))
    comparison = bool(COMPARISON.search(outside)) or (" or " in outside and len(found) >= 2)
    features = f"{words} words, {len(found)} names, {relations} relations" + (", comparison" if comparison else "")
    if (comparison and len(found) >= 2) or relations >= 2 or (relations >= 1 and (len(found) >= 2 or words > 14)):
        return "multi", features
    return "single", features


class RuleRouter:
    """Routes a turn to ``direct`` only when every word is small talk (greeting, thanks,
    acknowledgement, farewell) and it asks nothing, and to ``direct`` with a clarifying question
    a first turn whose pronoun refers to nothing (:func:`dangling_pronoun`: "Is it used by hash
    tables?" on a new thread); anything else retrieves. Follow-ups are made
    self-contained with :func:`contextualize`; the retrieval need is classified with
    :func:`classify_complexity`."""

    def route(self, question: str, conversation: Sequence[BaseMessage]) -> RouteDecision:
        words = WORD.findall(question.lower())
        if words and len(words) <= MAX_SMALL_TALK_WORDS and "?" not in question and all(w in SMALL_TALK for w in words):
            return RouteDecision("direct", "small talk: no documents needed", MODEL_FREE, complexity="none")
        if not conversation and (pronoun := dangling_pronoun(question)):
            return RouteDecision(
                "direct",
                f'"{pronoun}" refers to nothing: the thread has no earlier turn',
                MODEL_FREE,
                complexity="none",
            )
        standalone = contextualize(question, conversation)
        reason = "asks for information" + (" (follow-up made self-contained)" if standalone else "")
        complexity, features = classify_complexity(standalone or question)
        return RouteDecision(
            "retrieve",
            reason,
            MODEL_FREE,
            standalone_question=standalone,
            complexity=complexity,
            complexity_reason=features,
        )


MAX_STANDALONE_CHARS = 500
"""Longest rewritten question accepted (the JSON schema bounds it; a parsed longer one is dropped)."""


class RouteOut(BaseModel):
    """The LLM router's reply."""

    route: Literal["retrieve", "direct"]
    standalone_question: brief(MAX_STANDALONE_CHARS) = ""
    complexity: Literal["single", "multi"] = "multi"
    reason: brief(120) = ""


class LLMRouter(LLMDecider):
    """Asks the model for the route, the self-contained rewrite and the complexity; an unusable
    reply gives :class:`RuleRouter`'s decision (and says why). A ``direct`` route for a turn
    that asks something (a "?", or words beyond small talk) is overruled to ``retrieve``, with a
    note: answering a question without the documents is the one routing error that invents an
    answer (small models route questions ``direct`` often), while retrieving for small talk only
    costs a search. A first turn whose pronoun refers to nothing gets the rule route (a
    clarifying question) without a model call."""

    def route(self, question: str, conversation: Sequence[BaseMessage]) -> RouteDecision:
        if not conversation and dangling_pronoun(question):  # nothing for the model to resolve it from
            return RuleRouter().route(question, conversation)
        user = prompts.USER.format(conversation=format_conversation(conversation), question=question)
        out, note = self.ask(RouteOut, prompts.SYSTEM, user)
        if out is None:
            decision = RuleRouter().route(question, conversation)
            decision.note = f"{note}; model-free route instead"
            return decision
        standalone = out.standalone_question.strip()
        if standalone and (not conversation or standalone == question or len(standalone) >= MAX_STANDALONE_CHARS):
            standalone = ""
        route, note = out.route, None
        if route == "direct" and RuleRouter().route(question, conversation).route == "retrieve":
            route, note = "retrieve", "the model routed a question direct; retrieving instead"
        return RouteDecision(
            route,
            out.reason,
            self.name,
            note,
            standalone_question=standalone or None,
            complexity="none" if route == "direct" else out.complexity,
            complexity_reason=f"classified by {self.name}",
        )
