"""Ingest benchmark: chunks/s of a full ingest, median of N runs, and the embedding model's own rate.

Each run ingests the source into a fresh collection of one embedded PostgreSQL (the server is
started and the model loaded before the clock starts), so every run embeds, writes, BM25-indexes
and links (mention graph) all chunks. The embedding model alone is then timed on the same chunk
texts (title and text, as the writer embeds them); the ratio of the two rates says how much of
the ingest the model is.

    .venv/bin/python bench/ingest_rate.py [SOURCE ...] [--runs 3]

SOURCE defaults to ../shared/data/hotpotqa_dev_200.jsonl (its 1,971 paragraphs); a folder such
as /usr/share/doc/postgresql-doc-15/html works too (reading the files is then part of the time).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from agentic_rag.app import App
from core.settings import Settings
from ingest.loaders import EmptySourceError, UnreadableSourceError, load_file
from ingest.pipeline import collect_files
from providers.embeddings import load_embedding_model
from store.writer import embedding_text

HOTPOT = Path(__file__).resolve().parents[2] / "shared" / "data" / "hotpotqa_dev_200.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path, default=[HOTPOT])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ingest-bench-"))
    try:
        rates = []
        for run in range(args.runs):
            app = App(Settings(data_dir=tmp, collection=f"run{run}"))
            try:
                app.services.writable_store()  # the server started and the model loaded outside the clock
                started = time.perf_counter()
                report = app.ingest(args.sources)
                seconds = time.perf_counter() - started
            finally:
                app.close()
            rates.append(report.added / seconds)
            print(f"run {run + 1}: {report.added:,} chunks in {seconds:.2f} s = {rates[-1]:,.0f} chunks/s", flush=True)
        settings = app.settings
        chunks = []
        for path in collect_files(args.sources):
            try:
                chunks += load_file(path, settings.chunk_size, settings.chunk_overlap).chunks
            except (EmptySourceError, UnreadableSourceError):  # skipped by the ingest too
                continue
        texts = [embedding_text(d) for d in chunks]
        model = load_embedding_model(settings.embedding)
        embed_seconds = []
        for _ in range(args.runs):
            started = time.perf_counter()
            model.embeddings.embed_documents(texts)
            embed_seconds.append(time.perf_counter() - started)
        ingest_rate, model_rate = statistics.median(rates), len(texts) / statistics.median(embed_seconds)
        print(
            f"ingest median {ingest_rate:,.0f} chunks/s; embedding model alone {model_rate:,.0f} chunks/s "
            f"({model.model_id}); ratio {ingest_rate / model_rate:.2f}"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
