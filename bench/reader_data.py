"""Collect what the reader learns from: for each question of a doc-QA set, the chunks the graph
handed to the generator (kept evidence, else the last hop's chunks) and the question's term
weights, saved as JSONL so features can be recomputed without searching again.

Usage::

    python -m bench.reader_data [--sets django,flask] [--out eval-out/reader]

One file per set, ``<out>/<set>.jsonl``; a question already in its file is not asked again.
Records: ``id``, ``set``, ``question``, ``answers``, ``gold_pages``, ``evidence`` (the gold
quotes), ``type``, ``weights`` (IDF per question term), ``absent``, ``chunks`` (``chunk_id``,
``title``, ``text``, ``source``, ``relevance``, ``kept``).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path

from evaluation.datasets import load_dataset
from evaluation.docsets import DocSet, available
from evaluation.pgdocs import corpus_collection
from graph.context import RunContext

CHUNK_FIELDS = ("chunk_id", "title", "text", "source", "relevance", "score")


def collect(docset: DocSet, out: Path, k: int = 5) -> Path:
    """Ingest ``docset``'s corpus (unchanged files are skipped) and append one record per
    question not yet in ``out/<name>.jsonl``; returns that path."""
    from agentic_rag.app import App
    from core.settings import Settings

    path = out / f"{docset.name}.jsonl"
    done = (
        {json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()} if path.exists() else set()
    )
    items = [i for i in load_dataset(docset.questions, "pgdocs") if i.id not in done]
    if not items:
        return path
    app = App(Settings(collection=corpus_collection(docset.corpus)))
    try:
        app.ingest([docset.corpus], exclude=docset.exclude)
        context = RunContext(deciders="rules", max_evidence=k, retrieve_k=k)
        with path.open("a") as sink:
            for item in items:
                result = app.ask(item.question, thread_id=f"reader-{uuid.uuid4().hex[:10]}", context=context)
                values = app.graph.get_state({"configurable": {"thread_id": result["thread_id"]}}).values
                kept = [c for c in values.get("evidence") or [] if not c.get("superseded_by")]
                ids = {c["chunk_id"] for c in kept}
                seen = [*kept, *(c for c in values.get("chunks") or [] if c["chunk_id"] not in ids)]
                question = values.get("standalone_question") or item.question
                known = app.services.question_terms(question)
                record = {
                    "id": item.id,
                    "set": docset.fold,
                    "question": question,
                    "answers": item.answers,
                    "gold_pages": item.gold_pages,
                    "type": item.type,
                    "weights": known.weights,
                    "absent": known.absent,
                    "chunks": [{**{f: c.get(f) for f in CHUNK_FIELDS}, "kept": c["chunk_id"] in ids} for c in seen],
                }
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                sink.flush()
    finally:
        app.close()
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", help="comma-separated set names (default: every available set)")
    parser.add_argument("--out", type=Path, default=Path("eval-out/reader"))
    args = parser.parse_args(argv)
    sets, skipped = available(args.sets.split(",") if args.sets else None, training=True)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    for docset in sets:
        print(f"{docset.name}: {collect(docset, args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
