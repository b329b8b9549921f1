"""QA dataset files read as documents: the paragraphs of HotpotQA, 2WikiMultihopQA and MuSiQue
JSONL records, each paragraph one chunk titled by its page."""

from __future__ import annotations

import json
from typing import Iterator

from langchain_core.documents import Document

READER = "qa-paragraphs-2"
"""Names this way of reading QA JSONL; like :data:`ingest.html.READER` it enters each file's content
hash, so a file read the earlier way is read again. Change it when the output changes."""


def detect_qa_format(first_record: dict) -> str | None:
    """``hotpotqa`` (also 2WikiMultihopQA), ``musique``, or ``None`` for other JSON."""
    if "context" in first_record and "supporting_facts" in first_record:
        return "hotpotqa"
    if "paragraphs" in first_record and "question_decomposition" in first_record:
        return "musique"
    return None


def qa_paragraphs(record: dict, fmt: str) -> Iterator[tuple[str, str]]:
    """(title, text) of every paragraph of one QA record, in the record's order. A paragraph's
    sentences are joined by one space: HotpotQA's carry their own leading space, but
    2WikiMultihopQA's do not ("… educator." "He was born …" must not become "educator.He")."""
    if fmt == "hotpotqa":
        for title, sentences in record["context"]:
            yield title, " ".join(s.strip() for s in sentences if s.strip())
    else:
        for paragraph in record["paragraphs"]:
            yield paragraph["title"], paragraph["paragraph_text"].strip()


def read_qa_jsonl(raw: str) -> list[Document]:
    """The distinct paragraphs of a QA JSONL file's text, in order, each a chunk titled by its page.

    Raises:
        ValueError: a line that is not JSON, no records, or records of another format.
    """
    records = []
    for number, line in enumerate(raw.splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number} is not JSON ({exc.msg})") from exc
    if not records:
        raise ValueError("the file holds no records")
    fmt = detect_qa_format(records[0])
    if fmt is None:
        raise ValueError("JSONL is read only in the HotpotQA, 2WikiMultihopQA or MuSiQue formats")
    seen: set[tuple[str, str]] = set()
    chunks = []
    for record in records:
        for title, text in qa_paragraphs(record, fmt):
            if text and (title, text) not in seen:
                seen.add((title, text))
                chunks.append(Document(page_content=text, metadata={"title": title, "chunk_index": len(chunks)}))
    return chunks
