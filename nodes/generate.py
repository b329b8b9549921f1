"""Generate: the answer with citations, a caveat answer, or a direct reply."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from deciders.generator import AnswerRequest
from graph.context import RunContext
from graph.policy import generation_plan
from graph.services import GraphServices
from graph.state import AgentState, Citation
from nodes.step import node, with_note


def make_node(services: GraphServices):
    @node
    def generate(state: AgentState, ctx: RunContext) -> dict:
        """Answer from the kept evidence when the loop stopped with enough of it; otherwise say
        plainly that the documents do not hold the answer and show what was found."""
        mode, evidence = generation_plan(state, services.tuning)
        regenerating = state.get("grounding", {}).get("status") == "regenerate"
        request = AnswerRequest(
            question=state["standalone_question"],
            evidence=evidence,
            mode=mode,
            conversation=list(state.get("messages", []))[:-1],
            avoid=state.get("unsupported_claims", []) if regenerating else (),
            sub_questions=state.get("sub_questions", []),
        )
        answer = services.deciders(ctx).generator.generate(request)
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
        }
        return with_note(update, "generate", answer.note)

    return generate
