"""What one ingest did (:class:`IngestReport`) and how it writes sources: in batches of chunks,
a batch PostgreSQL refuses written again file by file (:class:`SourceBatcher`)."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import psycopg
import sqlalchemy.exc
from tqdm import tqdm

from ingest.loaders import Source
from store.chunks import ChunkStore, SourceChunks
from store.mentions import GraphUpdate


@dataclass
class IngestReport:
    """Totals of one ingest run.

    ``files`` counts sources seen and ``unchanged`` those skipped by content hash; ``repaired``
    those written again although unchanged, as the chunk table had lost chunks the manifest
    records (deleted or dropped outside agentic-rag); ``added`` and ``removed`` count chunks;
    ``deleted_files`` counts sources removed because their file left an ingested folder,
    ``excluded_files`` those removed because their file, still there, is now left out (an
    ``--exclude`` or ``.ragignore`` pattern, or a hidden path); ``skipped`` lists (path, reason)
    for unreadable files, ``empty`` the empty ones, ``copies`` (path, path of the file kept) the
    files skipped as a copy of another file's page (:mod:`ingest.copies`) and ``editions`` (path,
    number of pages it repeats) those skipped as a one-page edition of other pages (mdBook's
    ``print.html``), both counted apart from ``files``.
    """

    files: int = 0
    unchanged: int = 0
    repaired: int = 0
    added: int = 0
    removed: int = 0
    deleted_files: int = 0
    excluded_files: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    copies: list[tuple[str, str]] = field(default_factory=list)
    editions: list[tuple[str, int]] = field(default_factory=list)
    graph: GraphUpdate | None = None
    """What the mention-graph update after the writes did."""
    interrupted: bool = False
    """Stopped by Ctrl-C: the files counted were written (a batch of files per transaction), the
    rest not, and the folder was not mirrored nor its vector index rebuilt (searches are exact
    meanwhile); the same ingest again continues (unchanged files are skipped by hash) and
    finishes both."""

    discarded: bool = False
    """The ingest created the collection but wrote nothing to it, so it was dropped again."""

    def skipped_by_reason(self) -> dict[str, int]:
        """How many files were skipped for each reason (the reason without its details in
        parentheses, e.g. ``unsupported file type '.svg'``, ``not a readable PDF``), most first."""
        counts: dict[str, int] = {}
        for _, reason in self.skipped:
            kind = reason.split(" (", 1)[0]
            counts[kind] = counts.get(kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: -item[1]))

    def progress_line(self, done: int, total: int) -> str:
        """``ingest: done/total files, N chunks added, M skipped``: one line of progress (M counts
        the empty files too, as the summary does)."""
        skipped = len(self.skipped) + len(self.empty)
        return f"ingest: {done}/{total} files, {self.added} chunks added, {skipped} skipped"


class SourceBatcher:
    """Collects the sources to write and writes them together, ``tuning.ingest_batch`` chunks at
    a time (a folder of small files fills a batch as one large file does); see
    :meth:`store.chunks.ChunkStore.replace_sources`."""

    def __init__(self, store: ChunkStore, report: IngestReport, progress: bool = False, unbacked: Container[str] = ()):
        self.store, self.report, self.progress, self.unbacked = store, report, progress, unbacked
        self.hashes = store.catalog.source_hashes()
        """The content hashes recorded when the ingest started (:meth:`status`), read at once."""
        self.pending: list[Source] = []
        self.start_size = store.lexical.size()
        self.written = 0

    def status(self, key: str, content_hash: str) -> Literal["unchanged", "repair", "write"]:
        """``unchanged`` when source ``key`` was recorded with this content hash as the ingest
        started and its chunks are there; ``repair`` when recorded with it but among ``unbacked``
        (:meth:`store.catalog.Catalog.unbacked`: its chunks are missing); else ``write``."""
        if self.hashes.get(key) != content_hash:
            return "write"
        return "repair" if key in self.unbacked else "unchanged"

    def count_unchanged(self) -> None:
        """Count a source that needs no writing."""
        self.report.files += 1
        self.report.unchanged += 1

    def add(self, source: Source, status: Literal["unchanged", "repair", "write"] | None = None) -> None:
        """Queue ``source`` unless it is unchanged (its :meth:`status`, read here unless given);
        write the queue once it holds a batch."""
        status = status or self.status(source.key, source.content_hash)
        if status == "unchanged":
            self.count_unchanged()
            return
        self.report.repaired += status == "repair"
        self.pending.append(source)
        if sum(len(s.chunks) for s in self.pending) >= self.store.tuning.ingest_batch:
            self.flush()

    def flush(self) -> None:
        """Write the queued sources; a batch PostgreSQL refuses is written again source by source,
        and the refused sources are reported as skipped."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        try:
            self._write(pending)
        except (psycopg.DataError, sqlalchemy.exc.DataError) as exc:  # text PostgreSQL refuses
            if len(pending) == 1:
                reason = f"refused by PostgreSQL ({str(exc).splitlines()[0][:120]})"
                self.report.skipped.append((pending[0].key, reason))
                return
            for source in pending:
                self.pending = [source]
                self.flush()

    def _write(self, sources: list[Source]) -> None:
        total = sum(len(s.chunks) for s in sources)
        if self.written + total > self.start_size:  # a load larger than the collection was: index it afterwards
            self.store.lexical.drop_indexes()
        show = self.progress and total > self.store.tuning.ingest_batch
        name = Path(sources[0].key).name if len(sources) == 1 else f"{len(sources)} files"
        with tqdm(total=total, desc=name, unit="chunk", disable=not show, leave=False) as bar:
            items = [SourceChunks(s.key, s.content_hash, s.chunks) for s in sources]
            updates = self.store.replace_sources(items, on_progress=bar.update)
        self.report.files += len(sources)  # counted once written: a batch cut short by Ctrl-C is rolled back
        self.report.added += sum(u.added for u in updates)
        self.report.removed += sum(u.removed for u in updates)
        self.written += sum(u.added for u in updates)
        # A load larger than the collection was: adding rows one by one to the HNSW graph would cost more than
        # building it again after the load (finish_load), so it is dropped; searches meanwhile are exact.
        if self.written > max(self.start_size, self.store.tuning.hnsw_min_chunks) and self.store.vectors.exists():
            self.store.vectors.drop_index()
