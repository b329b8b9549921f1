"""Readers that turn one source into chunks (LangChain ``Document`` objects).

* Text files (.md, .txt, .rst, .html/.htm, .pdf): HTML reduced to its main content
  (:mod:`ingest.html`), PDF read with pypdf, Office documents converted by :mod:`ingest.office`,
  text that is not UTF-8 decoded as charset-normalizer detects; all split with
  langchain-text-splitters' ``RecursiveCharacterTextSplitter`` (Markdown and reStructuredText on
  headings first).
* JSONL in the raw HotpotQA / 2WikiMultihopQA or MuSiQue formats: every paragraph pooled,
  deduplicated, kept whole as one chunk titled by its Wikipedia title.

Chunks' ``metadata`` holds ``title`` and ``chunk_index``; a file that cannot be read raises
:class:`UnreadableSourceError` with the reason.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator, Sequence

from langchain_core.documents import Document
from langchain_text_splitters import Language, RecursiveCharacterTextSplitter
from pathspec import GitIgnoreSpec

from ingest.html import READER as HTML_READER
from ingest.html import extract_main_text
from ingest.office import OFFICE_SUFFIXES, read_office
from ingest.qa_jsonl import READER as QA_READER
from ingest.qa_jsonl import read_qa_jsonl

TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".pdf", ".jsonl", *OFFICE_SUFFIXES}
IGNORE_FILE = ".ragignore"
"""A file in an ingested folder listing, gitignore-style, the paths under it to leave out."""


class UnreadableSourceError(Exception):
    """A file could not be read or parsed; the message says why."""


class EmptySourceError(UnreadableSourceError):
    """A file holds no text; skipped without counting as a failure."""


@dataclass
class Source:
    """One source ready to store: its key, content hash and chunks."""

    key: str
    content_hash: str
    chunks: list[Document]


def names_a_path(pattern: str, folders: Sequence[Path] = ()) -> bool:
    """Whether an ``--exclude`` pattern is an absolute path on this machine rather than a
    gitignore pattern anchored to the folder (``/build/``): it starts with one of ``folders``
    (absolute or resolved), or it has two parts or more and its first names a folder at the
    root of this machine (``/usr/share/doc/…``, ``/home/…``)."""
    if not pattern.startswith("/"):
        return False
    if any(folder_pattern(pattern, folder) is not None for folder in folders):
        return True
    parts = PurePosixPath(pattern).parts
    return len(parts) > 2 and Path("/", parts[1]).is_dir()


def folder_pattern(pattern: str, folder: Path) -> str | None:
    """An absolute path ``pattern`` as a gitignore pattern under ``folder``: ``/data/docs/_sources/``
    under ``/data/docs`` is ``/_sources/`` (anchored to the folder); ``None`` when it is not under
    ``folder``. Globs in the part below the folder are kept (``/data/docs/*.txt`` is ``/*.txt``)."""
    for base in dict.fromkeys((folder.absolute(), folder.resolve())):
        try:
            below = PurePosixPath(pattern).relative_to(base.as_posix())
        except ValueError:
            continue
        if not below.parts:
            return "*"  # the folder itself: everything under it
        return "/" + below.as_posix() + ("/" if pattern.endswith("/") else "")
    return None


def exclusion_spec(folder: Path, exclude: Sequence[str] = ()) -> GitIgnoreSpec:
    """The files to leave out under ``folder``, with gitignore semantics (pathspec's
    ``GitIgnoreSpec``): the lines of ``folder/.ragignore`` when it exists (``#`` comments, blank
    lines, ``!`` re-includes, a trailing ``/`` for folders, a leading or inner ``/`` anchoring
    the pattern to ``folder``), then the ``exclude`` patterns, which come last and so win.
    Only the ``.ragignore`` at the top of an ingested folder is read. An ``exclude`` pattern that
    is an absolute path (:func:`names_a_path`) applies as the path below ``folder`` it names
    (:func:`folder_pattern`), and not at all to a folder it is not under.

    Raises:
        ValueError: a pattern is not valid gitignore syntax (pathspec's ``GitIgnorePatternError``),
            or ``.ragignore`` is not UTF-8 text.
    """
    ignore = folder / IGNORE_FILE
    lines = ignore.read_text(encoding="utf-8").splitlines() if ignore.is_file() else []
    given = [folder_pattern(p, folder) if names_a_path(p, [folder]) else p for p in exclude]
    return GitIgnoreSpec.from_lines([*lines, *(p for p in given if p is not None)])


def iter_files(path: Path, exclude: Sequence[str] = (), any_type: bool = False) -> Iterator[Path]:
    """Files under ``path`` (or ``path`` itself) with a supported suffix (with ``any_type``,
    every file, broken link, FIFO and folder that cannot be listed: the caller reports them), in
    sorted order. Symbolic links to folders are not followed.

    Under a folder, files in hidden places (a name starting with ".") are skipped, and so is
    every file :func:`exclusion_spec` matches (``exclude`` patterns and the folder's
    ``.ragignore``, matched against the path relative to the folder, e.g. ``_sources/*``).
    A file named directly is always yielded.

    Raises:
        ValueError: an invalid pattern (see :func:`exclusion_spec`), on the first ``next()``.
    """
    if path.is_file():
        yield path
        return
    spec = exclusion_spec(path, exclude)
    found: list[Path] = []
    unlisted: list[Path] = []  # folders that cannot be listed: with any_type, yielded to be reported
    for root, _, names in os.walk(path, onerror=lambda exc: unlisted.append(Path(exc.filename))):
        found += [Path(root) / name for name in names]
    for child in sorted(found + (unlisted if any_type else [])):
        # with any_type a broken link, a FIFO and a folder that cannot be listed come too, to be reported
        if not any_type and not (child.is_file() and child.suffix.lower() in TEXT_SUFFIXES):
            continue
        relative = child.relative_to(path)
        if not any(part.startswith(".") for part in relative.parts) and not spec.match_file(relative.as_posix()):
            yield child


def _splitter(suffix: str, chunk_size: int, chunk_overlap: int) -> RecursiveCharacterTextSplitter:
    language = {".md": Language.MARKDOWN, ".markdown": Language.MARKDOWN, ".rst": Language.RST}.get(suffix)
    if language is not None:
        return RecursiveCharacterTextSplitter.from_language(
            language, chunk_size=chunk_size, chunk_overlap=chunk_overlap
        )
    return RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)


_VERSION = re.compile(r"(?<!in )(?<!since )\b(?:version|release|rev\.?|v)\s?(\d+(?:\.\d+)+)\b", re.IGNORECASE)
"""A version the text gives itself ("Version 2.1"), not a change note's ("New in version 3.3")."""
_ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
VERSION_SCAN_CHARS = 2000
"""Only the start of a document is searched for its date or version (a header or front matter)."""


def document_version(text: str) -> str | None:
    """The date (ISO ``YYYY-MM-DD``) or version number (``2.1``, :data:`_VERSION`) a document
    states near its start, the date first; ``None`` when it states neither."""
    head = text[:VERSION_SCAN_CHARS]
    for pattern in (_ISO_DATE, _VERSION):
        if match := pattern.search(head):
            return match.group(1)
    return None


def split_text(text: str, title: str, suffix: str, chunk_size: int, chunk_overlap: int) -> list[Document]:
    """Split ``text`` into chunks titled ``title``, each carrying the document's
    :func:`document_version`; returns ``[]`` for blank text."""
    pieces = _splitter(suffix, chunk_size, chunk_overlap).split_text(text)
    version = document_version(text)
    return [
        Document(page_content=piece, metadata={"title": title, "chunk_index": i, "version": version})
        for i, piece in enumerate(p for p in pieces if p.strip())
    ]


def _read_pdf(path: Path) -> tuple[str, str]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        text = "\n\n".join(page.extract_text() or "" for page in reader.pages).replace("\x00", "")
        title = (reader.metadata.title if reader.metadata else None) or path.stem
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise UnreadableSourceError(f"not a readable PDF ({exc})") from exc
    if not text.strip():
        raise UnreadableSourceError("the PDF has no extractable text (a scanned image?); run OCR on it first")
    return text, str(title)


def _read_html(raw: str, path: Path) -> tuple[str, str]:
    text, title = extract_main_text(raw)
    return text, title or path.stem


WESTERN = ("cp1252", "latin_1", "iso8859_15")
"""Encodings preferred when charset-normalizer finds several equally plausible."""


def decode_text(raw_bytes: bytes) -> str:
    """``raw_bytes`` as text: UTF-8 when it decodes, else the encoding charset-normalizer finds
    most plausible (Latin-1 / cp1252, UTF-16 with or without a BOM, …), windows-1252 among
    equally plausible ones (the WHATWG Encoding Standard's reading of Latin-1).

    Raises:
        UnreadableSourceError: no encoding fits (a binary file), or the text holds NUL bytes.
    """
    try:
        text = raw_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        from charset_normalizer import from_bytes

        matches = from_bytes(raw_bytes)
        best = matches.best()
        if best is None:
            raise UnreadableSourceError(f"not text in any known encoding ({exc.reason} at byte {exc.start})") from exc
        # short texts fit several single-byte code pages equally well (cp1250 and cp1257 read
        # Latin-1 "è" as "č"): break the tie for windows-1252, as browsers do for Latin-1 labels
        tied = [m for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
        text = str(next((m for m in tied if m.encoding in WESTERN), best))
    if "\x00" in text:
        raise UnreadableSourceError("contains NUL bytes: a binary file with a text suffix?")
    return text


def _markdown_title(text: str, default: str) -> str:
    for line in text.splitlines()[:20]:
        if line.startswith("# "):
            return line[2:].strip()
    return default


def _read_bytes(path: Path) -> bytes:
    """The bytes of a file of a supported type.

    Raises:
        UnreadableSourceError: a folder that cannot be listed, a broken link, a FIFO or device, an
            unsupported type, or a file that cannot be read.
    """
    if path.is_dir():
        raise UnreadableSourceError("a folder that cannot be listed (permission denied)")
    if not path.exists():
        try:
            path.stat()
        except OSError as exc:  # ELOOP: Path.exists() says False as for a link to nothing
            if exc.errno == errno.ELOOP:
                raise UnreadableSourceError("a symbolic link loop (the link leads back to itself)") from exc
        raise UnreadableSourceError("no such file (a broken symbolic link?)")
    if not path.is_file():
        raise UnreadableSourceError("not a regular file (a FIFO, socket or device)")
    if (suffix := path.suffix.lower()) not in TEXT_SUFFIXES:
        raise UnreadableSourceError(f"unsupported file type '{suffix}'" if suffix else "no file extension")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UnreadableSourceError(exc.strerror or str(exc)) from exc


READERS = {".html": HTML_READER, ".htm": HTML_READER, ".jsonl": QA_READER}
"""The reader version of each suffix that has one."""


def _identity(path: Path, raw_bytes: bytes, chunk_size: int, chunk_overlap: int) -> tuple[str, str]:
    reader = f"|{READERS[path.suffix.lower()]}" if path.suffix.lower() in READERS else ""
    digest = hashlib.sha256(raw_bytes + f"|{chunk_size}|{chunk_overlap}{reader}".encode()).hexdigest()
    return str(path.resolve()), digest


def source_identity(path: Path, chunk_size: int, chunk_overlap: int) -> tuple[str, str]:
    """``(key, content hash)`` of a file, as :func:`load_file` records them, without parsing it:
    the key is its resolved absolute path, the hash a SHA-256 of its bytes and the reading
    settings (chunk size and overlap, the HTML reader's version). An unchanged file is thus
    skipped before it is parsed.

    Raises:
        UnreadableSourceError: a folder that cannot be listed, a broken link, a FIFO or device, an
            unsupported type, or a file that cannot be read.
    """
    return _identity(path, _read_bytes(path), chunk_size, chunk_overlap)


def load_file(path: Path, chunk_size: int, chunk_overlap: int) -> Source:
    """Read and chunk one file.

    Args:
        path: the file; its resolved absolute path becomes the source key.
        chunk_size: target chunk length in characters (text files).
        chunk_overlap: overlap between consecutive chunks in characters.

    Raises:
        UnreadableSourceError: unsupported, undecodable, corrupt or empty file.
    """
    suffix = path.suffix.lower()
    raw_bytes = _read_bytes(path)
    key, digest = _identity(path, raw_bytes, chunk_size, chunk_overlap)
    if suffix == ".pdf":
        text, title = _read_pdf(path)
        return Source(key, digest, split_text(text, title, suffix, chunk_size, chunk_overlap))
    if suffix in OFFICE_SUFFIXES:
        try:
            text, stated = read_office(path)
        except ValueError as exc:
            raise UnreadableSourceError(str(exc)) from exc
        chunks = split_text(text, stated or _markdown_title(text, path.stem), ".md", chunk_size, chunk_overlap)
        if not chunks:
            raise EmptySourceError("the document holds no text")
        return Source(key, digest, chunks)
    raw = decode_text(raw_bytes)
    if suffix == ".jsonl":
        try:
            return Source(key, digest, read_qa_jsonl(raw))
        except ValueError as exc:
            raise UnreadableSourceError(str(exc)) from exc
    if suffix in (".html", ".htm"):
        text, title = _read_html(raw, path)
    else:
        text, title = raw, _markdown_title(raw, path.stem)
    chunks = split_text(text, title, suffix, chunk_size, chunk_overlap)
    if not chunks:
        raise EmptySourceError("the file is empty")
    return Source(key, digest, chunks)
