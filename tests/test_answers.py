"""Answers end to end on a real manual page (tests/fixtures: PostgreSQL 15, "20.12. Lock
Management"): the short answer, the cited page, abstention on what the page never mentions, a
follow-up's "it", and an "it" on a new thread that refers to nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graph.context import RunContext

PAGE = Path(__file__).parent / "fixtures" / "pg15-runtime-config-locks.html"
RULES = RunContext(deciders="rules")


@pytest.fixture(scope="module")
def manual(data_dir, tmp_path_factory):
    from agentic_rag.app import App
    from core.settings import Settings

    folder = tmp_path_factory.mktemp("manual")
    shutil.copy(PAGE, folder / PAGE.name)
    app = App(Settings(data_dir=data_dir, collection="pg_locks_page"))
    app.ingest([folder])
    yield app
    app.close()


def test_a_question_about_a_setting_the_manual_never_mentions_is_declined(manual):
    result = manual.ask("What is the default value of transaction_timeout?", context=RULES)
    assert result["abstained"] and result["short_answer"] is None
    assert result["stop_reason"] == "not_in_collection" and result["hops"] == 1  # no query can find it: no retry
    assert "(they never mention transaction_timeout)" in result["answer"]


def test_a_follow_up_it_is_the_setting_asked_about(manual):
    first = manual.ask("What is the default of max_locks_per_transaction?", context=RULES)
    assert first["short_answer"] == "64"
    follow = manual.ask("Must a standby server set it at least as high as the primary?", thread_id=first["thread_id"],
                        context=RULES)  # fmt: skip
    assert (
        follow["standalone_question"]
        == "Must a standby server set max_locks_per_transaction at least as high as the primary?"
    )


def test_what_about_asks_the_previous_question_of_another_setting(manual):
    first = manual.ask("What is the default of max_locks_per_transaction?", context=RULES)
    other = manual.ask("And what about max_pred_locks_per_transaction?", thread_id=first["thread_id"], context=RULES)
    assert other["standalone_question"] == "What is the default of max_pred_locks_per_transaction?"
    assert not other["abstained"] and other["citations"]  # which entry's sentence: the learned reader's call


def test_a_pronoun_on_a_new_thread_gets_a_clarifying_question_and_a_follow_up_then_resolves(manual):
    first = manual.ask("What is its default?", context=RULES)
    assert first["route"] == "direct" and first["short_answer"] is None and not first["citations"]
    assert first["answer"].startswith('What does "its" refer to? This thread has no earlier question')
    named = manual.ask("What is the default of max_locks_per_transaction?", thread_id=first["thread_id"], context=RULES)
    assert named["short_answer"] == "64"
