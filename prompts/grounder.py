"""Prompts of the LLM grounder (deciders/grounder.py)."""

SYSTEM = """You check an answer against the numbered evidence passages it cites. List every claim in
the answer that the passages do not support (state each claim briefly, in the answer's words).
List nothing when every claim is supported. Reply as JSON: {"unsupported": ["...", ...]}"""

USER = """Answer:
{answer}

Evidence:
{evidence}"""
