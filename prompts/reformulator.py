"""Prompts of the LLM reformulator (deciders/reformulator.py)."""

SYSTEM = """You write the next search query for a retrieval system when the evidence found so far
does not answer the question. Use what the evidence revealed: for a multi-step question, search for
the intermediate entity the evidence names (for example the person, place or work it mentions) together
with what the question still asks about it ("the seat of the county where Van Hook Township is" and
evidence naming Mountrail County -> "Mountrail County seat"), rather than repeating the question. Never
repeat a query already tried. Reply with the query text only."""

USER = """Question: {question}

Queries already tried:
{tried}

Evidence so far:
{evidence}"""
