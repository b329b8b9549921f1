"""Generate: the answer with citations, a caveat answer, or a direct reply."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from deciders.answer_types import expected_type
from deciders.generator import Answer, AnswerRequest
from deciders.router import subject_of
from graph.context import RunContext
from graph.policy import generation_plan
from graph.services import GraphServices
from graph.state import AgentState, Citation
from nodes.step import node, with_note


def turn_record(question: str, answer: Answer, citations: list[Citation]) -> dict:
    """What a follow-up's pronoun may refer to (see :func:`deciders.router.contextualize`): the
    question's subject and answer type, the short answer, the cited titles."""
    return {
        "subject": subject_of(question),
        "answer_type": expected_type(question),
        "short_answer": answer.short_answer,
        "cited_titles": [c["title"] for c in citations],
    }


def make_node(services: GraphServices):
    @node
    def generate(state: AgentState, ctx: RunContext) -> dict:
        """Answer from the kept evidence when the loop stopped with enough of it; otherwise say
        plainly that the documents do not hold the answer and show what was found."""
        mode, evidence = generation_plan(state, services.tuning)
        regenerating = state.get("grounding", {}).get("status") == "regenerate"
        question = state["standalone_question"]
        weights, absent = services.term_weights(question) if mode != "direct" else ({}, [])
        request = AnswerRequest(
            question=question,
            evidence=evidence,
            mode=mode,
            conversation=list(state.get("messages", []))[:-1],
            avoid=state.get("unsupported_claims", []) if regenerating else (),
            sub_questions=state.get("sub_questions", []),
            term_weights=weights,
            absent_terms=absent,
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
            "short_answer": answer.short_answer,
            "abstained": answer.abstained,
            "support": answer.support,
            "citations": citations,
            "messages": [AIMessage(answer.text, additional_kwargs=turn_record(question, answer, citations))],
        }
        if mode == "answer" and answer.abstained:
            update["stop_reason"] = "answer_not_found"
            update["notes"] = [
                f"generate: the search stopped on {state.get('stop_reason')}, but no evidence sentence answers "
                "the question; said so"
            ]
        return with_note(update, "generate", answer.note)

    return generate
