"""Ingest benchmark: chunks/s of a full ingest against the embedding model alone on the same texts.

For each source, each run ingests it into a fresh collection of one embedded PostgreSQL (the
server is started and the model loaded before the clock starts), so every run reads, embeds,
writes, BM25-indexes and links (mention graph) all chunks and builds the indexes. Right after
each ingest the embedding model alone embeds the chunks that run stored (title and text, as the
writer embeds them), in one call, on the same machine at nearly the same moment: the ratio of the
two rates says how much of the ingest the model is. On a shared machine the rates follow the load,
so the CPU seconds are compared too (``cpu_ratio``: the model's CPU time over the ingest's, counting
this process, its parse workers and the PostgreSQL server; Linux only). Medians of ``--runs``
interleaved pairs; the 1-minute load average before and after each source.

    .venv/bin/python bench/ingest_rate.py [NAME=PATH[,PATH...] ...] [--runs 3] [--out FILE]

The default sources: ``pooled``, the 6.4k Wikipedia paragraphs of ``../shared/data``'s HotpotQA
200, 2WikiMultihopQA 164 and MuSiQue 200 files; ``pgdocs``, the PostgreSQL 15 manual
(``postgresql-doc-15``); ``pydocs``, the Python 3.11 documentation (``python3.11-doc``); those
absent are skipped. The result goes to ``bench/results/ingest_rate.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from langchain_core.documents import Document

from agentic_rag.app import App
from core.settings import Settings
from providers.embeddings import load_embedding_model
from store.connection import connect
from store.writer import embedding_text

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DEFAULT_SOURCES = {
    "pooled": [SHARED / f"{name}.jsonl" for name in ("hotpotqa_dev_200", "2wikimultihopqa_dev_164", "musique_ans_200")],
    "pgdocs": [Path("/usr/share/doc/postgresql-doc-15/html")],
    "pydocs": [Path("/usr/share/doc/python3.11/html")],
}
DEFAULT_OUT = ROOT / "bench" / "results" / "ingest_rate.json"


def git(*args: str) -> str:
    """Output of a git command in this clone, stripped."""
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()


def cpu_s(data_dir: Path) -> float:
    """CPU seconds used so far by this process (all threads), its exited children (the parse
    workers) and the embedded PostgreSQL of ``data_dir`` (the postmaster, its live backends and
    the backends it reaped); read from Linux's ``/proc``."""
    tick = os.sysconf("SC_CLK_TCK")
    own = os.times()
    postmaster = int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])

    def fields(pid: int | str) -> list[str]:  # after the command name, which may hold spaces
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()

    server = sum(int(x) for x in fields(postmaster)[11:15])  # utime, stime, cutime, cstime
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = fields(entry.name)
            except OSError:  # exited meanwhile
                continue
            if int(stat[1]) == postmaster:
                server += int(stat[11]) + int(stat[12])
    return own.user + own.system + own.children_user + own.children_system + server / tick


def stored_texts(app: App) -> list[str]:
    """The texts the writer embedded for every chunk of the app's collection (title and text)."""
    store = app.services.writable_store()
    with connect(store.url) as conn:
        rows = conn.execute(f"SELECT coalesce(title, ''), content FROM {store.table}").fetchall()
    return [embedding_text(Document(page_content=content, metadata={"title": title})) for title, content in rows]


def measure(name: str, paths: list[Path], runs: int, tmp: Path) -> dict:
    """``runs`` pairs of (full ingest of ``paths``, the model alone on the chunks it stored)."""
    load_before = os.getloadavg()
    ingest_rates, model_rates, pairs, cpu_ratios = [], [], [], []
    for run in range(runs):
        app = App(Settings(data_dir=tmp, collection=f"{name}{run}"))
        try:
            app.services.writable_store()  # the server started and the model loaded outside the clock
            cpu, started = cpu_s(tmp), time.perf_counter()
            report = app.ingest(paths)
            seconds, cpu = time.perf_counter() - started, cpu_s(tmp) - cpu
            texts = stored_texts(app)
        finally:
            app.close()
        model = load_embedding_model(app.settings.embedding)
        embed_cpu, started = time.process_time(), time.perf_counter()
        model.embeddings.embed_documents(texts)
        embed_seconds, embed_cpu = time.perf_counter() - started, time.process_time() - embed_cpu
        cpu_ratios.append(embed_cpu / cpu)
        ingest_rates.append(report.added / seconds)
        model_rates.append(len(texts) / embed_seconds)
        pairs.append(ingest_rates[-1] / model_rates[-1])
        print(
            f"{name} run {run + 1}: {report.added:,} chunks in {seconds:.2f} s = {ingest_rates[-1]:,.0f} chunks/s; "
            f"model alone {embed_seconds:.2f} s = {model_rates[-1]:,.0f} chunks/s; ratio {pairs[-1]:.2f} "
            f"(CPU s: ingest {cpu:.1f}, model {embed_cpu:.1f})",
            flush=True,
        )
    load_after = os.getloadavg()
    return {
        "paths": [str(p) for p in paths],
        "chunks": report.added,
        "files": report.files,
        "ingest_chunks_per_s": round(statistics.median(ingest_rates)),
        "embedding_only_chunks_per_s": round(statistics.median(model_rates)),
        "ratio": round(statistics.median(pairs), 3),
        "cpu_ratio": round(statistics.median(cpu_ratios), 3),
        "runs": {
            "ingest_chunks_per_s": [round(r) for r in ingest_rates],
            "embedding_only_chunks_per_s": [round(r) for r in model_rates],
            "ratio": [round(r, 3) for r in pairs],
            "cpu_ratio": [round(r, 3) for r in cpu_ratios],
        },
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
    }


def parse_source(text: str) -> tuple[str, list[Path]]:
    """``NAME=PATH[,PATH...]`` as (name, paths)."""
    name, _, paths = text.partition("=")
    if not paths:
        raise argparse.ArgumentTypeError(f"{text}: give NAME=PATH[,PATH...]")
    return name, [Path(p) for p in paths.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=parse_source, help="NAME=PATH[,PATH...] (default: see above)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    sources = dict(args.sources) or {n: p for n, p in DEFAULT_SOURCES.items() if all(x.exists() for x in p)}
    tmp = Path(tempfile.mkdtemp(prefix="ingest-bench-"))
    try:
        results = {name: measure(name, paths, args.runs, tmp) for name, paths in sources.items()}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, r in results.items():
        print(
            f"{name}: ingest {r['ingest_chunks_per_s']:,} chunks/s, model alone {r['embedding_only_chunks_per_s']:,} "
            f"chunks/s, ratio {r['ratio']:.2f}, CPU ratio {r['cpu_ratio']:.2f} "
            f"(load {r['loadavg_before'][0]:.1f}–{r['loadavg_after'][0]:.1f})"
        )
    result = {
        "commit": git("rev-parse", "--short", "HEAD"),
        "work_tree_changed": bool(git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "embedding": Settings().embedding,
        "runs": args.runs,
        "sources": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
