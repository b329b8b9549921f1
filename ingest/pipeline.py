"""Ingest paths into the chunk store, file by file, reporting what was skipped and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from tqdm import tqdm

from agentic_rag.errors import IngestError
from ingest.loaders import Source, UnreadableSourceError, iter_files, load_file
from store.chunks import WRITE_BATCH, ChunkStore


@dataclass
class IngestReport:
    """Totals of one ingest run. ``skipped`` lists (path, reason) for unreadable files."""

    files: int = 0
    unchanged: int = 0
    added: int = 0
    removed: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


def store_sources(store: ChunkStore, sources: Iterable[Source], report: IngestReport, progress: bool = False) -> None:
    """Write each source unless its recorded content hash is unchanged; with ``progress``, a
    chunk-level progress bar for sources of more than ``WRITE_BATCH`` chunks."""
    for source in sources:
        report.files += 1
        if store.source_hash(source.key) == source.content_hash:
            report.unchanged += 1
            continue
        show = progress and len(source.chunks) > WRITE_BATCH
        with tqdm(
            total=len(source.chunks), desc=Path(source.key).name, unit="chunk", disable=not show, leave=False
        ) as bar:
            update = store.replace_source(source.key, source.content_hash, source.chunks, on_progress=bar.update)
        report.added += update.added
        report.removed += update.removed


def ingest_paths(
    store: ChunkStore,
    paths: list[Path],
    chunk_size: int,
    chunk_overlap: int,
    progress: bool = False,
) -> IngestReport:
    """Ingest files and folders; unreadable files are skipped and reported, the rest stored.

    Args:
        store: the target collection.
        paths: files or folders (searched recursively for supported suffixes).
        chunk_size: target chunk length in characters.
        chunk_overlap: chunk overlap in characters.
        progress: show a tqdm progress bar over files.

    Returns:
        The totals, with the skipped files and their reasons.

    Raises:
        IngestError: a path does not exist (checked before anything is written).
    """
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise IngestError(f"no such file or folder: {', '.join(missing)}; check the path")
    files = [f for p in paths for f in iter_files(p)]
    report = IngestReport()
    for path in tqdm(files, desc="ingest", unit="file", disable=not progress):
        try:
            source = load_file(path, chunk_size, chunk_overlap)
        except UnreadableSourceError as exc:
            report.skipped.append((str(path), str(exc)))
            continue
        store_sources(store, [source], report, progress)
    return report
