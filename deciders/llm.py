"""LLM deciders over any LangChain chat model.

Router and grader ask for structured output (``with_structured_output``) and fall back to parsing
JSON out of a plain reply for models without tool calling. Whatever a model returns, a decider
never raises: an invalid or empty reply becomes the conservative choice (retrieve; not relevant;
keep the query; extractive answer) with a ``note`` saying what happened, which the trace records.
"""

from __future__ import annotations

import re
from typing import Literal, Sequence, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import JsonOutputParser
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel, ValidationError

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
from deciders.rules import MAX_SUB_QUESTIONS, ExtractiveGenerator, LexicalGrounder, RuleDecomposer
from deciders.text import sentences
from prompts import decompose as decompose_prompts
from prompts import expand as expand_prompts
from prompts import generate as generate_prompts
from prompts import grade as grade_prompts
from prompts import ground as ground_prompts
from prompts import reformulate as reformulate_prompts
from prompts import route as route_prompts
from store.chunks import Chunk

Schema = TypeVar("Schema", bound=BaseModel)
MAX_PASSAGE_CHARS = 2000
"""Longest passage text shown to a model, in characters."""


class RouteOut(BaseModel):
    route: Literal["retrieve", "direct"]
    reason: str = ""
    standalone_question: str = ""
    complexity: Literal["single", "multi"] = "multi"


class ChunkOut(BaseModel):
    relevant: bool
    reason: str = ""


class SufficientOut(BaseModel):
    sufficient: bool
    missing: str = ""


class ExpandOut(BaseModel):
    queries: list[str]


class DecomposeOut(BaseModel):
    sub_questions: list[str]


class GroundOut(BaseModel):
    unsupported: list[str]


class LinksOut(BaseModel):
    follow: list[int]
    """1-based numbers of the candidates to follow, best first."""
    reason: str = ""


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160]}" if text else type(exc).__name__


def model_name(model: BaseChatModel) -> str:
    """``llm:<model name>`` for traces."""
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
    return f"llm:{name}"


def ask_structured(
    model: BaseChatModel, schema: type[Schema], system: str, user: str
) -> tuple[Schema | None, str | None]:
    """Ask for a reply shaped as ``schema``.

    Returns:
        (parsed reply, None) on success; (None, note) when neither structured output nor the
        JSON fallback produced a valid reply. Never raises for model errors.
    """
    messages = [SystemMessage(system), HumanMessage(user)]
    note = None
    try:
        structured = model.with_structured_output(schema)
    except NotImplementedError:
        structured = None  # no tool calling: parse JSON from plain text below
    if structured is not None:
        try:
            out = structured.invoke(messages)
            if isinstance(out, schema):
                return out, None
            if isinstance(out, dict):
                return schema.model_validate(out), None
            note = f"structured output returned {type(out).__name__}"
        except Exception as exc:  # providers raise many types; fall back to plain text
            note = f"structured output failed ({_short(exc)})"
    try:
        reply = model.invoke(messages)
        return schema.model_validate(JsonOutputParser().parse(str(reply.content))), None
    except (ValidationError, ValueError) as exc:
        return None, f"invalid reply ({_short(exc)})" + (f"; {note}" if note else "")
    except Exception as exc:
        return None, f"model call failed ({_short(exc)})"


def format_conversation(conversation: Sequence[BaseMessage], turns: int = 6) -> str:
    lines = [f"{m.type}: {m.content}" for m in conversation[-turns:]]
    return "\n".join(lines) or "(none)"


def provenance(chunk: Chunk) -> str:
    """``title; locator; version …; ingested …`` — what a model is told of a passage's origin."""
    parts = [chunk["title"], chunk.get("locator") or chunk["source"]]
    if chunk.get("version"):
        parts.append(f"version {chunk['version']}")
    if chunk.get("ingested_at"):
        parts.append(f"ingested {chunk['ingested_at']}")
    return "; ".join(parts)


def format_evidence(evidence: Sequence[Chunk]) -> str:
    return (
        "\n\n".join(f"[{i}] ({provenance(c)}) {c['text'][:MAX_PASSAGE_CHARS]}" for i, c in enumerate(evidence, 1))
        or "(no evidence)"
    )


class LLMRouter:
    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self.name = model_name(model)

    def route(self, question: str, conversation: Sequence[BaseMessage]) -> RouteDecision:
        user = route_prompts.USER.format(conversation=format_conversation(conversation), question=question)
        out, note = ask_structured(self.model, RouteOut, route_prompts.SYSTEM, user)
        if out is None:
            return RouteDecision("retrieve", "fallback: retrieve when unsure", self.name, note)
        standalone = out.standalone_question.strip()
        if standalone and (not conversation or standalone == question or len(standalone) > 2000):
            standalone = ""
        return RouteDecision(
            out.route,
            out.reason,
            self.name,
            standalone_question=standalone or None,
            complexity="none" if out.route == "direct" else out.complexity,
            complexity_reason=f"classified by {self.name}",
        )


class LLMGrader:
    """Grades the chunks of a hop concurrently (LangChain ``Runnable.batch``), then asks once
    whether the evidence suffices."""

    def __init__(self, model: BaseChatModel, max_concurrency: int = 8) -> None:
        self.model = model
        self.name = model_name(model)
        self.max_concurrency = max_concurrency

    def _grade_one(self, args: tuple[str, str, Chunk]) -> tuple[ChunkOut | None, str | None]:
        question, query, chunk = args
        if chunk.get("via"):  # reached by a graph hop: say how
            query = f"a link to '{chunk['via']}', which earlier evidence mentions"
        user = grade_prompts.CHUNK_USER.format(
            question=question, query=query, title=provenance(chunk), text=chunk["text"][:MAX_PASSAGE_CHARS]
        )
        return ask_structured(self.model, ChunkOut, grade_prompts.CHUNK_SYSTEM, user)

    def grade(self, question: str, query: str, chunks: Sequence[Chunk], evidence: Sequence[Chunk]) -> Grading:
        results = RunnableLambda(self._grade_one).batch(
            [(question, query, c) for c in chunks], config={"max_concurrency": self.max_concurrency}
        )
        notes = []
        verdicts = []
        for chunk, (out, note) in zip(chunks, results, strict=True):
            relevant = bool(out and out.relevant)
            verdicts.append(ChunkVerdict(chunk["chunk_id"], relevant, 1.0 if relevant else 0.0))
            if note:
                notes.append(f"{chunk['chunk_id'][:8]}: {note}; graded not relevant")
        kept = [*evidence, *(c for c, v in zip(chunks, verdicts, strict=True) if v.relevant)]
        sufficient = False
        if kept:
            user = grade_prompts.SUFFICIENT_USER.format(question=question, evidence=format_evidence(kept))
            out, note = ask_structured(self.model, SufficientOut, grade_prompts.SUFFICIENT_SYSTEM, user)
            sufficient = bool(out and out.sufficient)
            if note:
                notes.append(f"sufficiency: {note}; treated as insufficient")
        return Grading(verdicts, sufficient, self.name, "; ".join(notes) or None)


class LLMReformulator:
    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self.name = model_name(model)

    def reformulate(
        self, question: str, tried: Sequence[str], evidence: Sequence[Chunk], last_chunks: Sequence[Chunk]
    ) -> Reformulation:
        keep = tried[-1] if tried else question
        user = reformulate_prompts.USER.format(
            question=question,
            tried="\n".join(f"- {q}" for q in tried) or "(none)",
            evidence=format_evidence(list(evidence) or list(last_chunks)),
        )
        try:
            reply = str(self.model.invoke([SystemMessage(reformulate_prompts.SYSTEM), HumanMessage(user)]).content)
        except Exception as exc:
            return Reformulation(keep, "fallback: keep the query", self.name, f"model call failed ({_short(exc)})")
        lines = [line.strip().strip("\"'`").strip() for line in reply.strip().splitlines() if line.strip()]
        query = lines[0] if lines else ""
        if not query or len(query) > 500:
            return Reformulation(keep, "fallback: keep the query", self.name, "empty or overlong reply")
        return Reformulation(query, "rewritten by the model", self.name)

    def choose_links(self, question: str, candidates: Sequence[Chunk], k: int) -> LinkChoice:
        """Ask the model which of the candidate links to follow (at most ``k``, by number); a
        reply out of range, repeated or over ``k`` falls back to the ranked order."""
        ranked = list(range(min(k, len(candidates))))
        offered = "\n\n".join(
            f"[{i}] {c['title']} (linked as '{c['via']}'): {c['text'][:400]}" for i, c in enumerate(candidates, 1)
        )
        user = reformulate_prompts.LINKS_USER.format(question=question, k=k, candidates=offered)
        out, note = ask_structured(self.model, LinksOut, reformulate_prompts.LINKS_SYSTEM, user)
        if out is None:
            return LinkChoice(ranked, "fallback: best-ranked links", self.name, note)
        picks = [n - 1 for n in out.follow]
        if len(picks) > k or len(set(picks)) != len(picks) or any(not 0 <= p < len(candidates) for p in picks):
            note = f"invalid choice {out.follow} (allowed: up to {k} distinct numbers 1–{len(candidates)})"
            return LinkChoice(ranked, "fallback: best-ranked links", self.name, note)
        return LinkChoice(picks, out.reason or "chosen by the model", self.name)


class LLMGenerator:
    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self.name = model_name(model)
        self._fallback = ExtractiveGenerator()

    def generate(
        self,
        question: str,
        evidence: Sequence[Chunk],
        mode: GenerationMode,
        conversation: Sequence[BaseMessage],
        avoid: Sequence[str] = (),
        sub_questions: Sequence[str] = (),
    ) -> Answer:
        system = {
            "answer": generate_prompts.ANSWER_SYSTEM,
            "caveat": generate_prompts.CAVEAT_SYSTEM,
            "direct": generate_prompts.DIRECT_SYSTEM,
        }[mode]
        user = generate_prompts.USER.format(
            conversation=format_conversation(conversation),
            question=question,
            evidence=format_evidence(evidence),
        )
        if sub_questions:
            parts = "\n".join(f"({i}) {q}" for i, q in enumerate(sub_questions, 1))
            user += generate_prompts.SUB_QUESTIONS.format(sub_questions=parts)
        if avoid:
            user += generate_prompts.AVOID.format(claims="\n".join(f"- {claim}" for claim in avoid))
        try:
            text = str(self.model.invoke([SystemMessage(system), HumanMessage(user)]).content).strip()
            failure = None if text else "empty reply"
        except Exception as exc:
            text, failure = "", f"model call failed ({_short(exc)})"
        if failure:
            answer = self._fallback.generate(question, evidence, mode, conversation, avoid, sub_questions)
            answer.note = f"{failure}; extractive answer instead"
            return answer
        numbers = [int(n) for n in re.findall(r"\[(\d+)\]", text)]
        cited = [(n, evidence[n - 1]["chunk_id"]) for n in dict.fromkeys(numbers) if 1 <= n <= len(evidence)]
        return Answer(text, cited, self.name)


class LLMGrounder:
    """Asks the model which claims of the answer the cited passages do not support; an
    unusable reply falls back to :class:`LexicalGrounder` (and says so)."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self.name = model_name(model)
        self._fallback = LexicalGrounder()

    def check(self, answer: str, cited: Sequence[tuple[int, Chunk]]) -> Grounding:
        evidence = "\n\n".join(f"[{mark}] ({c['title']}) {c['text'][:MAX_PASSAGE_CHARS]}" for mark, c in cited)
        user = ground_prompts.USER.format(answer=answer, evidence=evidence or "(no evidence cited)")
        out, note = ask_structured(self.model, GroundOut, ground_prompts.SYSTEM, user)
        if out is None:
            grounding = self._fallback.check(answer, cited)
            grounding.note = f"{note}; lexical check instead"
            return grounding
        unsupported = [claim.strip() for claim in out.unsupported if claim.strip()]
        return Grounding(unsupported, max(len(unsupported), len(sentences(answer))), self.name)


class LLMDecomposer:
    """Asks the model for 2–4 sub-questions; a reply that is not JSON, or has 1 or more than
    ``MAX_SUB_QUESTIONS`` sub-questions, falls back to :class:`RuleDecomposer` (and says so)."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self.name = model_name(model)
        self._fallback = RuleDecomposer()

    def decompose(self, question: str) -> Decomposition:
        user = decompose_prompts.USER.format(question=question)
        out, note = ask_structured(self.model, DecomposeOut, decompose_prompts.SYSTEM, user)
        subs = [q.strip() for q in out.sub_questions if q.strip()] if out else []
        if out is not None and not subs:
            return Decomposition([], "the model found nothing to split", self.name)
        if out is None or not 2 <= len(subs) <= MAX_SUB_QUESTIONS:
            note = note or f"{len(subs)} sub-questions (2–{MAX_SUB_QUESTIONS} allowed)"
            fallback = self._fallback.decompose(question)
            fallback.note = f"{note}; rule-based split instead"
            return fallback
        return Decomposition(subs, "split by the model", self.name)


class LLMExpander:
    """Multi-query expansion (3 phrasings, fused by reciprocal rank; as in RAG-Fusion), HyDE
    (Gao et al. 2022, "Precise Zero-Shot Dense Retrieval without Relevance Labels": search with
    a hypothetical answer passage) and step-back prompting (Zheng et al. 2023: search for the
    broader question too). An unusable reply skips the strategy, with a note."""

    SYSTEMS = {
        "multi_query": expand_prompts.MULTI_QUERY,
        "hyde": expand_prompts.HYDE,
        "step_back": expand_prompts.STEP_BACK,
    }
    LIMITS = {"multi_query": 3, "hyde": 1, "step_back": 1}

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self.name = model_name(model)

    def expand(self, question: str, kind: ExpansionKind) -> Expansion:
        user = expand_prompts.USER.format(question=question)
        out, note = ask_structured(self.model, ExpandOut, self.SYSTEMS[kind], user)
        queries = [q.strip() for q in (out.queries if out else []) if q.strip() and len(q) <= 2000]
        queries = [q for q in dict.fromkeys(queries) if q != question][: self.LIMITS[kind]]
        if not queries:
            return Expansion([], f"{kind} skipped", self.name, note or "the model wrote no usable query")
        return Expansion(queries, f"{kind} by the model", self.name)
