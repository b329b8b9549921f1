"""Aggregate per-question records into ``report.json``, a side-by-side ``report.md`` and plots."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter, defaultdict
from pathlib import Path
from statistics import fmean

from deciders.reader import trust_level
from evaluation.calibration import abstention_figures, confidence_figures
from evaluation.metrics import percentile


def _mean(values: list) -> float | None:
    """Mean of the values that are not ``None`` (booleans count as 0/1); ``None`` if none."""
    values = [float(v) for v in values if v is not None]
    return round(fmean(values), 4) if values else None


def _confidence(records: list[dict]) -> dict:
    """Mean answer confidence overall and split by whether every supporting paragraph was found
    (a confidence that means something is higher when the evidence is complete)."""
    rated = [r for r in records if r.get("confidence") is not None]
    if not rated:
        return {}
    return {
        "confidence_mean": _mean([r["confidence"] for r in rated]),
        "confidence_when_all_found": _mean([r["confidence"] for r in rated if r.get("all_found") == 1.0]),
        "confidence_when_not_all_found": _mean([r["confidence"] for r in rated if r.get("all_found") == 0.0]),
    }


def summarize(records: list[dict]) -> dict:
    """Metrics of one mode (or one question type within it)."""
    hops = [r["hops"] for r in records]
    depth = max(hops, default=0)
    latency = [r["latency_ms"] for r in records]
    summary = {
        "questions": len(records),
        "support_recall": _mean([r["support_recall"] for r in records]),
        "all_supporting_found": _mean([r["all_found"] for r in records]),
        "exact_match": _mean([r["em"] for r in records]),
        "f1": _mean([r["f1"] for r in records]),
        "answer_contains_gold": _mean([r["contains"] for r in records]),
        "answer_contains_alias": _mean([r.get("alias") for r in records]),
        "gold_page_cited": _mean([r.get("page_cited") for r in records]),
        "all_gold_pages_cited": _mean([r.get("all_pages_cited") for r in records]),
        "recall_at_k_by_hop": [
            _mean([r["hop_recall"][i] for r in records if len(r["hop_recall"]) > i]) for i in range(depth)
        ],
        "hop_contribution_by_hop": [
            _mean([r["hop_contribution"][i] for r in records if len(r["hop_contribution"]) > i]) for i in range(depth)
        ],
        "questions_reaching_hop": [sum(1 for h in hops if h > i) for i in range(depth)],
        "hops_mean": _mean(hops),
        "hops_distribution": dict(sorted(Counter(hops).items())),
        "stop_reasons": dict(Counter(r["stop_reason"] for r in records).most_common()),
        "repeated_query_stops": sum(r["stop_reason"] == "repeated_query" for r in records),
        "no_progress_stops": sum(r["stop_reason"] == "no_progress" for r in records),
        "routes": dict(Counter(r["route"] for r in records)),
        "complexity": dict(Counter(r.get("complexity") for r in records if r.get("complexity"))),
        "llm_calls_per_question": _mean([r["llm_calls"] for r in records]),
        "input_tokens_per_question": _mean([r["input_tokens"] for r in records]),
        "output_tokens_per_question": _mean([r["output_tokens"] for r in records]),
        **_confidence(records),
        **confidence_figures(records),
        **abstention_figures(records),
        "latency_ms_p50": round(percentile(latency, 50), 1),
        "latency_ms_p95": round(percentile(latency, 95), 1),
    }
    return summary


def build_report(records: list[dict], meta: dict) -> dict:
    """``{"meta": …, "modes": {mode: {…metrics, "by_type": {type: {…}}}}}``."""
    by_mode: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        by_mode[record["mode"]].append(record)
    modes = {}
    for mode, rows in by_mode.items():
        by_type: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            by_type[row["type"] or "all"].append(row)
        modes[mode] = {**summarize(rows), "by_type": {t: summarize(r) for t, r in sorted(by_type.items())}}
    return {"meta": meta, "modes": modes}


ROWS = [
    ("questions", "questions"),
    ("all_supporting_found", "all supporting found"),
    ("support_recall", "supporting recall (mean)"),
    ("answer_contains_gold", "answer contains gold"),
    ("answer_contains_alias", "answer contains a gold alias"),
    ("gold_page_cited", "a gold page cited"),
    ("all_gold_pages_cited", "all gold pages cited (several gold pages)"),
    ("exact_match", "exact match"),
    ("f1", "token F1"),
    ("abstention_precision", "abstention precision"),
    ("abstention_recall", "abstention recall"),
    ("false_abstention_rate", "false abstention (answerable)"),
    ("accuracy", "right (answer, or abstention on unanswerable)"),
    ("wrong_but_confident", f"wrong but confident (≥ {trust_level()})"),
    ("accuracy_when_confident", f"right when confident (≥ {trust_level()})"),
    ("confidence_auroc", "confidence AUROC (right vs wrong)"),
    ("hops_mean", "hops (mean)"),
    ("recall_at_k_by_hop", "recall@k by hop"),
    ("hop_contribution_by_hop", "hop contribution (new gold) by hop"),
    ("repeated_query_stops", "repeated-query stops"),
    ("no_progress_stops", "no-progress stops"),
    ("stop_reasons", "stop reasons"),
    ("routes", "routes"),
    ("llm_calls_per_question", "LLM calls / question"),
    ("input_tokens_per_question", "input tokens / question"),
    ("output_tokens_per_question", "output tokens / question"),
    ("latency_ms_p50", "latency p50 (ms)"),
    ("latency_ms_p95", "latency p95 (ms)"),
]


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return " / ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    return "–" if value is None else str(value)


ANSWER_COLUMNS = [
    ("answer_contains_gold", "contains gold"),
    ("answer_contains_alias", "contains alias"),
    ("gold_page_cited", "gold page cited"),
    ("all_gold_pages_cited", "all pages cited"),
    ("abstention_recall", "abstention recall"),
    ("false_abstention_rate", "false abstention"),
    ("accuracy", "right"),
    ("wrong_but_confident", "wrong but confident"),
    ("confidence_auroc", "AUROC"),
]


def _answers_by_type(report: dict, mode: str) -> list[str]:
    """One mode's answer and calibration figures per question type and overall."""
    summary = report["modes"][mode]
    rows = [*summary["by_type"].items(), ("all", summary)]
    columns = [(k, label) for k, label in ANSWER_COLUMNS if any(s.get(k) is not None for _, s in rows)]
    if any(k == "answer_contains_alias" for k, _ in columns):  # pgdocs: the alias test replaces SQuAD's
        columns = [(k, label) for k, label in columns if k != "answer_contains_gold"]
    if not any(k in ("accuracy", "answer_contains_alias") for k, _ in columns):
        return []
    lines = ["", f"## Answers and confidence by question type: {mode}", ""]
    lines += ["| type | n | " + " | ".join(label for _, label in columns) + " |", "|---|---|" + "---|" * len(columns)]
    for name, s in rows:
        lines.append(f"| {name} | {s['questions']} | " + " | ".join(_cell(s.get(k)) for k, _ in columns) + " |")
    return lines


def render_markdown(report: dict) -> str:
    """Modes side by side, then all-supporting-found and support recall per question type, then
    each mode's answer and confidence figures per question type."""
    modes = list(report["modes"])
    meta = report["meta"]
    if meta.get("corpus"):
        origin = f"{meta['chunks']} chunks from the documents in {meta['corpus']}"
        retrieval = "Retrieval metrics count gold pages among the chunks' pages."
    else:
        origin = f"{meta['chunks']} chunks pooled from the dataset's paragraphs"
        retrieval = "Retrieval metrics count only questions with gold paragraphs."
    interrupted = "" if meta.get("completed", True) else " — INTERRUPTED: partial results, rerun to continue"
    lines = [
        f"# {meta['dataset']} — {', '.join(modes)} (k = {meta['k']}, deciders: {meta['deciders']})",
        "",
        f"{origin}; {meta['questions']} questions{interrupted}. {retrieval} Right: the answer holds the gold and"
        " does not abstain, or abstains on an unanswerable question; confident: confidence ≥"
        f" {trust_level()}.",
        "",
        "| metric | " + " | ".join(modes) + " |",
        "|---|" + "---|" * len(modes),
    ]
    for key, label in ROWS:
        values = [report["modes"][m].get(key) for m in modes]
        if any(v is not None for v in values):
            lines.append(f"| {label} | " + " | ".join(_cell(v) for v in values) + " |")
    types = sorted({t for m in modes for t in report["modes"][m]["by_type"]})
    if len(types) > 1:
        lines += ["", "## By question type (all supporting found · supporting recall · hops)", ""]
        lines += ["| type | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
        for t in types:
            cells = []
            for m in modes:
                s = report["modes"][m]["by_type"].get(t)
                cells.append(
                    "–" if s is None else
                    f"{_cell(s['all_supporting_found'])} · {_cell(s['support_recall'])} · {_cell(s['hops_mean'])} "
                    f"(n={s['questions']})"
                )  # fmt: skip
            lines.append(f"| {t} | " + " | ".join(cells) + " |")
    for mode in modes:
        lines += _answers_by_type(report, mode)
    return "\n".join(lines) + "\n"


PLOTS_HINT = "plots skipped: matplotlib is not installed; pip install -e '.[eval]' to draw them"
AUROC_HINT = "confidence AUROC left out: scikit-learn is not installed; pip install -e '.[eval]' to compute it"


def write_plots(report: dict, records: list[dict], out: Path) -> list[Path]:
    """recall_by_hop.png, latency.png, stop_reasons.png (matplotlib, no display needed).

    Raises:
        ImportError: matplotlib (the ``eval`` extra) is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = list(report["modes"])
    paths = []
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, mode in enumerate(modes):
        values = report["modes"][mode]["recall_at_k_by_hop"]
        ax.plot(range(1, len(values) + 1), values, marker="os^"[i % 3], markersize=9 - 3 * i, label=mode)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set(xlabel="hop", ylabel=f"supporting recall@{report['meta']['k']} of the hop", title="Recall by hop")
    ax.legend()
    paths.append(out / "recall_by_hop.png")
    fig.savefig(paths[-1], dpi=100, bbox_inches="tight")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    for mode in modes:
        ax.hist([r["latency_ms"] for r in records if r["mode"] == mode], bins=30, alpha=0.6, label=mode)
    ax.set(xlabel="latency per question (ms)", ylabel="questions", title="Latency")
    ax.legend()
    paths.append(out / "latency.png")
    fig.savefig(paths[-1], dpi=100, bbox_inches="tight")
    plt.close(fig)

    reasons = sorted({r for m in modes for r in report["modes"][m]["stop_reasons"]})
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / max(len(modes), 1)
    for i, mode in enumerate(modes):
        counts = [report["modes"][mode]["stop_reasons"].get(r, 0) for r in reasons]
        ax.bar([x + i * width for x in range(len(reasons))], counts, width=width, label=mode)
    ax.set_xticks([x + width * (len(modes) - 1) / 2 for x in range(len(reasons))], reasons, rotation=20, ha="right")
    ax.set(ylabel="questions", title="Stop reasons")
    ax.legend()
    paths.append(out / "stop_reasons.png")
    fig.savefig(paths[-1], dpi=100, bbox_inches="tight")
    plt.close(fig)
    return paths


def write_report(records: list[dict], meta: dict, out: Path) -> tuple[dict, str | None]:
    """Write report.json, report.md and the plots into ``out``.

    Returns:
        The report, and a note when the plots or the AUROC were skipped (``None`` otherwise).
    """
    report = build_report(records, meta)
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
    (out / "report.md").write_text(render_markdown(report))
    notes = [] if importlib.util.find_spec("sklearn") else [AUROC_HINT]
    try:
        write_plots(report, records, out)
    except ImportError:
        notes.append(PLOTS_HINT)
    return report, "\n".join(notes) or None
