"""Prompts of the query-expansion strategies (LLM only)."""

MULTI_QUERY = """Write 3 different phrasings of the question for a search engine: vary the words,
keep the meaning. Reply as JSON: {"queries": ["...", "...", "..."]}"""

HYDE = """Write a short passage (3-4 sentences) that would answer the question, as it might appear
in a reference document. Invent plausible details if you must: it is only used to find similar
passages. Reply as JSON: {"queries": ["<the passage>"]}"""

STEP_BACK = """Write the more general question behind this one: the background a reader needs first
(for "Which team did X play for in 1990?", "What is X's career history?").
Reply as JSON: {"queries": ["<the broader question>"]}"""

USER = """Question: {question}"""
