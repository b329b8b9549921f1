"""Review the draft answer (optional interrupt): a human approves it, edits it, or drops
evidence chunks and has it regenerated."""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, RemoveMessage

from graph.interrupts import ANSWER_ACCEPTS, AnswerDecisionIn, AnswerReview, ask_reviewer, evidence_views
from graph.policy import generation_plan
from graph.state import AgentState
from nodes.generate import answer_message


def resolve_ids(given: list[str], known: set[str]) -> tuple[set[str], list[str]]:
    """The chunk ids meant by ``given``: each an id of ``known`` or a unique prefix of one (the
    output shows 12 characters). Returns (the full ids, the given ids matching none or several)."""
    full, bad = set(), []
    for prefix in given:
        matches = [cid for cid in known if cid.startswith(prefix)] if prefix else []
        if len(matches) == 1:
            full.add(matches[0])
        else:
            bad.append(prefix)
    return full, bad


def review_answer(state: AgentState) -> dict:
    """Interrupt with an :class:`AnswerReview` (the policy routes on ``reviewed``:
    :func:`graph.policy.after_review_answer`).

    * approve — end with the draft;
    * edit — end with the reviewer's text (citations kept where their ``[mark]`` remains; no
      short answer and no confidence: the generator's no longer apply);
    * drop — remove the chunks (ids, or unique prefixes of them) from the evidence and
      regenerate (the new draft is reviewed in turn); unknown or ambiguous ids are refused and
      the reviewer asked again.

    The draft is not in the conversation while it waits (:func:`graph.policy.reviews_answer`):
    the answer the review ends with (the approved draft or the edited text) enters ``messages``
    here, so a client of LangGraph's ``stream_mode="messages"`` sees one answer per question,
    never a draft the review replaced. A thread paused by an earlier release holds its draft in
    ``messages`` already: it is kept, replaced or removed instead.
    """
    _, evidence = generation_plan(state)
    known = {c["chunk_id"] for c in evidence}
    payload = AnswerReview(
        kind="answer",
        question=state["question"],
        answer=state.get("answer", ""),
        citations=list(state.get("citations", [])),
        stop_reason=state.get("stop_reason"),
        evidence=evidence_views(evidence),
        accepts=ANSWER_ACCEPTS,
        error=None,
    )

    marks = {c["mark"] for c in state.get("citations", [])}

    def ids_known(decision: AnswerDecisionIn) -> str | None:
        _, unknown = resolve_ids(decision.chunk_ids or [], known)
        if unknown:
            return f"not in the evidence (or not unique): {unknown}; evidence ids: {sorted(known)}"
        stray = sorted({int(m) for m in re.findall(r"\[(\d+)\]", decision.answer or "")} - marks)
        return f"citation marks {stray} cite nothing; the draft's marks are {sorted(marks)}" if stray else None

    decision = ask_reviewer(dict(payload), ids_known)
    last = state["messages"][-1] if state.get("messages") else None
    draft = last if isinstance(last, AIMessage) else None  # paused by an earlier release: in the conversation
    if decision.action == "approve":
        return {"reviewed": "approved", "messages": [] if draft else [answer_message(state)]}
    if decision.action == "edit":
        marks = {int(m) for m in re.findall(r"\[(\d+)\]", decision.answer)}
        # the reviewer's text replaces the draft: its short answer and confidence no longer apply
        edit = {
            "answer": decision.answer,
            "short_answer": None,
            "confidence": None,
            "citations": [c for c in state.get("citations", []) if c["mark"] in marks],
        }
        message = answer_message({**state, **edit})
        message.id = draft.id if draft else None
        return {**edit, "messages": [message], "reviewed": "edited"}
    dropped, _ = resolve_ids(decision.chunk_ids, known)
    update = {
        "evidence": [c for c in state.get("evidence", []) if c["chunk_id"] not in dropped],
        "chunks": [c for c in state.get("chunks", []) if c["chunk_id"] not in dropped],
        "messages": [RemoveMessage(id=draft.id)] if draft else [],
        "grounding": {},  # the new draft gets its own check and its own regeneration
        "reviewed": "dropped",
        "notes": [f"review: dropped {len(dropped)} chunk(s) and regenerated"],
    }
    return update
