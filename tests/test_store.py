"""The chunk store on the real embedded PostgreSQL: ingestion, re-ingestion, deletion, the BM25
index's consistency, and the errors a user can hit."""

from __future__ import annotations

import json
import re

import pytest

from core.errors import CollectionNotFoundError, EmbeddingMismatchError, IngestError, StoreUnavailableError
from providers.embeddings import EmbeddingModel, load_embedding_model
from store.chunks import ChunkStore
from tests.conftest import DATA


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
    report = app.ingest([DATA / "hotpotqa_smoke_10.jsonl"])
    titles = {
        t
        for line in (DATA / "hotpotqa_smoke_10.jsonl").read_text().splitlines()
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


def test_missing_path_is_an_error_and_writes_nothing(make_app, tmp_path):
    (tmp_path / "ok.txt").write_text("present")
    app = make_app()
    with pytest.raises(IngestError, match="no such file"):
        app.ingest([tmp_path / "ok.txt", tmp_path / "missing"])
    with pytest.raises(CollectionNotFoundError, match="ingest documents first"):
        app.services.store  # noqa: B018 — not even the collection was created


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
    app.ingest([DATA / "hotpotqa_smoke_10.jsonl"])
    count = app.services.store.count()
    _sql(app, f"DROP TABLE {app.services.store.table} CASCADE")
    app = make_app(app.settings.collection)  # a new process
    source = (DATA / "hotpotqa_smoke_10.jsonl").resolve()  # sources are stored resolved
    rebuild = f"lost its chunk table.*: agentic-rag ingest {re.escape(str(source))} --coll"
    with pytest.raises(CollectionNotFoundError, match=rebuild):
        app.ask("Which league does Donnie Smith play in?")
    report = app.ingest([DATA / "hotpotqa_smoke_10.jsonl"])
    store = app.services.store
    assert (report.unchanged, report.repaired, report.added) == (0, 1, count)
    assert store.count() == store.lexical.size() == count
    assert store.graph.counts()["mentions"] > 0  # the mention graph is rebuilt too
    result = app.ask("Which league does Donnie Smith play in?")
    assert result["status"] == "done" and result["citations"]


def test_collection_built_with_another_embedding_model(make_app):
    app = make_app()
    assert app.services.writable_store().count() == 0  # creates the collection with wordllama
    wordllama = load_embedding_model("wordllama")
    other = EmbeddingModel("test:other-model-128", 128, wordllama.embeddings)
    with pytest.raises(EmbeddingMismatchError, match="was built with wordllama"):
        ChunkStore.open(app.services.database_url, app.settings.collection, other)


def test_unreachable_database_url():
    with pytest.raises(StoreUnavailableError, match="cannot connect to PostgreSQL"):
        ChunkStore.open("postgresql://nobody@127.0.0.1:1/none", "x", load_embedding_model("wordllama"))
