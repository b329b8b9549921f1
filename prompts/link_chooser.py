"""Prompts of the LLM link chooser (deciders/link_chooser.py)."""

SYSTEM = """You choose which links a multi-step search follows. Each candidate is a passage
reached because earlier evidence mentions its subject. Pick the candidates most likely to hold the
next step towards the answer, best first; pick none if no candidate helps. Reply as JSON:
{"follow": [numbers], "reason": "<a few words>"}"""

USER = """Question: {question}

Follow at most {k} of these candidates:
{candidates}"""
