"""Check grounding: list the answer's claims that its cited evidence does not support; an
ungrounded answer is regenerated once without them, then returned with a lower confidence and
the unsupported claims listed — never silently."""

from __future__ import annotations

from graph.context import RunContext
from graph.policy import answer_confidence, generation_plan, reviews_answer
from graph.services import GraphServices
from graph.state import AgentState
from nodes.generate import answer_message
from nodes.step import node


def make_node(services: GraphServices):
    @node
    def check_grounding(state: AgentState, ctx: RunContext) -> dict:
        """Check an ``answer``-mode draft (caveats and abstentions, which quote the closest
        passages and claim nothing, are not checked) and set
        ``grounding`` (``status``: ``grounded``, ``regenerate``, ``unsupported`` or
        ``unchecked``), ``unsupported_claims`` and ``confidence``; a kept draft is added to
        ``messages`` (a rejected one never is), unless the answer review follows: it adds the
        answer it ends with."""
        mode, evidence = generation_plan(state, services.tuning)
        by_id = {c["chunk_id"]: c for c in evidence}
        cited = [(c["mark"], by_id[c["chunk_id"]]) for c in state.get("citations", []) if c["chunk_id"] in by_id]
        retried = state.get("grounding", {}).get("status") == "regenerate"
        claims = mode == "answer" and not state.get("abstained")
        grounding = services.deciders(ctx).grounder.check(state.get("answer", ""), cited) if claims else None
        update: dict = {}
        notes = []
        if grounding is None:
            status, unsupported, checked = "unchecked", [], 0
        else:
            unsupported, checked = grounding.unsupported, grounding.checked
            status = "grounded" if not unsupported else ("unsupported" if retried else "regenerate")
            if grounding.note:
                notes.append(f"check_grounding: {grounding.note}")
        if status == "regenerate":
            notes.append(f"check_grounding: {len(unsupported)} unsupported claim(s); regenerating without them")
        else:  # kept: it enters the conversation (and the messages stream) now, once; a reviewed one when
            if not reviews_answer(state):  # the review ends, as the review leaves it (nodes.review_answer)
                update["messages"] = [answer_message(state)]
            if status == "unsupported":
                notes.append(
                    f"check_grounding: still unsupported after regenerating: {unsupported}; confidence lowered"
                )
        update.update(
            grounding={"status": status, "checked": checked, "decider": grounding.decider if grounding else ""},
            unsupported_claims=unsupported,
            confidence=answer_confidence(state, cited, checked, len(unsupported), services.tuning),
            notes=notes,
        )
        return update

    return check_grounding
