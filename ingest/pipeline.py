"""Ingest paths into the chunk store, file by file, reporting what was skipped and why."""

from __future__ import annotations

import os
import time
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

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
    iter_files,
    load_file,
)
from store.chunks import WRITE_BATCH, ChunkStore
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
    """Stopped by Ctrl-C: the files counted were written (each in its own transaction), the rest
    not, and the folder was not mirrored; the same ingest again continues (unchanged files are
    skipped by hash)."""

    def skipped_by_reason(self) -> dict[str, int]:
        """How many files were skipped for each reason (the reason without its details in
        parentheses, e.g. ``unsupported file type '.svg'``, ``not a readable PDF``), most first."""
        counts: dict[str, int] = {}
        for _, reason in self.skipped:
            kind = reason.split(" (", 1)[0]
            counts[kind] = counts.get(kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: -item[1]))

    def progress_line(self, done: int, total: int) -> str:
        """``ingest: done/total files, N chunks added, M skipped``: one line of progress."""
        return f"ingest: {done}/{total} files, {self.added} chunks added, {len(self.skipped)} skipped"


def store_source(
    store: ChunkStore, source: Source, report: IngestReport, progress: bool = False, unbacked: Container[str] = ()
) -> None:
    """Write one source unless its recorded content hash is unchanged and it is not among
    ``unbacked`` (:meth:`store.catalog.Catalog.unbacked`: its chunks are missing); with
    ``progress``, a chunk-level progress bar for a source of more than ``WRITE_BATCH`` chunks.
    The mention graph is left to :func:`store_sources` / :func:`ingest_files`, once per run."""
    if store.catalog.source_hash(source.key) == source.content_hash:
        if source.key not in unbacked:
            report.files += 1
            report.unchanged += 1
            return
        report.repaired += 1
    show = progress and len(source.chunks) > WRITE_BATCH
    with tqdm(total=len(source.chunks), desc=Path(source.key).name, unit="chunk", disable=not show, leave=False) as bar:
        update = store.replace_source(source.key, source.content_hash, source.chunks, on_progress=bar.update)
    report.files += 1  # counted once written: a write cut short by Ctrl-C is rolled back
    report.added += update.added
    report.removed += update.removed


def store_sources(store: ChunkStore, sources: Iterable[Source], report: IngestReport) -> None:
    """Write each source (see :func:`store_source`), then update the mention graph."""
    unbacked = store.catalog.unbacked(store.table)
    for source in sources:
        store_source(store, source, report, unbacked=unbacked)
    report.graph = store.graph.update()


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
        IngestError: a path does not exist, a pattern is invalid, or the paths hold no supported
            (and not excluded) file and no folder among them was ingested before.
    """
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise IngestError(f"no such file or folder: {', '.join(missing)}; check the path")
    try:
        files = list(dict.fromkeys(f.resolve() for p in paths for f in iter_files(p, exclude, any_type=True)))
    except ValueError as exc:  # pathspec's GitIgnorePatternError, or a .ragignore that is not UTF-8
        raise IngestError(f"cannot use the --exclude or {IGNORE_FILE} patterns: {exc}") from exc
    supported = [f for f in files if f.suffix.lower() in TEXT_SUFFIXES]
    if not supported and not any(mirrored(p.resolve()) for p in paths if p.is_dir()):
        patterns = exclude or any((p / IGNORE_FILE).is_file() for p in paths if p.is_dir())
        raise IngestError(
            f"no supported files in {', '.join(map(str, paths))} (supported: {' '.join(sorted(TEXT_SUFFIXES))})"
            + (f"; check the --exclude and {IGNORE_FILE} patterns" if patterns else "")
        )
    return files


def ingest_file(
    store: ChunkStore,
    path: Path,
    chunk_size: int,
    chunk_overlap: int,
    report: IngestReport,
    progress: bool = False,
    unbacked: Container[str] = (),
) -> None:
    """Read and write one file (see :func:`store_source`); an unreadable, unsupported or empty
    file, or text PostgreSQL refuses, is recorded in ``report`` instead."""
    try:
        source = load_file(path, chunk_size, chunk_overlap)
    except EmptySourceError:
        report.empty.append(str(path))
        return
    except UnreadableSourceError as exc:
        report.skipped.append((str(path), str(exc)))
        return
    try:
        store_source(store, source, report, progress, unbacked)
    except (psycopg.DataError, sqlalchemy.exc.DataError) as exc:  # text PostgreSQL refuses
        report.skipped.append((str(path), f"refused by PostgreSQL ({str(exc).splitlines()[0][:120]})"))


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
    unbacked = store.catalog.unbacked(store.table)
    log = None if progress else log
    logged = time.monotonic()
    if log:
        log(report.progress_line(0, len(files)))
    try:
        for done, path in enumerate(tqdm(files, desc="ingest", unit="file", disable=not progress), 1):
            ingest_file(store, path, chunk_size, chunk_overlap, report, progress, unbacked)
            if log and time.monotonic() - logged >= log_every_s:
                log(report.progress_line(done, len(files)))
                logged = time.monotonic()
    except KeyboardInterrupt:
        report.interrupted = True
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
    report.graph = store.graph.update()
    return report
