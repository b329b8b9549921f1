"""Benchmark "What is the default of X?" over the settings of the PostgreSQL manual.

Every setting entry of the server configuration chapter (``runtime-config-*.html``: a term line
"work_mem (integer)") is a question with a known place for its answer: the setting's own entry.
For a random sample of them (fixed seed) the model-free app is asked the question on the whole
manual, and the script prints how many answers come from the setting's own entry (the answer
opens on "X (type):"), how many decline, and the answers from another entry at or above the
confidence the README tells users to trust — a proxy without gold values: an answer from the
own entry can still take the wrong value of it, so the script prints those answers for a look.

    .venv/bin/python bench/setting_defaults.py [--sample 120] [--seed 11] [--data-dir DIR] [--show]

The manual is ingested into DIR first when it is not there (``apt-get install -y
postgresql-doc-15``); the collection is the one ``agentic-rag eval`` uses for it.
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

from agentic_rag.app import App
from core.settings import Settings
from core.tuning import TUNING
from evaluation.pgdocs import DEFAULT_CORPUS, corpus_collection
from graph.context import RunContext
from ingest.html import extract_main_text

ENTRY = re.compile(r"(?m)^- (\w+) \((?:integer|boolean|enum|string|floating point)\)$")


def setting_names(folder: Path) -> list[str]:
    """The names of the settings the server configuration pages define, sorted."""
    pages = sorted(folder.glob("runtime-config-*.html"))
    return sorted({name for page in pages for name in ENTRY.findall(extract_main_text(page.read_text())[0])})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=120, help="Settings asked about (0: all).")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--data-dir", type=Path, default=None, help="Data folder (default: the app's).")
    parser.add_argument("--show", action="store_true", help="Print every answer's short answer.")
    args = parser.parse_args()
    names = setting_names(DEFAULT_CORPUS)
    if args.sample:
        names = random.Random(args.seed).sample(names, min(args.sample, len(names)))
    where = {"data_dir": args.data_dir} if args.data_dir else {}
    app = App(Settings(collection=corpus_collection(DEFAULT_CORPUS), **where))
    try:
        app.ingest([DEFAULT_CORPUS])
        own = declined = other = 0
        for name in names:
            result = app.ask(f"What is the default of {name}?", context=RunContext(deciders="rules"))
            if result["abstained"]:
                declined += 1
            elif result["answer"].startswith(f"{name} ("):
                own += 1
            elif result["confidence"] >= TUNING.confidence_trust:
                other += 1
                print(f"other entry, trusted: {name} -> {result['answer'][:100]}")
            if args.show and not result["abstained"]:
                print(f"{name}: {result['short_answer']!r} ({result['confidence']:.2f})")
    finally:
        app.close()
    print("| settings asked | from its own entry | declined | another entry, trusted |\n|---|---|---|---|")
    print(f"| {len(names)} | {own} | {declined} | {other} |")


if __name__ == "__main__":
    main()
