"""Collect what the reader learns from: for each question of a doc-QA set, the chunks the graph
handed to the generator (kept evidence, else the last hop's chunks) and the question's term
weights, saved as JSONL so features can be recomputed without searching again.

Besides the manuals, the Wikipedia sets of ``../shared/data`` (:data:`POOLED`: 2WikiMultihopQA,
MuSiQue and the fitted half of the SQuAD 2.0 sample, :func:`evaluation.datasets.fitted_half`)
are collected over their pooled paragraphs, each its own fold. HotpotQA and SQuAD's other half
are never collected: they are the held-out check of the shipped reader.

Usage::

    python -m bench.reader_data [--sets django,flask,2wiki] [--out eval-out/reader]

One file per set, ``<out>/<set>.jsonl``; a question already in its file is not asked again.
Records: ``id``, ``set``, ``question``, ``answers``, ``gold_pages`` (pooled sets: the gold
paragraphs' titles), ``evidence`` (the gold quotes or paragraphs), ``type``, ``weights`` (IDF
per question term), ``absent``, ``chunks`` (``chunk_id``, ``title``, ``text``, ``source``,
``relevance``, ``kept``).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path

from evaluation.datasets import QAItem, fitted_half, load_dataset
from evaluation.docsets import SHARED, DocSet, available
from evaluation.pgdocs import corpus_collection
from graph.context import RunContext

CHUNK_FIELDS = ("chunk_id", "title", "text", "source", "relevance", "score")
POOLED = {
    "2wiki": (SHARED / "2wikimultihopqa_dev_164.jsonl", "hotpotqa"),
    "musique": (SHARED / "musique_ans_200.jsonl", "musique"),
    "squad": (SHARED / "squad2_dev_500_queries.json", "squad"),
}
"""Wikipedia sets collected over their pooled paragraphs: name → (file, format)."""


def _done(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()}


def _write(app, items: list[QAItem], fold: str, path: Path, k: int) -> None:
    """Ask each item and append its record (see the module docstring) to ``path``."""
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
                "set": fold,
                "question": question,
                "answers": item.answers,
                "gold_pages": item.gold_pages or [t for t, _ in item.supporting if t],
                "evidence": item.evidence or [text for _, text in item.supporting],
                "type": item.type,
                "weights": known.weights,
                "absent": known.absent,
                "chunks": [{**{f: c.get(f) for f in CHUNK_FIELDS}, "kept": c["chunk_id"] in ids} for c in seen],
            }
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
            sink.flush()


def collect(docset: DocSet, out: Path, k: int = 5) -> Path:
    """Ingest ``docset``'s corpus (unchanged files are skipped) and append one record per
    question not yet in ``out/<name>.jsonl``; returns that path."""
    from agentic_rag.app import App
    from core.settings import Settings

    path = out / f"{docset.name}.jsonl"
    done = _done(path)
    items = [i for i in load_dataset(docset.questions, "pgdocs") if i.id not in done]
    if not items:
        return path
    app = App(Settings(collection=corpus_collection(docset.corpus)))
    try:
        app.ingest([docset.corpus], exclude=docset.exclude)
        _write(app, items, docset.fold, path, k)
    finally:
        app.close()
    return path


def collect_pooled(name: str, out: Path, k: int = 5) -> Path:
    """Ingest a :data:`POOLED` set's paragraphs into the collection ``agentic-rag eval`` uses for
    it and append one record per question not yet in ``out/<name>.jsonl`` (SQuAD: its fitted
    half only); returns that path."""
    from agentic_rag.app import App
    from core.settings import Settings
    from evaluation.runner import EvalConfig, EvalRun

    path = out / f"{name}.jsonl"
    dataset, fmt = POOLED[name]
    done = _done(path)
    config = EvalConfig(str(dataset), fmt, ["agentic"], k, "rules", 2, None)
    run = EvalRun(lambda collection: App(Settings(collection=collection)), config, out / "runs" / name)
    try:
        run.build_corpus()
        items = [i for i in run.items if i.id not in done and (fmt != "squad" or fitted_half(i.id))]
        _write(run.app, items, name, path, k)
    finally:
        run.close()
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", help="comma-separated set names (default: every available set)")
    parser.add_argument("--out", type=Path, default=Path("eval-out/reader"))
    args = parser.parse_args(argv)
    names = args.sets.split(",") if args.sets else None
    pooled = [n for n in (names or POOLED) if n in POOLED and POOLED[n][0].exists()]
    manuals = [n for n in names if n not in POOLED] if names else None
    sets, skipped = available(manuals, training=True) if manuals is None or manuals else ([], [])
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    for docset in sets:
        print(f"{docset.name}: {collect(docset, args.out)}", file=sys.stderr)
    for name in pooled:
        print(f"{name}: {collect_pooled(name, args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
