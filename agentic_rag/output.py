"""What the command line prints: answers with their sources and trace, review prompts, rows,
ingest summaries — as text for people or as JSON."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Callable

import typer

from core.errors import did_you_mean

if TYPE_CHECKING:
    from ingest.pipeline import IngestReport


def quoted(text: str) -> str:
    """``text`` in double quotes with every run of whitespace (newlines, no-break spaces) made
    one space: for one-line human output, never Python escapes."""
    return '"' + " ".join(str(text).split()) + '"'


def thread_line(row: dict) -> str:
    """One row of ``threads``: id, status, collection, last update, question."""
    return (
        f"{row['thread_id']}  {row['status']:<11} {row.get('collection') or '-':<12} "
        f"{str(row['updated_at'])[:19]}  {quoted(row['question'][:70])}"
    )


def no_thread_message(thread_id: str, similar: list[str]) -> str:
    """The error for ``ask --thread ID`` when no thread has that id: the ``similar`` existing ids
    when it looks like a typo, and how to start a new thread instead."""
    hint = did_you_mean(similar) or "`agentic-rag threads` lists the existing ones"
    return (
        f"no thread '{thread_id}' to continue ({hint}); leave --thread out to start a new thread, "
        "or add --new to start one under this id"
    )


def no_threads_message(status: str | None, collection: str | None) -> str:
    """The line ``threads`` prints when no thread matches: what was looked for."""
    which = [f"with status {status}"] if status else []
    which += [f"asked on collection '{collection}'"] if collection else []
    return f"no thread {' '.join(which)}" if which else "no threads yet: `agentic-rag ask QUESTION` starts one"


def checkpoint_line(row: dict) -> str:
    """One row of ``history``: checkpoint, step, node, route, query, evidence, retries, stop, next."""
    step = "-" if row["step"] is None else row["step"]  # a checkpoint written by hand may have none
    return (
        f"{row['checkpoint_id']}  step {step:>2}  {row['node']:<13} route={row['route'] or '-'} "
        f"query={quoted((row['query'] or '')[:50])} evidence={len(row['evidence'])} retries={row['retries']} "
        f"stop={row['stop_reason'] or '-'} next={','.join(row['next']) or '-'}"
    )


def print_rows(rows: list[dict], as_json: bool, line: Callable[[dict], str]) -> None:
    """Print ``rows`` as one JSON list, or one ``line(row)`` each."""
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, default=str))
        return
    for row in rows:
        typer.echo(line(row))


def hop_event_line(event: dict) -> str | None:
    """One line of ``ask --stream`` for a hop step (a ``stream_mode="custom"`` event: ``node``
    and its trace entry), or ``None`` for one that adds nothing to show."""
    if "chunk_ids" in event:  # a search or a graph hop
        kind = "links" if event.get("links") else "search"
        return (
            f"hop {event.get('hop')} ({event['node']}, {kind}): {quoted(event.get('query', '')[:70])} → "
            f"{len(event['chunk_ids'])} chunks, {event.get('new', 0)} new"
        )
    if "verdicts" in event:
        relevant = sum(1 for v in event["verdicts"].values() if v)
        enough = "enough evidence" if event.get("sufficient") else "not enough yet"
        return f"  graded: {relevant} relevant, {event.get('admitted', 0)} kept; {enough}"
    if "next_query_by" in event:
        return f"  next query by {event['next_query_by']}: {event.get('next_query_reason', '')}"
    return None


def stream_printer() -> Callable[[str, object], None]:
    """The ``on_event`` of ``ask --stream``: a line per hop step as it happens, then the answer
    when the run writes it (an ``AIMessage`` on the messages stream)."""

    def on_event(mode: str, data) -> None:
        if mode == "custom":
            line = hop_event_line(data)
            if line:
                typer.echo(line)
        elif mode == "messages" and data[0].type in ("ai", "AIMessageChunk") and data[0].content:
            typer.echo(f"\n{data[0].content}")

    return on_event


def doubt(result: dict) -> str:
    """What follows the printed short answer when its confidence is below the level to trust
    (:func:`deciders.reader.trust_level`): " (unsure: confidence 0.40, below 0.85)", or, when the reader
    has no such level (no confidence was right 90 % of the time on manuals held out), the confidence and
    that fact — a confidence of 1.00 is then no promise; else nothing."""
    from deciders.reader import trust_level

    confidence, trust = result.get("confidence"), trust_level()
    if confidence is None or confidence >= trust:
        return ""
    return (
        f" (unsure: confidence {confidence:.2f}, below {trust})"
        if trust <= 1
        else f" (unsure: confidence {confidence:.2f}, but no level was right 90 % of the time on held-out manuals)"
    )


def answer_line(result: dict) -> str | None:
    """The line printed before an answer's text: "Answer: " and its short answer with any
    :func:`doubt`; for a cited answer without one, that its passages are the answer, so a
    quoted sentence is not taken for a checked value ("Answer: in the passages below (unsure: …)");
    for an abstention, that the documents were not found to say it and how sure that is (:func:`verdict`:
    "the documents may still say it: check the closest passages"); ``None`` for a reply that cites nothing."""
    if result.get("abstained") and result.get("confidence") is not None:
        return f"Answer: not found in the documents ({verdict(result)})"
    if short := result.get("short_answer"):
        return f"Answer: {short}{doubt(result)}"
    if result.get("abstained") or not result.get("citations"):
        return None
    return f"Answer: in the passages below{doubt(result)}"


def verdict(result: dict) -> str:
    """What the confidence tells the reader: of an answer, whether to trust it — and below an
    even chance (the calibrated confidence is the share of such answers that were right), that
    it is more often wrong than right; of an abstention, whether the documents most likely do
    not hold the answer — or, when the question names something no document contains (stop
    reason ``not_in_collection``, checked literally against every chunk), that fact, whatever the
    calibrated confidence (which abstentions of every kind share)."""
    confidence = result["confidence"]
    from deciders.reader import trust_level

    sure = confidence >= trust_level()
    if result.get("abstained") and result.get("stop_reason") == "not_in_collection":
        return "no document mentions what it asks about: checked against the whole collection"
    if result.get("abstained"):
        if sure:
            return "the documents most likely do not say"
        return "the documents may still say it: check the closest passages"
    if sure:
        return "trust it"
    return "check the sources" if confidence >= 0.5 else "more often wrong than right at this level: check the sources"


def print_result(
    result: dict, as_json: bool, resume: Callable[[str], str] | None = None, streamed: bool = False
) -> None:
    """Print an answer with its sources and trace, or one JSON object; ``resume`` gives the
    command that answers a pending review of a thread (default: without store options);
    ``streamed``: the answer and hops were printed as they came (``ask --stream``), so only the
    short answer, sources, notes and stop line follow."""
    if as_json:
        keys = (
            "thread_id", "status", "question", "standalone_question", "short_answer", "answer", "abstained",
            "citations", "stop_reason", "confidence", "unsupported_claims", "conflicts", "complexity",
            "route_reason", "hops", "retries", "route", "trace", "notes", "reviewed", "interrupt",
        )  # fmt: skip
        fields = {k: result.get(k) for k in keys}
        if result.get("confidence") is not None:  # what the confidence tells: "trust it", "check the sources", …
            fields["verdict"] = verdict(result)
        typer.echo(json.dumps(fields, ensure_ascii=False, default=str))
        return
    if result.get("answer") and not result.get("interrupt"):
        if line := answer_line(result):  # after a streamed answer, before a printed one
            typer.echo(line + ("" if streamed else "\n"))
        if not streamed:
            typer.echo(result["answer"])
    if result.get("citations"):
        typer.echo("\nSources:")
        for c in result["citations"]:
            typer.echo(f"  [{c['mark']}] {c['title']} — {c['source']} ({c['chunk_id'][:12]})")
    typer.echo("\nTrace:")
    route = result.get("route")
    if result.get("standalone_question") and result["standalone_question"] != result.get("question"):
        route = f"{route} · as {quoted(result['standalone_question'])}"
    typer.echo(f"  route: {route}")
    if result.get("confidence") is not None:
        typer.echo(f"  confidence: {result['confidence']:.2f} ({verdict(result)})")
    for hop in [] if streamed else result.get("trace", []):
        relevant = sum(1 for v in hop.get("verdicts", {}).values() if v)
        typer.echo(
            f"  hop {hop['hop']}: {quoted(hop['query'][:70])} → {len(hop['chunk_ids'])} chunks, {hop['new']} new, "
            f"{relevant} relevant, {hop.get('admitted', 0)} kept "
            f"[{hop.get('grader', '?')}, {hop.get('elapsed_ms', 0):.0f} ms]"
        )
        for link in hop.get("links", []):  # a graph hop: which chunk's mention led where
            typer.echo(f"    link: {link['from'][:12]} mentions {quoted(link['entity'])} → {link['to'][:12]}")
    for note in dict.fromkeys(result.get("notes", [])):  # a note repeated hop after hop, once
        typer.echo(f"  note: {note}")
    if result.get("interrupt"):
        typer.echo(
            f"  paused · hops {result.get('hops')} · retries {result.get('retries')} · thread {result['thread_id']}"
        )
        command = resume(result["thread_id"]) if resume else f"agentic-rag resume {result['thread_id']}"
        print_interrupt(command, result["interrupt"])
        return
    typer.echo(
        f"  stop: {result.get('stop_reason')} · hops {result.get('hops')} · retries {result.get('retries')} "
        f"· thread {result['thread_id']}"
    )


def print_interrupt(resume: str, payload: dict) -> None:
    typer.echo(f"\nWaiting for your {payload['kind']} review.")
    if payload.get("error"):
        typer.echo(f"  last answer refused: {payload['error']}")
    if payload["kind"] == "route":
        typer.echo(f"  route: {payload['route']} ({payload['reason']})")
    elif payload["kind"] == "stop":
        typer.echo(
            f"  stopped: {payload['stop_reason']} after {payload['hops']} hop(s); "
            f"tried: {', '.join(map(quoted, payload['tried_queries']))}"
        )
    else:
        typer.echo(f"  draft: {payload['answer'][:300]}")
    for view in payload.get("evidence", []):
        typer.echo(f"  evidence {view['chunk_id']}: {view['title']} — {quoted(view['snippet'][:80])}")
    typer.echo(f"  accepts: {payload['accepts']}")
    typer.echo(f"  answer with: {resume} --answer VALUE")


def print_ingest(report: IngestReport, collection: str, total: int | None, verbose: bool = False) -> None:
    """The ingest summary line (``total``: the collection's chunks, ``None`` when it was
    discarded), then on stderr the skipped files counted by reason, the copies of pages skipped
    (:func:`copies_line`) and the one-page editions skipped, and with ``verbose`` every skipped,
    empty and copied file by name."""
    unread = len(report.skipped) + len(report.empty)
    seen = report.files + unread + len(report.copies) + len(report.editions)
    typer.echo(
        f"{seen} file{'' if seen == 1 else 's'}: {report.files - report.unchanged} ingested, "
        + f"{report.unchanged} unchanged"
        + (f", {len(report.copies)} cop{'y' if len(report.copies) == 1 else 'ies'} skipped" if report.copies else "")
        + (f", {len(report.editions)} one-page edition(s) skipped" if report.editions else "")
        + (f", {unread} skipped" if unread else "")
        + f"; {report.added} chunks added, {report.removed} removed"
        + (f", {report.repaired} files repaired (their chunks were missing)" if report.repaired else "")
        + (f", {report.deleted_files} deleted files dropped" if report.deleted_files else "")
        + (f", {report.excluded_files} excluded files dropped" if report.excluded_files else "")
        + f"; collection '{collection}' "
        + ("not created: nothing to hold" if total is None else f"holds {total} chunks")
        + graph_summary(report)
    )
    if report.files and report.unchanged == report.files:
        read = "every file read" if unread else "every file"
        kept = "; chunks of the skipped files from an earlier ingest are kept" if unread else ""
        typer.echo(f"{read} was already in collection '{collection}' with this content: nothing to add{kept}", err=True)
    if report.skipped or report.empty:
        counts = {**report.skipped_by_reason(), **({"empty": len(report.empty)} if report.empty else {})}
        typer.echo(
            f"skipped {unread} file(s): "
            + ", ".join(f"{n} {reason}" for reason, n in counts.items())
            + ("" if verbose else " (--verbose names them)"),
            err=True,
        )
    if report.copies:
        typer.echo(copies_line(report.copies, verbose), err=True)
    if report.editions:
        named = ", ".join(f"{os.path.basename(path)} (repeats {parts} pages)" for path, parts in report.editions)
        typer.echo(f"kept each page once: skipped one-page editions of other pages: {named}", err=True)
    if verbose:
        for path in report.empty:
            typer.echo(f"skipped {path}: empty", err=True)
        for path, reason in report.skipped:
            typer.echo(f"skipped {path}: {reason}", err=True)
        for path, kept in report.copies:
            typer.echo(f"skipped {path}: a copy of {kept}", err=True)


COPIES_NAMED = 3
"""Copies :func:`copies_line` names without ``--verbose``: a Sphinx folder holds one per page."""


def copies_line(copies: list[tuple[str, str]], verbose: bool = False) -> str:
    """The line saying which files were skipped as copies of a page another file holds
    (:mod:`ingest.copies`), each with the file kept, by their paths below the folder holding them
    all: "kept one file per page: skipped 2 copies: bash.pdf (bash.html kept), …"; the first
    :data:`COPIES_NAMED` only, unless ``verbose`` (which names each on a line of its own)."""
    paths = [path for pair in copies for path in pair]
    base = os.path.commonpath(paths) if len(set(paths)) > 1 else os.path.dirname(paths[0])
    named = [] if verbose else copies[:COPIES_NAMED]
    listed = ", ".join(f"{os.path.relpath(path, base)} ({os.path.relpath(kept, base)} kept)" for path, kept in named)
    more = len(copies) - len(named)
    return (
        f"kept one file per page: skipped {len(copies)} cop{'y' if len(copies) == 1 else 'ies'}"
        + (f": {listed}" if listed else "")
        + (f" and {more} more (--verbose names them)" if more and not verbose else "")
    )


def graph_summary(report: IngestReport) -> str:
    graph = report.graph
    if graph is None or not (graph.chunks_scanned or graph.mentions_dropped):
        return ""
    return (
        f"; mention graph: {graph.chunks_scanned} chunks scanned, {graph.mentions_added} links added, "
        f"{graph.mentions_dropped} dropped in {graph.seconds:.2f} s"
    )
