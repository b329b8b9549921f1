"""Benchmark on HotpotQA dev (200 hard questions, all 1,971 paragraphs pooled into one corpus).

Prints: ingestion throughput (chunks/s), both-gold recall@k of single-shot retrieval (BM25 alone,
dense alone, hybrid RRF) and of the full agentic loop with the same k-chunk evidence budget handed
to the generator, and per-question latency p50/p95 with model-free deciders.

    .venv/bin/python bench/hotpotqa.py [--k 5] [--limit 200] [--dataset PATH]

"Both gold" = every supporting paragraph (by title) is among the chunks considered.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from agentic_rag.app import App
from core.settings import Settings
from evaluation.metrics import percentile
from graph.context import RunContext
from graph.policy import generation_plan

DEFAULT_DATASET = Path(__file__).resolve().parents[2] / "shared" / "data" / "hotpotqa_dev_200.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--max-retries", type=int, default=2)
    args = parser.parse_args()

    records = [json.loads(line) for line in args.dataset.read_text().splitlines() if line.strip()][: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        app = App(Settings(data_dir=Path(tmp), collection="bench"))
        store = app.services.writable_store()  # start the server and load the model outside the timing
        started = time.perf_counter()
        report = app.ingest([args.dataset])
        ingest_s = time.perf_counter() - started
        print(f"dataset: {args.dataset.name}, {len(records)} questions, k={args.k}")
        print(f"ingest: {report.added} chunks in {ingest_s:.1f} s = {report.added / ingest_s:.0f} chunks/s")

        def title_of(ids: list[str]) -> set[str]:
            return {c["title"] for c in store.fetch(ids).values()}

        hits: Counter = Counter()
        latencies: list[float] = []
        hops: Counter = Counter()
        stops: Counter = Counter()
        context = RunContext(deciders="rules", max_evidence=args.k, retrieve_k=args.k, max_retries=args.max_retries)
        for record in records:
            gold = {title for title, _ in record["supporting_facts"]}
            question = record["question"]
            hits["bm25"] += gold <= title_of([cid for cid, _ in store.lexical.search(question, args.k)])
            hits["dense"] += gold <= title_of([cid for cid, _ in store.dense_search(question, args.k)])
            hits["hybrid"] += gold <= {c["title"] for c in store.search(question, args.k)}
            started = time.perf_counter()
            result = app.ask(question, context=context)
            latencies.append((time.perf_counter() - started) * 1000)
            state = app.graph.get_state({"configurable": {"thread_id": result["thread_id"]}}).values
            _, handed = generation_plan(state)  # what the generator received
            hits["agentic"] += gold <= {c["title"] for c in handed}
            hits["agentic_any_hop"] += gold <= title_of([cid for hop in result["trace"] for cid in hop["chunk_ids"]])
            hops[result["hops"]] += 1
            stops[result["stop_reason"]] += 1
        n = len(records)
        print(f"both-gold recall@{args.k}:")
        for name in ("bm25", "dense", "hybrid", "agentic", "agentic_any_hop"):
            print(f"  {name:16s} {hits[name] / n:.3f}")
        print(
            f"agentic latency per question (model-free): p50 {percentile(latencies, 50):.0f} ms, "
            f"p95 {percentile(latencies, 95):.0f} ms"
        )
        print(f"hops: {dict(sorted(hops.items()))}; stop reasons: {dict(stops.most_common())}")
        app.close()


if __name__ == "__main__":
    main()
