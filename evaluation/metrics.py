"""Per-question metrics.

Answer normalisation, exact match and token F1 follow the official SQuAD v1.1/v2.0 evaluation
script (Rajpurkar et al. 2016; also used by HotpotQA): lower-case, drop punctuation and the
articles a/an/the, collapse whitespace; F1 over bags of tokens; the best score over all gold
aliases.

The pgdocs-qa metrics follow ``pgdocs_qa_README.md``: an answer is right when it contains a gold
alias (case-insensitive, whitespace collapsed, no other normalisation), and a page is cited when
a citation's source file name, without any ``#anchor``, is a gold page.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from pathlib import PurePosixPath
from typing import Iterable, Mapping, Sequence

import numpy

from deciders.generator import NO_ANSWER

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals a normalised gold answer, else 0.0."""
    return float(any(normalize_answer(prediction) == normalize_answer(g) for g in golds))


def token_f1(prediction: str, golds: Sequence[str]) -> float:
    """Best token-level F1 (0–1) of the prediction against any gold answer."""
    best = 0.0
    predicted = normalize_answer(prediction).split()
    for gold in golds:
        expected = normalize_answer(gold).split()
        common = sum((Counter(predicted) & Counter(expected)).values())
        if common:
            precision, recall = common / len(predicted), common / len(expected)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def contains_answer(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when a normalised gold answer (or alias) appears in the normalised prediction."""
    text = f" {normalize_answer(prediction)} "
    return float(any(normalize_answer(g) and f" {normalize_answer(g)} " in text for g in golds))


def _collapse(text: str) -> str:
    return " ".join(text.lower().replace("…", "...").split())  # an ellipsis typed either way


def alias_contained(prediction: str, aliases: Sequence[str]) -> bool:
    """Whether an alias appears in the prediction, case-insensitively with runs of whitespace
    collapsed and "…" read as "..." (pgdocs-qa's lenient test: ``"5432"`` is in ``"port 5432 by
    default"``, ``"ALTER TABLE ... ADD COLUMN"`` in ``"ALTER TABLE … ADD COLUMN"``)."""
    text = _collapse(prediction)
    return any(_collapse(a) and _collapse(a) in text for a in aliases)


def alias_token(prediction: str, aliases: Sequence[str]) -> bool:
    """Whether an alias occurs in the prediction as a whole token ("10" not in "100", "\\dt" in
    "type \\dt"), case-insensitively with runs of whitespace collapsed and "…" read as "..."."""
    text = _collapse(prediction)
    return any(
        (alias := _collapse(a)) and re.search(rf"(?<!\w){re.escape(alias)}(?!\w)", text) for a in aliases
    )


def first_cited(answer: str) -> str:
    """An answer's text up to and including its first citation mark ``[n]`` (the first cited
    sentence with its context); the whole text when it cites nothing."""
    found = re.search(r"\[\d+\]", answer)
    return answer[: found.end()] if found else answer


def page_name(source: str) -> str:
    """The bare file name of a citation source or locator: ``/x/html/sql-vacuum.html#3`` →
    ``sql-vacuum.html``."""
    return PurePosixPath(source.split("#", 1)[0]).name


def answer_text(result: Mapping) -> str:
    """``short_answer`` and ``answer`` of a result, joined by a space (either may be absent)."""
    return f"{result.get('short_answer') or ''} {result.get('answer') or ''}".strip()


def abstained(result: Mapping) -> bool:
    """Whether a result says the documents do not answer: its ``abstained`` flag, or for results
    without one (older code) an answer starting with the model-free statement of absence."""
    if result.get("abstained") is not None:
        return bool(result["abstained"])
    return (result.get("answer") or "").startswith(NO_ANSWER)


def support_recall(found: Iterable[str], gold: set[str]) -> float | None:
    """Fraction (0–1) of gold chunk ids among ``found``; ``None`` when there is no gold (an
    unanswerable question has nothing to find, so it is left out of retrieval averages)."""
    return len(gold & set(found)) / len(gold) if gold else None


def hop_contributions(hops: Sequence[Sequence[str]], gold: set[str]) -> list[bool]:
    """For each hop, whether it returned a gold chunk that no earlier hop had returned."""
    seen: set[str] = set()
    contributed = []
    for chunk_ids in hops:
        new_gold = (gold & set(chunk_ids)) - seen
        contributed.append(bool(new_gold))
        seen |= set(chunk_ids)
    return contributed


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100, numpy's linear interpolation); 0.0 for no values."""
    return float(numpy.percentile(values, q)) if len(values) else 0.0
