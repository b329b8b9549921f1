"""The rare names a question asks about that its answer does not say: an answer about MySQL must
come from a sentence that names MySQL, not from one about PostgreSQL that shares the question's
other words."""

from __future__ import annotations

import re
from typing import Sequence

from core.text import CODE_SHAPE
from deciders.answer_support import Candidate
from deciders.chunks import HopChunk
from deciders.contrast import unmentioned
from deciders.passages import with_context


def unsaid_rare_names(
    question: str, rare_names: Sequence[str], chosen: Sequence[Candidate], evidence: Sequence[HopChunk], chain: bool
) -> list[str]:
    """The question's rare names (named by at most ``tuning.rare_name_chunks`` chunks) the answer
    does not say.

    A code-like name (``MySQL``) or a coined lower-case one (``pgbouncer``) must be in the
    answer's best sentence, its context or its chunk's title (a chunk's "unlike MySQL" does not
    make its other sentences about MySQL) — a dotted one in that chunk, as itself or as its module
    and its entry ("functools module" … "lru_cache(maxsize=128)"); for a multi-hop question in
    one of the answer's chunks: a second sentence naming it does not make the first about it.
    For a single-hop question, a capitalised word of prose (``Westphalia``) must be in the best
    sentence, its context or its chunk's title, unless it is in an evidence chunk's title (the
    question names a document it is about, the answer may be another's): SQuAD 2.0 writes
    unanswerable questions by putting a name of the paragraph where it does not belong
    (Rajpurkar et al. 2018, "entity swap").

    Args:
        question: the question.
        rare_names: its rare names (:meth:`graph.services.GraphServices.question_terms`).
        chosen: the answer's sentences, best first.
        evidence: the evidence chunks.
        chain: the question is multi-hop (no sentence-level check).

    Returns:
        The names not said (a prose one as the whole capitalised name it is part of).
    """
    held = " ".join(f"{c.chunk['title']} {c.chunk['text']}" for c in (chosen if chain else chosen[:1])).lower()
    said = " ".join(f"{c.chunk['title']} {with_context(c)}" for c in chosen[:1]).lower()
    code = [n for n in rare_names if CODE_SHAPE.search(n) or n.islower()]
    missing = [n for n in code if not _holds(held if chain or "." in n else said, n.lower())]
    titles = " ".join(c["title"] for c in evidence).lower()
    prose = [n.lower() for n in rare_names if n not in code and n.lower() not in titles]
    if prose and chosen and not chain:
        missing += [name for name in unmentioned(question, said) if any(p in name.lower() for p in prose)]
    return missing


def _holds(text: str, name: str) -> bool:
    """Whether lower-cased ``text`` names ``name``: literally, or for a dotted name, its parts
    as words with the last one written as a call or signature (``lru_cache(``)."""
    if name in text:
        return True
    *parts, last = name.split(".")
    words = set(re.findall(r"\w+", text))
    return bool(parts) and set(parts) <= words and f"{last}(" in text
