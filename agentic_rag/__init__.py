"""Agentic RAG application: command line, service wiring and the error types users see."""
