"""The multi-manual doc-QA benchmark: every set of :mod:`evaluation.docsets` run against its
manual (:class:`evaluation.runner.EvalRun`, agentic mode), reported per manual and pooled.

Leave-one-corpus-out (``loco``): each manual is answered with the reader fitted without it
(``<loco>/without-<manual>.json``, written by ``python -m evaluation.train_reader``), so no
fitted weight, calibration or threshold has seen the manual scored.

Per manual: answerable questions, right (a gold alias as a whole token in the short answer or
the first cited sentence, not declined; for yes/no the short answer says it), the share of
answerable questions shown as "trust it" and the precision there (wrong answers to unanswerable
questions count against it), unanswerable questions declined, answerable ones wrongly declined.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

from evaluation.docsets import DocSet
from evaluation.runner import EvalConfig, EvalRun

COLUMNS = ("answerable", "right", "trusted_share", "trusted_precision", "unanswerable", "declined", "false_decline")


def figures(records: list[dict], trust: float) -> dict:
    """The benchmark's figures (see the module docstring) of one manual's records."""
    answerable = [r for r in records if r["answerable"]]
    unanswerable = [r for r in records if not r["answerable"]]
    shown = [r for r in records if not r["abstained"] and (r.get("confidence") or 0.0) >= trust]
    trusted_right = sum(bool(r.get("right")) for r in shown if r["answerable"])
    return {
        "answerable": len(answerable),
        "right": round(sum(bool(r.get("right")) and not r["abstained"] for r in answerable) / len(answerable), 3)
        if answerable
        else None,
        "trusted_share": round(sum(r["answerable"] for r in shown) / len(answerable), 3) if answerable else None,
        "trusted_precision": round(trusted_right / len(shown), 3) if shown else None,
        "unanswerable": len(unanswerable),
        "declined": round(sum(r["abstained"] for r in unanswerable) / len(unanswerable), 3) if unanswerable else None,
        "false_decline": round(sum(r["abstained"] for r in answerable) / len(answerable), 3) if answerable else None,
    }


def run_docsets(
    sets: list[DocSet],
    open_app: Callable[[str], object],
    out: Path,
    loco: Path | None = None,
    limit: int | None = None,
    deciders: str = "rules",
) -> dict:
    """Run each set in ``out/<name>/`` (an interrupted run continues) and write
    ``out/summary.json`` and ``out/summary.md``.

    Args:
        sets: the sets to run.
        open_app: opens the application on a collection name.
        out: output folder.
        loco: folder of the fold models; ``None`` uses the shipped reader for every manual.
        limit: only the first N questions of each set.
        deciders: ``rules`` (model-free) or ``llm``.

    Returns:
        ``{"manuals": {name: figures}, "pooled": figures, "loco": bool}``.

    Raises:
        ConfigurationError: a fold model is missing (see :class:`EvalRun` for the rest).
    """
    from core.errors import ConfigurationError
    from deciders.reader import load_model

    by_manual: dict[str, list[dict]] = {}
    trust_of: dict[str, float] = {}
    for docset in sets:
        model = loco / f"without-{docset.fold}.json" if loco else None
        if model is not None and not model.is_file():
            raise ConfigurationError(f"no fold model {model}; fit them with: python -m evaluation.train_reader")
        previous = os.environ.get("AGENTIC_RAG_READER_MODEL")
        os.environ["AGENTIC_RAG_READER_MODEL"] = str(model) if model else previous or ""
        try:
            config = EvalConfig(
                dataset=str(docset.questions.resolve()),
                format="pgdocs",
                modes=["agentic"],
                k=5,
                deciders=deciders,
                max_retries=2,
                limit=limit,
                corpus=str(docset.corpus),
                exclude=list(docset.exclude) or None,
            )
            run = EvalRun(open_app, config, out / docset.name)
            try:
                run.build_corpus()
                records, _ = run.run(progress=False)
            finally:
                run.close()
            trust_of[docset.fold] = load_model().trust_from
        finally:
            if previous is None:
                os.environ.pop("AGENTIC_RAG_READER_MODEL", None)
            else:
                os.environ["AGENTIC_RAG_READER_MODEL"] = previous
        by_manual.setdefault(docset.fold, []).extend(records)
    manuals = {name: figures(records, trust_of[name]) for name, records in by_manual.items()}
    pooled_records = [r for records in by_manual.values() for r in records]
    # pooled trust: each record judged at its own fold's threshold
    pooled = (
        figures(
            [
                {**r, "confidence": (r.get("confidence") or 0.0) - trust_of[name] + 1.0}
                for name, records in by_manual.items()
                for r in records
            ],
            1.0,
        )
        if pooled_records
        else {}
    )
    summary = {"manuals": manuals, "pooled": pooled, "loco": loco is not None}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "summary.md").write_text(markdown(summary))
    return summary


def markdown(summary: dict) -> str:
    """The summary as a Markdown table, one row per manual and a pooled row."""
    kind = "leave-one-corpus-out" if summary["loco"] else "shipped reader"
    lines = [
        f"# Doc-QA benchmark ({kind})",
        "",
        "| manual | " + " | ".join(COLUMNS) + " |",
        "|---|" + "---|" * len(COLUMNS),
    ]
    rows = [*summary["manuals"].items(), ("pooled", summary["pooled"])]
    for name, values in rows:
        lines.append(
            f"| {name} | " + " | ".join("" if values.get(c) is None else str(values[c]) for c in COLUMNS) + " |"
        )
    return "\n".join(lines) + "\n"
