"""The answer-level fields of one question's record: what was answered, whether it is right,
which pages it cites (see :mod:`evaluation.calibration` for what "right" means)."""

from __future__ import annotations

from evaluation.datasets import QAItem
from evaluation.metrics import (
    alias_contained,
    alias_token,
    answer_text,
    contains_answer,
    exact_match,
    first_cited,
    page_name,
    token_f1,
)


def answer_fields(item: QAItem, run: dict, pgdocs: bool) -> dict:
    """Score one run's answer against the item's gold.

    Args:
        item: the question with its gold answers (and gold pages for pgdocs).
        run: ``answer``, ``short_answer`` (may be empty), ``abstained``, ``confidence`` and
            ``cited`` (``[{"source", "title"}]``) of the run.
        pgdocs: score as pgdocs-qa (alias contained in short answer + answer; gold pages).

    Returns:
        ``short_answer``; ``em`` / ``f1`` (SQuAD, on the short answer when there is one, else the
        whole answer) and ``contains`` (gold in short answer + answer), ``None`` for unanswerable
        questions; for pgdocs ``alias`` (an alias contained), ``page_cited`` (a gold page among
        the cited pages) and ``all_pages_cited`` (questions with several gold pages only);
        ``cited_pages``, ``cited_titles``, ``gold_pages``; ``correct``: right answer, not
        abstained, or an abstention on an unanswerable question.
    """
    text = answer_text(run)
    prediction = run.get("short_answer") or run["answer"]
    cited_pages = list(dict.fromkeys(page_name(c["source"]) for c in run["cited"] if c.get("source")))
    fields: dict = {
        "short_answer": run.get("short_answer") or "",
        "em": exact_match(prediction, item.answers) if item.answerable else None,
        "f1": token_f1(prediction, item.answers) if item.answerable else None,
        "contains": contains_answer(text, item.answers) if item.answerable else None,
        "cited_pages": cited_pages,
        "cited_titles": list(dict.fromkeys(c.get("title", "") for c in run["cited"])),
        "gold_pages": item.gold_pages,
    }
    if pgdocs:
        gold = {page_name(g) for g in item.gold_pages}
        fields["alias"] = alias_contained(text, item.answers) if item.answerable else None
        fields["page_cited"] = bool(gold & set(cited_pages)) if item.answerable else None
        fields["all_pages_cited"] = gold <= set(cited_pages) if item.answerable and len(gold) > 1 else None
        headline = (run.get("short_answer") or "").strip().lower()
        if not item.answerable:
            fields["right"] = None
        elif [a.lower() for a in item.answers] in (["yes"], ["no"]):
            fields["right"] = headline == item.answers[0].lower() and not run["abstained"]
        else:
            said = alias_token(f"{headline} {first_cited(run['answer'])}", item.answers)
            fields["right"] = said and not run["abstained"]  # a declined answer is never right
        answered_right = bool(fields["right"])
    else:
        answered_right = bool(fields["contains"])
    abstained = bool(run["abstained"])
    fields["correct"] = (answered_right and not abstained) if item.answerable else abstained
    return fields
