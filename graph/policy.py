"""Loop policy: every conditional edge, every stop rule and the first-search choice.

Nodes return facts (the hop's chunks, the grader's verdicts, the next queries); the functions
here decide what follows. Stop rules run right after the node they judge (the builder attaches
them, :data:`STOP_RULES`) and record ``stop_reason``; edges only read it. Every cap is code,
whatever any model returns, so a question takes at most :meth:`RunContext.step_bound` steps:

* ``max_retries`` — hops after the first (a graph hop or a reformulated search);
* ``evidence_budget`` — the evidence is full and the last hop brought nothing better;
* ``repeated_query`` — the next queries were all tried this turn (after normalisation);
* ``no_progress`` — the last hop's chunks overlapped earlier ones ≥ ``overlap_stop``;
* ``time_limit`` — the question's working time reached ``time_limit_s``;
* ``single_retrieval`` — adaptive routing, a single-retrieval question after its one hop;
* ``not_in_collection`` — the question names something no document contains (a setting,
  product or function name checked literally): no query can find it, so no hop follows the first.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END
from langgraph.types import Send

from core.text import normalise_query
from core.tuning import TUNING, Tuning
from deciders.lexicon import SPLIT_CUE
from graph.context import RunContext
from graph.evidence import EvidenceChunk
from graph.state import AgentState, StopReason

ANSWER_STOPS = {"sufficient_evidence", "evidence_budget", "single_retrieval"}
"""Stops that judged the evidence enough. After the others (the search ran out: retries, a
repeated query, no progress, the time limit) the generator still answers when one evidence
sentence supports an answer, with a lower confidence ceiling; the stop review comes first."""
MAX_HUMAN_HOPS = 2
"""Extra hops a reviewer may grant per question at the stop review."""

FirstSearch = Literal["decompose", "expand_query", "retrieve"]


def recorded(state: AgentState) -> RunContext:
    """The run settings the question started with (written by the route node)."""
    return RunContext.from_mapping(state.get("run_context"))


def last_hop(state: AgentState) -> dict:
    """The trace entry of the last hop (empty before the first)."""
    return (state.get("trace") or [{}])[-1]


# -- stop rules ------------------------------------------------------------------------------


def stop_after_grade(state: AgentState, ctx: RunContext) -> StopReason | None:
    """The stop reason after a graded hop, or ``None`` to search again.

    Evidence judged sufficient after a graph hop (``links`` in its trace) does not stop the loop
    by itself: the linked chunks are about entities the evidence names, chosen without the
    question, and the question's terms were mostly covered before they came, so coverage cannot
    tell whether they answer it. The entity-query hop comes next to confirm it. When a cap
    leaves no room for that hop, the verdict stands and the stop is ``sufficient_evidence``.
    """
    last = last_hop(state)
    if state.get("absent_terms"):
        return "not_in_collection"
    sufficient = bool(state.get("sufficient"))
    if sufficient and not last.get("links"):
        return "sufficient_evidence"
    cap = first_cap(state, ctx, last)
    return "sufficient_evidence" if cap and sufficient else cap


def first_cap(state: AgentState, ctx: RunContext, last: dict) -> StopReason | None:
    """The first loop cap that fires after the hop traced in ``last``, or ``None``."""
    if ctx.adaptive and state.get("complexity") == "single":
        return "single_retrieval"
    if len(state.get("evidence", [])) >= ctx.max_evidence and last.get("admitted", 0) == 0:
        return "evidence_budget"
    if state.get("elapsed_ms", 0.0) >= ctx.time_limit_s * 1000:
        return "time_limit"
    if last.get("overlap", 0.0) >= ctx.overlap_stop:  # 0 on the first hop: nothing seen yet
        return "no_progress"
    if state.get("retries", 0) >= ctx.max_retries:
        return "max_retries"
    return None


def stop_after_reformulate(state: AgentState, ctx: RunContext) -> StopReason | None:
    """``repeated_query`` when every next query was already tried this turn; after a graph hop
    whose evidence was judged sufficient (and waited for this hop to confirm it), that verdict
    stands: ``sufficient_evidence``."""
    tried = state.get("tried_queries", [])
    if all(is_repeated(q, tried) for q in state.get("hop_queries") or [state["query"]]):
        return "sufficient_evidence" if state.get("sufficient") else "repeated_query"
    return None


def is_repeated(query: str, tried: list[str]) -> bool:
    """Whether ``query`` equals a tried query after normalisation (case, punctuation, stop
    words, stemming and word order are ignored)."""
    normal = normalise_query(query)
    return any(normalise_query(t) == normal for t in tried)


STOP_RULES = {"grade": stop_after_grade, "reformulate": stop_after_reformulate}
"""Node → the stop rule applied to the state it leaves."""


# -- edges ---------------------------------------------------------------------------------


def could_split(state: AgentState) -> bool:
    """Whether the turn's question has a conjunction or choice word ("or", "and", "both", …:
    :data:`deciders.lexicon.SPLIT_CUE`): without one there is nothing to decompose, and the
    ``decompose`` step (a graph step, maybe a model call) is skipped."""
    return bool(SPLIT_CUE.search(state.get("standalone_question") or ""))


def first_search(ctx: RunContext, split: bool = True) -> FirstSearch:
    """The node that starts retrieval: ``decompose`` with the ``decompose`` switch when the
    question could split (``split``: :func:`could_split`, false once it was split),
    ``expand_query`` with an ``expansion`` strategy, else ``retrieve``."""
    if split and ctx.decompose:
        return "decompose"
    return "retrieve" if ctx.expansion == "none" else "expand_query"


def after_route(state: AgentState) -> Literal["review_route", "decompose", "expand_query", "retrieve", "generate"]:
    """The optional route review first; then turns that need no documents go straight to the
    generator, the others to the first search."""
    ctx = recorded(state)
    if ctx.review_route:
        return "review_route"
    return "generate" if state.get("route") == "direct" else first_search(ctx, could_split(state))


def after_review_route(state: AgentState) -> Literal["decompose", "expand_query", "retrieve", "generate"]:
    """Down the approved or overridden route."""
    return "generate" if state.get("route") == "direct" else first_search(recorded(state), could_split(state))


def after_decompose(state: AgentState) -> list[Send] | Literal["expand_query", "retrieve"]:
    """One ``search_subquestion`` task per sub-question, run in parallel (``Send``); a question
    that did not split goes on to the first search."""
    subs = state.get("sub_questions") or []
    if not subs:
        return first_search(recorded(state), split=False)
    settings = state.get("run_context", {})
    return [
        Send("search_subquestion", {"index": i, "sub_question": q, "run_context": settings}) for i, q in enumerate(subs)
    ]


def after_grade(state: AgentState) -> Literal["follow_links", "reformulate", "review_stop", "generate"]:
    """Generate once any stop reason is set; a stop without enough evidence goes to the optional
    stop review first. Otherwise the next hop follows the mention graph (when ``graph_hop`` is on
    and the last hop was not a graph hop), else writes a new query: graph hops and entity-query
    hops alternate along a chain."""
    if state.get("stop_reason"):
        return "review_stop" if wants_stop_review(state) else "generate"
    return "follow_links" if recorded(state).graph_hop and not last_hop(state).get("links") else "reformulate"


def after_follow_links(state: AgentState) -> Literal["grade", "reformulate"]:
    """Grade the chunks the links reached; with no link to follow, fall back to a new query."""
    return "grade" if state.get("links") else "reformulate"


def after_reformulate(state: AgentState) -> Literal["retrieve", "review_stop", "generate"]:
    """Search again unless the stop rule fired (a repeated query)."""
    if not state.get("stop_reason"):
        return "retrieve"
    return "review_stop" if wants_stop_review(state) else "generate"


def after_review_stop(state: AgentState) -> Literal["retrieve", "generate", "__end__"]:
    """One more hop with the reviewer's query, the answer from what was found, or the end."""
    reviewed = state.get("reviewed")
    if reviewed == "stopped":
        return END
    return "generate" if reviewed == "accepted" else "retrieve"


def after_generate(state: AgentState) -> Literal["check_grounding", "__end__"]:
    """Answers from the documents have their grounding checked; small talk ends."""
    return END if state.get("route") == "direct" else "check_grounding"


def after_check_grounding(state: AgentState) -> Literal["generate", "review_answer", "__end__"]:
    """An ungrounded first draft is regenerated once; then the optional answer review."""
    if state.get("grounding", {}).get("status") == "regenerate":
        return "generate"
    return "review_answer" if reviews_answer(state) else END


def reviews_answer(state: AgentState) -> bool:
    """Whether a kept draft goes to the human answer review: it then enters the conversation
    (and the messages stream) when the review ends, as the review leaves it, not before."""
    return recorded(state).review_answer


def after_review_answer(state: AgentState) -> Literal["generate", "__end__"]:
    """Regenerate after the reviewer dropped evidence; else the end."""
    return "generate" if state.get("reviewed") == "dropped" else END


def wants_stop_review(state: AgentState) -> bool:
    """Whether a stop without enough evidence goes to the human stop review first."""
    return (
        recorded(state).review_stop
        and state.get("stop_reason") not in ANSWER_STOPS
        and state.get("human_hops", 0) < MAX_HUMAN_HOPS
    )


# -- the answer ------------------------------------------------------------------------------


def generation_plan(state: AgentState, tuning: Tuning = TUNING) -> tuple[str, list[EvidenceChunk]]:
    """(mode, evidence) for the generator: ``direct`` for small talk; ``answer`` from the kept
    evidence, whatever stopped the search — the generator answers only from a sentence that
    supports an answer, else abstains (a search that ran out often holds the answer all the
    same: "clock_timestamp() returns the actual current time …" for a paraphrased question
    whose terms the evidence never all covered); ``caveat`` with the best
    ``tuning.caveat_shown`` chunks of the last hop when no evidence was kept. Either way without
    the chunks a newer version supersedes (``superseded_by``; listed in ``conflicts``): never
    quoted or cited."""
    if state.get("route") == "direct":
        return "direct", []
    current = [c for c in state.get("evidence") or [] if not c.get("superseded_by")]
    if current:
        return "answer", current
    return "caveat", list(state.get("chunks", [])[: tuning.caveat_shown])


def answer_confidence(state: AgentState, cited: list, checked: int, unsupported: int, tuning: Tuning = TUNING) -> float:
    """Confidence that the response is right, 0–1.

    With the answer's ``support`` — the learned reader's calibrated probability that its answer
    sentence is right (:mod:`deciders.reader`), which both generators state — an answer's
    confidence is that probability times the share of checked claims the evidence supports, and
    an abstention's is one minus it (how sure the documents do not say it). Without one (an
    answer given part by part), the stop reason's ceiling (``tuning.confidence_*``) times the
    mean grader relevance of the cited chunks times that share; an abstention,
    ``confidence_sufficient``.

    Args:
        state: the graph state after generation (``stop_reason``, ``abstained``, ``support``).
        cited: (mark, chunk) pairs the answer cites; a chunk's ``relevance`` is 0–1.
        checked: claims the grounding check looked at (0: not checked).
        unsupported: how many of them the evidence does not support.
        tuning: the confidence ceilings.
    """
    supported = 1.0 - unsupported / checked if checked else 1.0
    support = state.get("support")
    if support is not None:
        support = min(max(support, 0.0), 1.0)
        return round(1.0 - support if state.get("abstained") else support * supported, 3)
    if state.get("abstained"):
        return tuning.confidence_sufficient
    relevance = sum(chunk.get("relevance", 0.0) for _, chunk in cited) / len(cited) if cited else 0.0
    stop = state.get("stop_reason")
    if stop == "sufficient_evidence":
        ceiling = tuning.confidence_sufficient
    elif stop in ANSWER_STOPS:
        ceiling = tuning.confidence_partial
    else:
        ceiling = tuning.confidence_caveat
    return round(ceiling * min(relevance, 1.0) * supported, 3)
