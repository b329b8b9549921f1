"""Scale benchmark: one collection grown through increasing sizes, timed at each.

The corpus is the real Wikipedia paragraphs of ../shared/data (HotpotQA dev 200 first — its
1,971 paragraphs are the first size —, then 2WikiMultihopQA and MuSiQue), then the same
paragraphs again under distinct titles ("Title (copy 3)") up to the larger sizes: those sizes
are for timing only, never quality. Per size it prints: ingest chunks/s of the increment (the
mention-graph update and the index build included), the collection's size on disk, single-shot
(hybrid search + answer, as ``eval``'s standard mode) and agentic (model-free) latency p50/p95
over the HotpotQA questions, and, for the sizes made of real paragraphs only, all supporting
found: single shot (both gold paragraphs in the 5 chunks) and agentic (in the evidence handed to
the generator), with exact and with HNSW dense search and with uncapped and capped BM25.

    .venv/bin/python bench/scale.py [--sizes 1971,real,17000,100000] [--questions 100] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

from agentic_rag.app import App
from core.settings import Settings
from evaluation.metrics import percentile
from graph.context import RunContext
from graph.policy import generation_plan

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
HOTPOT = DATA / "hotpotqa_dev_200.jsonl"
OTHERS = [DATA / "2wikimultihopqa_dev_164.jsonl", DATA / "musique_ans_200.jsonl"]


def paragraphs(path: Path) -> list[tuple[str, str]]:
    """(title, text) of every paragraph of a HotpotQA, 2Wiki or MuSiQue file, each once."""
    seen: dict[tuple[str, str], None] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if "context" in record:
            pairs = [(t, "".join(s).strip()) for t, s in record["context"]]
        else:
            pairs = [(p["title"], p["paragraph_text"].strip()) for p in record["paragraphs"]]
        seen.update(dict.fromkeys(p for p in pairs if p[1]))
    return list(seen)


def write_part(folder: Path, name: str, pairs: list[tuple[str, str]]) -> Path:
    """The paragraphs as a HotpotQA-format file (one record per 10 paragraphs)."""
    path = folder / f"{name}.jsonl"
    with path.open("w") as out:
        for start in range(0, len(pairs), 10):
            context = [[title, [text]] for title, text in pairs[start : start + 10]]
            out.write(json.dumps({"_id": f"{name}-{start}", "context": context, "supporting_facts": []}) + "\n")
    return path


def disk_mb(app: App) -> float:
    """Size of the collection's relations (chunks, indexes, BM25 index, mention graph), MB."""
    store = app.services.store
    row = store._conn.execute(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
        "WHERE c.relkind = 'r' AND (c.relname = %s OR c.relname LIKE %s)",
        (store.table, f"{store.table}\\_%"),
    ).fetchone()[0]
    return float(row) / 1e6


def latencies(app: App, records: list[dict], k: int) -> dict[str, float]:
    services = app.services
    single, agentic = [], []
    context = RunContext(deciders="rules", max_evidence=k, retrieve_k=k)
    generator = services.deciders(context).generator
    from deciders.generator import AnswerRequest

    for record in records:
        question = record["question"]
        started = time.perf_counter()
        chunks = services.search(question, k)
        known = services.question_terms(question)
        generator.generate(
            AnswerRequest(question, chunks, "answer", term_weights=known.weights, absent_terms=known.absent,
                          rare_names=known.rare_names)
        )  # fmt: skip
        single.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        app.ask(question, context=context)
        agentic.append((time.perf_counter() - started) * 1000)
    return {
        "single_p50": percentile(single, 50),
        "single_p95": percentile(single, 95),
        "agentic_p50": percentile(agentic, 50),
        "agentic_p95": percentile(agentic, 95),
    }


def recall(app: App, records: list[dict], k: int) -> tuple[float, float]:
    """(single shot, agentic) share of questions with every supporting paragraph found."""
    context = RunContext(deciders="rules", max_evidence=k, retrieve_k=k)
    single = agentic = 0
    for record in records:
        gold = {title for title, _ in record["supporting_facts"]}
        single += gold <= {c["title"] for c in app.services.search(record["question"], k)}
        result = app.ask(record["question"], context=context)
        state = app.graph.get_state({"configurable": {"thread_id": result["thread_id"]}}).values
        agentic += gold <= {c["title"] for c in generation_plan(state)[1]}
    return single / len(records), agentic / len(records)


def quality(app: App, records: list[dict], k: int) -> str:
    """All-supporting-found under each search variant (this code's store only)."""
    store = app.services.store
    if not hasattr(store, "vectors"):
        return "%.3f / %.3f" % recall(app, records, k)
    tuning = store.lexical.tuning
    had_index = store.vectors.exists()
    found = {}
    for dense in ("exact", "hnsw"):
        store.vectors.drop_index() if dense == "exact" else store.vectors.ensure(store.count(), min_chunks=0)
        for cap in ("uncapped", "capped"):
            store.lexical.tuning = tuning if cap == "capped" else dataclasses.replace(tuning, bm25_posting_cap=10**9)
            found[f"{dense}+{cap}"] = recall(app, records, k)
    store.lexical.tuning = tuning
    if not had_index:
        store.vectors.drop_index()
    return "; ".join(f"{name} {s:.3f} / {a:.3f}" for name, (s, a) in found.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1971,real,17000,100000", help="chunk counts; 'real': every real paragraph")
    parser.add_argument("--questions", type=int, default=100, help="HotpotQA questions timed per size")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, help="keep the collection here (default: a temporary folder)")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()

    records = [json.loads(line) for line in HOTPOT.read_text().splitlines() if line.strip()]
    real = paragraphs(HOTPOT)
    real += [p for p in dict.fromkeys(p for path in OTHERS for p in paragraphs(path)) if p not in set(real)]
    sizes = [len(real) if s == "real" else int(s) for s in args.sizes.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="scale-")) if args.data_dir is None else args.data_dir
    parts = tmp / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    app = App(Settings(data_dir=tmp, collection="scale"))
    app.services.writable_store()  # start the server and load the model outside the timing
    print(f"real paragraphs: {len(real)}; HotpotQA pool: {len(paragraphs(HOTPOT))}; data folder: {tmp}")
    print(
        "| chunks | ingest chunks/s | disk MB | single-shot p50 / p95 ms | agentic p50 / p95 ms | all supporting found "
        "(single shot / agentic) |"
    )
    print("|---|---|---|---|---|---|")
    held = 0
    try:
        for number, size in enumerate(sizes):
            copy, pairs = held // len(real), []
            while held + len(pairs) < size:
                index = (held + len(pairs)) % len(real)
                copy = (held + len(pairs)) // len(real)
                title, text = real[index]
                pairs.append((title if copy == 0 else f"{title} (copy {copy})", text))
            path = (
                HOTPOT if number == 0 and size == len(paragraphs(HOTPOT)) else write_part(parts, f"part{number}", pairs)
            )
            started = time.perf_counter()
            report = app.ingest([path])
            seconds = time.perf_counter() - started
            held = app.services.store.count()
            timing = latencies(app, records[: args.questions], args.k)
            found = "–"
            if size <= len(real) and not args.skip_quality:
                found = quality(app, records, args.k)
            print(
                f"| {held:,} | {report.added / seconds:,.0f} ({report.added:,} in {seconds:.1f} s) "
                f"| {disk_mb(app):,.0f} "
                f"| {timing['single_p50']:.0f} / {timing['single_p95']:.0f} "
                f"| {timing['agentic_p50']:.0f} / {timing['agentic_p95']:.0f} | {found} |",
                flush=True,
            )
            graph = f"{report.graph.seconds:.1f} s" if report.graph else "?"
            index = getattr(app.services.store, "vectors", None)
            print(
                f"  (of the ingest: mention-graph update {graph}; HNSW index: {index and index.exists()})", flush=True
            )
        print(f"peak memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    finally:
        app.close()
        if args.data_dir is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
