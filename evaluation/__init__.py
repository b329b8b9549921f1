"""Evaluation harness: standard (single-shot) vs agentic RAG on QA datasets, with hop-level metrics."""
