"""QA datasets in their raw formats, read into one shape.

* HotpotQA and 2WikiMultihopQA (JSONL): ``context`` [[title, [sentence…]]], ``supporting_facts``
  [[title, i]], ``type``.
* MuSiQue (JSONL): ``paragraphs`` [{title, paragraph_text, is_supporting}], ``answer_aliases``,
  ``question_decomposition`` (its length is the hop count, used as the type).
* SQuAD 2.0 sample (JSON): ``…_queries.json`` {"queries": [{id, context, question}]} with its
  ``…_ground_truth.json`` {id: {answers, is_impossible}} beside it; each question's own context is
  its supporting paragraph; unanswerable questions expect an abstention.
* pgdocs-qa (JSONL, ``../shared/data/pgdocs_qa_README.md``): ``id``, ``question``, ``answers``
  (aliases, empty when unanswerable), ``type`` (``fact`` | ``howto`` | ``multihop`` |
  ``unanswerable``), ``gold_pages`` (bare file names of a documentation folder), ``evidence``.
  It brings no paragraphs: its corpus is a folder of documents ingested as they are.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import IngestError
from ingest.qa_jsonl import detect_qa_format, qa_paragraphs

FORMATS = ("hotpotqa", "musique", "squad", "pgdocs")


def fitted_half(question_id: str) -> bool:
    """Whether a question falls in the half a model may be fitted on (the reader learns from the
    SQuAD sample's fitted half and is scored on the other): SHA-256 of its id is even."""
    return hashlib.sha256(question_id.encode()).digest()[-1] % 2 == 0


@dataclass
class QAItem:
    """One question with its gold answers and gold paragraphs."""

    id: str
    question: str
    answers: list[str]
    """Gold answer and aliases; empty for an unanswerable question."""
    type: str
    supporting: list[tuple[str, str]]
    """Gold (title, text) paragraphs."""
    paragraphs: list[tuple[str, str]] = field(default_factory=list)
    """Every (title, text) paragraph the record brings to the pooled corpus."""
    answerable: bool = True
    gold_pages: list[str] = field(default_factory=list)
    """pgdocs: the file names of the pages that state the answer (every page of a chain)."""
    evidence: list[str] = field(default_factory=list)
    """pgdocs: the verbatim sentences of those pages that state it."""


def detect_format(path: Path) -> str:
    """``hotpotqa`` (also 2WikiMultihopQA), ``musique``, ``squad`` or ``pgdocs`` (records with
    ``gold_pages``).

    Raises:
        IngestError: missing file or an unknown format.
    """
    if not path.is_file():
        raise IngestError(f"no such dataset file: {path}")
    try:
        if path.suffix == ".json":
            head = json.loads(path.read_text())
            if isinstance(head, dict) and "queries" in head:
                return "squad"
        else:
            first = next((line for line in path.read_text().splitlines() if line.strip()), "")
            record = json.loads(first) if first else None
            if isinstance(record, dict) and "gold_pages" in record:
                return "pgdocs"
            fmt = detect_qa_format(record) if isinstance(record, dict) else None
            if fmt:
                return fmt
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise IngestError(f"{path.name} is not JSON/JSONL text ({exc}); give a dataset file") from None
    raise IngestError(
        f"{path.name}: not HotpotQA, 2WikiMultihopQA, MuSiQue, SQuAD 2.0 or pgdocs-qa ({', '.join(FORMATS)})"
    )


def load_dataset(path: Path, fmt: str | None = None) -> list[QAItem]:
    """Read every question of ``path`` in format ``fmt`` (detected when ``None``).

    Raises:
        IngestError: missing or unreadable file, unknown format, or records not in ``fmt``.
    """
    if fmt is not None and fmt not in FORMATS:
        raise IngestError(f"unknown format '{fmt}'; use {', '.join(FORMATS)}")
    fmt = fmt or detect_format(path)
    try:
        return _load(path, fmt)
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise IngestError(f"{path.name} does not hold {fmt} records ({type(exc).__name__}: {exc})") from None


def _load(path: Path, fmt: str) -> list[QAItem]:
    if fmt == "squad":
        return _load_squad(path)
    if fmt == "pgdocs":
        return _load_pgdocs(path)
    items = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        paragraphs = list(qa_paragraphs(record, fmt))
        if fmt == "hotpotqa":
            gold_titles = {title for title, _ in record["supporting_facts"]}
            supporting = [(t, x) for t, x in dict.fromkeys(paragraphs) if t in gold_titles]
            items.append(QAItem(record["_id"], record["question"], [record["answer"]], record.get("type", ""),
                                supporting, paragraphs))  # fmt: skip
        else:
            supporting = [(p["title"], p["paragraph_text"].strip()) for p in record["paragraphs"] if p["is_supporting"]]
            hops = len(record.get("question_decomposition", [])) or 1
            answers = [record["answer"], *record.get("answer_aliases", [])]
            items.append(QAItem(record["id"], record["question"], answers, f"{hops}hop", supporting, paragraphs))
    return items


def _load_squad(path: Path) -> list[QAItem]:
    if path.suffix != ".json" or "_queries" not in path.name:
        raise IngestError(f"the SQuAD format is a *_queries.json file with its *_ground_truth.json; got {path.name}")
    truth_path = path.with_name(path.name.replace("_queries", "_ground_truth"))
    if not truth_path.exists():
        raise IngestError(f"SQuAD queries {path.name} need their ground truth beside them: {truth_path.name}")
    truth = json.loads(truth_path.read_text())
    items = []
    for query in json.loads(path.read_text())["queries"]:
        gold = truth[query["id"]]
        context = ("", query["context"].strip())
        answerable = not gold["is_impossible"]
        items.append(
            QAItem(
                query["id"],
                query["question"],
                list(gold["answers"]) if answerable else [],
                "answerable" if answerable else "unanswerable",
                [context] if answerable else [],
                [context],
                answerable,
            )
        )
    return items


def _load_pgdocs(path: Path) -> list[QAItem]:
    items = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        answerable = record["type"] != "unanswerable"
        items.append(
            QAItem(
                record["id"],
                record["question"],
                list(record["answers"]),
                record["type"],
                [],
                answerable=answerable,
                gold_pages=list(record["gold_pages"]),
                evidence=list(record.get("evidence") or []),
            )
        )
    return items


def corpus(items: list[QAItem]) -> list[tuple[str, str]]:
    """The pooled corpus: every distinct (title, text) paragraph of every question, in order."""
    return list(dict.fromkeys(p for item in items for p in item.paragraphs if p[1]))
