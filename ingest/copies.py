"""One page, one copy: of the files one ingest reads, those holding the same page as a file of a
richer format (an HTML page and its ``.txt`` or ``.rst`` source, an HTML manual and its PDF) are
skipped, so the collection holds each page once.

Pages are compared by the text their reader extracted, never by their names. Each page's text
is reduced to its letters and digits (Unicode NFKC, case-folded, URLs dropped: a source spells
out the link targets a rendered page hides), so the same words compare equal however each
format spaces, hyphenates, quotes or marks them up (pypdf reads the groff-typeset ``bash.pdf``
as "re gular", "sube x-pressions"). The page is then the set of its byte 8-grams, and two pages'
resemblance the Jaccard similarity of their sets (Broder 1997, "On the resemblance and
containment of documents"), estimated from one-permutation MinHash sketches (Li, Owen & Zhang
2012, "One permutation hashing"; empty bins filled by rotation: Shrivastava & Li 2014,
"Densifying one permutation hashing via rotation for fast near neighbor search"). The pages of
one ingest are found among each other by LSH banding of the sketches (Leskovec, Rajaraman &
Ullman, *Mining of Massive Datasets*, ch. 3).

Two files of the same format are never copies of each other: pages that share most of their
text and still say different things (Django's release notes of two branches, 0.98 alike; the
PostgreSQL manual's ``information_schema`` views, 0.78) are distinct pages of one manual.

Why not datasketch's ``MinHash`` and ``MinHashLSH``: importing datasketch imports
``scipy.integrate`` (for the LSH band optimiser), 1.4 s in the ingest and again in each parse
worker, and its MinHash hashes every gram once per permutation. Sketching the PostgreSQL
manual's 1,167 pages (7.0 M characters) took 2.8 s with it (256 permutations), 1.1 s with
numpy MinHash over a 1-in-4 sample of the grams, and takes 0.25 s so, on one core, at the same
error (standard deviation 0.018 to the exact Jaccard over 1,176 measured pairs).

A page that repeats other pages of its own format — mdBook's ``print.html``, a Sphinx
``singlehtml`` page, a manual's one-page edition — is skipped too: its chunks' texts are
fingerprinted, pages are read smallest first within a format, and a page at least
:data:`AGGREGATE_SHARE` of whose passages are passages of at least two pages kept before it is
one copy of them all (:meth:`CopyFinder.repeated_pages`). Its parts are always smaller than it,
so they are read first whatever the file names.

A page's sketch is kept with its file's content hash (:class:`ingest.ledger.SketchLedger`), so a
file that did not change is compared without being read again.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
from langchain_core.documents import Document

from ingest.office import OFFICE_SUFFIXES

GRAM_BYTES = 8
"""Length of the shingles, in bytes of the squeezed text (letters and digits only). Over words,
the PDF's broken words made ``bash.html`` and ``bash.pdf`` 0.59 alike (3-word shingles), no more
than two distinct bash manuals (0.51); over squeezed bytes they are 0.96 and 0.56. Longer grams
part copies whose markup interrupts sentences (an ``.rst`` source's roles) as fast as distinct
pages built on one template: 16 and 32 bytes separated the Flask pages less well than 8."""

BINS = 256
"""Values of a sketch: the grams are split by their hash's top 8 bits into 256 bins and each bin
keeps its least hash. The estimate's standard error is about sqrt(J(1 - J) / BINS), 0.03 at 0.65
(the most alike distinct pages measured); against the exact Jaccard of 1,176 pairs its measured
standard deviation was 0.018."""

BANDS, ROWS = 32, 8
"""LSH banding of the :data:`BINS` values: two pages are compared when one band of ``ROWS``
values is equal in both, with probability 1 - (1 - J^8)^32: 0.97 at J = 0.75, 0.998 at 0.80,
0.43 at 0.60; every candidate is then checked against :data:`COPY_JACCARD`."""

COPY_JACCARD = 0.75
"""Least estimated Jaccard similarity at which a file is a copy of a richer file's page.
Measured by ``bench/page_copies.py`` on Debian's bash, Flask and Python 3.11 manuals: of 572
pairs of one page in two formats (569 HTML pages with their Sphinx ``_sources`` text, median
0.79; ``bash.html``/``bash.pdf`` 0.96, ``bashref.html``/``bashref.pdf`` 0.88, ``INDEX.html``/
``INDEX.txt`` 0.99), 393 are called copies at 0.75 (467 at 0.70, 274 at 0.80), while the
nearest distinct pages in two formats are 0.65 alike (Flask's ``eventlet`` page and the
``gevent`` page's source, written on one template; estimated 0.68 at most, two and a half
standard errors below 0.75); bash's two manuals, 0.55. Most pairs far below are not copies by their text: a source that
includes another file or lists autodoc directives (Flask's ``changes`` and ``api``) renders
into a page it does not hold. A missed copy costs duplicate chunks; a false one, a page lost."""

FORMAT_TIERS: tuple[frozenset[str], ...] = (
    frozenset({".html", ".htm"}),
    frozenset(OFFICE_SUFFIXES),
    frozenset({".pdf"}),
    frozenset({".md", ".markdown", ".rst"}),
    frozenset({".txt"}),
    frozenset({".jsonl"}),
)
"""File suffixes from the richest format to the poorest; of two copies of a page, the file of
the richer format is kept. HTML first: its reader keeps the page's title (``<title>``) and
structure (headings one per line, tables as rows with their header cells, definition-list terms
next to their description) and drops the navigation. Office documents next: converted to
Markdown with their headings and table rows. Then PDF: the rendered text, with cross-references
resolved and directives expanded, but its layout lost: words broken at line ends and by
letter spacing, running headers and page numbers on every page, a title only when the
metadata holds one. Then Markdown and reStructuredText sources: headings the splitter cuts at,
but markup (directives, roles, link targets) read as words. Then plain text (Sphinx's
``_sources/*.rst.txt``), then question-answering JSONL pools."""

AGGREGATE_SHARE = 0.5
"""Least share of a page's own passages (:data:`PASSAGE_BYTES`, not boilerplate) that must be
other kept pages' passages for the page to be a copy of them (:meth:`CopyFinder.repeated_pages`).
Measured on the Rust book (Debian's ``rust-doc``): 1,566 of the 1,741 chunks of ``print.html``
are word for word a chunk of a chapter page, 0.90; a page holding the same boilerplate as others
(a licence line, a navigation chunk) repeats far less of itself, and never passages of two pages
(Django's release notes of two branches, 0.98 alike, repeat one page each)."""

PASSAGE_BYTES = 64
"""Least length, in :func:`squeezed` bytes, of a chunk fingerprinted as a passage: shorter ones
("Note", a heading alone) are said by many pages."""

POOL_TIER = len(FORMAT_TIERS) - 1
"""The :func:`format_tier` of question-answering JSONL pools."""

SKETCH_VERSION = f"bytes{GRAM_BYTES}-oph{BINS}-rotation-passages{PASSAGE_BYTES}-v2"
"""Stored beside each signature: signatures made another way are made again."""

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_ASCII_NOT_ALNUM = bytes(b for b in range(128) if not chr(b).isalnum())
_BIN_BITS = 8  # log2(BINS)
_BLOCK = 1 << 20
"""Grams hashed at once: the temporaries stay near 8 MB each, however large the file."""


def format_tier(path: Path | str) -> int:
    """The rank of ``path``'s format in :data:`FORMAT_TIERS`, 0 for the richest; unknown suffixes
    rank last."""
    suffix = Path(path).suffix.lower()
    return next((tier for tier, suffixes in enumerate(FORMAT_TIERS) if suffix in suffixes), len(FORMAT_TIERS))


def reading_order(path: Path) -> tuple[int, int, str]:
    """Sort key that reads the richest formats first, then the smallest files, then by path: a
    page's richer file is decided (and kept) before its copies are compared with it, and the pages
    a one-page edition repeats before it."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return format_tier(path), size, str(path)


def squeezed(text: str) -> bytes:
    """``text`` as UTF-8 bytes of its letters and digits only: URLs dropped, then Unicode NFKC
    (ligatures such as "ﬁ" become "fi"), case folded, every other character (spaces, hyphens,
    punctuation, quotes, markup) removed."""
    if "://" in text:  # line by line: the pattern never spans lines, and most lines hold no URL (7x faster)
        text = "\n".join(_URL.sub(" ", line) if "://" in line else line for line in text.split("\n"))
    text = unicodedata.normalize("NFKC", text).casefold()
    raw = text.encode("utf-8").translate(None, _ASCII_NOT_ALNUM)
    if not text.isascii():  # a few distinct symbols ("’", "—", "¶"), removed in one pass (UTF-8 is prefix-free)
        if symbols := sorted(c for c in set(text) if not c.isascii() and not c.isalnum()):
            raw = re.sub(b"|".join(re.escape(symbol.encode("utf-8")) for symbol in symbols), b"", raw)
    return raw


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (Steele, Lea & Flood 2014), a bijective mix of 64-bit integers."""
    z = np.asarray(x, dtype=np.uint64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _hash_blocks(raw: bytes) -> Iterator[np.ndarray]:
    """The 32-bit hashes of the :data:`GRAM_BYTES`-byte grams of ``raw``, one per position (each
    gram read as one 64-bit integer, :func:`_splitmix64`-mixed, its high half kept), in blocks of
    :data:`_BLOCK` grams."""
    raw = raw.ljust(GRAM_BYTES, b"\0")
    grams = np.ndarray((len(raw) - GRAM_BYTES + 1,), dtype="<u8", buffer=raw, strides=(1,))
    for start in range(0, len(grams), _BLOCK):
        yield (_splitmix64(grams[start : start + _BLOCK]) >> np.uint64(32)).astype(np.uint32)


def gram_hashes(text: str) -> np.ndarray:
    """The hashes of the byte grams of :func:`squeezed` text (:func:`_hash_blocks`), repeats
    included: the page's set; empty when the text holds no letter or digit."""
    raw = squeezed(text)
    return np.concatenate(list(_hash_blocks(raw))) if raw else np.empty(0, dtype=np.uint32)


def one_permutation_sketch(blocks: Iterable[np.ndarray]) -> np.ndarray:
    """The one-permutation MinHash sketch of a set of 32-bit hashes (Li, Owen & Zhang 2012): the
    top :data:`_BIN_BITS` bits choose one of :data:`BINS` bins, each bin holds the low 24 bits of
    its least hash; an empty bin takes the value of the first non-empty bin after it (circularly),
    plus 2^24 per bin passed, so that equal values still occur with the sets' Jaccard similarity
    (rotation densification, Shrivastava & Li 2014).

    Args:
        blocks: uint32 arrays whose union is the set, not all empty (repeats allowed: they do not
            move a minimum).

    Returns:
        :data:`BINS` uint32 values.
    """
    low_bits = 32 - _BIN_BITS
    least = np.full(BINS, np.iinfo(np.uint32).max, dtype=np.uint32)
    full = np.zeros(BINS, dtype=bool)
    for hashes in blocks:
        bins = (hashes >> np.uint32(low_bits)).astype(np.intp)
        np.minimum.at(least, bins, hashes)
        full |= np.bincount(bins, minlength=BINS) > 0
    values = least & np.uint32((1 << low_bits) - 1)
    if full.all():
        return values
    at = np.arange(2 * BINS)
    after = np.minimum.accumulate(np.where(np.tile(full, 2), at, 2 * BINS)[::-1])[::-1][:BINS]
    return values[after % BINS] + ((after - at[:BINS]).astype(np.uint32) << np.uint32(low_bits))


def page_sketch(chunks: Iterable[Document]) -> bytes | None:
    """The sketch of the page whose chunks these are: the :func:`one_permutation_sketch` of the
    byte grams of their texts joined (an overlap between chunks repeats grams the set already
    holds), then the fingerprints of its passages (:func:`passages`).

    Returns:
        :data:`BINS` little-endian uint32 values then the passages' uint64 values, as bytes, or
        ``None`` for a page with no letter or digit: never a copy, never copied.
    """
    texts = [squeezed(chunk.page_content) for chunk in chunks]
    raw = b"".join(texts)
    if not raw:
        return None
    prints = {hashlib.blake2b(text, digest_size=8).digest() for text in texts if len(text) >= PASSAGE_BYTES}
    return one_permutation_sketch(_hash_blocks(raw)).astype("<u4").tobytes() + b"".join(sorted(prints))


def passages(sketch: bytes) -> np.ndarray:
    """The uint64 fingerprints (BLAKE2b) of a :func:`page_sketch`'s passages: its chunks of at
    least :data:`PASSAGE_BYTES` squeezed bytes."""
    return np.frombuffer(sketch, dtype="<u8", offset=BINS * 4)


def resemblance(first: bytes, second: bytes) -> float:
    """The estimated Jaccard similarity of two pages: the share of their :func:`page_sketch`
    MinHash values that are equal."""
    return float(np.mean(np.frombuffer(first, "<u4", BINS) == np.frombuffer(second, "<u4", BINS)))


class CopyFinder:
    """The copies among the pages of one ingest, decided page by page in :func:`reading_order`:
    a page is a copy of the most alike page kept before it in another format, when their
    :func:`resemblance` reaches ``threshold``; otherwise it is kept. Candidates are found by LSH
    banding (:data:`BANDS`), so each page is compared with few others."""

    def __init__(self, threshold: float = COPY_JACCARD) -> None:
        self.threshold = threshold
        # by format tier, then band: a page is compared only with kept pages of other formats (a manual's
        # pages of one template share bands, and scanning them all was quadratic in the pages)
        self._buckets: dict[int, dict[tuple[int, bytes], list[int]]] = defaultdict(lambda: defaultdict(list))
        self._kept: list[tuple[str, bytes]] = []  # key and sketch, in reading order
        self._passages: dict[int, str | None] = {}  # a kept page's passage → that page; None: several pages'

    def repeated_pages(self, tier: int, sketch: bytes | None) -> list[str]:
        """The kept pages a page of format ``tier`` repeats, when it is a one-page edition of them:
        at least :data:`AGGREGATE_SHARE` of its passages that are not boilerplate (said by several
        kept pages) are passages of kept pages, of at least two; else ``[]``. A question-answering
        JSONL pool is no page but a set of passages: never an edition (``bench/scale.py`` builds
        its large collections from pools of copied paragraphs)."""
        if sketch is None or tier >= POOL_TIER:
            return []
        owners = [self._passages.get(int(value), "") for value in passages(sketch)]
        own = [owner for owner in owners if owner is not None]  # boilerplate counts for no page
        repeated = [owner for owner in own if owner]
        pages = list(dict.fromkeys(repeated))
        return pages if len(pages) >= 2 and len(repeated) >= AGGREGATE_SHARE * len(own) else []

    def copy_of(self, key: str, tier: int, sketch: bytes | None) -> tuple[str, float] | None:
        """Decide one page.

        Args:
            key: its source key (unique in the ingest).
            tier: its :func:`format_tier`; no page decided before may rank after it.
            sketch: its :func:`page_sketch`.

        Returns:
            ``(key of the kept page, estimated Jaccard similarity)`` for a copy, the most alike
            (the first kept among equals); ``None`` for a page kept, which becomes a candidate
            for the pages after it.
        """
        if sketch is None:
            return None
        width = ROWS * 4  # bytes of a band
        bands = [(band, sketch[band * width : (band + 1) * width]) for band in range(BANDS)]
        best: tuple[str, float] | None = None
        others = [buckets for kept_tier, buckets in self._buckets.items() if kept_tier != tier]
        for at in sorted({at for buckets in others for band in bands for at in buckets.get(band, ())}):
            kept, kept_sketch = self._kept[at]
            if (similarity := resemblance(kept_sketch, sketch)) >= self.threshold:
                if best is None or similarity > best[1]:
                    best = (kept, similarity)
        if best is None:
            for band in bands:
                self._buckets[tier][band].append(len(self._kept))
            self._kept.append((key, sketch))
            for value in passages(sketch):
                self._passages[int(value)] = key if self._passages.get(int(value), key) == key else None
        return best
