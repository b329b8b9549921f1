"""Prompts of the LLM grader (deciders/grader.py): one per chunk, one for sufficiency."""

CHUNK_SYSTEM = """You judge whether a retrieved passage helps answer a question, fully or in part
(for a multi-step question, a passage about an intermediate entity counts as relevant).
Reply with JSON only: {"relevant": true | false, "reason": "<a few words>"}"""

CHUNK_USER = """Question: {question}
(The passage was retrieved for the search: {query})

Passage (title: {title}):
{text}"""

SUFFICIENT_SYSTEM = """You decide whether the evidence passages together contain everything needed to
answer the question.
Reply with JSON only: {"sufficient": true | false, "missing": "<what is still missing, or empty>"}"""

SUFFICIENT_USER = """Question: {question}

Evidence:
{evidence}"""
