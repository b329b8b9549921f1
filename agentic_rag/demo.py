"""``agentic-rag demo``: the Python manual, ingested and asked a few questions offline."""

from __future__ import annotations

import sys

import typer

from agentic_rag.options import DataDir, open_app, settings_from
from agentic_rag.output import graph_summary, print_result
from graph.context import RunContext

DEMO_COLLECTION = "pydocs"
DEMO_QUESTIONS = (
    "Hello!",
    "What does functools.lru_cache do?",
    "What is the difference between break and continue in a loop?",
    "How does the with statement use __enter__ and __exit__?",
    "Who won the 2018 FIFA World Cup?",
)


def demo(data_dir: DataDir = None) -> None:
    """Ingest the Python reference manual and stdlib docs, then answer a few questions offline."""
    from ingest.pydoc_corpus import MODULES, pydoc_sources

    settings = settings_from(data_dir, DEMO_COLLECTION)
    with open_app(settings) as application:
        typer.echo(f"Ingesting the Python {sys.version.split()[0]} reference manual and module docs …")
        report = application.ingest_sources(pydoc_sources(settings.chunk_size, settings.chunk_overlap))
        typer.echo(
            f"{report.files} documents ({report.unchanged} unchanged): {report.added} chunks added, "
            f"{report.removed} removed; "
            f"{application.services.store.count()} chunks in '{DEMO_COLLECTION}'{graph_summary(report)}\n"
        )
        typer.echo(f"It holds the language reference and the pages of {len(MODULES)} modules: {', '.join(MODULES)}.\n")
        for question in DEMO_QUESTIONS:
            typer.echo(f"Q: {question}")
            print_result(application.ask(question, context=RunContext(deciders="rules")), as_json=False)
            typer.echo("")
        typer.echo(f'Ask your own: agentic-rag ask "How do I read a file with pathlib?" --collection {DEMO_COLLECTION}')
