"""The evaluation harness: metric values checked by hand, format detection, and a run that is
interrupted and continued."""

from __future__ import annotations

import json

import pytest

from agentic_rag.app import App
from core.errors import ConfigurationError, IngestError
from core.settings import Settings
from evaluation.datasets import corpus, detect_format, load_dataset
from evaluation.metrics import (
    contains_answer,
    exact_match,
    hop_contributions,
    normalize_answer,
    percentile,
    support_recall,
    token_f1,
)
from evaluation.report import summarize
from evaluation.runner import EvalConfig, EvalRun
from tests.conftest import shared_file, with_shared_files


def test_squad_normalisation_em_f1_and_contains():
    assert normalize_answer("The  Cat's, hat!") == "cats hat"
    assert exact_match("the Eiffel Tower.", ["Eiffel Tower"]) == 1.0
    assert exact_match("Eiffel", ["Eiffel Tower"]) == 0.0
    assert token_f1("New York City", ["New York"]) == pytest.approx(0.8)  # P 2/3, R 1
    assert token_f1("q b c", ["x", "b c d e"]) == pytest.approx(2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4))
    assert token_f1("a b c", ["b c d e"]) == pytest.approx(2 / 3)  # "a" is an article: P 1, R 1/2
    assert token_f1("nothing shared", ["Paris"]) == 0.0
    assert contains_answer("He plays in Major League Soccer [1].", ["major league soccer"]) == 1.0
    assert contains_answer("Major Leagues", ["Major League"]) == 0.0  # whole tokens only


def test_recall_hop_contribution_and_percentiles():
    assert support_recall(["a", "b"], {"a", "c"}) == 0.5
    assert support_recall(["a"], set()) is None  # nothing to find: left out of averages
    assert hop_contributions([["a", "x"], ["a", "y"], ["c"]], {"a", "c"}) == [True, False, True]
    assert percentile([10, 20, 30, 40], 50) == 25.0 and percentile([], 95) == 0.0


def test_abstention_precision_and_recall():
    base = {"em": None, "f1": None, "contains": None, "support_recall": None, "all_found": None, "hop_recall": [None],
            "hop_contribution": [None], "hops": 1, "stop_reason": "x", "route": "retrieve", "latency_ms": 1.0,
            "llm_calls": 0, "input_tokens": 0, "output_tokens": 0}  # fmt: skip
    records = [
        {**base, "answerable": False, "abstained": True},
        {**base, "answerable": False, "abstained": False},
        {**base, "answerable": True, "abstained": True},
        {**base, "answerable": True, "abstained": False},
    ]
    summary = summarize(records)
    assert summary["abstention_precision"] == 0.5  # 1 of 2 abstentions was on an unanswerable question
    assert summary["abstention_recall"] == 0.5  # 1 of 2 unanswerable questions was abstained on
    assert summary["all_supporting_found"] is None  # no question had gold paragraphs


@pytest.mark.parametrize("name, fmt, first_type", [
    ("hotpotqa_smoke_10.jsonl", "hotpotqa", "bridge"),
    ("2wikimultihopqa_smoke_10.jsonl", "hotpotqa", None),
    ("musique_smoke_10.jsonl", "musique", None),
    ("squad2_dev_500_queries.json", "squad", None),
])  # fmt: skip
def test_format_detection_and_loading(name, fmt, first_type):
    assert detect_format(shared_file(name)) == fmt
    items = load_dataset(shared_file(name))
    assert items and all(i.question and i.paragraphs for i in items)
    if first_type:
        assert items[0].type == first_type
    if fmt == "musique":
        assert {i.type for i in items} <= {"2hop", "3hop", "4hop"}
    if fmt == "squad":
        unanswerable = [i for i in items if not i.answerable]
        assert 200 < len(unanswerable) < 300 and all(not i.supporting and not i.answers for i in unanswerable)
        assert len(corpus(items)) == 411
    else:
        assert all(len(i.supporting) >= 2 for i in items)


def test_unknown_format_is_refused(tmp_path):
    (tmp_path / "x.jsonl").write_text('{"q": 1}\n')
    with pytest.raises(IngestError, match="not HotpotQA"):
        detect_format(tmp_path / "x.jsonl")


def test_interrupted_run_continues_where_it_stopped(data_dir, tmp_path):
    dataset = str(shared_file("hotpotqa_smoke_10.jsonl"))
    config = EvalConfig(dataset, "hotpotqa", ["standard", "agentic"], 5, "rules", 2, 3)
    settings = Settings(data_dir=data_dir)

    def open_app(collection: str) -> App:
        return App(settings.model_copy(update={"collection": collection}))

    first = EvalRun(open_app, config, tmp_path)
    assert first.build_corpus() == 100
    real = first.run_agentic
    calls = []

    def interrupted(item, mode, cost):
        calls.append(item.id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(item, mode, cost)

    first.run_agentic = interrupted
    records, completed = first.run(progress=False)
    first.close()
    assert not completed and len(records) == 3  # standard, agentic of q1; standard of q2

    second = EvalRun(open_app, config, tmp_path)
    second.build_corpus()
    records, completed = second.run(progress=False)
    second.close()
    assert completed and len(records) == 6
    assert len({(r["id"], r["mode"]) for r in records}) == 6
    lines = (tmp_path / "questions.jsonl").read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line)["support_recall"] is not None for line in lines)

    other = EvalConfig(config.dataset, "hotpotqa", ["standard", "agentic"], 3, "rules", 2, 3)
    with pytest.raises(ConfigurationError, match="k: 5 there, 3 here"):
        EvalRun(open_app, other, tmp_path)
    reordered = EvalConfig(config.dataset, "hotpotqa", ["agentic", "standard"], 5, "rules", 2, 3)
    EvalRun(open_app, reordered, tmp_path).close()  # the order of modes does not matter

    # A last line cut short by a crash is dropped and its question asked again.
    path = tmp_path / "questions.jsonl"
    path.write_text(path.read_text()[:-40])
    third = EvalRun(open_app, config, tmp_path)
    records, completed = third.run(progress=False)
    third.close()
    assert completed and len(records) == 6 and len(path.read_text().splitlines()) == 6


def test_eval_command_writes_report_and_plots(tmp_path, data_dir):
    import os
    import subprocess
    import sys

    out = tmp_path / "out"
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir)}
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.run(
        [sys.executable, "-m", "agentic_rag.cli", "eval", str(shared_file("musique_smoke_10.jsonl")),
         "--limit", "3", "--out", str(out), "--deciders", "rules"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert set(report["modes"]) == {"standard", "agentic"}
    standard = report["modes"]["standard"]
    assert standard["questions"] == 3 and standard["hops_mean"] == 1.0
    assert standard["recall_at_k_by_hop"][0] == standard["support_recall"]  # one hop: the same chunks
    assert {"2hop", "3hop", "4hop"} >= set(report["modes"]["agentic"]["by_type"])
    assert "| all supporting found |" in (out / "report.md").read_text()
    for plot in ("recall_by_hop.png", "latency.png", "stop_reasons.png"):
        assert (out / plot).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, message", [
    (["/nonexistent.jsonl"], "no such dataset file"),
    (["shared:README.md"], "not JSON/JSONL text"),
    (["shared:hotpotqa_smoke_10.jsonl", "--format", "bogus"], "unknown --format"),
    (["shared:hotpotqa_smoke_10.jsonl", "--k", "0"], "--k 0 is out of range"),
    (["shared:hotpotqa_smoke_10.jsonl", "--modes", "foo"], "unknown mode"),
    (["shared:hotpotqa_smoke_10.jsonl", "--format", "musique"], "does not hold musique records"),
    (["shared:hotpotqa_smoke_10.jsonl", "--limit", "0"], "--limit 0"),
])  # fmt: skip
def test_eval_command_errors(tmp_path, data_dir, args, message):
    import os
    import subprocess
    import sys

    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir)}
    args = with_shared_files(args)
    proc = subprocess.run([sys.executable, "-m", "agentic_rag.cli", "eval", *args, "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert proc.returncode != 0 and message in proc.stderr and "Traceback" not in proc.stderr
