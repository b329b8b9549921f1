"""Provenance on evidence (locator, version, ingested-at) and the newer-version preference."""

from __future__ import annotations

import pytest

from core.errors import ConfigurationError
from graph.context import RunContext, question_input
from ingest.loaders import document_version

OLD = "# Refund policy\n\nUpdated 2023-01-15.\n\nRefunds are accepted within 14 days of purchase."
NEW = "# Refund policy\n\nUpdated 2024-06-01.\n\nRefunds are accepted within 30 days of purchase."


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("# Guide\n\nVersion 2.1 of the guide.", "2.1"),
        ("Released 2024-06-01 (v3.0).", "2024-06-01"),
        ("No date here.", None),
        ("venv\nNew in version 3.3\nChanged in version 3.5: pip is installed.", None),  # change notes date features
        ("Deprecated since version 3.8. This is version 4.2 of the manual.", "4.2"),
        ("x" * 3000 + " 2024-01-01", None),  # only the start of a document is searched
    ],
)
def test_document_version_takes_a_stated_date_or_version_near_the_start(text, version):
    assert document_version(text) == version


def test_newer_version_is_preferred_and_the_conflict_reported(make_app, tmp_path):
    (tmp_path / "policy-2023.md").write_text(OLD)
    (tmp_path / "policy-2024.md").write_text(NEW)
    app = make_app()
    app.ingest([tmp_path])
    result = app.ask("Within how many days are refunds accepted?", context=RunContext(deciders="rules"))
    assert result["conflicts"] == [
        {
            "title": "Refund policy",
            "preferred": f"{tmp_path / 'policy-2024.md'}#0@2024-06-01",
            "superseded": [f"{tmp_path / 'policy-2023.md'}#0@2023-01-15"],
        }
    ]
    assert "30 days" in result["answer"] and "14 days" not in result["answer"]
    (citation,) = result["citations"]
    assert citation["locator"] == f"{tmp_path / 'policy-2024.md'}#0"
    assert citation["version"] == "2024-06-01" and citation["ingested_at"].startswith("20")


def test_a_caveat_answer_neither_quotes_nor_cites_the_superseded_version(make_app, tmp_path):
    """Issue 14 defect 5: ``conflicts`` names the newer version, so the caveat answer shows it
    and never the older one."""
    (tmp_path / "policy-2023.md").write_text(OLD)
    (tmp_path / "policy-2024.md").write_text(NEW)
    app = make_app()
    app.ingest([tmp_path])
    question = "Within how many days are refunds accepted for the platinum loyalty membership tier?"
    result = app.ask(question, context=RunContext(deciders="rules", max_retries=0))
    assert result["stop_reason"] not in {"sufficient_evidence", "evidence_budget"}
    assert result["conflicts"][0]["superseded"] == [f"{tmp_path / 'policy-2023.md'}#0@2023-01-15"]
    assert "14 days" not in result["answer"]
    assert all("policy-2023" not in c["source"] for c in result["citations"])


def test_a_redated_document_updates_the_version_of_its_unchanged_chunks(make_app, tmp_path):
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nVersion 1.0\n\n" + "A long unchanged paragraph. " * 80)
    app = make_app()
    app.ingest([doc])
    doc.write_text("# Notes\n\nVersion 2.0\n\n" + "A long unchanged paragraph. " * 80)
    app.ingest([doc])
    store = app.services.store
    versions = store._conn.execute(f"SELECT DISTINCT version FROM {store.table}").fetchall()
    assert versions == [("2.0",)]


def test_filter_values_take_the_field_type(make_app, tmp_path):
    (tmp_path / "api.md").write_text("# Widget API\n\nVersion 2.1\n\nThe rate limit is 100 requests per minute.")
    app = make_app()
    app.ingest([tmp_path])
    result = app.ask("What is the rate limit?", context=RunContext(deciders="rules", filters={"version": 2.1}))
    assert "100 requests" in result["answer"]  # 2.1 (a number) matches the text "2.1"
    with pytest.raises(
        ConfigurationError, match=r"no chunk of collection .* matches sources=\['\*/none.md'\].*patterns"
    ):
        app.ask("What is the rate limit?", thread_id="filtered-out", context=RunContext(sources=["*/none.md"]))
    with pytest.raises(ConfigurationError, match="a filter value must equal a chunk's field exactly"):  # not a path
        app.ask("What is the rate limit?", context=RunContext(filters={"title": "No such page"}))
    assert not app.has_thread("filtered-out")  # refused before anything was written
    nothing_context = RunContext(
        deciders="rules", sources=["*/none.md"]
    )  # the graph itself (Studio) runs it and says why
    config = {"configurable": {"thread_id": "graph-filtered-out"}}
    nothing = app.graph.invoke(
        question_input("What is the rate limit?", nothing_context), config, context=nothing_context
    )
    assert any(n.startswith("retrieve: no chunk matches sources=['*/none.md']") for n in nothing["notes"])
    with pytest.raises(ConfigurationError, match="chunk_index takes whole numbers"):
        RunContext(filters={"chunk_index": "first"})
