"""Benchmark HTML main-content extraction (ingest/html.py, lexbor) on a folder of pages against
trafilatura (the earlier reader, here without its page preparation; the ``dev`` extra installs it).

For every ``.html``/``.htm`` page under the folder: extraction time, characters of text, chunks
(the ingest splitter at the default chunk size and overlap), and chunks that still hold
navigation furniture: both the words "Prev" (or "Previous") and "Next", case-sensitive, as
DocBook's and Sphinx's link bars print them. Prints one Markdown table, and the pages whose
extraction came out empty or under 20 % of the earlier text, for a look by hand.

    .venv/bin/python bench/html_extraction.py [FOLDER] [--limit N] [--show-nav 3]

FOLDER defaults to the PostgreSQL 15 manual (``apt-get install -y postgresql-doc-15``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

from core.settings import Settings
from ingest.html import extract_main_text
from ingest.loaders import split_text

DEFAULT = Path("/usr/share/doc/postgresql-doc-15/html")
NAV = (re.compile(r"\bPrev(?:ious)?\b"), re.compile(r"\bNext\b"))


def has_nav(text: str) -> bool:
    """Whether ``text`` holds both a "Prev"/"Previous" and a "Next" word."""
    return all(pattern.search(text) for pattern in NAV)


def trafilatura_text(raw: str) -> str:
    """trafilatura's plain-text main content of the page, with the options the earlier reader used."""
    from trafilatura import extract

    text = extract(raw, output_format="txt", include_tables=True, include_comments=False, include_links=False,
                   include_images=False, favor_recall=True, deduplicate=False, with_metadata=False)  # fmt: skip
    return text or ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--limit", type=int, default=0, help="Only the first N pages (0: all).")
    parser.add_argument("--show-nav", type=int, default=3, help="Print this many nav-holding chunks.")
    args = parser.parse_args()
    settings = Settings()
    pages = sorted(p for p in args.folder.rglob("*") if p.suffix.lower() in (".html", ".htm"))
    pages = pages[: args.limit] if args.limit else pages
    stats = {name: {"ms": [], "chars": 0, "chunks": 0, "nav": 0} for name in ("before", "after")}
    suspicious, nav_examples = [], []
    for page in pages:
        raw = page.read_text(encoding="utf-8", errors="replace")
        texts = {}
        for name, read in (("before", trafilatura_text), ("after", lambda r: extract_main_text(r)[0])):
            start = time.perf_counter()
            texts[name] = read(raw)
            stats[name]["ms"].append((time.perf_counter() - start) * 1000)
            chunks = split_text(texts[name], page.stem, ".html", settings.chunk_size, settings.chunk_overlap)
            stats[name]["chars"] += len(texts[name])
            stats[name]["chunks"] += len(chunks)
            nav = [c.page_content for c in chunks if has_nav(c.page_content)]
            stats[name]["nav"] += len(nav)
            if name == "after":
                nav_examples += [(page.name, text) for text in nav]
        if len(texts["after"]) < 0.2 * len(texts["before"]):
            suspicious.append(f"{page.name}: {len(texts['before'])} -> {len(texts['after'])} chars")
    print(f"{len(pages)} pages in {args.folder}\n")
    print("| reader | median ms/page | p90 ms/page | chars | chunks | chunks with Prev+Next |")
    print("|---|---|---|---|---|---|")
    for name, label in (("before", "trafilatura"), ("after", "lexbor (ingest/html.py)")):
        s = stats[name]
        p90 = statistics.quantiles(s["ms"], n=10)[-1] if len(s["ms"]) > 1 else s["ms"][0]
        median = statistics.median(s["ms"])
        print(f"| {label} | {median:.1f} | {p90:.1f} | {s['chars']:,} | {s['chunks']:,} | {s['nav']} |")
    print(f"\n{len(suspicious)} page(s) kept under 20 % of the earlier text:")
    for line in suspicious:
        print(f"  {line}")
    for name, text in nav_examples[: args.show_nav]:
        print(f"\n--- nav words still in a chunk of {name}:\n{text[:600]}")


if __name__ == "__main__":
    main()
