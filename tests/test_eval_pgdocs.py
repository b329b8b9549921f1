"""The pgdocs-qa benchmark and the calibration figures: format detection, the metrics on
hand-made results, and an eval over a few real pages of the PostgreSQL
manual on the session's embedded PostgreSQL."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deciders.generator import NO_ANSWER
from evaluation.calibration import abstention_figures, auroc, confidence_figures
from evaluation.datasets import QAItem, detect_format, load_dataset
from evaluation.metrics import abstained, alias_contained, answer_text, page_name
from evaluation.pgdocs import DEFAULT_CORPUS, corpus_collection
from evaluation.scoring import answer_fields
from tests.conftest import shared_file, with_shared_files

TRUST = 0.7
"""The trust level of the hand-made records (the product's is :func:`deciders.reader.trust_level`)."""


@pytest.mark.parametrize("name", ["pgdocs_everyday.jsonl", "pydocs_qa.jsonl"])
def test_the_projects_own_question_sets_load_and_their_gold_pages_exist(name):
    path = Path(__file__).resolve().parents[1] / "evaluation" / "data" / name
    items = load_dataset(path)
    assert detect_format(path) == "pgdocs" and len({i.id for i in items}) == len(items)
    assert all(bool(i.answers) == i.answerable == bool(i.gold_pages) for i in items)
    halves = (
        {f"pe-{letter}" for letter in "dhxyzwvutksmnopqrefgabc"},
        {"py-d", "py-h", "py-t"},
    )  # set by set
    assert {i.id[:4] for i in items} in halves
    folder = DEFAULT_CORPUS if name.startswith("pg") else Path("/usr/share/doc/python3.11/html")
    if folder.is_dir():
        pages = {p.name for p in folder.rglob("*.html")}
        assert {g for i in items for g in i.gold_pages} <= pages


def test_pgdocs_format_is_detected_and_loaded():
    path = shared_file("pgdocs_qa_dev.jsonl")
    assert detect_format(path) == "pgdocs"
    items = load_dataset(path)
    assert len(items) == 67
    by_type = {t: [i for i in items if i.type == t] for t in ("fact", "howto", "multihop", "unanswerable")}
    assert [len(v) for v in by_type.values()] == [40, 10, 7, 10]
    assert all(not i.answerable and not i.answers and not i.gold_pages for i in by_type["unanswerable"])
    assert all(i.answerable and i.answers and i.gold_pages for t in ("fact", "howto") for i in by_type[t])
    assert all(len(i.gold_pages) >= 2 for i in by_type["multihop"])
    assert all(not i.paragraphs and not i.supporting for i in items)  # the corpus is a folder, not the records
    assert items[0].gold_pages == ["runtime-config-connection.html"] and items[0].answers == ["5432"]


def test_alias_page_and_abstention_helpers():
    assert alias_contained("It  defaults to 64\n MB [1].", ["64 MB"])  # whitespace collapsed
    assert alias_contained("use \\DT to list them", ["\\dt"])  # case-insensitive, punctuation kept
    assert alias_contained("ALTER TABLE … ADD COLUMN", ["ALTER TABLE ... ADD COLUMN"])  # an ellipsis either way
    assert not alias_contained("5433", ["5432"]) and not alias_contained("anything", [])
    assert page_name("/usr/share/doc/postgresql-doc-15/html/sql-vacuum.html#3") == "sql-vacuum.html"
    assert page_name("sql-vacuum.html") == "sql-vacuum.html"
    assert answer_text({"short_answer": "5432", "answer": "The port is 5432 [1]."}) == "5432 The port is 5432 [1]."
    assert answer_text({"answer": "x"}) == "x"
    assert abstained({"abstained": True, "answer": "5432"})
    assert not abstained({"abstained": False, "answer": f"{NO_ANSWER} contain …"})  # the flag wins
    assert abstained({"answer": f"{NO_ANSWER} contain a clear answer to this question."})  # older results
    assert not abstained({"answer": "The port is 5432."})


def _item(type_: str, answers: list[str], pages: list[str]) -> QAItem:
    return QAItem("q", "?", answers, type_, [], answerable=type_ != "unanswerable", gold_pages=pages)


def _run(answer: str, sources: list[str], short: str = "", abstain: bool = False) -> dict:
    return {"answer": answer, "short_answer": short, "abstained": abstain, "confidence": 0.8,
            "cited": [{"source": s, "title": "t"} for s in sources]}  # fmt: skip


def test_answer_fields_on_hand_made_results():
    fact = _item("fact", ["5432"], ["runtime-config-connection.html"])
    right = answer_fields(
        fact, _run("It listens there [1].", ["/d/html/runtime-config-connection.html#2"], "5432"), True
    )
    assert right["alias"] and right["page_cited"] and right["correct"] and right["all_pages_cited"] is None
    assert right["cited_pages"] == ["runtime-config-connection.html"] and right["em"] == 1.0
    wrong_page = answer_fields(fact, _run("5432 [1]", ["/d/html/runtime-config-resource.html#0"]), True)
    assert wrong_page["alias"] and not wrong_page["page_cited"] and wrong_page["correct"]  # right answer, wrong page
    refused = answer_fields(fact, _run(f"{NO_ANSWER} contain … 5432", [], abstain=True), True)
    assert refused["alias"] and not refused["right"] and not refused["correct"]  # an abstention is never right

    multihop = _item("multihop", ["ACCESS EXCLUSIVE"], ["app-clusterdb.html", "sql-cluster.html"])
    one = answer_fields(multihop, _run("an access exclusive lock [1]", ["/h/sql-cluster.html#4"]), True)
    assert one["page_cited"] and one["all_pages_cited"] is False and one["correct"]
    both = answer_fields(
        multihop, _run("ACCESS EXCLUSIVE [1][2]", ["/h/app-clusterdb.html", "/h/sql-cluster.html"]), True
    )
    assert both["all_pages_cited"] is True

    unanswerable = _item("unanswerable", [], [])
    declined = answer_fields(unanswerable, _run(f"{NO_ANSWER} contain it.", [], abstain=True), True)
    assert declined["correct"] and declined["alias"] is None and declined["page_cited"] is None
    assert not answer_fields(unanswerable, _run("Set it to 5 [1].", ["/h/x.html"]), True)["correct"]

    squad = QAItem("s", "?", ["Denver Broncos"], "answerable", [("", "p")])
    scored = answer_fields(squad, _run("The Denver Broncos won it [1].", ["eval:squad"], "Denver Broncos"), False)
    assert scored["em"] == 1.0 and scored["contains"] == 1.0 and scored["correct"] and "alias" not in scored


def _record(answerable: bool, abstain: bool, correct: bool, confidence: float | None) -> dict:
    return {"answerable": answerable, "abstained": abstain, "correct": correct, "confidence": confidence}


def test_calibration_figures_on_hand_made_records():
    records = [
        _record(True, False, True, 0.9),  # right, confident
        _record(True, False, False, 0.8),  # wrong, confident
        _record(True, False, True, 0.6),  # right
        _record(True, True, False, 0.2),  # false abstention
        _record(False, True, True, 0.2),  # right abstention
        _record(False, False, False, TRUST),  # wrong, exactly at the trust level: confident
        _record(False, False, False, None),  # wrong, no confidence: not confident
    ]
    figures = confidence_figures(records, trust=TRUST)
    assert figures["accuracy"] == round(3 / 7, 4)
    assert figures["wrong_but_confident"] == round(2 / 7, 4)  # over all scored questions
    assert figures["confident_share"] == round(3 / 7, 4) and figures["accuracy_when_confident"] == round(1 / 3, 4)
    # rated: right 0.9, 0.6, 0.2; wrong 0.8, 0.2, 0.7 → pairs right > wrong: 0.9 beats 3, 0.6 beats 1
    # (0.2), 0.2 ties 0.2 (half) → (3 + 1 + 0.5) / 9
    assert figures["confidence_auroc"] == round(4.5 / 9, 4)
    assert figures["confidence_mean_right"] == round((0.9 + 0.6 + 0.2) / 3, 4)
    assert auroc([True, True, False], [0.9, 0.8, 0.1]) == 1.0
    assert auroc([True, True], [0.9, 0.1]) is None  # one class only
    assert confidence_figures([_record(True, False, True, None)]) == {
        "accuracy": 1.0, "wrong_but_confident": None, "confidence_auroc": None}  # fmt: skip
    assert confidence_figures([{"answerable": True, "abstained": False}]) == {}  # records of older runs

    abstention = abstention_figures(records)
    assert abstention["abstention_precision"] == 0.5  # 1 of the 2 abstentions was on an unanswerable question
    assert abstention["abstention_recall"] == round(1 / 3, 4)
    assert abstention["false_abstention_rate"] == 0.25
    assert "abstention_recall" not in abstention_figures(records[:4])  # no unanswerable question


def test_corpus_collection_is_a_valid_name_per_folder(tmp_path):
    name = corpus_collection(DEFAULT_CORPUS)
    assert name.startswith("docs_postgresql_doc_15_html_") and len(name) <= 40
    assert corpus_collection(tmp_path / "html") != name


def _eval(args: list[str], data_dir: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "agentic_rag.cli", "eval", *args],
                          capture_output=True, text=True, env=env, timeout=timeout)  # fmt: skip


PAGES = ("runtime-config-connection.html", "app-clusterdb.html", "sql-cluster.html")


@pytest.mark.skipif(not DEFAULT_CORPUS.is_dir(), reason=f"{DEFAULT_CORPUS} missing: apt-get install postgresql-doc-15")
def test_pgdocs_eval_over_three_real_pages(tmp_path, data_dir):
    corpus = tmp_path / "html"
    corpus.mkdir()
    for page in PAGES:
        shutil.copy(DEFAULT_CORPUS / page, corpus / page)
    questions = [
        {"id": "t-1", "question": "What port number does Postgres listen on if I never touch the config?",
         "answers": ["5432"], "type": "fact", "gold_pages": ["runtime-config-connection.html"], "evidence": []},
        {"id": "t-2", "question": "Which lock does the clusterdb utility end up taking on each table it processes?",
         "answers": ["ACCESS EXCLUSIVE"], "type": "multihop", "gold_pages": list(PAGES[1:]), "evidence": []},
        {"id": "t-3", "question": "How do I configure Oracle RAC failover?",
         "answers": [], "type": "unanswerable", "gold_pages": [], "evidence": []},
    ]  # fmt: skip
    dataset = tmp_path / "tiny_pgdocs.jsonl"
    dataset.write_text("".join(json.dumps(q) + "\n" for q in questions))
    out = tmp_path / "out"
    args = [str(dataset), "--corpus", str(corpus), "--modes", "standard,agentic", "--deciders", "rules"]
    proc = _eval([*args, "--out", str(out)], data_dir)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["meta"]["format"] == "pgdocs" and report["meta"]["corpus"] == str(corpus.resolve())
    assert set(report["modes"]) == {"standard", "agentic"}
    for mode, summary in report["modes"].items():
        assert summary["questions"] == 3 and set(summary["by_type"]) == {"fact", "multihop", "unanswerable"}
        for key in ("answer_contains_alias", "gold_page_cited", "abstention_recall", "false_abstention_rate",
                    "accuracy", "wrong_but_confident", "all_supporting_found"):  # fmt: skip
            if mode == "standard" and key == "wrong_but_confident" and summary[key] is None:
                continue  # a single-shot answer has no confidence unless the generator gives one
            assert 0 <= summary[key] <= 1, key
        assert summary["by_type"]["multihop"]["all_gold_pages_cited"] in (0.0, 1.0)
        assert summary["by_type"]["unanswerable"]["answer_contains_alias"] is None
        assert summary["confidence_auroc"] is None or 0 <= summary["confidence_auroc"] <= 1
    assert report["modes"]["agentic"]["confidence_mean"] is not None
    records = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert len(records) == 6
    for record in records:
        assert {"short_answer", "abstained", "confidence", "cited_pages", "gold_pages", "type", "correct"} <= set(
            record
        )
        assert set(record["cited_pages"]) <= set(PAGES) and isinstance(record["correct"], bool)
        assert all(h["page"] in PAGES for h in record["handed"])
    markdown = (out / "report.md").read_text()
    assert "| a gold page cited |" in markdown and "## Answers and confidence by question type: agentic" in markdown

    # A second run reuses the collection: the unchanged pages are not ingested again.
    again = _eval([*args, "--out", str(tmp_path / "again"), "--limit", "1"], data_dir)
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "again" / "report.json").read_text())["meta"]["chunks"] == report["meta"]["chunks"]
    # --exclude leaves a page of the folder out (its chunks are removed from the folder's collection)
    less = _eval([*args, "--out", str(tmp_path / "less"), "--limit", "1", "--exclude", PAGES[2]], data_dir)
    assert less.returncode == 0, less.stderr
    assert 0 < json.loads((tmp_path / "less" / "report.json").read_text())["meta"]["chunks"] < report["meta"]["chunks"]


@pytest.mark.parametrize("args, message", [
    (["shared:pgdocs_qa_dev.jsonl", "--corpus", "/nonexistent/html"], "--corpus /nonexistent/html does not exist"),
    (["shared:pgdocs_qa_dev.jsonl", "--corpus", "shared:README.md"], "is not a folder"),
    (["shared:hotpotqa_smoke_10.jsonl", "--corpus", "/tmp"], "--corpus is for pgdocs datasets"),
    (["shared:hotpotqa_smoke_10.jsonl", "--exclude", "*.txt"], "--exclude is for pgdocs datasets"),
])  # fmt: skip
def test_pgdocs_eval_errors(tmp_path, data_dir, args, message):
    proc = _eval([*with_shared_files(args), "--out", str(tmp_path / "o")], data_dir, timeout=120)
    assert proc.returncode != 0 and message in proc.stderr and "Traceback" not in proc.stderr
