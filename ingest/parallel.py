"""Reading many files at once: each file parsed and chunked (:func:`ingest.loaders.load_file`) in
worker processes while the caller embeds and writes the files before it.

Parsing is CPU-bound Python (reading an HTML page takes a few milliseconds, a PDF's page more),
so threads would share one core; worker processes use the others. They are started by loky (joblib's
process pool, ``loky.ProcessPoolExecutor``): a fresh interpreter each, as ``spawn`` (the caller
holds database connections and threads, which a ``fork`` would copy), but without importing the
caller's ``__main__`` again. The standard library's ``spawn`` and ``forkserver`` both run a
script's top level in every worker, so a user's script that ingests at module level, with no
``if __name__ == "__main__":`` guard (the README's snippet), built an ``App`` and ingested again
in each worker until the pool broke (``BrokenProcessPool``). Results come back in the files'
order, at most ``window`` files ahead of the caller, so a large folder is never held in memory
whole.
"""

from __future__ import annotations

import signal
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Iterator, Sequence

from loky import ProcessPoolExecutor

from ingest.copies import page_sketch
from ingest.loaders import Source, UnreadableSourceError, load_file


@dataclass
class SketchedSource(Source):
    """A :class:`Source` with its page's sketch (:func:`ingest.copies.page_sketch`), made where it
    was parsed."""

    sketch: bytes | None = None


def _load(path: Path, chunk_size: int, chunk_overlap: int) -> SketchedSource | UnreadableSourceError:
    """:func:`load_file` with the page's sketch, its reading error returned rather than raised (a
    worker's result)."""
    try:
        source = load_file(path, chunk_size, chunk_overlap)
    except UnreadableSourceError as exc:
        return exc
    return SketchedSource(source.key, source.content_hash, source.chunks, page_sketch(source.chunks))


def load_files(
    paths: Sequence[Path], chunk_size: int, chunk_overlap: int, workers: int, window: int = 64
) -> Iterator[SketchedSource | UnreadableSourceError]:
    """Each file's :class:`SketchedSource`, or the :class:`UnreadableSourceError` (an
    ``EmptySourceError`` for an empty file) saying why it could not be read, in ``paths`` order.

    Args:
        paths: the files to read.
        chunk_size: target chunk length in characters.
        chunk_overlap: overlap between consecutive chunks in characters.
        workers: worker processes; below 2 (or for a single file) the files are read here, one
            by one.
        window: most files parsed ahead of the one the caller is at.

    Worker processes ignore Ctrl-C (the caller handles it) and never import the caller's
    ``__main__``; closing the iterator early (a ``break``, an exception in the caller) cancels
    the files not yet started.

    Raises:
        loky.process_executor.TerminatedWorkerError: a worker died (killed, out of memory).
    """
    if workers < 2 or len(paths) < 2:
        yield from (_load(path, chunk_size, chunk_overlap) for path in paths)
        return
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(paths)), initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN)
    )
    ahead: deque[Future] = deque()
    try:
        pending = iter(paths)
        ahead.extend(pool.submit(_load, path, chunk_size, chunk_overlap) for path in islice(pending, window))
        while ahead:
            result = ahead.popleft().result()
            for path in islice(pending, 1):
                ahead.append(pool.submit(_load, path, chunk_size, chunk_overlap))
            yield result
    finally:
        for future in ahead:  # loky's shutdown has no cancel_futures
            future.cancel()
        pool.shutdown(wait=True)
