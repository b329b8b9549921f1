"""``agentic-rag mcp`` (agentic_rag/mcp_server.py), driven by the MCP SDK's own client: over stdio
(the server as a subprocess of the client) and over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from agentic_rag.mcp_server import INGEST_OFF
from graph.context import RunContext

CLI = str(Path(sys.executable).parent / "agentic-rag")
QUESTION = "Which league does Donnie Smith play in?"


def text(result) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def test_stdio_tools_and_collection_resources(hotpot_app, data_dir):
    async def session() -> None:
        args = ["mcp", "--data-dir", str(data_dir), "--collection", "hotpot_smoke"]
        async with Client(StdioServerParameters(command=CLI, args=args, env=dict(os.environ))) as client:
            assert (client.server_info.name, client.server_info.version) == ("agentic-rag", version("agentic-rag"))
            tools = await client.list_tools()
            assert {t.name for t in tools.tools} == {"ask", "search", "ingest"}

            asked = await client.call_tool("ask", {"question": QUESTION, "run_settings": {"deciders": "rules"}})
            answer = asked.structured_content
            assert not asked.is_error and answer["status"] == "done"
            assert answer["short_answer"] == "Major League Soccer" and answer["stop_reason"]
            assert answer["citations"][0]["title"] == "Donnie Smith" and answer["citations"][0]["locator"]
            assert 0 <= answer["confidence"] <= 1

            follow_up = {"question": "Where was he born?", "thread_id": answer["thread_id"]}
            assert (await client.call_tool("ask", follow_up)).structured_content["thread_id"] == answer["thread_id"]

            found = await client.call_tool("search", {"query": "Donnie Smith", "k": 3})
            chunks = found.structured_content["chunks"]
            assert len(chunks) == 3 and {"chunk_id", "text", "source", "locator", "score"} <= set(chunks[0])
            assert chunks[0]["title"] == "Donnie Smith"

            refused = await client.call_tool("ingest", {"paths": ["/tmp"]})
            assert refused.is_error and text(refused).endswith(INGEST_OFF)
            bad = await client.call_tool("ask", {"question": QUESTION, "run_settings": {"hops": 9}})
            assert bad.is_error and "unknown run setting(s): hops" in text(bad)

            resources = await client.list_resources()
            assert "agentic-rag://collections" in {str(r.uri) for r in resources.resources}
            listing = json.loads((await client.read_resource("agentic-rag://collections")).contents[0].text)
            assert listing["current"] == "hotpot_smoke"
            assert "hotpot_smoke" in {c["name"] for c in listing["collections"]}
            one = json.loads((await client.read_resource("agentic-rag://collections/hotpot_smoke")).contents[0].text)
            assert one["embedding"] and one["sources"] == len(one["source_keys"]) >= 1

    anyio.run(session)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_streamable_http_with_ingest_allowed(hotpot_app, data_dir, tmp_path):
    elsewhere = hotpot_app.ask(QUESTION, context=RunContext(deciders="rules"))["thread_id"]  # on hotpot_smoke
    doc = tmp_path / "handbook.md"
    doc.write_text("# Refund policy\n\nRefunds are paid within 14 days of a written request to the office.\n")
    port = free_port()
    args = [CLI, "mcp", "--http", "--port", str(port), "--allow-ingest"]
    args += ["--data-dir", str(data_dir), "--collection", "mcp_http"]
    server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:  # until the server listens
            assert server.poll() is None, server.stderr.read()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the MCP HTTP server did not start"
                time.sleep(0.3)

        async def session() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                ingested = await client.call_tool("ingest", {"paths": [str(doc)]})
                assert not ingested.is_error, text(ingested)
                report = ingested.structured_content
                assert report["collection"] == "mcp_http" and report["files"] == 1 and report["chunks"] >= 1
                asked = await client.call_tool("ask", {"question": "Within how many days are refunds paid?"})
                assert "14 days" in asked.structured_content["answer"]
                assert asked.structured_content["citations"][0]["source"] == str(doc)
                other = await client.call_tool("ask", {"question": "And why?", "thread_id": elsewhere})
                assert other.is_error and "asked on collection 'hotpot_smoke'" in text(other)
                assert "omit thread_id to start a new thread" in text(other)
                missing = await client.call_tool("ingest", {"paths": [str(tmp_path / "nothing.md")]})
                assert missing.is_error and "nothing.md" in text(missing)

        anyio.run(session)
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_a_stdio_server_stops_on_sigint_and_sigterm_with_stdin_still_open(hotpot_app, data_dir):
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }  # fmt: skip
    for signum in (signal.SIGTERM, signal.SIGINT):
        args = [CLI, "mcp", "--data-dir", str(data_dir), "--collection", "hotpot_smoke"]
        server = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            server.stdin.write(json.dumps(initialize) + "\n")
            server.stdin.flush()
            assert json.loads(server.stdout.readline())["id"] == 1  # serving, stdin left open
            server.send_signal(signum)
            assert server.wait(timeout=20) == 128 + signum
            assert f"stopped ({signal.Signals(signum).name})" in server.stderr.read()
        finally:
            server.kill()
