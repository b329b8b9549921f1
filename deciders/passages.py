"""How the extractive generator shows evidence sentences: each after its context, cited by
number, and — when it declines — the closest passages, none repeating another."""

from __future__ import annotations

import re
from typing import Sequence

from core.text import is_heading, sentences, term_set
from deciders.chunks import HopChunk
from deciders.reader import Candidate


def answer_sentences(chunk: HopChunk, avoid: Sequence[str] = ()) -> list[str]:
    """Sentences of a chunk an extractive answer may use: not one that only repeats the chunk's
    title (a heading line), and none in ``avoid``."""
    title_terms = term_set(chunk["title"])
    return [s for s in sentences(chunk["text"]) if s not in avoid and not term_set(s) <= title_terms]


def citation_marks(cited: Sequence[str]) -> dict[str, int]:
    """Number each cited chunk id 1, 2, … in order of first citation."""
    return {cid: mark for mark, cid in enumerate(dict.fromkeys(cited), 1)}


def with_context(candidate: Candidate) -> str:
    """The sentence after its context: "heading: sentence" or "previous sentence sentence";
    a table row's empty leading and trailing cells ("| | waiting for writers … |") left out."""
    sentence = candidate.sentence.strip("| ")
    if candidate.context is None:
        return sentence
    joiner = ": " if is_heading(candidate.context) else " "
    return f"{candidate.context.strip('| ')}{joiner}{sentence}"


def cite(chosen: Sequence[Candidate]) -> tuple[str, list[tuple[int, str]]]:
    """The sentences joined (each after its context sentence, if any), each followed by its
    chunk's mark, and the (mark, chunk id) list."""
    marks = citation_marks([c.chunk["chunk_id"] for c in chosen])
    text = " ".join(f"{with_context(c)} [{marks[c.chunk['chunk_id']]}]" for c in chosen)
    return text, [(n, cid) for cid, n in marks.items()]


def renumbered(parts: Sequence[tuple[str, Sequence[tuple[int, str]]]]) -> tuple[str, list[tuple[int, str]]]:
    """Answers, each cited with its own marks ``(text, [(mark, chunk id), …])``, as one text with
    one numbering (chunks in order of first citation) and its (mark, chunk id) list."""
    marks = citation_marks([cid for _, cited in parts for _, cid in sorted(cited)])
    texts = [
        re.sub(r"\[(\d+)\]", lambda m, own=dict(cited): f"[{marks[own[int(m[1])]]}]", text) for text, cited in parts
    ]
    return " ".join(texts), [(n, cid) for cid, n in marks.items()]


def closest_passages(ranked: Sequence[Candidate], n: int = 2) -> list[Candidate]:
    """The ``n`` best candidates whose shown sentences (:func:`with_context`) repeat none of a
    better one's: a sentence and the next one shown after it as its context are one passage.

    Args:
        ranked: candidates, best first.
        n: how many to return.

    Returns:
        At most ``n`` candidates, in ranked order.
    """
    closest: list[Candidate] = []
    shown: set[str] = set()
    for candidate in ranked:
        said = {candidate.sentence, candidate.context} - {None}
        if not said & shown:
            closest.append(candidate)
            shown |= said
        if len(closest) == n:
            break
    return closest
