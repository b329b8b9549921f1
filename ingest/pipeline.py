"""Ingest paths into the chunk store, file by file, reporting what was skipped and why."""

from __future__ import annotations

import itertools
import os
import time
from contextlib import closing
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from tqdm import tqdm

from core.errors import IngestError
from ingest.batches import IngestReport, SourceBatcher
from ingest.copies import CopyFinder, format_tier, reading_order
from ingest.ledger import SketchLedger
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
from ingest.parallel import SketchedSource, load_files
from store.chunks import ChunkStore
from store.connection import connect

PROGRESS_EVERY_S = 10.0
"""Seconds between one-line progress reports of an ingest whose stderr is not a terminal."""


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
    (``repaired``). Of files holding one page in two formats (an HTML page and its ``.txt``
    source), only the richer is written; the others are listed in ``copies`` (:func:`read_pages`).

    Returns:
        The totals, with the skipped files and their reasons, the copies skipped, and the
        mention-graph update.
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

    with connect(store.url) as conn:  # the sketches' own connection: a Ctrl-C mid-COPY breaks the store's
        ledger = SketchLedger(conn, store.collection)
        ledger.create()
        try:
            identities: dict[Path, tuple[str, str, str]] = {}  # key, content hash and status, without parsing
            for path in files:
                try:
                    key, digest = source_identity(path, chunk_size, chunk_overlap)
                except UnreadableSourceError as exc:
                    report.skipped.append((str(path), str(exc)))
                    logged_progress(len(report.skipped))
                else:
                    identities[path] = (key, digest, batcher.status(key, digest))
            sketches = ledger.sketches({key: digest for key, digest, _ in identities.values()})
            done = itertools.count(len(files) - len(identities) + 1)  # the files unreadable so far are done
            chunking = (chunk_size, chunk_overlap)
            made = read_pages(batcher, identities, sketches, chunking, lambda: logged_progress(next(done)))
            order = {str(path): at for at, path in enumerate(files)}
            report.skipped.sort(key=lambda skipped: order.get(skipped[0], len(order)))  # in the files' order
            logged_progress(len(files), now=True)  # the last batch is written only now
        except KeyboardInterrupt:
            report.interrupted = True
            store.recover()  # Ctrl-C may have landed mid-COPY: the batch is rolled back, the store usable
            return report
        ledger.save(made)
        present = {str(f) for f in files}
        for folder in (p.resolve() for p in paths if p.is_dir()):
            for source in store.catalog.sources_under(f"{folder}{os.sep}"):
                if source not in present:
                    report.removed += store.delete_source(source)
                    if Path(source).is_file():
                        report.excluded_files += 1
                    else:
                        report.deleted_files += 1
            ledger.forget_others(f"{folder}{os.sep}", present)
    report.graph, _ = store.finish_load()
    store.catalog.finish_ingest()
    return report


def read_pages(
    batcher: SourceBatcher,
    identities: dict[Path, tuple[str, str, str]],
    sketches: dict[str, bytes],
    chunking: tuple[int, int],
    on_file: Callable[[], None],
) -> dict[str, tuple[str, bytes]]:
    """Queue the files to write, one file per page: the files are read in
    :func:`ingest.copies.reading_order` (richest format first), and a file holding the same page
    as a file of another format kept before it (:class:`ingest.copies.CopyFinder`) is listed in
    ``report.copies`` instead, and one repeating several pages kept before it (a one-page edition)
    in ``report.editions``; one stored before (its page was its own then) loses its chunks once
    the file kept is written. Only the files without a sketch of their current content are parsed
    first (in worker processes); a file known by its sketch is parsed only when it is kept and
    not stored yet (a copy whose page left the folder). Unreadable and empty files are reported.

    Args:
        batcher: the writes and the report of the ingest.
        identities: each readable file's source key, content hash and :meth:`SourceBatcher.status`.
        sketches: the stored page sketches of the current content, by source key
            (:meth:`ingest.ledger.SketchLedger.sketches`).
        chunking: chunk size and overlap in characters.
        on_file: called once per file decided.

    Returns:
        Source key → (content hash, page sketch) of the pages sketched now, for the ledger.
    """
    store, report = batcher.store, batcher.report
    order = sorted(identities, key=reading_order)
    finder, late, demoted, made = CopyFinder(), [], [], {}
    fresh = [path for path in order if identities[path][0] not in sketches]
    with closing(parsed(store, fresh, chunking)) as loaded:  # closed early: the files not yet parsed are cancelled
        for path in tqdm(order, desc="ingest", unit="file", disable=not batcher.progress):
            key, digest, status = identities[path]
            source = None if key in sketches else next(loaded)
            if isinstance(source, UnreadableSourceError):
                unreadable(report, path, source)
                on_file()
                continue
            sketch = sketches[key] if source is None else source.sketch
            if source is not None and sketch is not None:
                made[key] = (digest, sketch)
            tier = format_tier(path)
            parts = finder.repeated_pages(tier, sketch)  # a one-page edition of pages kept before it
            copy = None if parts else finder.copy_of(key, tier, sketch)
            if parts or copy:
                if parts:
                    report.editions.append((str(path), len(parts)))
                else:
                    report.copies.append((str(path), copy[0]))
                if status != "write" or store.catalog.source_hash(key) is not None:
                    demoted.append((key, parts[0] if parts else copy[0]))
            elif status == "unchanged":
                batcher.count_unchanged()
            elif source is not None:
                batcher.add(source, status)
            else:
                late.append(path)
            on_file()
    with closing(parsed(store, late, chunking)) as loaded:
        for path, source in zip(late, loaded, strict=True):
            if isinstance(source, UnreadableSourceError):
                unreadable(report, path, source)
            else:
                batcher.add(source, identities[path][2])
    batcher.flush()
    for key, kept in demoted:
        if store.catalog.source_hash(kept) is not None:  # not when PostgreSQL refused the file kept
            report.removed += store.delete_source(key)
    return made


def parsed(
    store: ChunkStore, paths: list[Path], chunking: tuple[int, int]
) -> Iterator[SketchedSource | UnreadableSourceError]:
    """:func:`ingest.parallel.load_files` of ``paths``, in worker processes from
    ``tuning.parallel_parse_files`` files on."""
    many = len(paths) >= store.tuning.parallel_parse_files
    workers = (store.tuning.parse_workers or os.cpu_count() or 1) if many else 1
    return load_files(paths, *chunking, workers)


def unreadable(report: IngestReport, path: Path, error: UnreadableSourceError) -> None:
    """Report a file that could not be read: as empty, or skipped with the reason."""
    if isinstance(error, EmptySourceError):
        report.empty.append(str(path))
    else:
        report.skipped.append((str(path), str(error)))
