"""Generate: the answer with citations, a caveat answer, or a direct reply."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from graph.config import RunContext, turn_context
from graph.control import generation_plan
from graph.services import GraphServices
from graph.state import AgentState, Citation
from nodes import stopwatch


def make_node(services: GraphServices):
    def generate(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Answer from the kept evidence when the loop stopped with enough of it; otherwise say
        plainly that the documents do not hold the answer and show what was found."""
        ctx = turn_context(state, runtime.context)
        mode, evidence = generation_plan(state)
        conversation = list(state.get("messages", []))[:-1]
        with stopwatch() as ms:
            regenerating = state.get("grounding", {}).get("status") == "regenerate"
            answer = services.deciders(ctx).generator.generate(
                state.get("standalone_question") or state["question"],
                evidence,
                mode,
                conversation,
                avoid=state.get("unsupported_claims", []) if regenerating else (),
                sub_questions=state.get("sub_questions", []),
            )
        by_id = {c["chunk_id"]: c for c in evidence}
        citations = [
            Citation(
                mark=mark,
                chunk_id=cid,
                source=services.describe_source(by_id[cid]),
                title=by_id[cid]["title"],
                locator=by_id[cid].get("locator"),
                version=by_id[cid].get("version"),
                ingested_at=by_id[cid].get("ingested_at"),
            )
            for mark, cid in answer.cited
            if cid in by_id
        ]
        update = {
            "answer": answer.text,
            "citations": citations,
            # The cited titles name what the answer is about: follow-ups resolve "he"/"it" to them.
            "messages": [AIMessage(answer.text, additional_kwargs={"cited_titles": [c["title"] for c in citations]})],
            "elapsed_ms": state.get("elapsed_ms", 0.0) + ms[0],
        }
        if answer.note:
            update["notes"] = [*state.get("notes", []), f"generate: {answer.note}"]
        return update

    return generate
