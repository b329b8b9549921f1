"""Page copies: how alike a page and its copy in another format are, against distinct pages
(the measurement behind :data:`ingest.copies.COPY_JACCARD`).

Every supported file under each folder is read as the ingest reads it (:func:`ingest.loaders.load_file`)
and compared by its byte 8-grams (:func:`ingest.copies.gram_hashes`): the exact Jaccard similarity of
the two sets, and its estimate from the pages' sketches (:func:`ingest.copies.page_sketch`). Pairs are labelled by
their names here only (the ingest never looks at names):

* copies: a Sphinx page and its source (``x.html`` and ``_sources/x.rst.txt``), and two files of
  one folder with one stem in two formats (``bash.html`` and ``bash.pdf``);
* distinct: for every file, the file of another format most alike by the estimate that is not
  its copy (its exact similarity is then computed).

Prints the copies' quantiles, the nearest distinct pairs, and for each threshold how many
copies it finds and how many distinct pairs it would call copies.

    .venv/bin/python bench/page_copies.py /usr/share/doc/bash /usr/share/doc/python-flask-doc/html \\
        /usr/share/doc/python3.11/html
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

import numpy as np

from ingest.copies import format_tier, gram_hashes
from ingest.loaders import Source
from ingest.parallel import load_files
from ingest.pipeline import collect_files

THRESHOLDS = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)


def read(folder: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Path below ``folder`` → (distinct gram hashes, sketch values) of each readable file."""
    files = collect_files([folder])
    pages = {}
    for path, source in zip(files, load_files(files, 1200, 150, workers=2), strict=True):
        if isinstance(source, Source) and source.sketch is not None:
            text = "\n".join(c.page_content for c in source.chunks)
            pages[str(path.relative_to(folder.resolve()))] = (
                np.unique(gram_hashes(text)),
                np.frombuffer(source.sketch, "<u4"),
            )
    return pages


def copy_pairs(names: list[str]) -> list[tuple[str, str]]:
    """(page, copy) pairs by name: ``x.html`` and ``_sources/x.rst.txt``; one stem, two formats."""
    known = set(names)
    pairs = []
    for name in names:
        if name.startswith("_sources/"):
            page = re.sub(r"(\.rst)?\.txt$", ".html", name.removeprefix("_sources/"))
            if page in known:
                pairs.append((page, name))
        elif not name.endswith((".html", ".htm")):
            page = str(Path(name).with_suffix(".html"))
            if page in known:
                pairs.append((page, name))
    return pairs


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    both = np.intersect1d(a, b, assume_unique=True).size
    return both / (a.size + b.size - both)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    copies: list[tuple[float, float, str]] = []
    distinct: list[tuple[float, float, str]] = []
    for folder in args.folders:
        pages = read(folder)
        names = sorted(pages)
        pairs = copy_pairs(names)
        partner = {a: b for a, b in pairs} | {b: a for a, b in pairs}
        for a, b in pairs:
            estimate = float((pages[a][1] == pages[b][1]).mean())
            copies.append((jaccard(pages[a][0], pages[b][0]), estimate, f"{folder.name}: {a} ~ {b}"))
        signatures = np.stack([pages[n][1] for n in names])
        tiers = np.array([format_tier(n) for n in names])
        seen = set()
        for i, name in enumerate(names):
            alike = (signatures == signatures[i]).mean(axis=1)
            alike[(tiers == tiers[i]) | (np.arange(len(names)) == i)] = -1
            if name in partner:
                alike[names.index(partner[name])] = -1
            j = int(alike.argmax())
            if alike[j] >= 0 and (pair := tuple(sorted((name, names[j])))) not in seen:
                seen.add(pair)
                exact = jaccard(pages[name][0], pages[names[j]][0])
                distinct.append((exact, float(alike[j]), f"{folder.name}: {pair[0]} ~ {pair[1]}"))
        print(f"{folder}: {len(pages)} files, {len(pairs)} copy pairs", flush=True)
    exact = sorted(c[0] for c in copies)
    if exact:
        tenth, median = statistics.quantiles(exact, n=10)[0], statistics.median(exact)
        print(f"copies (exact): n={len(exact)} min={exact[0]:.3f} p10={tenth:.3f} median={median:.3f}")
    same_stem = [c for c in copies if "_sources/" not in c[2]]
    for similarity, estimate, pair in dict.fromkeys(same_stem + sorted(copies, reverse=True)[:3] + sorted(copies)[:5]):
        print(f"  copy {similarity:.3f} (estimate {estimate:.3f}) {pair}")
    for similarity, estimate, pair in sorted(distinct, reverse=True)[:8]:
        print(f"  distinct {similarity:.3f} (estimate {estimate:.3f}) {pair}")
    for threshold in THRESHOLDS:
        print(
            f"at {threshold:.2f}: copies found exact {sum(c[0] >= threshold for c in copies)}, "
            f"estimated {sum(c[1] >= threshold for c in copies)} of {len(copies)}; distinct pairs called copies "
            f"exact {sum(d[0] >= threshold for d in distinct)}, estimated {sum(d[1] >= threshold for d in distinct)}"
        )


if __name__ == "__main__":
    main()
