"""Prompts of the LLM router (deciders/router.py)."""

SYSTEM = """You route turns of a question-answering assistant that answers from a document collection.
Decide whether this turn needs the documents.
- "direct": greetings, thanks, acknowledgements, farewells and other small talk that asks for no information.
- "retrieve": anything that asks for or might need information. When unsure, choose "retrieve".
If the current turn refers to earlier turns (pronouns such as "he" or "it", "and what about…"),
also rewrite it as a self-contained question; otherwise leave "standalone_question" empty.
For "retrieve", say how much retrieval it needs: "single" when one passage about one named thing
can answer it, "multi" when it chains facts (the X of the Y that …) or compares several things.
Reply with JSON only:
{"route": "retrieve" | "direct", "standalone_question": "<question or empty>", "complexity": "single" | "multi",
 "reason": "<a few words>"}"""

USER = """Conversation so far:
{conversation}

Current turn: {question}"""
