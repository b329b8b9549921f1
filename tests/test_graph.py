"""The graph end to end on the real embedded PostgreSQL and the real SQLite saver."""

from __future__ import annotations

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from core.errors import ConfigurationError, InvalidQuestionError, ThreadError
from deciders.reader import trust_level
from deciders.router import classify_complexity
from graph.context import RunContext
from providers.reranker import load_reranker
from tests.conftest import answer_reply, first_passage_number, read_jsonl, scripted, shared_file

RULES = RunContext(deciders="rules")


def supporting_titles(record: dict) -> set[str]:
    if "supporting_facts" in record:
        return {title for title, _ in record["supporting_facts"]}
    return {p["title"] for p in record["paragraphs"] if p["is_supporting"]}


@pytest.mark.parametrize(
    "dataset", ["hotpotqa_smoke_10.jsonl", "2wikimultihopqa_smoke_10.jsonl", "musique_smoke_10.jsonl"]
)
def test_smoke_sets_end_to_end_with_model_free_deciders(make_app, dataset):
    app = make_app()
    app.ingest([shared_file(dataset)])
    recalls = []
    for record in read_jsonl(dataset):
        result = app.ask(record["question"], context=RULES)
        assert result["route"] == "retrieve"
        assert result["answer"].strip()
        assert 1 <= result["hops"] <= RULES.max_retries + 1
        assert result["stop_reason"] in {
            "sufficient_evidence",
            "evidence_budget",
            "max_retries",
            "no_progress",
            "repeated_query",
            "answer_not_found",
            "not_in_collection",
        }
        cited = {c["chunk_id"] for c in result["citations"]}
        assert cited, "every retrieved answer cites its evidence"
        assert cited <= {cid for hop in result["trace"] for cid in hop["chunk_ids"]}
        found_titles = {
            c["title"] for hop in result["trace"] for c in app.services.store.fetch(hop["chunk_ids"]).values()
        }
        gold = supporting_titles(record)
        recalls.append(len(gold & found_titles) / len(gold))
    recall = sum(recalls) / len(recalls)
    print(f"\n{dataset}: supporting-paragraph recall over all hops = {recall:.3f}")
    assert recall >= 0.45


def test_unanswerable_question_ends_in_caveat_within_caps(hotpot_app):
    context = RunContext(deciders="rules", max_retries=2)
    result = hotpot_app.ask("What is the boiling point of liquid tungsten in kelvin?", context=context)
    assert result["stop_reason"] in {"max_retries", "no_progress", "repeated_query"}
    # declined, or answered below the trusted level: never a trusted answer to what the corpus lacks
    assert result["abstained"] or result["confidence"] < trust_level()
    assert result["hops"] <= context.max_retries + 1
    assert result["retries"] <= context.max_retries


def test_greeting_is_answered_without_retrieval(hotpot_app):
    result = hotpot_app.ask("hello, thanks!", context=RULES)
    assert (result["route"], result["stop_reason"], result["hops"], result["trace"]) == (
        "direct",
        "no_retrieval",
        0,
        [],
    )


def test_second_question_on_a_thread_gets_a_fresh_budget(hotpot_app):
    context = RunContext(deciders="rules", max_retries=1)
    first = hotpot_app.ask("What is the boiling point of liquid tungsten in kelvin?", context=context)
    assert first["retries"] == 1
    second = hotpot_app.ask(
        "Who was the drummer of the band Rush and where was he born?", thread_id=first["thread_id"], context=context
    )
    assert second["trace"][0]["hop"] == 1 and second["trace"][0]["query"].startswith("Who was the drummer")
    assert second["retries"] <= 1 and len(second["trace"]) == second["hops"]
    state = hotpot_app.graph.get_state({"configurable": {"thread_id": first["thread_id"]}}).values
    assert [m.type for m in state["messages"]] == ["human", "ai", "human", "ai"]


def test_caps_max_retries_zero_and_time_limit(hotpot_app):
    question = (
        "Donnie Smith who plays as a left back for New England Revolution belongs to what league featuring 22 teams?"
    )
    one_hop = hotpot_app.ask(question, context=RunContext(deciders="rules", max_retries=0))
    assert one_hop["hops"] == 1 and one_hop["retries"] == 0
    timed = hotpot_app.ask(question, context=RunContext(deciders="rules", time_limit_s=0.001))
    assert timed["hops"] == 1 and timed["stop_reason"] in {"time_limit", "sufficient_evidence"}


def test_run_killed_after_first_hop_resumes_to_the_same_answer(hotpot_app):
    question = "What is the boiling point of liquid tungsten in kelvin?"
    # not the default: resume must keep it; the second hop is a search (no graph hop), killed below
    context = RunContext(deciders="rules", max_retries=1, graph_hop=False)
    uninterrupted = hotpot_app.ask(question, context=context)
    assert uninterrupted["hops"] == 2 and uninterrupted["stop_reason"] == "max_retries"
    services = hotpot_app.services
    real_search = services.search
    calls = []

    def crash_on_second_hop(query, k, where=None):
        calls.append(query)
        if len(calls) == 2:
            raise KeyboardInterrupt("killed")
        return real_search(query, k, where)

    services.search = crash_on_second_hop
    with pytest.raises(KeyboardInterrupt):
        hotpot_app.ask(question, thread_id="killed-run", context=context)
    services.search = real_search
    snapshot = hotpot_app.graph.get_state({"configurable": {"thread_id": "killed-run"}})
    assert snapshot.next == ("retrieve",) and snapshot.values["hops"] == 1
    resumed = hotpot_app.resume("killed-run")
    for key in ("answer", "citations", "stop_reason", "hops", "retries"):
        assert resumed[key] == uninterrupted[key], key
    with pytest.raises(ThreadError, match="nothing to resume"):
        hotpot_app.resume("killed-run")
    with pytest.raises(ThreadError, match="no thread"):
        hotpot_app.resume("never-existed")


class KillAt(BaseCallbackHandler):
    """Stops the run the moment ``node`` starts, as Ctrl-C or a crash would (KeyboardInterrupt
    is no ``Exception``, so LangChain's callback manager lets it through)."""

    def __init__(self, node: str) -> None:
        self.node = node

    def on_chain_start(self, serialized, inputs, *, name=None, **kwargs) -> None:
        if name == self.node:
            raise KeyboardInterrupt(f"killed at {name}")


def test_run_killed_before_route_finishes_resumes_with_the_settings_it_was_asked_with(make_app, tmp_path):
    for folder, text in {
        "x": "# Refund policy\n\nRefunds are accepted within 30 days of purchase.",
        "y": "# Returns desk\n\nRefunds are accepted at the returns desk of the shop.",
    }.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "policy.md").write_text(text)
    model = scripted()  # a chat model is configured, so default settings (auto) would call it
    app = make_app(chat_model=model)
    app.ingest([tmp_path])
    context = RunContext(deciders="rules", max_retries=0, review_answer=True, sources=["*/y/*"])
    question = "Within how many days are refunds accepted?"
    with pytest.raises(KeyboardInterrupt):
        app.ask(question, thread_id="killed-in-route", context=context, callbacks=[KillAt("route")])
    snapshot = app.graph.get_state({"configurable": {"thread_id": "killed-in-route"}})
    assert snapshot.next == ("route",)
    assert RunContext.from_mapping(snapshot.values["run_context"]) == context  # durable from the first checkpoint
    resumed = app.resume("killed-in-route")
    assert resumed["status"] == "interrupted" and resumed["interrupt"]["kind"] == "answer"  # review_answer
    assert resumed["retries"] == 0 and resumed["hops"] == 1  # max_retries=0
    assert resumed["citations"] and {c["source"] for c in resumed["citations"]} == {str(tmp_path / "y" / "policy.md")}
    assert model.calls == {}  # deciders="rules"


@pytest.mark.parametrize("question", ["", "   \n\t", "?!?... ,;:", "x" * 100_000])
def test_bad_questions_are_rejected_before_anything_is_written(hotpot_app, question):
    with pytest.raises(InvalidQuestionError):
        hotpot_app.ask(question, thread_id="bad-question")
    assert hotpot_app.graph.get_state({"configurable": {"thread_id": "bad-question"}}).values == {}


def test_llm_that_never_finds_relevance_and_repeats_its_query_terminates(make_app):
    model = scripted(
        route='{"route": "retrieve", "reason": "needs facts"}',
        grade='{"relevant": false}',
        sufficient='{"sufficient": false}',
        reformulate="the same query",
        generate=answer_reply("The documents do not say.", "none"),
    )
    app = make_app(collection="hotpot_smoke", chat_model=model)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    result = app.ask("Which league does Donnie Smith play in?", context=RunContext(deciders="llm", max_retries=3))
    assert result["stop_reason"] == "repeated_query"
    assert result["hops"] == 2 and result["retries"] == 2
    assert [h["query"] for h in result["trace"]] == ["Which league does Donnie Smith play in?", "the same query"]
    assert all(not v for h in result["trace"] for v in h["verdicts"].values())
    assert model.calls["grade_hop"] == 2  # one grading call per hop
    assert model.calls["generate"] == 1


def test_llm_garbage_becomes_the_conservative_choice_and_is_recorded(make_app):
    model = scripted(route="¯\\_(ツ)_/¯", grade="maybe?", sufficient="", reformulate="", generate="")
    app = make_app(collection="hotpot_smoke", chat_model=model)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    result = app.ask("Which league does Donnie Smith play in?", context=RunContext(deciders="llm"))
    assert result["route"] == "retrieve"
    assert any(n.startswith("route:") for n in result["notes"])
    assert any(n.startswith("grade") and "model-free grading instead" in n for n in result["notes"])
    assert any(n.startswith("generate:") and "extractive" in n for n in result["notes"])
    assert result["status"] == "done" and result["short_answer"] == "Major League Soccer"  # model-free steps


def test_llm_deciders_answer_with_citations(make_app):
    model = scripted(
        route='```json\n{"route": "retrieve", "reason": "factual"}\n```',
        grade=lambda p: '{"relevant": %s}' % ("true" if "Donnie" in p else "false"),
        sufficient='{"sufficient": true}',
        generate=lambda p: answer_reply(f"Major League Soccer [{first_passage_number(p.split('Evidence:')[1])}]."),
    )
    app = make_app(collection="hotpot_smoke", chat_model=model)
    result = app.ask("Which league does Donnie Smith play in?")
    assert result["stop_reason"] == "sufficient_evidence" and result["hops"] == 1
    assert result["answer"].startswith("Major League Soccer")
    assert [c["title"] for c in result["citations"]] == ["Donnie Smith"]
    assert result["trace"][0]["grader"] == "llm:ScriptedChatModel"


def test_adaptive_routing_stops_single_hop_questions_after_one_retrieval(hotpot_app):
    question = "What is the boiling point of tungsten?"  # single-hop, and not answered by the corpus
    looping = hotpot_app.ask(question, context=RunContext(deciders="rules", max_retries=1))
    assert looping["complexity"] == "single" and looping["hops"] == 2  # adaptive off: the loop runs
    adaptive = hotpot_app.ask(question, context=RunContext(deciders="rules", max_retries=1, adaptive=True))
    assert adaptive["hops"] == 1 and adaptive["stop_reason"] in {"single_retrieval", "answer_not_found"}
    assert adaptive["abstained"] or adaptive["confidence"] < trust_level()  # never trusted
    multi = "Which league does the player who scored for the club founded in 1994 play in?"
    looped = hotpot_app.ask(multi, context=RunContext(deciders="rules", adaptive=True, max_retries=1))
    assert looped["complexity"] == "multi" and looped["stop_reason"] != "single_retrieval"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("colbert:x", "unknown reranker 'colbert:x'"),
        ("cross-encoder:", "unknown reranker"),
        ("cross-encoder:/no/such/model", "cross-encoder"),
    ],
)
def test_a_misconfigured_reranker_is_a_clear_error(spec, message):
    with pytest.raises(ConfigurationError, match=message):
        load_reranker(spec)


def test_llm_router_classifies_complexity_and_garbage_falls_back_to_the_rule_classifier(make_app):
    replies = {"grade": '{"relevant": true}', "sufficient": '{"sufficient": false}',
               "generate": answer_reply("MLS [1]."), "ground": '{"unsupported": []}',
               "reformulate": "Donnie Smith"}  # fmt: skip
    single = scripted(route='{"route": "retrieve", "reason": "one fact", "complexity": "single"}', **replies)
    app = make_app(collection="hotpot_smoke", chat_model=single)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    context = RunContext(deciders="llm", adaptive=True, max_retries=2)
    result = app.ask("Which league does Donnie Smith play in?", context=context)
    assert result["complexity"] == "single" and result["stop_reason"] == "single_retrieval" and result["hops"] == 1
    assert "complexity single" in result["route_reason"]
    garbage = scripted(route='{"route": "retrieve", "complexity": "tiny"}', **replies)
    app = make_app(collection="hotpot_smoke", chat_model=garbage)
    result = app.ask("Which league does Donnie Smith play in?", context=context)
    assert result["complexity"] == classify_complexity("Which league does Donnie Smith play in?")[0]
    assert any(n.startswith("route:") and "model-free route instead" in n for n in result["notes"])
