"""OpenTelemetry traces and metrics (core/telemetry.py, core/telemetry_export.py): a two-hop question
traced into the SDK's in-memory span exporter and metric reader; the console exporter switched on
by the standard OTEL_* variables; nothing recorded when telemetry is off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.outputs import ChatResult
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from core import telemetry
from core.errors import ConfigurationError
from core.settings import Settings
from core.telemetry_export import configure_telemetry
from deciders.llm import ask_text, llm_deadline
from graph.context import RunContext
from tests.conftest import ScriptedChatModel, answer_reply, first_passage_number, shared_file

INPUT_TOKENS, OUTPUT_TOKENS = 120, 9
QUESTION = "Which league does the player who scored for the club founded in 1994 play in?"


class CountingModel(ScriptedChatModel):
    """The scripted model, reporting a fixed token usage on every reply."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        result = super()._generate(messages, stop, run_manager, **kwargs)
        usage = {"input_tokens": INPUT_TOKENS, "output_tokens": OUTPUT_TOKENS, "total_tokens": 129}
        result.generations[0].message.usage_metadata = usage
        return result


@pytest.fixture
def otel():
    """Telemetry on, into in-memory exporters (content capture on); off again afterwards."""
    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry.use(tracer_provider, MeterProvider([reader]), capture_content=True)
    yield spans, reader
    telemetry.use()


def two_hop_model() -> CountingModel:
    """Insufficient evidence after the first hop, sufficient after the second (the entity-query hop)."""
    verdicts = iter([False, True, True, True])
    return CountingModel(
        replies={
            "route": '{"route": "retrieve", "reason": "factual", "complexity": "multi"}',
            "grade": '{"relevant": true}',
            "sufficient": lambda p: json.dumps({"sufficient": next(verdicts)}),
            "links": '{"follow": [1, 2]}',
            "reformulate": "Donnie Smith league",
            "generate": lambda p: answer_reply(
                f"Major League Soccer [{first_passage_number(p.split('Evidence:')[1])}]."
            ),
            "ground": '{"unsupported": []}',
        },
        calls={},
    )


def metric_points(reader: InMemoryMetricReader) -> dict[str, list]:
    data = reader.get_metrics_data()
    return {
        metric.name: list(metric.data.data_points)
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
    }


def test_a_two_hop_question_is_one_trace_with_a_span_per_node_search_and_model_call(make_app, otel):
    spans, reader = otel
    model = two_hop_model()
    app = make_app(collection="hotpot_smoke", chat_model=model)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    spans.clear()
    result = app.ask(QUESTION, thread_id="trace-thread", context=RunContext(deciders="llm", max_retries=2))
    assert result["status"] == "done" and result["hops"] == 2

    finished = spans.get_finished_spans()
    roots = [s for s in finished if s.parent is None]
    assert [r.name for r in roots] == ["invoke_workflow agentic_rag"]  # one root per question
    root = roots[0]
    assert root.attributes["gen_ai.operation.name"] == "invoke_workflow"
    assert root.attributes["gen_ai.conversation.id"] == "trace-thread"
    assert root.attributes["agentic_rag.stop_reason"] == result["stop_reason"]
    assert root.attributes["agentic_rag.hops"] == 2
    assert {s.context.trace_id for s in finished} == {root.context.trace_id}

    def children(parent, name_prefix: str = "") -> list:
        found = [s for s in finished if s.parent and s.parent.span_id == parent.context.span_id]
        return sorted((s for s in found if s.name.startswith(name_prefix)), key=lambda s: s.start_time)

    nodes = children(root)
    assert [s.name for s in nodes] == [
        "route",
        "retrieve",
        "grade",
        "follow_links",
        "reformulate",
        "retrieve",
        "grade",
        "generate",
        "check_grounding",
    ]  # fmt: skip (the smoke set's first hop links to nothing new: the entity-query hop comes next)
    assert nodes[0].attributes["agentic_rag.route"] == "retrieve"
    hop_events = [e for s in nodes for e in s.events if e.name == "agentic_rag.hop"]
    assert any("verdicts" in e.attributes for e in hop_events)  # per-chunk grader verdicts recorded

    searches = children(nodes[1], "execute_tool search")
    assert len(searches) == 1 and searches[0].attributes["gen_ai.tool.name"] == "search"
    (retrieval,) = children(searches[0], "retrieval ")
    assert retrieval.name == "retrieval hotpot_smoke"
    assert retrieval.attributes["gen_ai.data_source.id"] == "hotpot_smoke"
    assert retrieval.attributes["gen_ai.retrieval.top_k"] == 5
    assert retrieval.attributes["gen_ai.retrieval.query.text"] == QUESTION
    documents = json.loads(retrieval.attributes["gen_ai.retrieval.documents"])
    assert [d["id"] for d in documents] == result["trace"][0]["chunk_ids"] and all("score" in d for d in documents)
    assert [s.name for s in children(nodes[3], "execute_tool")] == ["execute_tool graph_hop"]
    (second,) = children(children(nodes[5], "execute_tool search")[0], "retrieval ")
    assert second.attributes["gen_ai.retrieval.query.text"] == "Donnie Smith league"

    inference = [s for s in finished if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(inference) == sum(model.calls.values()) >= 5  # route, 2 gradings, links, generate, ground…
    for span in inference:
        assert span.name == f"chat {span.attributes['gen_ai.request.model']}"
        assert span.attributes["gen_ai.provider.name"]
        assert span.attributes["gen_ai.usage.input_tokens"] == INPUT_TOKENS
        assert span.attributes["gen_ai.usage.output_tokens"] == OUTPUT_TOKENS
        assert span.parent.span_id in {n.context.span_id for n in nodes}
    assert root.attributes["agentic_rag.llm_calls"] == len(inference)

    points = metric_points(reader)
    (duration,) = points["gen_ai.client.operation.duration"]
    assert duration.count == len(inference) and duration.attributes["gen_ai.operation.name"] == "chat"
    tokens = {p.attributes["gen_ai.token.type"]: p.sum for p in points["gen_ai.client.token.usage"]}
    assert tokens == {"input": INPUT_TOKENS * len(inference), "output": OUTPUT_TOKENS * len(inference)}
    tools = {p.attributes["gen_ai.tool.name"]: p.count for p in points["gen_ai.execute_tool.duration"]}
    assert tools == {"search": 2, "graph_hop": 1}
    assert [p.sum for p in points["agentic_rag.question.hops"]] == [2]
    assert [p.sum for p in points["agentic_rag.question.llm_calls"]] == [len(inference)]
    (stop,) = points["agentic_rag.question.stops"]
    assert stop.value == 1 and stop.attributes == {"agentic_rag.stop_reason": result["stop_reason"]}
    assert [p.count for p in points["gen_ai.invoke_agent.duration"]] == [1]


def test_failed_model_calls_and_runs_carry_error_type(make_app, otel):
    spans, _ = otel

    def broken(prompt: str) -> str:
        raise RuntimeError("the model server went away")

    app = make_app(collection="hotpot_smoke", chat_model=CountingModel(replies={"route": broken}, calls={}))
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    spans.clear()
    app.ask("Which league does Donnie Smith play in?", context=RunContext(deciders="llm", max_retries=0))
    route_call = next(s for s in spans.get_finished_spans() if s.attributes.get("gen_ai.operation.name") == "chat")
    assert route_call.attributes["error.type"] == "RuntimeError" and not route_call.status.is_ok

    empty = make_app()  # no collection: the question fails, and its root span says why
    spans.clear()
    with pytest.raises(Exception, match="no collection"):
        empty.ask("Who founded X?", context=RunContext(deciders="rules"))
    (root,) = [s for s in spans.get_finished_spans() if s.parent is None]
    assert root.attributes["error.type"] == "CollectionNotFoundError"


def test_a_model_call_the_time_limit_did_not_allow_is_a_time_limit_error(otel):
    spans, _ = otel
    with llm_deadline(0.1):  # under MIN_CALL_S left: the call is not started
        assert ask_text(CountingModel(replies={}, calls={}), "system", "user", 10) == (
            None,
            "no time left for the model call (time limit)",
        )
    (call,) = spans.get_finished_spans()
    assert call.name == "chat CountingModel" and call.attributes["error.type"] == "time_limit"


def test_no_query_text_or_chunk_ids_on_retrieval_spans_without_content_capture(make_app, otel):
    spans, _ = otel
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry.use(tracer_provider, None, capture_content=False)
    make_app(collection="hotpot_smoke").ask("Which league does Donnie Smith play in?")
    retrievals = [s for s in spans.get_finished_spans() if s.name.startswith("retrieval ")]
    assert retrievals and all("gen_ai.retrieval.top_k" in s.attributes for s in retrievals)
    assert not any(
        k in s.attributes for s in retrievals for k in ("gen_ai.retrieval.query.text", "gen_ai.retrieval.documents")
    )


def test_hooks_are_one_shared_no_op_when_off():
    telemetry.use()
    assert telemetry.question("t") is telemetry.node("route") is telemetry.tool("search") is telemetry.NOOP
    with telemetry.node("route") as span:
        assert span.record({"route": "retrieve"}) == {"route": "retrieve"}
    assert configure_telemetry(Settings()) is False  # no OTEL_* variable set: stays off


def test_an_unknown_exporter_is_a_one_line_error(monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
    with pytest.raises(ConfigurationError, match="OTEL_TRACES_EXPORTER='zipkin' is not supported"):
        configure_telemetry(Settings())


def test_the_console_exporter_prints_the_cli_run_on_stderr(hotpot_app, data_dir):
    env = {**os.environ, "OTEL_TRACES_EXPORTER": "console", "OTEL_METRICS_EXPORTER": "console"}
    cli = Path(sys.executable).parent / "agentic-rag"
    args = [str(cli), "ask", "Which league does Donnie Smith play in?", "--json", "--deciders", "rules"]
    args += ["--data-dir", str(data_dir), "--collection", "hotpot_smoke"]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "done"  # stdout stays the answer's JSON
    assert '"name": "invoke_workflow agentic_rag"' in run.stderr and '"name": "retrieval hotpot_smoke"' in run.stderr
    assert "agentic_rag.question.stops" in run.stderr  # metrics flushed at exit
