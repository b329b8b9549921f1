"""Generate: the answer with citations, a caveat answer, or a direct reply. A draft enters the
conversation (``messages``, hence LangGraph's ``stream_mode="messages"``) only once it is final:
a direct reply here, an answer once :mod:`nodes.check_grounding` keeps it or, with the answer
review on, as the review ends (:mod:`nodes.review_answer`)."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from deciders.answer_types import expected_type
from deciders.generator import AnswerRequest
from deciders.router import subject_of
from graph.context import RunContext
from graph.policy import ANSWER_STOPS, generation_plan
from graph.services import GraphServices, QuestionTerms
from graph.state import AgentState, Citation
from nodes.step import node, with_note


def answer_message(state: AgentState) -> AIMessage:
    """The turn's answer as the conversation keeps it, with what a follow-up's pronoun may refer
    to or an elliptical one ask again (see :func:`deciders.router.contextualize`): the standalone
    question, its subject and answer type, the short answer, the cited titles."""
    question = state["standalone_question"]
    record = {
        "question": question,
        "subject": subject_of(question),
        "answer_type": expected_type(question),
        "short_answer": state.get("short_answer"),
        "cited_titles": [c["title"] for c in state.get("citations", [])],
    }
    return AIMessage(state.get("answer", ""), additional_kwargs=record)


def make_node(services: GraphServices):
    @node
    def generate(state: AgentState, ctx: RunContext) -> dict:
        """Answer from the kept evidence when a sentence there supports an answer, whatever
        stopped the search; otherwise say plainly that the documents do not hold the answer and
        show what was found."""
        mode, evidence = generation_plan(state, services.tuning)
        regenerating = state.get("grounding", {}).get("status") == "regenerate"
        question = state["standalone_question"]
        nothing = QuestionTerms({}, [], [])  # small talk: no terms looked up
        known = services.question_terms(question, state.get("absent_terms")) if mode != "direct" else nothing
        request = AnswerRequest(
            question=question,
            evidence=evidence,
            mode=mode,
            conversation=list(state.get("messages", []))[:-1],
            avoid=state.get("unsupported_claims", []) if regenerating else (),
            sub_questions=state.get("sub_questions", []),
            term_weights=known.weights,
            absent_terms=known.absent,
            rare_names=known.rare_names,
            synonyms=known.synonyms,
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
        }
        if state.get("route") == "direct":  # final: no grounding check follows (see check_grounding)
            update["messages"] = [answer_message({**state, **update})]
        if mode == "answer" and answer.abstained and state.get("stop_reason") in ANSWER_STOPS:
            update["stop_reason"] = "answer_not_found"
            update["notes"] = [
                f"generate: the search stopped on {state.get('stop_reason')}, but no evidence sentence answers "
                "the question; said so"
            ]
        return with_note(update, "generate", answer.note)

    return generate
