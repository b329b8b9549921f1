"""The chunk store on the real embedded PostgreSQL: ingestion, re-ingestion, deletion, the BM25
index's consistency, and the errors a user can hit."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
import pytest

from agentic_rag.app import App
from core.errors import CollectionNotFoundError, EmbeddingMismatchError, IngestError, StoreUnavailableError
from core.settings import Settings
from providers.embeddings import EmbeddingModel, load_embedding_model
from store.chunks import ChunkStore
from store.filters import ChunkFilter
from tests.conftest import ROOT, other_user_runs_python, shared_file


def test_reingesting_a_folder_adds_no_chunks(make_app, tmp_path):
    (tmp_path / "a.md").write_text("# Alpha\n\nAlpha particles are helium nuclei.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("Beta decay emits an electron or a positron.")
    app = make_app()
    first = app.ingest([tmp_path])
    assert (first.files, first.added, first.unchanged) == (2, 2, 0)
    count = app.services.store.count()
    second = app.ingest([tmp_path])
    assert (second.added, second.removed, second.unchanged) == (0, 0, 2)
    assert app.services.store.count() == count == 2


def test_changed_file_replaces_its_chunks_and_lexical_index_follows(make_app, tmp_path):
    doc = tmp_path / "notes.txt"
    doc.write_text("The quokka lives on Rottnest Island.")
    app = make_app()
    app.ingest([doc])
    store = app.services.store
    assert [c["title"] for c in store.search("quokka", 1)] == ["notes"]
    doc.write_text("The numbat eats termites in Western Australia.")
    report = app.ingest([doc])
    assert (report.added, report.removed) == (1, 1)
    assert store.count() == store.lexical.size() == 1
    assert store.lexical.search("quokka", 5) == []
    assert len(store.lexical.search("numbat termites", 5)) == 1
    assert store.delete_source(str(doc.resolve())) == 1
    assert store.count() == store.lexical.size() == 0


def test_dataset_paragraphs_are_pooled_with_titles(make_app):
    app = make_app()
    report = app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    titles = {
        t
        for line in (shared_file("hotpotqa_smoke_10.jsonl")).read_text().splitlines()
        for t, _ in json.loads(line)["context"]
    }
    assert report.added >= len(titles) - 5  # a few titles repeat with the same text
    hits = app.services.store.search("Donnie Smith left back New England Revolution", 5)
    assert "Donnie Smith" in [h["title"] for h in hits]
    assert all(h["dense_rank"] or h["lexical_rank"] for h in hits)


def test_bm25_ranks_rare_terms_first(make_app, tmp_path):
    for i, text in enumerate(
        [
            "The cat sat on the mat. The cat purred.",
            "A dog barked at the cat.",
            "Zebras graze on the savanna.",
        ]
    ):
        (tmp_path / f"{i}.txt").write_text(text)
    app = make_app()
    app.ingest([tmp_path])
    ranked = app.services.store.lexical.search("cat zebra", 3)
    titles = [app.services.store.fetch([cid])[cid]["title"] for cid, _ in ranked]
    assert titles[0] == "2"  # 'zebra' is the rarer term
    assert set(titles) == {"0", "1", "2"}


def test_a_dotted_name_in_a_query_finds_the_chunk_spelling_its_last_part(make_app, tmp_path):
    (tmp_path / "groupby.txt").write_text("class groupby: make an iterator of consecutive keys and groups.")
    (tmp_path / "chain.txt").write_text("class chain: one iterator after another.")
    app = make_app()
    app.ingest([tmp_path])
    ranked = app.services.store.lexical.search("What does itertools.groupby do?", 2)
    # PostgreSQL's parser reads 'itertools.groupby' as one lexeme; its parts are query terms too
    assert [app.services.store.fetch([cid])[cid]["title"] for cid, _ in ranked] == ["groupby"]


def test_exact_names_rank_the_chunk_whose_entry_they_open_first(make_app, tmp_path):
    (tmp_path / "maintenance.txt").write_text("- maintenance_work_mem (integer)\n- Memory for VACUUM; see work_mem.")
    (tmp_path / "hash.txt").write_text("Hash tables use work_mem times hash_mem_multiplier; work_mem again; work_mem.")
    (tmp_path / "work.txt").write_text("Resource usage.\n- work_mem (integer)\n- Memory of a sort. Default 4MB.")
    (tmp_path / "other.txt").write_text("Nothing about memory at all; a mem of work.")
    app = make_app()
    app.ingest([tmp_path])
    store = app.services.store
    titles = [store.fetch([cid])[cid]["title"] for cid in store.names.naming(["work_mem"], 5)]
    assert titles == ["work", "hash", "maintenance"]  # its entry, then by mentions; "a mem of work" never
    assert store.search("What is the default of work_mem?", 1)[0]["title"] == "work"


def test_a_name_asked_without_its_accents_is_present(make_app, tmp_path):
    (tmp_path / "cast.txt").write_text("Graduados starred Nancy Dupláa and Daniel Hendler; music by Benítez.")
    app = make_app()
    app.ingest([tmp_path])
    assert app.services.absent_terms("Did Benitez write the music, or Duplaa?") == []
    assert app.services.absent_terms("Did Benitez write the music for Citus?") == ["Citus"]


def test_a_typo_of_a_word_the_collection_holds_is_not_absent(make_app, tmp_path):
    (tmp_path / "str.txt").write_text("str.strip removes leading and trailing whitespace from the string.")
    app = make_app()
    app.ingest([tmp_path])
    assert app.services.absent_terms("What does str.strip do with whitespce?") == []  # "whitespace", mistyped
    assert app.services.absent_terms("What does str.strip do with pgbouncer?") == ["pgbouncer"]
    assert app.services.absent_terms("Does str.strip work on a hostnme?") == ["hostnme"]  # nor does it say "hostname"


def test_a_capitalised_compound_no_chunk_holds_is_absent_however_it_is_hyphenated(make_app, tmp_path):
    (tmp_path / "war.txt").write_text("The Six Day War of 1967 changed the Islamic world; Anglo-Saxon co-operation.")
    app = make_app()
    app.ingest([tmp_path])
    assert app.services.absent_terms("Who won the Six-Day War, and did Anglo Saxon co-operation help?") == []
    asked = "What status has the Brotherhood obtained in the non-Islamic world since the Seven-Day War?"
    assert app.services.absent_terms(asked) == ["Brotherhood", "non-Islamic", "Seven-Day"]
    assert app.services.absent_terms("Who co-starred in it?") == []  # a lower-case compound is no name


def test_a_product_named_in_words_the_collection_holds_one_by_one_is_absent(make_app, tmp_path):
    (tmp_path / "ha.txt").write_text(
        "The SQL standard says a server is always on duty; the Always-On mode of the pool."
    )
    app = make_app()
    app.ingest([tmp_path])
    asked = "How do I set up SQL Server Always On availability groups?"
    assert app.services.absent_terms(asked) == ["SQL Server Always On"]  # every word held, never the name
    assert app.services.absent_terms("What is the Always On mode?") == []  # "Always-On": a space finds the hyphen


def test_missing_path_is_an_error_and_writes_nothing(make_app, tmp_path):
    (tmp_path / "ok.txt").write_text("present")
    app = make_app()
    with pytest.raises(IngestError, match="no such file"):
        app.ingest([tmp_path / "ok.txt", tmp_path / "missing"])
    with pytest.raises(CollectionNotFoundError, match="ingest documents first"):
        app.services.store  # noqa: B018 — not even the collection was created


def test_a_missing_collection_names_the_only_one_there_is(tmp_path):
    (tmp_path / "notes.txt").write_text("The axolotl regrows its limbs.")
    data = tmp_path / "data"  # its own data folder: the session's holds many collections
    notes, unnamed = App(Settings(data_dir=data, collection="notes")), App(Settings(data_dir=data))
    try:
        notes.ingest([tmp_path / "notes.txt"])
        with pytest.raises(CollectionNotFoundError, match="did you mean --collection notes"):
            unnamed.services.store  # noqa: B018 — the default collection, never made
    finally:
        notes.close()
        unnamed.close()


def test_folder_is_mirrored_and_empty_files_are_noted(make_app, tmp_path):
    (tmp_path / "keep.txt").write_text("Kept: the axolotl regrows its limbs.")
    (tmp_path / "gone.txt").write_text("Gone: the dodo was flightless.")
    (tmp_path / "empty.md").write_text("  \n")
    app = make_app()
    first = app.ingest([tmp_path, tmp_path / "keep.txt"])  # a file named twice is read once
    assert (first.files, first.added, first.empty) == (2, 2, [str((tmp_path / "empty.md").resolve())])
    (tmp_path / "gone.txt").unlink()
    second = app.ingest([tmp_path])
    assert (second.deleted_files, second.removed, second.unchanged) == (1, 1, 1)
    store = app.services.store
    assert store.count() == store.lexical.size() == 1
    assert store.lexical.search("dodo", 5) == []


def test_folder_without_supported_files(make_app, tmp_path):
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    app = make_app()
    with pytest.raises(IngestError, match="no supported files"):
        app.ingest([tmp_path])
    with pytest.raises(IngestError, match=r"image\.png is not a supported file \(supported: "):
        app.ingest([tmp_path / "image.png"])  # one file is named as such
    # a folder emptied since it was ingested is mirrored: its sources go, nothing is left to find
    (tmp_path / "lake.md").write_text("# Lake Varnsjo\n\nLake Varnsjo is a lake beside Lindholt.")
    assert app.ingest([tmp_path]).added == 1
    (tmp_path / "lake.md").unlink()
    report = app.ingest([tmp_path])
    assert (report.deleted_files, report.removed) == (1, 1)
    assert app.services.store.count() == 0 and app.services.store.lexical.search("Varnsjo", 5) == []


def _sql(app, statement: str) -> None:
    import psycopg

    with psycopg.connect(app.services.database_url, autocommit=True) as conn:
        conn.execute(statement)


def test_chunks_deleted_behind_the_manifest_are_ingested_again(make_app, tmp_path):
    (tmp_path / "a.md").write_text("# Alpha\n\nAlpha particles are helium nuclei.\n")
    (tmp_path / "b.txt").write_text("Beta decay emits an electron or a positron.")
    app = make_app()
    app.ingest([tmp_path])
    store = app.services.store
    _sql(app, f"DELETE FROM {store.table} WHERE source = '{(tmp_path / 'a.md').resolve()}'")
    report = app.ingest([tmp_path])
    assert (report.unchanged, report.added, report.repaired) == (1, 1, 1)
    _sql(app, f"DELETE FROM {store.table}")  # all of them
    report = app.ingest([tmp_path])
    assert (report.unchanged, report.added, report.repaired) == (0, 2, 2)
    assert store.count() == store.lexical.size() == 2
    assert [c["title"] for c in store.search("helium nuclei", 1)] == ["Alpha"]
    assert app.ingest([tmp_path]).unchanged == 2  # consistent again: nothing to repair


def test_dropped_chunk_table_is_a_clear_error_then_rebuilt_by_ingest(make_app):
    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    count = app.services.store.count()
    _sql(app, f"DROP TABLE {app.services.store.table} CASCADE")
    app = make_app(app.settings.collection)  # a new process
    source = (shared_file("hotpotqa_smoke_10.jsonl")).resolve()  # sources are stored resolved
    rebuild = f"lost its chunk table.*: agentic-rag ingest {re.escape(str(source))} --coll"
    with pytest.raises(CollectionNotFoundError, match=rebuild):
        app.ask("Which league does Donnie Smith play in?")
    report = app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    store = app.services.store
    assert (report.unchanged, report.repaired, report.added) == (0, 1, count)
    assert store.count() == store.lexical.size() == count
    assert store.graph.counts()["mentions"] > 0  # the mention graph is rebuilt too
    result = app.ask("Which league does Donnie Smith play in?")
    assert result["status"] == "done" and result["citations"]


def test_a_store_interrupted_mid_statement_is_usable_again(make_app):
    """Ctrl-C inside a COPY leaves the connection with a command in progress ("another command
    is already in progress" on the next query); recover() continues on a new connection."""
    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    store = app.services.store
    count = store.count()
    store._conn.pgconn.send_query(b"SELECT pg_sleep(0.2)")  # sent, its result never read: as an interrupt leaves it
    with pytest.raises(psycopg.OperationalError, match="another command is already in progress"):
        store.count()
    store.recover()
    assert store.count() == count and store.lexical.size() == count
    store.recover()  # an idle connection is kept
    assert app.ingest([shared_file("hotpotqa_smoke_10.jsonl")]).unchanged == 1


def test_collection_built_with_another_embedding_model(make_app):
    app = make_app()
    assert app.services.writable_store().count() == 0  # creates the collection with wordllama
    wordllama = load_embedding_model("wordllama")
    other = EmbeddingModel("test:other-model-128", 128, wordllama.embeddings)
    with pytest.raises(EmbeddingMismatchError, match="was built with wordllama"):
        ChunkStore.open(app.services.database_url, app.settings.collection, other)


def test_the_embedded_collections_live_in_a_code_point_ordered_database_unless_an_older_one_holds_them(
    tmp_path, monkeypatch
):
    import store.embedded as embedded

    url = embedded.embedded_postgres_url(tmp_path)
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute(
            "SELECT datname, datlocprovider, datlocale FROM pg_database WHERE datname = current_database()"
        ).fetchone() == ("agentic_rag", "b", "C.UTF-8")
        # the same lexemes as the cluster's own locale: BM25 indexes and queries stay comparable
        assert conn.execute("SELECT to_tsvector('english', 'Straße Dvořák cafés')::text").fetchone()[0] == (
            "'café':3 'dvořák':2 'straße':1"
        )
        # configured before its first start: no replica to feed, so the least write-ahead log
        assert conn.execute("SHOW wal_level").fetchone()[0] == "minimal"
    older = url.replace("/agentic_rag?", "/postgres?")
    with psycopg.connect(older, autocommit=True) as conn:  # a data folder made before that database
        conn.execute("CREATE TABLE rag_collections (name TEXT PRIMARY KEY)")
    monkeypatch.setattr(embedded, "_urls", {})
    assert embedded.embedded_postgres_url(tmp_path) == older


def test_unreachable_database_url():
    with pytest.raises(StoreUnavailableError, match="cannot connect to PostgreSQL"):
        ChunkStore.open("postgresql://nobody@127.0.0.1:1/none", "x", load_embedding_model("wordllama"))


@pytest.mark.skipif(not other_user_runs_python(), reason="needs root and a Python that user nobody can run")
def test_an_embedded_server_lock_file_of_another_user_is_one_clear_line():
    """pgserver keeps one lock file in the temp folder; made by root, it stops every other user."""
    shared_tmp = Path(tempfile.mkdtemp(prefix="shared-tmp-"))  # under /tmp: the other user can reach it
    try:
        shared_tmp.chmod(0o1777)
        (shared_tmp / ".lockfile").touch(mode=0o644)  # root's, as after a root run
        code = "from pathlib import Path; import store.embedded as e; e.embedded_postgres_url(Path('x'))"
        proc = subprocess.run(
            ["runuser", "-u", "nobody", "--", "env", f"TMPDIR={shared_tmp}", sys.executable, "-c", code],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
    finally:
        shutil.rmtree(shared_tmp, ignore_errors=True)
    assert proc.returncode != 0
    assert f"lock file {shared_tmp}/.lockfile belongs to another user" in proc.stderr
    assert "set TMPDIR to a folder of your own" in proc.stderr
    assert "Exception ignored in atexit" not in proc.stderr  # pgserver never started: no exit-hook traceback


def _recount(store) -> tuple[int, int, dict]:
    """The BM25 statistics recounted from the chunk table (what the triggers must maintain)."""
    conn, t = store._conn, store.table
    n, total = conn.execute(
        f"""SELECT count(*), coalesce(sum(l), 0) FROM (
                SELECT chunk_id, sum(coalesce(array_length(positions, 1), 1)) AS l
                FROM {t}, unnest(to_tsvector('english', coalesce(title, '') || ' ' || content)) GROUP BY chunk_id) x"""
    ).fetchone()
    df = dict(
        conn.execute(
            f"""SELECT lexeme, count(*) FROM {t}, unnest(to_tsvector('english', coalesce(title, '') || ' ' || content))
                GROUP BY lexeme"""
        ).fetchall()
    )
    return n, total, df


def _maintained(store) -> tuple[int, int, dict]:
    conn, t = store._conn, store.table
    n, total = conn.execute(f"SELECT n, total_len FROM {t}_bm25").fetchone()
    df = dict(conn.execute(f"SELECT term, df FROM {t}_df WHERE df > 0").fetchall())
    return n, total, df


def test_bm25_statistics_stay_exact_for_any_writer(make_app, tmp_path):
    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    store = app.services.store
    assert _maintained(store) == _recount(store)
    t = store.table
    vector = "[" + ",".join(["0"] * (store.embedding.dimension - 1) + ["1"]) + "]"
    _sql(app, f"INSERT INTO {t} (chunk_id, content, embedding, source, title) VALUES ('x1', 'Quagga xyzzyq quagga.', "
         f"'{vector}', 'sql:hand', 'Quagga')")  # fmt: skip
    _sql(app, f"UPDATE {t} SET content = 'The okapi is a giraffid.' WHERE chunk_id = 'x1'")
    _sql(app, f"UPDATE {t} SET version = '2' WHERE chunk_id = 'x1'")  # not the text: nothing to reindex
    assert _maintained(store) == _recount(store)
    assert store.lexical.search("okapi", 5)[0][0] == "x1" and store.lexical.search("xyzzyq", 5) == []
    _sql(app, f"DELETE FROM {t} WHERE chunk_id IN (SELECT chunk_id FROM {t} ORDER BY chunk_id LIMIT 40)")
    assert _maintained(store) == _recount(store)
    _sql(app, f"TRUNCATE {t} CASCADE")
    assert store.lexical.size() == 0 and store.lexical.search("league", 5) == []


def test_common_terms_read_only_their_top_postings(make_app, tmp_path):
    import dataclasses

    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    lexical = app.services.store.lexical
    exact = lexical.search("American football league", 100)
    lexical.tuning = dataclasses.replace(lexical.tuning, bm25_posting_cap=3)
    capped = lexical.search("American football league", 10)
    assert len(capped) <= 9 < len(exact)  # at most 3 postings of each of the 3 terms were read
    scores = dict(exact)
    assert all(score <= scores[cid] + 1e-9 for cid, score in capped)  # a capped score misses terms, never adds


def test_filters_apply_on_the_hnsw_index(make_app):
    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    store = app.services.store
    assert not store.vectors.exists()  # a small collection is searched exactly
    exact = store.dense_search("American football league", 5)
    assert store.finish_load(min_chunks=0)[1] and store.vectors.exists()
    assert [cid for cid, _ in store.dense_search("American football league", 5)] == [cid for cid, _ in exact]
    title = store.fetch([exact[-1][0]])[exact[-1][0]]["title"]
    only = ChunkFilter.build(fields={"title": title})
    hits = store.dense_search("American football league", 5, only)
    assert hits and {store.fetch([cid])[cid]["title"] for cid, _ in hits} == {title}  # iterative scan: not empty
    found = store.search("American football league", 5, only)
    assert found and {c["title"] for c in found} == {title}


def test_an_index_of_the_earlier_layout_is_rebuilt_on_open(make_app):
    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    store = app.services.store
    _sql(app, f"DROP TABLE {store.table}_bm25")  # as a collection indexed by the per-row trigger lacks it
    reopened = make_app(app.settings.collection).services.store
    assert reopened.lexical.current() and _maintained(reopened) == _recount(reopened)
    assert reopened.lexical.search("Donnie Smith", 3)


def _postings_indexes(app, store) -> set[str]:
    with psycopg.connect(app.services.database_url, autocommit=True) as conn:
        rows = conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", (f"{store.table}_terms",))
        return {name.removeprefix(f"{store.table}_") for (name,) in rows.fetchall()}


def test_a_load_larger_than_the_collection_builds_the_postings_indexes_once_afterwards(make_app, tmp_path, monkeypatch):
    from store.lexical import LexicalIndex

    drops = []
    original = LexicalIndex.drop_indexes
    monkeypatch.setattr(LexicalIndex, "drop_indexes", lambda self: (drops.append(self.table), original(self))[1])
    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])  # into an empty collection: dropped, then built after
    store = app.services.store
    assert drops and _postings_indexes(app, store) == {"terms_impact_idx", "terms_chunk_idx"}
    assert _maintained(store) == _recount(store) and store.lexical.search("Donnie Smith", 3)
    drops.clear()
    (tmp_path / "note.md").write_text("# Note\n\nDonnie Smith also coached a youth team.\n")
    app.ingest([tmp_path / "note.md"])  # a small increment keeps them
    assert not drops and _postings_indexes(app, store) == {"terms_impact_idx", "terms_chunk_idx"}
    store.lexical.drop_indexes()  # a first load interrupted before it finished
    reopened = make_app(app.settings.collection).services.store
    assert _postings_indexes(app, reopened) == {"terms_impact_idx", "terms_chunk_idx"}
    assert reopened.lexical.search("youth team", 3)


def test_processes_building_the_same_index_at_once_wait_for_each_other(make_app):
    """Two loads finishing together both build the postings' indexes; ``CREATE INDEX IF NOT
    EXISTS`` alone lets the second fail on the catalog's unique key when the first commits."""
    import threading

    from store.lexical import LexicalIndex

    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    store = app.services.store
    store.lexical.drop_indexes()
    with psycopg.connect(app.services.database_url, autocommit=True) as first:
        with psycopg.connect(app.services.database_url, autocommit=True) as second:
            building, waiting = LexicalIndex(first, store.table), LexicalIndex(second, store.table)
            errors = []

            def other_process() -> None:
                try:
                    waiting.ensure_indexes()
                except psycopg.Error as exc:
                    errors.append(exc)

            with building.serialised("terms_indexes"):
                building.ensure_indexes()  # built, not yet committed
                other = threading.Thread(target=other_process)
                other.start()
                other.join(0.5)
                assert other.is_alive()  # waits for the first build to commit
            other.join(30)
    assert not other.is_alive() and not errors
    assert _postings_indexes(app, store) == {"terms_impact_idx", "terms_chunk_idx"}


def test_names_few_chunks_hold_are_the_questions_rare_names(make_app, tmp_path):
    for i in range(3):
        (tmp_path / f"war{i}.txt").write_text(f"Sweden fought battle {i} of the Thirty Years' War.")
    (tmp_path / "peace.txt").write_text("The Peace of Westphalia ended the war; MySQL is not PostgreSQL.")
    app = make_app()
    app.ingest([tmp_path])
    known = app.services.question_terms("Did the Peace of Westphalia end the war of Sweden and MySQL?")
    # a capitalised word of prose or a code-like name in at most rare_name_chunks (2) chunks
    assert set(known.rare_names) == {"Peace", "Westphalia", "MySQL"}  # Sweden: 3 chunks
