"""The async API (``App.async_graph``): ``ainvoke``, ``aget_state`` and ``astream`` from an event
loop, on the real SQLite checkpoints file the sync API uses and the real embedded PostgreSQL."""

from __future__ import annotations

import asyncio

import pytest

from graph.context import RunContext, question_input

QUESTION = "Which league does Donnie Smith play in?"
RULES = RunContext(deciders="rules")


def test_async_graph_answers_streams_and_shares_threads_with_the_sync_api(hotpot_app):
    async def main() -> tuple[dict, object, list[dict]]:
        async with hotpot_app.async_graph() as graph:
            config = {"configurable": {"thread_id": "async-invoke"}}
            answered = await graph.ainvoke(question_input(QUESTION, RULES), config, context=RULES)
            state = await graph.aget_state(config)
            streamed = [
                update
                async for update in graph.astream(
                    question_input(QUESTION, RULES),
                    {"configurable": {"thread_id": "async-stream"}},
                    context=RULES,
                    stream_mode="updates",
                )
            ]
        return answered, state, streamed

    answered, state, streamed = asyncio.run(main())
    assert "Major League Soccer" in answered["answer"] and answered["citations"]
    assert state.next == () and state.values["answer"] == answered["answer"]
    nodes = [node for update in streamed for node in update]
    assert nodes[:3] == ["route", "retrieve", "grade"] and "generate" in nodes
    # the same checkpoints file: the sync API sees both threads, finished
    for thread_id in ("async-invoke", "async-stream"):
        result = hotpot_app.result(thread_id)
        assert result["status"] == "done" and result["answer"] == answered["answer"], thread_id


def test_async_calls_on_the_sync_graph_name_async_graph(make_app):
    """Issue 51 item 3: ``await app.graph.aget_state(...)`` (and ``ainvoke``, ``astream``) on the
    sync checkpointer says to use ``app.async_graph()``, not LangGraph's bare "The SqliteSaver
    does not support async methods"; still a ``NotImplementedError``."""
    from agentic_rag.checkpoints import SyncCheckpointerError

    app = make_app()
    config = {"configurable": {"thread_id": "sync-only"}}

    async def streamed() -> list:
        return [update async for update in app.graph.astream(question_input(QUESTION, RULES), config, context=RULES)]

    calls = {
        "aget_state": lambda: app.graph.aget_state(config),
        "ainvoke": lambda: app.graph.ainvoke(question_input(QUESTION, RULES), config, context=RULES),
        "astream": streamed,
        "alist": lambda: app.checkpointer.alist(config).__anext__(),
    }
    for name, call in calls.items():
        with pytest.raises(SyncCheckpointerError) as raised:
            asyncio.run(call())
        message = str(raised.value)
        assert isinstance(raised.value, NotImplementedError), name
        assert "async with app.async_graph() as graph:" in message and "SqliteSaver" in message, name
    assert app.graph.get_state(config).values == {}  # the sync API is untouched
