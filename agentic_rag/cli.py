"""The ``agentic-rag`` command line (Typer): thin — parse, call :class:`App`, print."""

from __future__ import annotations

import json
import logging
import signal
import sys
import uuid
import warnings
from pathlib import Path
from typing import Annotated, Optional

import typer
from pydantic import ValidationError

from agentic_rag.errors import AgenticRagError, ConfigurationError
from graph.config import RunContext, Settings

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Agentic RAG over your documents.")

DEMO_COLLECTION = "pydocs"
DEMO_QUESTIONS = (
    "Hello!",
    "What does functools.lru_cache do?",
    "What is the difference between break and continue in a loop?",
    "How does the with statement use __enter__ and __exit__?",
    "Who won the 2018 FIFA World Cup?",
)

DataDir = Annotated[
    Optional[Path],
    typer.Option("--data-dir", help="Data folder (default $XDG_DATA_HOME/agentic-rag; env AGENTIC_RAG_DATA_DIR)."),
]
Collection = Annotated[
    Optional[str], typer.Option("--collection", help="Chunk collection (env AGENTIC_RAG_COLLECTION).")
]
Embedding = Annotated[Optional[str], typer.Option("--embedding", help="'wordllama' or 'openai:<model>'.")]
Deciders = Annotated[Optional[str], typer.Option("--deciders", help="auto | llm | rules.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _settings(data_dir: Path | None, collection: str | None, embedding: str | None = None) -> Settings:
    overrides = {"data_dir": data_dir, "collection": collection, "embedding": embedding}
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigurationError(f"invalid setting ({problems})") from None


def _open_app(settings: Settings):
    from agentic_rag.app import App  # heavy imports only once arguments are valid

    return App(settings)


def _print_result(result: dict, as_json: bool) -> None:
    if as_json:
        keys = (
            "thread_id",
            "question",
            "answer",
            "citations",
            "stop_reason",
            "hops",
            "retries",
            "route",
            "trace",
            "notes",
        )
        typer.echo(json.dumps({k: result.get(k) for k in keys}, ensure_ascii=False))
        return
    typer.echo(result.get("answer", ""))
    if result.get("citations"):
        typer.echo("\nSources:")
        for c in result["citations"]:
            typer.echo(f"  [{c['mark']}] {c['title']} — {c['source']} ({c['chunk_id'][:12]})")
    typer.echo("\nTrace:")
    typer.echo(f"  route: {result.get('route')}")
    for hop in result.get("trace", []):
        relevant = sum(1 for v in hop.get("verdicts", {}).values() if v)
        typer.echo(
            f"  hop {hop['hop']}: {hop['query'][:70]!r} → {len(hop['chunk_ids'])} chunks, {hop['new']} new, "
            f"{relevant} relevant, {hop.get('admitted', 0)} kept "
            f"[{hop.get('grader', '?')}, {hop.get('elapsed_ms', 0):.0f} ms]"
        )
    for note in result.get("notes", []):
        typer.echo(f"  note: {note}")
    typer.echo(
        f"  stop: {result.get('stop_reason')} · hops {result.get('hops')} · retries {result.get('retries')} "
        f"· thread {result['thread_id']}"
    )


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.md .txt .rst .html .pdf, QA .jsonl).")],
    data_dir: DataDir = None,
    collection: Collection = None,
    embedding: Embedding = None,
) -> None:
    """Ingest files and folders; re-ingesting unchanged files adds nothing."""
    application = _open_app(_settings(data_dir, collection, embedding))
    try:
        report = application.ingest(paths, progress=sys.stderr.isatty())
        total = application.services.store.count()
    finally:
        application.close()
    typer.echo(
        f"{report.files} files ({report.unchanged} unchanged): {report.added} chunks added, {report.removed} removed"
        + (f", {report.deleted_files} deleted files dropped" if report.deleted_files else "")
        + f"; collection '{application.settings.collection}' holds {total} chunks"
    )
    for path in report.empty:
        typer.echo(f"note: skipped empty file {path}", err=True)
    for path, reason in report.skipped:
        typer.echo(f"skipped {path}: {reason}", err=True)
    if report.skipped:
        raise AgenticRagError(
            f"{len(report.skipped)} file(s) could not be read (listed above); the rest were ingested. "
            "Fix or remove them and ingest again"
        )


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    thread: Annotated[Optional[str], typer.Option("--thread", help="Thread id (new thread when omitted).")] = None,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    collection: Collection = None,
    embedding: Embedding = None,
    deciders: Deciders = None,
    max_retries: Annotated[Optional[int], typer.Option(help="Reformulations allowed (0–6).")] = None,
    max_evidence: Annotated[Optional[int], typer.Option(help="Evidence budget, in chunks.")] = None,
    retrieve_k: Annotated[Optional[int], typer.Option(help="Chunks per retrieval hop.")] = None,
    time_limit: Annotated[Optional[float], typer.Option(help="Time budget per question, seconds.")] = None,
) -> None:
    """Answer a question from the ingested documents, with citations."""
    context = RunContext.from_mapping(
        {
            "deciders": deciders,
            "max_retries": max_retries,
            "max_evidence": max_evidence,
            "retrieve_k": retrieve_k,
            "time_limit_s": time_limit,
        }
    )
    application = _open_app(_settings(data_dir, collection, embedding))
    thread = thread or uuid.uuid4().hex
    try:
        result = application.ask(question, thread_id=thread, context=context)
    except KeyboardInterrupt:
        typer.echo(f"interrupted; finish this question with: agentic-rag resume {thread}", err=True)
        raise typer.Exit(130) from None
    finally:
        application.close()
    _print_result(result, as_json)


@app.command()
def resume(
    thread: Annotated[str, typer.Argument(help="Thread id to continue.")],
    as_json: AsJson = False,
    data_dir: DataDir = None,
    collection: Collection = None,
    embedding: Embedding = None,
) -> None:
    """Continue a thread whose run was interrupted (Ctrl-C, crash) from its last checkpoint."""
    application = _open_app(_settings(data_dir, collection, embedding))
    try:
        result = application.resume(thread)
    finally:
        application.close()
    _print_result(result, as_json)


@app.command()
def demo(data_dir: DataDir = None) -> None:
    """Ingest the Python reference manual and stdlib docs, then answer a few questions offline."""
    from ingest.pydoc_corpus import pydoc_sources

    settings = _settings(data_dir, DEMO_COLLECTION)
    application = _open_app(settings)
    try:
        typer.echo(f"Ingesting the Python {sys.version.split()[0]} reference manual and module docs …")
        report = application.ingest_sources(pydoc_sources(settings.chunk_size, settings.chunk_overlap))
        typer.echo(
            f"{report.files} documents ({report.unchanged} unchanged): {report.added} chunks added, "
            f"{report.removed} removed; "
            f"{application.services.store.count()} chunks in '{DEMO_COLLECTION}'\n"
        )
        for question in DEMO_QUESTIONS:
            typer.echo(f"Q: {question}")
            _print_result(application.ask(question, context=RunContext(deciders="rules")), as_json=False)
            typer.echo("")
    finally:
        application.close()


def main() -> None:
    """Console-script entry point. Usage errors are Typer's (exit 2); user errors print one line
    and exit with the error's code; Ctrl-C and SIGTERM stop cleanly (the embedded server too)."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="platformdirs")
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        app()
    except AgenticRagError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()
