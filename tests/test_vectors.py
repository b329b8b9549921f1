"""Dense search and its HNSW index (store/vectors.py) on the real embedded PostgreSQL: the
half-precision index serves the search, and a collection indexed by an earlier release keeps
being served by its full-precision index."""

from __future__ import annotations

from store.vectors import VectorIndex
from tests.conftest import shared_file

QUERY = "American football league"


class _Recording:
    """A connection that keeps the statements run through it (to explain the search's own query)."""

    def __init__(self, conn) -> None:
        self.conn, self.statements = conn, []

    def execute(self, statement, params=None):
        self.statements.append((statement, params))
        return self.conn.execute(statement, params)


def _plan_of_search(store) -> tuple[list[str], str]:
    """The ids a 5-deep dense search finds, and the plan of its query."""
    recording = _Recording(store._conn)
    vectors = VectorIndex(recording, store.table, store.tuning)
    found = [cid for cid, _ in vectors.search(store.embed_query(QUERY), 5)]
    statement, params = recording.statements[-1]
    rows = store._conn.execute("EXPLAIN " + statement, params).fetchall()
    return found, "\n".join(row[0] for row in rows)


def test_the_index_holds_half_precision_vectors_and_serves_the_search(make_app):
    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    store = app.services.store
    exact = [cid for cid, _ in store.dense_search(QUERY, 5)]
    assert store.vectors.ensure(store.count(), min_chunks=0) and store.vectors.exists()
    definition = store._conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", (store.vectors.name,))
    assert "halfvec(" in definition.fetchone()[0]
    store._conn.execute("SET enable_seqscan = off")  # a ten-row table would be scanned otherwise
    found, plan = _plan_of_search(store)
    assert store.vectors.name in plan and found == exact


def test_an_earlier_releases_full_precision_index_keeps_serving_until_dropped(make_app):
    app = make_app()
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    store = app.services.store
    exact = [cid for cid, _ in store.dense_search(QUERY, 5)]
    legacy = store.vectors.legacy_name
    store._conn.execute(f"CREATE INDEX {legacy} ON {store.table} USING hnsw (embedding vector_cosine_ops)")
    assert store.vectors.exists() and not store.vectors.ensure(store.count(), min_chunks=0)  # not built twice
    store._conn.execute("SET enable_seqscan = off")
    found, plan = _plan_of_search(store)
    assert legacy in plan and found == exact
    store.vectors.drop_index()  # a load larger than the collection drops it; the half-precision one follows
    assert not store.vectors.exists()
    assert store.vectors.ensure(store.count(), min_chunks=0) and store.vectors.name in _plan_of_search(store)[1]
