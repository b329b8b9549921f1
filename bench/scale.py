"""Scale benchmark: one collection grown through increasing sizes, measured at each.

The corpus is the real Wikipedia paragraphs of ../shared/data: HotpotQA dev 200 first (its 1,971
paragraphs are the first size), then 2WikiMultihopQA's and MuSiQue's (6,405 real ones in all);
the larger sizes add copies of the 2Wiki and MuSiQue paragraphs under distinct titles ("Title
(copy 3)"). The HotpotQA paragraphs, which the questions are about, are held once at every size,
so quality at a larger size is the same questions against more distractors — copies of real
distractors, which rank together: a harsher crowd than as many distinct paragraphs would be.

Per size, after ingesting the increment (its chunks/s include the mention-graph update and the
index builds; an increment larger than the collection drops the indexes first, as the ingest does
once it has written as many chunks as the collection held): the data folder's size on disk (WAL
included) and the collection's relations; peak memory (this process's resident set, and the
PostgreSQL server's processes' proportional set sizes, sampled every second); single-shot (hybrid
search + answer, as ``eval``'s standard mode) and agentic (the model-free graph) latency p50/p95
and all supporting found (single shot: both gold paragraphs in the ``k`` chunks; agentic: in the
evidence handed to the generator) over the HotpotQA questions; the share of the exact dense top 50
the HNSW index finds; a new ``App``'s first question; the load average. Written after each size
to bench/results/scale.json (``--out``) with the commit.

    .venv/bin/python bench/scale.py [--sizes 1971,real,17000,100000,1000000] [--data-dir DIR]

With ``--data-dir`` holding a collection grown by an earlier run, sizes it already holds are
skipped and their rows are kept from the result file; a size whose ingest was interrupted is
completed (its files are written again, the same, and the ingest skips those it wrote).
``--again`` measures the kept collection's questions again (on the current code) first.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import psutil

from agentic_rag.app import App
from core.settings import Settings
from deciders.generator import AnswerRequest
from evaluation.metrics import percentile
from graph.context import RunContext
from graph.policy import generation_plan

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
HOTPOT = DATA / "hotpotqa_dev_200.jsonl"
OTHERS = [DATA / "2wikimultihopqa_dev_164.jsonl", DATA / "musique_ans_200.jsonl"]
DEFAULT_OUT = ROOT / "bench" / "results" / "scale.json"
ANN_DEPTH = 50
"""Depth of the dense ranking compared with the exact one (the fusion's depth)."""


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


def corpus(held: int, size: int, asked: list[tuple[str, str]], others: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Paragraphs ``held`` to ``size`` of the growing corpus: the asked-about paragraphs, the others,
    then copies of the others titled "Title (copy n)"."""
    pairs = []
    for number in range(held, size):
        if number < len(asked):
            pairs.append(asked[number])
            continue
        copy, index = divmod(number - len(asked), len(others))
        title, text = others[index]
        pairs.append((title if copy == 0 else f"{title} (copy {copy})", text))
    return pairs


def write_part(folder: Path, pairs: list[tuple[str, str]], per_file: int = 2000) -> Path:
    """The paragraphs as HotpotQA-format files of ``per_file`` paragraphs (one record per 10) in
    ``folder``: an ingest parses files in worker processes and writes them batch by batch."""
    folder.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(pairs), per_file):
        with (folder / f"{start:08d}.jsonl").open("w") as out:
            for first in range(start, min(start + per_file, len(pairs)), 10):
                context = [[title, [text]] for title, text in pairs[first : min(first + 10, start + per_file)]]
                out.write(json.dumps({"_id": f"{folder.name}-{first}", "context": context, "supporting_facts": []}))
                out.write("\n")
    return folder


class PeakMemory:
    """Peak memory, sampled every ``interval`` seconds on a thread: this process's resident set
    and the sum of the proportional set sizes of the PostgreSQL server serving ``pgdata`` (its
    postmaster and every child: shared buffers are counted once, split among them), MB."""

    def __init__(self, pgdata: Path, interval: float = 1.0) -> None:
        self.pgdata, self.interval = pgdata, interval
        self.app = self.server = self.total = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _server_mb(self) -> float:
        try:
            postmaster = psutil.Process(int((self.pgdata / "postmaster.pid").read_text().split()[0]))
            processes = [postmaster, *postmaster.children(recursive=True)]
        except (OSError, ValueError, IndexError, psutil.Error):
            return 0.0
        total = 0
        for process in processes:
            try:
                total += process.memory_full_info().pss
            except psutil.Error:  # a worker that exited meanwhile
                pass
        return total / 1e6

    def sample(self) -> None:
        """Take one sample now."""
        app, server = psutil.Process().memory_info().rss / 1e6, self._server_mb()
        self.app, self.server, self.total = max(self.app, app), max(self.server, server), max(self.total, app + server)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def take(self) -> dict[str, float]:
        """The peaks since the last call (MB), then start again from zero."""
        self.sample()
        peaks = {"peak_app_rss_mb": self.app, "peak_server_pss_mb": self.server, "peak_total_mb": self.total}
        self.app = self.server = self.total = 0.0
        return {key: round(value) for key, value in peaks.items()}

    def stop(self) -> None:
        self._stop.set()


def folder_mb(path: Path) -> float:
    """Space the files under ``path`` take on disk (allocated blocks), MB."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
            except OSError:  # a WAL segment recycled meanwhile
                pass
    return total / 1e6


def relations_mb(app: App) -> dict[str, float]:
    """Size of each of the collection's relations (tables with their indexes), MB."""
    store = app.services.store
    rows = store._conn.execute(
        "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
        "WHERE c.relkind = 'r' AND (c.relname = %s OR c.relname LIKE %s) ORDER BY 2 DESC",
        (store.table, f"{store.table}\\_%"),
    ).fetchall()
    return {name.removeprefix(store.table).lstrip("_") or "chunks": round(size / 1e6, 1) for name, size in rows}


def questions(app: App, records: list[dict], k: int) -> dict[str, float]:
    """Latency and all-supporting-found of single-shot and agentic answers to ``records``."""
    services = app.services
    context = RunContext(deciders="rules", max_evidence=k, retrieve_k=k)
    generator = services.deciders(context).generator
    single, agentic, single_found, agentic_found = [], [], 0, 0
    app.ask(records[0]["question"], context=context)  # per-process caches: a new App's cost, measured apart
    for record in records:
        question, gold = record["question"], {title for title, _ in record["supporting_facts"]}
        started = time.perf_counter()
        chunks = services.search(question, k)
        known = services.question_terms(question)
        generator.generate(
            AnswerRequest(question, chunks, "answer", term_weights=known.weights, absent_terms=known.absent,
                          rare_names=known.rare_names)
        )  # fmt: skip
        single.append((time.perf_counter() - started) * 1000)
        single_found += gold <= {c["title"] for c in chunks}
        started = time.perf_counter()
        result = app.ask(question, context=context)
        agentic.append((time.perf_counter() - started) * 1000)
        state = app.graph.get_state({"configurable": {"thread_id": result["thread_id"]}}).values
        agentic_found += gold <= {c["title"] for c in generation_plan(state)[1]}
    return {
        "single_p50_ms": round(percentile(single, 50), 1),
        "single_p95_ms": round(percentile(single, 95), 1),
        "agentic_p50_ms": round(percentile(agentic, 50), 1),
        "agentic_p95_ms": round(percentile(agentic, 95), 1),
        "single_found": round(single_found / len(records), 3),
        "agentic_found": round(agentic_found / len(records), 3),
    }


def ann_recall(app: App, records: list[dict]) -> float | None:
    """Mean share of the exact (full-precision, scanned) dense top :data:`ANN_DEPTH` that the
    collection's dense search finds; ``None`` without an HNSW index (the search is exact)."""
    store = app.services.store
    if not store.vectors.exists():
        return None
    shares = []
    for record in records:
        vector = store.embed_query(record["question"])
        found = {cid for cid, _ in store.vectors.search(vector, ANN_DEPTH)}
        with store._conn.transaction():
            store._conn.execute("SET LOCAL enable_indexscan = off")
            exact = store._conn.execute(
                f"SELECT chunk_id FROM {store.table} ORDER BY embedding <=> %s::vector LIMIT {ANN_DEPTH}",
                (str(vector),),
            ).fetchall()
        shares.append(len(found & {cid for (cid,) in exact}) / max(len(exact), 1))
    return round(sum(shares) / len(shares), 3)


def first_question(settings: Settings, question: str) -> float:
    """Seconds a new ``App`` on the collection takes to answer its first question (server running,
    models loaded): its per-collection reads and caches."""
    started = time.perf_counter()
    fresh = App(settings)
    try:
        fresh.ask(question, context=RunContext(deciders="rules"))
        return round(time.perf_counter() - started, 2)
    finally:
        fresh.close()


def measure(app: App, settings: Settings, records: list[dict], args: argparse.Namespace) -> dict:
    """The held collection's query figures (:func:`questions`, :func:`ann_recall`,
    :func:`first_question`) with the load average around them, the date and the commit."""
    load_start = os.getloadavg()
    return {
        **questions(app, records, args.k),
        "dense_recall_at_50": ann_recall(app, records[: args.ann_questions]),
        "first_question_s": first_question(settings, records[0]["question"]),
        "loadavg_start": [round(x, 2) for x in load_start],
        "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": git("rev-parse", "--short", "HEAD"),
    }


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def save(result: dict, out: Path, row: dict) -> None:
    """Write ``result`` to ``out`` and print ``row`` as a table row."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"| {row['chunks']:,} | {row['chunks_per_s']:,} ({row['added']:,} in {row['ingest_s']:.1f} s) "
        f"| {row['data_folder_mb']:,} | {row['peak_total_mb']:,} "
        f"| {row['single_p50_ms']:.0f} / {row['single_p95_ms']:.0f} "
        f"| {row['agentic_p50_ms']:.0f} / {row['agentic_p95_ms']:.0f} "
        f"| {row['single_found']:.3f} / {row['agentic_found']:.3f} | {row['dense_recall_at_50']} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1971,real,17000,100000,1000000", help="chunks; 'real': all real ones")
    parser.add_argument("--questions", type=int, default=200, help="HotpotQA questions asked per size")
    parser.add_argument("--ann-questions", type=int, default=30, help="questions also searched exactly (dense)")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, help="keep the collection here (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--again", action="store_true", help="measure the kept collection's questions again")
    args = parser.parse_args()

    records = [json.loads(line) for line in HOTPOT.read_text().splitlines() if line.strip()][: args.questions]
    asked = paragraphs(HOTPOT)
    others = [p for p in dict.fromkeys(p for path in OTHERS for p in paragraphs(path)) if p not in set(asked)]
    sizes = [len(asked) + len(others) if s == "real" else int(s) for s in args.sizes.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="scale-")) if args.data_dir is None else args.data_dir
    settings = Settings(data_dir=tmp, collection="scale")
    app = App(settings)
    store = app.services.writable_store()  # start the server and load the model outside the timing
    memory = PeakMemory(tmp / "pg")
    held = store.count()
    earlier = json.loads(args.out.read_text()).get("sizes", []) if held and args.out.is_file() else []
    result = {
        "commit": git("rev-parse", "--short", "HEAD"),
        "work_tree_changed": bool(git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "questions": len(records),
        "k": args.k,
        "corpus": {"asked_about": len(asked), "other_real": len(others)},
        "sizes": [row for row in earlier if row["chunks"] <= held],
    }
    print(f"paragraphs asked about: {len(asked)}; other real: {len(others)}; data folder: {tmp}; held: {held:,}")
    print("| chunks | ingest chunks/s | data folder MB | peak MB | single-shot p50 / p95 ms | agentic p50 / p95 ms "
          "| all supporting found (single / agentic) | dense top-50 recall |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    try:
        if args.again:  # the questions only, on this code: the row keeps its ingest figures, and the peaks
            row = next((row for row in result["sizes"] if row["chunks"] == held), None)
            if row is None:
                raise SystemExit(f"{args.out} has no row of the {held:,} chunks held: run without --again")
            row.update(measure(app, settings, records, args))
            row.update({key: max(row.get(key, 0), value) for key, value in memory.take().items()})
            save(result, args.out, row)
        for start, size in zip([0, *sizes], sizes, strict=False):
            if size <= held:
                continue
            memory.take()
            # the same files again after an interrupted run: the ingest skips those it wrote
            pairs = corpus(start, size, asked, others)
            path = HOTPOT if start == 0 and size == len(asked) else write_part(tmp / "parts" / f"{start}-{size}", pairs)
            if size - held > held:  # a one-shot build of the largest size drops them at its first batch
                store.vectors.drop_index()
                store.lexical.drop_indexes()
            started = time.perf_counter()
            report = app.ingest([path])
            seconds = time.perf_counter() - started
            held = store.count()
            row = {
                "chunks": held,
                "added": report.added,
                "ingest_s": round(seconds, 1),
                "chunks_per_s": round(report.added / seconds),
                "graph_s": round(report.graph.seconds, 1) if report.graph else None,
                "hnsw": store.vectors.exists(),
                "data_folder_mb": round(folder_mb(tmp / "pg")),
                "relations_mb": relations_mb(app),
                "ingest_commit": result["commit"],
                **measure(app, settings, records, args),
                **memory.take(),
            }
            result["sizes"].append(row)
            save(result, args.out, row)
    finally:
        memory.stop()
        app.close()
        if args.data_dir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
