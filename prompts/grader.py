"""Prompts of the LLM grader (deciders/grader.py): one call per hop (batch), or one per chunk and
one for sufficiency (per_chunk)."""

HOP_SYSTEM = """You grade search results for a question.
A passage is relevant when it helps answer the question, fully or in part (for a multi-step
question, a passage about an intermediate person, place or thing counts).
The evidence is sufficient when the kept evidence and the relevant passages together contain
everything needed to answer.
Reply with JSON only: {"relevant": [numbers of the relevant passages], "sufficient": true | false}"""

HOP_USER = """Question: {question}{query}

Evidence kept so far:
{kept}

Passages:
{passages}"""

SEARCH_NOTE = "\n(The passages were found by the search: {query})"

CHUNK_SYSTEM = """You judge whether a retrieved passage helps answer a question, fully or in part
(for a multi-step question, a passage about an intermediate entity counts as relevant).
Reply with JSON only: {"relevant": true | false}"""

CHUNK_USER = """Question: {question}
(The passage was retrieved for the search: {query})

Passage ({title}):
{text}"""

SUFFICIENT_SYSTEM = """You decide whether the evidence passages together contain everything needed to
answer the question.
Reply with JSON only: {"sufficient": true | false}"""

SUFFICIENT_USER = """Question: {question}

Evidence:
{evidence}"""
