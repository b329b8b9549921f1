"""A real corpus present on every machine: the Python reference manual that ships with CPython
(``pydoc_data.topics``) and the pydoc pages of a curated list of standard-library modules.

The module list is curated because importing some modules has side effects (``antigravity``
opens a browser, ``this`` prints, ``turtle``/``tkinter`` need a display).
"""

from __future__ import annotations

import hashlib
import importlib
import pydoc
import re
import sys

from ingest.loaders import Source, split_text

MODULES = (
    "json",
    "pathlib",
    "itertools",
    "functools",
    "collections",
    "re",
    "datetime",
    "dataclasses",
    "contextlib",
    "heapq",
    "bisect",
    "statistics",
    "textwrap",
    "string",
    "shutil",
    "csv",
    "argparse",
    "enum",
    "math",
    "random",
    "uuid",
    "hashlib",
    "glob",
    "fnmatch",
    "tempfile",
    "copy",
    "operator",
    "difflib",
    "sqlite3",
    "zipfile",
)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_MARGIN = re.compile(r"^( *)\|(?: {1,2}|$)(?:-{20,}$)?", re.M)
"""pydoc's margin of a class body (" |  ") and its ruled lines: drawing, not documentation."""


def pydoc_sources(chunk_size: int, chunk_overlap: int) -> list[Source]:
    """Chunked sources: one per reference-manual topic (``pydoc:topic/<name>``) and one per
    module (``pydoc:module/<name>``), hashed with the Python version and chunk settings."""
    from pydoc_data.topics import topics

    documents: list[tuple[str, str, str]] = [
        (f"pydoc:topic/{name}", f"Python reference: {name}", text) for name, text in sorted(topics.items())
    ]
    for name in MODULES:
        module = importlib.import_module(name)
        # Reprs of module-level objects carry memory addresses that change on every run.
        text = _MARGIN.sub(r"\1", _ADDRESS.sub("", pydoc.render_doc(module, renderer=pydoc.plaintext)))
        documents.append((f"pydoc:module/{name}", f"{name} module", text))
    salt = f"{sys.version}|{chunk_size}|{chunk_overlap}".encode()
    return [
        Source(
            key,
            hashlib.sha256(text.encode() + salt).hexdigest(),
            split_text(text, title, ".txt", chunk_size, chunk_overlap),
        )
        for key, title, text in documents
    ]
