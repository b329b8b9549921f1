"""Benchmark the entity-mention graph build (store/mentions.py) on the pooled multi-hop dev sets.

For each dataset: ingest its pooled paragraphs into a fresh collection, then time the graph
build from scratch (every chunk scanned) ``--repeats`` times, and one incremental update that
adds a single new source (its chunks scanned, every earlier chunk rescanned for its new names).
Prints seconds and rows (entity aliases, mention edges) per 1,000 chunks; medians over repeats.

    .venv/bin/python bench/mention_graph.py [--repeats 5] [DATASET.jsonl ...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from langchain_core.documents import Document

from agentic_rag.app import App
from core.settings import Settings
from ingest.loaders import Source

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT = [SHARED / f"{name}.jsonl" for name in ("hotpotqa_dev_200", "2wikimultihopqa_dev_164", "musique_ans_200")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| dataset | chunks | full build s (median) | s per 1k chunks | aliases per 1k | mentions per 1k | "
          "incremental s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for number, path in enumerate(args.datasets):
            app = App(Settings(data_dir=Path(tmp), collection=f"graphbench{number}"))
            app.ingest([path])
            store = app.services.store
            chunks = store.count()
            times = []
            for _ in range(args.repeats):
                store._conn.execute(f"TRUNCATE {store.table}_linked, {store.table}_mentions, {store.table}_entities")
                times.append(store.graph.update().seconds)
            counts = store.graph.counts()
            extra = Source(
                "bench:extra", "x", [Document(page_content="A new page.", metadata={"title": "Zyx Quorble"})]
            )
            incremental = app.ingest_sources([extra]).graph
            full = statistics.median(times)
            print(
                f"| {path.stem} | {chunks} | {full:.3f} | {1000 * full / chunks:.3f} | "
                f"{1000 * counts['entities'] / chunks:.0f} | {1000 * counts['mentions'] / chunks:.0f} | "
                f"{incremental.seconds:.3f} (rescanned {incremental.rescanned}) |"
            )
            app.close()


if __name__ == "__main__":
    main()
