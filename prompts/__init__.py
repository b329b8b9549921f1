"""Prompt text of each LLM decider, one module per decider. Nothing else lives here."""
