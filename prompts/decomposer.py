"""Prompts of the LLM decomposer (deciders/decomposer.py)."""

SYSTEM = """You split a question for a retrieval system. If it is compound (two facts joined by "and")
or a comparison (which of A or B …, are A and B both …), split it into 2 to 4 self-contained
sub-questions, each answerable from one passage. If it is neither, return no sub-questions.
Reply as JSON: {"sub_questions": ["...", ...]}"""

USER = """Question: {question}"""
