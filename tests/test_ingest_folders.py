"""Ingest of real folders (issue 14 defect 13): every skipped file reported with its reason,
counted by reason (named with --verbose); the exit code on partial success; one-line progress
when stderr is not a terminal; Ctrl-C says what was kept and that the same command continues."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from agentic_rag.output import print_ingest
from ingest.pipeline import collect_files, ingest_files
from tests.test_loaders import LATIN


def mixed_folder(root):
    root.mkdir(exist_ok=True)
    (root / "good.md").write_text("# Okapi\n\nThe okapi is a giraffid native to the Congo.\n")
    (root / "latin1.txt").write_bytes(LATIN.encode("latin-1"))
    (root / "logo.svg").write_text("<svg/>")
    (root / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    (root / "broken.docx").write_bytes(b"not a zip")
    return root


def ingest_cli(data_dir, *args, **popen):
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir), "AGENTIC_RAG_COLLECTION": "folders"}
    return [sys.executable, "-m", "agentic_rag.cli", "ingest", *map(str, args)], env


def test_skipped_files_are_counted_by_reason_and_progress_is_logged(make_app, tmp_path, capsys):
    root = mixed_folder(tmp_path)
    app = make_app()
    lines = []
    files = collect_files([root])
    report = ingest_files(app.services.writable_store(), [root], files, 500, 50, log=lines.append, log_every_s=0)
    assert report.files == 2 and report.added == 2  # good.md and the Latin-1 text
    assert report.skipped_by_reason() == {
        "unsupported file type '.jpg'": 1, "unsupported file type '.svg'": 1, "not a readable .docx file": 1,
    }  # fmt: skip
    assert lines[0] == "ingest: 0/5 files, 0 chunks added, 0 skipped"
    assert len(lines) == 7  # the start, one per file here, and the end once the last batch is written
    assert lines[-1] == "ingest: 5/5 files, 2 chunks added, 3 skipped"
    lines.clear()  # again: nothing changes at the end, so the last line is not repeated
    again = ingest_files(app.services.writable_store(), [root], files, 500, 50, log=lines.append, log_every_s=0)
    assert len(lines) == len(set(lines)) and lines[-1] == "ingest: 5/5 files, 0 chunks added, 3 skipped"
    print_ingest(again, "c", 2)  # not "every file": three could not be read, and what they gave before stays
    assert "every file read was already in collection 'c' with this content: nothing to add; chunks of the " \
        "skipped files from an earlier ingest are kept" in capsys.readouterr().err  # fmt: skip
    print_ingest(report, "c", 2, verbose=True)
    err = capsys.readouterr().err
    assert "skipped 3 file(s): 1 not a readable .docx file, 1 unsupported file type '.svg', 1 unsupported" in err
    assert f"skipped {root / 'logo.svg'}: unsupported file type '.svg'" in err
    report.empty.append("empty.md")  # an empty file is skipped too, in the progress line as in the summary
    assert report.progress_line(6, 6) == "ingest: 6/6 files, 2 chunks added, 4 skipped"


def test_partial_success_exits_0_and_nothing_ingested_is_an_error(data_dir, tmp_path):
    root = mixed_folder(tmp_path / "mixed")
    command, env = ingest_cli(data_dir, root)
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "5 files: 2 ingested, 0 unchanged, 3 skipped; 2 chunks added" in proc.stdout
    assert "ingest: 0/5 files" in proc.stderr  # progress on a pipe
    assert "skipped 3 file(s)" in proc.stderr and "(--verbose names them)" in proc.stderr
    assert "logo.svg" not in proc.stderr
    verbose = subprocess.run([*command, "--verbose"], env=env, capture_output=True, text=True, timeout=300)
    assert "logo.svg: unsupported file type '.svg'" in verbose.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "broken.docx").write_bytes(b"not a zip")
    command, env = ingest_cli(data_dir, tmp_path / "bad")
    failed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert failed.returncode == 5
    assert failed.stderr.strip().splitlines()[-1].startswith("error: none of the 1 file(s) could be ingested")
    assert "the rest were ingested" not in failed.stderr
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "empty.md").write_text("")
    command, env = ingest_cli(data_dir, tmp_path / "blank")
    blank = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert blank.returncode == 5, blank.stderr  # an empty file alone is nothing ingested too
    assert "error: none of the 1 file(s) could be ingested" in blank.stderr


CTRL_C_AT_THE_THIRD_BATCH = """
import os, signal, sys
from store.chunks import ChunkStore

signal.signal(signal.SIGINT, signal.default_int_handler)  # a parent that ignores SIGINT passes that on

written, replace_sources = [], ChunkStore.replace_sources

def ctrl_c_at_the_third_batch(self, items, on_progress=None):
    written.append(len(items))
    if len(written) == 3:  # as a user's Ctrl-C would, in the middle of the ingest
        os.kill(os.getpid(), signal.SIGINT)
    return replace_sources(self, items, on_progress)

ChunkStore.replace_sources = ctrl_c_at_the_third_batch
from agentic_rag.cli import main
sys.argv = ["agentic-rag", *sys.argv[1:]]
main()
"""


def test_ctrl_c_says_what_was_kept_and_the_same_command_continues(data_dir, tmp_path):
    root = tmp_path / "many"
    root.mkdir()
    files = 3000
    for i in range(files):
        (root / f"note{i:04}.md").write_text(f"# Note {i}\n\nNote number {i} mentions the kea and item {i * 7}.\n")
    command, env = ingest_cli(data_dir, root)
    env["AGENTIC_RAG_COLLECTION"] = "interrupted"
    interrupted = [command[0], "-c", CTRL_C_AT_THE_THIRD_BATCH, *command[3:]]  # a timed signal raced the ingest
    proc = subprocess.run(interrupted, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr and "Run the same command again to continue" in proc.stderr
    kept = int(proc.stderr.split("interrupted after ")[1].split()[0])
    assert 0 < kept < files  # the batches written before the third
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{files} files: {files - kept} ingested, {kept} unchanged;" in again.stdout


def test_a_broken_link_and_a_fifo_are_reported_not_silently_left_out(make_app, tmp_path):
    (tmp_path / "good.md").write_text("# Kea\n\nThe kea is a parrot.\n")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "gone.md")
    os.mkfifo(tmp_path / "pipe.md")  # reading it would block: it is never opened
    (tmp_path / "folder.md").mkdir()  # a folder with a file's name is a folder
    app = make_app()
    report = ingest_files(app.services.writable_store(), [tmp_path], collect_files([tmp_path]), 500, 50)
    assert report.added == 1 and report.skipped == [
        (str(tmp_path / "dangling.md"), "no such file (a broken symbolic link?)"),
        (str(tmp_path / "pipe.md"), "not a regular file (a FIFO, socket or device)"),
    ]


def test_an_ingest_that_writes_nothing_leaves_no_empty_collection(make_app, tmp_path):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "broken.docx").write_bytes(b"not a zip")
    app = make_app()
    report = app.ingest([tmp_path / "bad"])
    assert report.discarded and not report.files
    store = app.services.writable_store()  # created again, as new: the first one was dropped
    assert store.created and app.settings.collection in store.catalog.collections()

    def objects(catalog: str, column: str) -> int:
        query = f"SELECT count(*) FROM {catalog} WHERE {column} LIKE %s"
        return store._conn.execute(query, (f"{store.table}%",)).fetchone()[0]

    assert objects("pg_class", "relname") > 0 and objects("pg_proc", "proname") > 0
    store.drop()  # the chunk table and every table, index and trigger function beside it
    assert objects("pg_class", "relname") == objects("pg_proc", "proname") == 0
    assert app.settings.collection not in store.catalog.collections()
    (tmp_path / "bad" / "good.md").write_text("# Okapi\n\nThe okapi is a giraffid native to the Congo.\n")
    kept = make_app(collection=app.settings.collection).ingest([tmp_path / "bad"])
    assert not kept.discarded and kept.added == 1


def test_the_readme_python_snippet_runs_as_a_plain_script_on_a_large_folder(data_dir, tmp_path):
    """Issue 51 item 1: the README's Python snippet saved as a script, its top level unguarded
    (no ``if __name__ == "__main__":``), on a folder large enough for parallel parsing, finishes
    and answers; with ``spawn`` workers each ran the script again (``BrokenProcessPool``)."""
    from tests.conftest import ROOT

    readme = (ROOT / "README.md").read_text()
    snippet = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert 'app.ingest([Path("docs")])' in snippet and "app = App(" in snippet
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(220):
        (docs / f"island{i:03}.html").write_text(
            f"<html><head><title>Island {i}</title></head><body><main><h1>Island {i}</h1>"
            f"<p>The island of Xy{i} lies in the northern sea. Its harbour town Port{i} was founded by "
            f"the explorer Navigator{i} in the year {1500 + i}.</p></main></body></html>"
        )
    asked = re.search(r'app\.ask\("([^"]+)"', snippet)[1]
    (tmp_path / "snippet.py").write_text(snippet.replace(asked, "Who founded Port17?"))
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir), "AGENTIC_RAG_COLLECTION": "readme_snippet"}
    for name in ("AGENTIC_RAG_CHAT_MODEL", "OPENAI_API_KEY", "DATABASE_URL"):
        env.pop(name, None)  # offline, the embedded database
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "snippet.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and "island017.html" in lines[0]  # answered once: no worker ran the script again
