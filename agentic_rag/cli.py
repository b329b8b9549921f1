"""The ``agentic-rag`` command line (Typer): thin — parse, call :class:`App`, print."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import uuid
import warnings
from functools import cache, partial
from pathlib import Path
from typing import Annotated, Optional

import typer

from agentic_rag.client import command_of, dispatch
from agentic_rag.collections_cli import collections, warn_unfinished_ingests
from agentic_rag.demo import demo
from agentic_rag.eval_cli import evaluate, evaluate_docs
from agentic_rag.mcp_cli import mcp
from agentic_rag.models_cli import models
from agentic_rag.options import (
    AsJson,
    Collection,
    DataDir,
    Deciders,
    Embedding,
    NewThread,
    ThreadId,
    ThreadOption,
    field_values,
    open_app,
    parse_answer,
    require_database,
    resume_command,
    settings_from,
    thread_settings,
)
from agentic_rag.output import (
    no_thread_message,
    print_ingest,
    print_result,
    stream_printer,
)
from agentic_rag.server_cli import server
from agentic_rag.threads_cli import history, prune, replay, threads
from core.errors import AgenticRagError, CollectionNotFoundError, IngestError, did_you_mean, similar_ids
from graph.context import RunContext, validate_question

# Plain click help and usage errors: Typer's rich formatting imports rich and markdown-it, about
# 0.1 s of the 0.3 s a `--help`, `--version` or mistyped argument may take (bench/cli_latency.py)
app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="Agentic RAG over your documents.", rich_markup_mode=None
)
app.add_typer(models, name="model")
app.add_typer(collections, name="collections")
app.add_typer(server, name="server")
app.command()(demo)
app.command()(mcp)
app.command("eval", short_help="Compare standard and agentic RAG on a QA dataset and its corpus.")(evaluate)
app.command("eval-docs", short_help="Doc-QA benchmark over several manuals, per manual and pooled.")(evaluate_docs)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"agentic-rag {version('agentic-rag')}")
        raise typer.Exit()


@app.callback()
def _global_options(
    chat_model: Annotated[
        Optional[str],
        typer.Option("--chat-model", help="Chat model of the LLM deciders, e.g. 'local' (env AGENTIC_RAG_CHAT_MODEL)."),
    ] = None,
    _version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version and exit.")
    ] = False,
) -> None:
    """Agentic RAG over your documents."""
    if chat_model:
        os.environ["AGENTIC_RAG_CHAT_MODEL"] = chat_model


@app.command()
def ingest(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or folders (.md .txt .rst .html .pdf .docx .pptx .xlsx, QA .jsonl).")
    ],
    data_dir: DataDir = None,
    collection: Collection = None,
    embedding: Embedding = None,
    exclude: Annotated[
        Optional[list[str]],
        typer.Option(
            "--exclude",
            help="Leave out files matching this gitignore-style pattern, relative to each folder "
            "('_sources/*', '*.txt'); repeatable. A .ragignore file in a folder adds its own patterns.",
        ),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="Name every skipped file with its reason.")] = False,
) -> None:
    """Ingest files and folders; re-ingesting unchanged files adds nothing. A folder is mirrored:
    files deleted from it, or now excluded, have their chunks removed. Files that cannot be read
    are skipped and counted by reason (listed with --verbose); the exit code is 0 when any file
    was ingested or unchanged. Ctrl-C keeps what was written: the same command continues."""
    tty = sys.stderr.isatty()
    with open_app(settings_from(data_dir, collection, embedding)) as application:
        try:
            report = application.ingest(
                paths, progress=tty, exclude=exclude or (), log=None if tty else partial(typer.echo, err=True)
            )
        except KeyboardInterrupt:
            typer.echo("interrupted; files written so far are kept: run the same command again to continue", err=True)
            raise typer.Exit(130) from None
        total = None if report.discarded else application.services.store.count()
    print_ingest(report, application.settings.collection, total, verbose)
    if report.interrupted:
        typer.echo(
            f"interrupted after {report.files} files: they are kept ({report.added} chunks added); the rest were "
            "not read. Run the same command again to continue (unchanged files are skipped)",
            err=True,
        )
        raise typer.Exit(130)
    if (report.skipped or report.empty) and not report.files:  # an empty file is no document either
        raise IngestError(
            f"none of the {len(report.skipped) + len(report.empty)} file(s) could be ingested "
            "(reasons above; --verbose names them)"
        )


@app.command(short_help="Answer a question from the ingested documents, with citations.")
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    thread: ThreadOption = None,
    new: NewThread = False,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    collection: Collection = None,
    embedding: Embedding = None,
    deciders: Deciders = None,
    max_retries: Annotated[Optional[int], typer.Option(help="Hops allowed after the first (0–3).")] = None,
    max_evidence: Annotated[Optional[int], typer.Option(help="Evidence budget, in chunks.")] = None,
    retrieve_k: Annotated[
        Optional[int], typer.Option("--retrieve-k", "--k", help="Chunks per retrieval hop (eval's --k).")
    ] = None,
    time_limit: Annotated[Optional[float], typer.Option(help="Time budget per question, seconds.")] = None,
    graph_hop: Annotated[Optional[bool], typer.Option(help="Alternate link hops with new queries (on).")] = None,
    expansion: Annotated[Optional[str], typer.Option(help="none, multi_query, hyde, step_back (LLM only).")] = None,
    decompose: Annotated[Optional[bool], typer.Option(help="Split compound and comparison questions (on).")] = None,
    adaptive: Annotated[Optional[bool], typer.Option(help="One retrieval for single-hop questions (off).")] = None,
    source: Annotated[
        Optional[list[str]], typer.Option("--source", help="Only sources matching this glob (repeatable).")
    ] = None,
    filter_: Annotated[
        Optional[list[str]],
        typer.Option(
            "--filter", help="Only chunks with FIELD=VALUE (repeatable; source, title, chunk_index, version)."
        ),
    ] = None,
    review_route: Annotated[bool, typer.Option(help="Pause after routing for approval or override.")] = False,
    review_stop: Annotated[bool, typer.Option(help="Pause when the search stops short of evidence.")] = False,
    review_answer: Annotated[bool, typer.Option(help="Pause on the draft answer for approval or edits.")] = False,
    stream: Annotated[bool, typer.Option("--stream", help="Print each hop as it happens, then the answer.")] = False,
) -> None:
    """Answer a question from the ingested documents, with citations. The thread id is printed
    on stderr first; a run that pauses for review or is interrupted continues with `resume`.
    --thread continues a thread: a mistyped id is an error naming the closest ones, not a new
    thread that has lost the conversation; --new starts a thread under an id of your choosing."""
    from core.errors import ThreadError

    context = RunContext.from_mapping(
        {
            "deciders": deciders,
            "max_retries": max_retries,
            "max_evidence": max_evidence,
            "retrieve_k": retrieve_k,
            "time_limit_s": time_limit,
            "graph_hop": graph_hop,
            "adaptive": adaptive,
            "decompose": decompose,
            "expansion": expansion,
            "sources": source or None,
            "filters": field_values(filter_ or [], "--filter") or None,
            "review_route": review_route,
            "review_stop": review_stop,
            "review_answer": review_answer,
        }
    )
    validate_question(question, context.max_question_chars)  # before a thread id is printed
    given, thread = bool(thread), thread or uuid.uuid4().hex
    settings = thread_settings(data_dir, collection, embedding, thread if given else None)
    require_database(settings)
    with open_app(settings) as application:
        try:
            known = given and application.has_thread(thread)
            ids = [row["thread_id"] for row in application.threads(limit=200)] if given and not known else []
            similar = similar_ids(ids, thread)
            if not known:  # a missing or empty collection fails here, before a thread id is printed
                try:
                    application.services.require_chunks()
                except CollectionNotFoundError as exc:
                    if not given or new:
                        raise
                    if settings.collection == type(settings).model_fields["collection"].default:  # none named:
                        raise ThreadError(no_thread_message(thread, similar)) from exc  # the id is what is wrong
                    hint = f" ({did_you_mean(similar)})" if similar else ""
                    raise CollectionNotFoundError(f"no thread '{thread}'{hint} to continue, and {exc}") from exc
            if given and known == new:  # a typo is not a silent new thread, nor --new a silent follow-up
                raise ThreadError(
                    f"thread '{thread}' exists: leave out --new to continue it, or give another id"
                    if known
                    else no_thread_message(thread, similar)
                )
            note = " (continued)" if known else " (new)" if given else ""
            typer.echo(f"thread: {thread}{note}", err=True)
            warn_unfinished_ingests(application, [application.settings.collection])
            on_event = stream_printer() if stream and not as_json else None
            result = application.ask(question, thread_id=thread, context=context, on_event=on_event)
        except KeyboardInterrupt:
            if application.has_thread(thread):
                hint = resume_command(thread, data_dir, collection, embedding)
                typer.echo(f"interrupted; finish this question with: {hint}", err=True)
            else:
                typer.echo("interrupted before the run started; nothing was saved", err=True)
            raise typer.Exit(130) from None
    resume_hint = partial(resume_command, data_dir=data_dir, collection=collection, embedding=embedding)
    print_result(result, as_json, resume_hint, streamed=on_event is not None)


@app.command()
def resume(
    thread: ThreadId,
    answer: Annotated[
        Optional[str], typer.Option("--answer", help="Answer to the pending review: JSON, or a word such as approve.")
    ] = None,
    checkpoint: Annotated[Optional[str], typer.Option("--checkpoint", help="Must be the latest checkpoint.")] = None,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    collection: Collection = None,
    embedding: Embedding = None,
) -> None:
    """Answer a thread's pending review, or finish a run that was interrupted (Ctrl-C, crash)."""
    from agentic_rag.app import NO_ANSWER

    with open_app(thread_settings(data_dir, collection, embedding, thread)) as application:
        value = NO_ANSWER if answer is None else parse_answer(answer)
        result = application.resume(thread, value, checkpoint_id=checkpoint)
    print_result(
        result, as_json, partial(resume_command, data_dir=data_dir, collection=collection, embedding=embedding)
    )


app.command()(threads)
app.command()(prune)
app.command()(history)
app.command()(replay)


@cache
def command():
    """The click command of :data:`app`, built once per process (the warm service runs many)."""
    return typer.main.get_command(app)


def parses(argv: list[str]) -> bool:
    """Whether the command line ``argv`` (a command and its arguments, after the global options)
    parses: a usage error is printed by running it here, not by starting the warm service."""
    name = command_of(argv)
    sub = command().commands.get(name) if name else None
    if sub is None:
        return False
    try:
        sub.make_context(name, argv[argv.index(name) + 1 :]).close()
    except Exception:  # noqa: BLE001 - a usage error as Typer's own click raises it, or an eager option's exit
        return False
    return True


def run(argv: list[str], prog_name: str | None = None) -> int:
    """Run one command line in this process (the warm service runs each command it is given
    through here).

    Args:
        argv: the arguments, without the program name.
        prog_name: what usage messages call the program (default: as click detects it).

    Returns:
        The exit code: Typer's (2 for a usage error), or the user error's code after printing it
        on one line (and as JSON with ``--json``).
    """
    try:
        command().main(args=list(argv), prog_name=prog_name, standalone_mode=True)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        typer.echo(exc.code, err=True)
        return 1
    except AgenticRagError as exc:
        typer.echo(f"error: {exc}", err=True)
        if "--json" in argv:  # a script reading JSON gets the error as JSON too
            typer.echo(json.dumps({"error": str(exc), "kind": type(exc).__name__, "exit_code": exc.exit_code}))
        return exc.exit_code
    return 0


def run_here() -> None:
    """Run ``sys.argv`` in this process and exit with its code (:func:`agentic_rag.client.main`
    calls it for what the warm service does not run). Usage errors are Typer's (exit 2); user
    errors print one line and exit with the error's code; Ctrl-C and SIGTERM stop cleanly (the
    embedded server too)."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="platformdirs")
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.exit(run(sys.argv[1:]))


def main() -> None:
    """``python -m agentic_rag.cli``: as the ``agentic-rag`` script (:mod:`agentic_rag.entry`)."""
    dispatch(sys.argv[1:], parses, run_here)


if __name__ == "__main__":
    main()
