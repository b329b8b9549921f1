"""Grade: judge each chunk of the hop and admit the relevant ones to the evidence pool (the stop
rule that follows is :func:`graph.policy.stop_after_grade`)."""

from __future__ import annotations

from graph.context import RunContext
from graph.evidence import admit
from graph.services import GraphServices
from graph.state import AgentState
from nodes.step import node, with_note


def make_node(services: GraphServices):
    @node
    def grade(state: AgentState, ctx: RunContext) -> dict:
        """Grade the hop's chunks against the (standalone) question and keep the relevant ones
        within the evidence budget; on the first hop, also note the question's names that no
        document contains (``absent_terms``: the stop rule then ends the search)."""
        chunks = state.get("chunks", [])
        evidence = state.get("evidence", [])
        question = state["standalone_question"]
        grading = services.deciders(ctx).grader.grade(question, state["query"], chunks, evidence)
        by_id = {v.chunk_id: v for v in grading.verdicts}
        relevant = [
            {**c, "relevance": by_id[c["chunk_id"]].score}
            for c in chunks
            if c["chunk_id"] in by_id and by_id[c["chunk_id"]].relevant
        ]
        hop = state.get("hops", 1)
        absent = services.absent_terms(question) if hop == 1 else state.get("absent_terms", [])
        single = state.get("complexity") != "multi"
        kept, conflicts, admitted = admit(
            question, hop, evidence, relevant, ctx.max_evidence, services.tuning.anchors, single
        )
        update = {
            "evidence": kept,
            "conflicts": conflicts,
            "sufficient": grading.sufficient,
            "absent_terms": absent,
            "trace": [
                {
                    "hop": hop,
                    "verdicts": {v.chunk_id: v.relevant for v in grading.verdicts},
                    "scores": {v.chunk_id: v.score for v in grading.verdicts},
                    "admitted": admitted,
                    "grader": grading.decider,
                    "sufficient": grading.sufficient,
                }
            ],
        }
        return with_note(update, f"grade (hop {hop})", grading.note, "grader_note")

    return grade
