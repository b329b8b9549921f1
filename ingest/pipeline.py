"""Ingest paths into the chunk store, file by file, reporting what was skipped and why."""

from __future__ import annotations

import os
import time
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Literal, Sequence

import psycopg
import sqlalchemy.exc
from tqdm import tqdm

from core.errors import IngestError
from ingest.loaders import (
    IGNORE_FILE,
    TEXT_SUFFIXES,
    EmptySourceError,
    Source,
    UnreadableSourceError,
    folder_pattern,
    iter_files,
    names_a_path,
    source_identity,
)
from ingest.parallel import load_files
from store.chunks import ChunkStore, SourceChunks
from store.mentions import GraphUpdate

PROGRESS_EVERY_S = 10.0
"""Seconds between one-line progress reports of an ingest whose stderr is not a terminal."""


@dataclass
class IngestReport:
    """Totals of one ingest run.

    ``files`` counts sources seen and ``unchanged`` those skipped by content hash; ``repaired``
    those written again although unchanged, as the chunk table had lost chunks the manifest
    records (deleted or dropped outside agentic-rag); ``added`` and ``removed`` count chunks;
    ``deleted_files`` counts sources removed because their file left an ingested folder,
    ``excluded_files`` those removed because their file, still there, is now left out (an
    ``--exclude`` or ``.ragignore`` pattern, or a hidden path); ``skipped`` lists (path, reason)
    for unreadable files, ``empty`` the empty ones.
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
        self.pending: list[Source] = []
        self.start_size = store.lexical.size()
        self.written = 0

    def status(self, key: str, content_hash: str) -> Literal["unchanged", "repair", "write"]:
        """``unchanged`` when source ``key`` is recorded with this content hash and its chunks
        are there; ``repair`` when recorded with it but among ``unbacked``
        (:meth:`store.catalog.Catalog.unbacked`: its chunks are missing); else ``write``."""
        if self.store.catalog.source_hash(key) != content_hash:
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


def store_sources(store: ChunkStore, sources: Iterable[Source], report: IngestReport) -> None:
    """Write the sources in batches (see :class:`SourceBatcher`), then update the mention graph
    and finish the load (:meth:`store.chunks.ChunkStore.finish_load`)."""
    store.catalog.start_ingest()
    batcher = SourceBatcher(store, report, unbacked=store.catalog.unbacked(store.table))
    for source in sources:
        batcher.add(source)
    batcher.flush()
    report.graph, _ = store.finish_load()
    store.catalog.finish_ingest()


def collect_files(
    paths: list[Path], mirrored: Callable[[Path], bool] = lambda folder: False, exclude: Sequence[str] = ()
) -> list[Path]:
    """The files under ``paths``, each once, in order, without the excluded ones; files of an
    unsupported type are kept, for :func:`ingest_files` to report as skipped.

    Args:
        paths: files and folders.
        mirrored: whether sources were once ingested from under this (resolved) folder: a
            folder emptied since is a change to mirror (its sources are deleted), not an error.
        exclude: gitignore-style patterns (pathspec), matched under each folder against the path
            relative to it, after the folder's own ``.ragignore`` (see :func:`iter_files`). Files
            named directly are never excluded.

    Raises:
        IngestError: a path does not exist, a pattern is invalid or an absolute path outside
            every folder, or the paths hold no supported (and not excluded) file and no folder
            among them was ingested before.
    """
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise IngestError(f"no such file or folder: {', '.join(missing)}; check the path")
    folders = [p for p in paths if p.is_dir()]
    for pattern in exclude:  # an absolute path outside every folder would silently match nothing
        if names_a_path(pattern) and not any(folder_pattern(pattern, folder) for folder in folders):
            where = ", ".join(map(str, folders)) or "no folder (files named directly are always read)"
            raise IngestError(
                f"--exclude {pattern} is a path outside the folder being ingested ({where}); "
                "give a path under it, or a pattern relative to it such as '_sources/' or '*.txt'"
            )
    try:
        found = (f for p in paths for f in iter_files(p, exclude, any_type=True))
        # a broken link is reported as named, not as the path it points to
        files = list(dict.fromkeys(f.resolve() if f.exists() else f.absolute() for f in found))
    except ValueError as exc:  # pathspec's GitIgnorePatternError, or a .ragignore that is not UTF-8
        raise IngestError(f"cannot use the --exclude or {IGNORE_FILE} patterns: {exc}") from exc
    supported = [f for f in files if f.suffix.lower() in TEXT_SUFFIXES]
    if not supported and not any(mirrored(p.resolve()) for p in paths if p.is_dir()):
        patterns = exclude or any((p / IGNORE_FILE).is_file() for p in paths if p.is_dir())
        single = len(paths) == 1 and paths[0].is_file()  # "blob.bin is not a supported file", not "no … in blob.bin"
        raise IngestError(
            (f"{paths[0]} is not a supported file" if single else f"no supported files in {', '.join(map(str, paths))}")
            + f" (supported: {' '.join(sorted(TEXT_SUFFIXES))})"
            + (f"; check the --exclude and {IGNORE_FILE} patterns" if patterns else "")
        )
    return files


def ingest_files(
    store: ChunkStore,
    paths: list[Path],
    files: list[Path],
    chunk_size: int,
    chunk_overlap: int,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
    log_every_s: float = PROGRESS_EVERY_S,
) -> IngestReport:
    """Ingest ``files`` (from :func:`collect_files`); unreadable files are skipped and reported.

    A folder in ``paths`` is mirrored: sources once ingested from under it that are not among
    ``files`` are deleted, whether their file is gone (``deleted_files``) or now left out by an
    exclusion pattern (``excluded_files``): the collection holds what ingesting the folder today
    would give, so excluding ``_sources/`` also drops the chunks it gave earlier.

    Args:
        store: the target collection.
        paths: the files and folders the user named.
        files: the files found under them.
        chunk_size: target chunk length in characters.
        chunk_overlap: chunk overlap in characters.
        progress: show tqdm progress bars.
        log: without bars, receives a one-line :meth:`IngestReport.progress_line` when the run
            starts, then every ``log_every_s`` seconds (for a log file or a pipe).
        log_every_s: seconds between progress lines.

    Ctrl-C (``KeyboardInterrupt``) ends the run early with ``interrupted`` set (see
    :class:`IngestReport`); the report is returned, not raised.

    A file whose chunks the chunk table lost behind the manifest's back is written again
    (``repaired``).

    Returns:
        The totals, with the skipped files and their reasons, and the mention-graph update.
    """
    report = IngestReport()
    store.catalog.start_ingest()  # finished only at the end: a run stopped before shows as unfinished
    batcher = SourceBatcher(store, report, progress, store.catalog.unbacked(store.table))
    log = None if progress else log
    logged, last_line = time.monotonic(), ""

    def logged_progress(done: int, now: bool = False) -> None:
        nonlocal logged, last_line
        line = report.progress_line(done, len(files))
        if log and line != last_line and (now or time.monotonic() - logged >= log_every_s):
            log(line)
            logged, last_line = time.monotonic(), line

    logged_progress(0, now=True)

    try:
        statuses: dict[Path, str] = {}  # unchanged files are recognised by their bytes' hash, without parsing them
        for path in files:
            try:
                status = batcher.status(*source_identity(path, chunk_size, chunk_overlap))
            except UnreadableSourceError as exc:
                report.skipped.append((str(path), str(exc)))
            else:
                if status != "unchanged":
                    statuses[path] = status
                    continue
                batcher.count_unchanged()
            logged_progress(report.files + len(report.skipped))
        changed = list(statuses)
        many = len(changed) >= store.tuning.parallel_parse_files
        workers = (store.tuning.parse_workers or os.cpu_count() or 1) if many else 1
        loaded = load_files(changed, chunk_size, chunk_overlap, workers)
        bar = tqdm(loaded, total=len(changed), desc="ingest", unit="file", disable=not progress)
        try:
            for done, (path, source) in enumerate(zip(changed, bar, strict=True), len(files) - len(changed) + 1):
                if isinstance(source, EmptySourceError):
                    report.empty.append(str(path))
                elif isinstance(source, UnreadableSourceError):
                    report.skipped.append((str(path), str(source)))
                else:
                    batcher.add(source, statuses[path])
                logged_progress(done)
        finally:
            bar.close()
            loaded.close()  # a Ctrl-C or an error: the files not yet parsed are cancelled
        batcher.flush()
        order = {str(path): at for at, path in enumerate(files)}
        report.skipped.sort(key=lambda skipped: order.get(skipped[0], len(order)))  # in the files' order
        logged_progress(len(files), now=True)  # the last batch is written only now
    except KeyboardInterrupt:
        report.interrupted = True
        store.recover()  # Ctrl-C may have landed mid-COPY: the batch is rolled back, the store usable
        return report
    present = {str(f) for f in files}
    for folder in (p.resolve() for p in paths if p.is_dir()):
        for source in store.catalog.sources_under(f"{folder}{os.sep}"):
            if source not in present:
                report.removed += store.delete_source(source)
                if Path(source).is_file():
                    report.excluded_files += 1
                else:
                    report.deleted_files += 1
    report.graph, _ = store.finish_load()
    store.catalog.finish_ingest()
    return report
