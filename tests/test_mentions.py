"""The entity-mention graph (store/mentions.py) and the graph hop (nodes/follow_links.py), on a
small hand-made corpus in the real embedded PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import answer_reply, scripted

from core.errors import ConfigurationError
from graph.context import RunContext
from store.mentions import MentionMatcher, aliases, headings, name_case

DOCS = {
    "counterparts.md": "# Counterparts (album)\n\nCounterparts is the fifteenth studio album by Rush, "
    "released in 1993.",
    "rush.md": "# Rush (band)\n\nRush was a Canadian rock group from Toronto whose members included Neil Peart. "
    "Its counterparts in the progressive scene were many.",
    "peart.md": "# Neil Peart\n\nNeil Peart was a drummer and lyricist. He was born in Hamilton, Ontario.",
    "hamilton.md": "# Hamilton, Ontario\n\nHamilton, Ontario is a port city on Lake Ontario, home of a steel industry.",
    "rushmore.md": "# Mount Rushmore\n\nMount Rushmore is a sculpture in South Dakota. Toronto is far away.",
    "toronto.md": "# Toronto\n\nToronto is the largest city in Canada.\n\n## Climate\n\nWinters are cold.",
}


def write(folder: Path, docs: dict[str, str]) -> None:
    for name, text in docs.items():
        (folder / name).write_text(text)


def title_of(app, chunk_id: str) -> str:
    return app.services.store.fetch([chunk_id])[chunk_id]["title"]


def chunk_titled(app, title: str) -> str:
    store = app.services.store
    rows = store._conn.execute(f"SELECT chunk_id FROM {store.table} WHERE title = %s", (title,)).fetchall()
    assert len(rows) == 1, title
    return rows[0][0]


@pytest.fixture
def corpus(make_app, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, DOCS)
    app = make_app()
    report = app.ingest([folder])
    return app, folder, report


def test_aliases_drop_qualifier_and_article_and_skip_short_names():
    assert aliases("The Lawless (TV series)") == {
        "the lawless (tv series)",
        "lawless (tv series)",
        "the lawless",
        "lawless",
    }
    assert aliases("It") == set() and aliases("1993") == set()
    assert headings("# A\n\ntext\n## Climate ##\n") == ["A", "Climate"]


def test_matcher_needs_word_boundaries_and_a_capital_for_a_capitalised_name():
    matcher = MentionMatcher({"rush": "capital", "new york": "capital", "new york city": "capital", "iphone": "any"})
    assert matcher.mentions("Rush played; Rushmore did not; the rush hour neither.") == ["rush"]
    assert matcher.mentions("They moved to New York City, not New York State.") == ["new york city", "new york"]
    assert matcher.mentions("an iphone and an IPHONE") == ["iphone"]
    assert matcher.mentions("Born in New\nYork  City.") == ["new york city"]  # hard-wrapped
    assert MentionMatcher({a: "capital" for a in aliases("Große Freiheit")}).mentions("At Große Freiheit 36.") == [
        "große freiheit"
    ]


def test_a_name_in_capitals_is_mentioned_in_capitals_not_as_the_sentence_opening_word():
    assert name_case(["WHENEVER"]) == "caps" and name_case(["SOS (ABBA song)"]) == "caps"
    assert name_case(["Rush (band)"]) == "capital" and name_case(["3M"]) == "any"
    assert name_case(["LOCK", "Lock (water navigation)"]) == "capital" and name_case(["iphone"]) == "any"
    matcher = MentionMatcher({"whenever": "caps", "lock table": "caps", "sos": "caps"})
    assert matcher.mentions("Whenever a client connects, the server forks.") == []
    assert matcher.mentions("Use EXEC SQL WHENEVER to catch errors; LOCK TABLE waits; Lock table rows.") == [
        "whenever",
        "lock table",
    ]
    assert matcher.mentions("SOS was a hit.") == ["sos"]


def test_graph_holds_title_heading_and_alias_mentions(corpus):
    app, _, report = corpus
    graph = app.services.store.graph
    assert report.graph.chunks_scanned == app.services.store.count() == 6
    rush, counterparts = chunk_titled(app, "Rush (band)"), chunk_titled(app, "Counterparts (album)")
    # "Rush" is the alias of "Rush (band)"; "Mount Rushmore" and lowercase "counterparts" are not mentions
    assert graph.mentions_of(counterparts) == ["rush"]
    assert graph.mentions_of(rush) == ["neil peart", "toronto"]
    assert graph.mentions_of(chunk_titled(app, "Mount Rushmore")) == ["toronto"]
    assert graph.mentions_of(chunk_titled(app, "Neil Peart")) == ["hamilton, ontario"]
    toronto = app.services.store._conn.execute(
        f"SELECT kind, name FROM {app.services.store.table}_entities WHERE chunk_id = %s ORDER BY kind",
        (chunk_titled(app, "Toronto"),),
    ).fetchall()
    assert ("heading", "Climate") in toronto and ("title", "Toronto") in toronto
    links = graph.links_from([counterparts])
    assert [(link["entity"], title_of(app, link["target_id"])) for link in links] == [("Rush (band)", "Rush (band)")]


def test_graph_updates_incrementally_on_reingest_and_delete(corpus):
    app, folder, _ = corpus
    graph = app.services.store.graph
    assert app.ingest([folder]).graph.chunks_scanned == 0  # unchanged: nothing to scan
    (folder / "peart.md").unlink()  # the entity "Neil Peart" leaves the collection …
    report = app.ingest([folder])
    rush = chunk_titled(app, "Rush (band)")
    assert report.deleted_files == 1 and report.graph.mentions_dropped == 1
    assert graph.mentions_of(rush) == ["toronto"]  # … and so does the edge to it
    (folder / "peart.md").write_text(DOCS["peart.md"])  # back again: earlier chunks are rescanned for it
    report = app.ingest([folder])
    assert report.graph.chunks_scanned == 1 and 1 <= report.graph.rescanned < 5  # only chunks with its words
    assert graph.mentions_of(rush) == ["neil peart", "toronto"]
    (folder / "rush.md").write_text("# Rush (band)\n\nRush recorded in Toronto.")  # edited: new chunk, new edges
    report = app.ingest([folder])
    assert report.graph.rescanned == 0  # its names were known: nothing else is scanned again
    assert report.graph.mentions_dropped == 0  # "Counterparts → Rush" survives the edit
    assert graph.mentions_of(chunk_titled(app, "Counterparts (album)")) == ["rush"]
    assert graph.mentions_of(chunk_titled(app, "Rush (band)")) == ["toronto"]
    store = app.services.store
    orphans = store._conn.execute(
        f"SELECT count(*) FROM {store.table}_mentions m WHERE NOT EXISTS "
        f"(SELECT 1 FROM {store.table} c WHERE c.chunk_id = m.chunk_id)"
    ).fetchone()[0]
    assert orphans == 0
    assert graph.counts()["linked"] == store.count()


def test_a_graph_built_by_an_older_matching_rule_is_rescanned(corpus):
    app, folder, _ = corpus
    store = app.services.store
    edges = store.graph.counts()["mentions"]
    store._conn.execute(f"COMMENT ON TABLE {store.table}_linked IS 'an older rule'")
    report = app.ingest([folder])  # nothing changed in the files, yet every chunk is scanned again
    assert report.graph.chunks_scanned == store.count() == 6 and store.graph.counts()["mentions"] == edges


CHAIN = RunContext(deciders="rules", retrieve_k=1, max_evidence=4, max_retries=3)


def test_two_hop_chain_reaches_the_band(corpus):
    app, _, _ = corpus
    result = app.ask("Which country is the group that released Counterparts from?", context=CHAIN)
    assert result["trace"][0]["chunk_ids"] == [chunk_titled(app, "Counterparts (album)")]
    link = result["trace"][1]
    assert link["query_by"] == "graph:rules"
    assert link["links"] == [
        {
            "from": chunk_titled(app, "Counterparts (album)"),
            "entity": "Rush (band)",
            "to": chunk_titled(app, "Rush (band)"),
        }
    ]
    assert chunk_titled(app, "Rush (band)") in {c["chunk_id"] for c in result["citations"]}


def test_three_and_four_hop_chains_alternate_link_and_query_hops(corpus):
    app, _, _ = corpus
    result = app.ask("Where was the drummer of the group that released Counterparts born?", context=CHAIN)
    path = [[title_of(app, cid) for cid in hop["chunk_ids"]] for hop in result["trace"]]
    assert path == [["Counterparts (album)"], ["Rush (band)"], ["Neil Peart"]]
    assert result["trace"][2]["query_by"] == "rules" and result["trace"][2]["query"].startswith("Neil Peart")
    assert result["stop_reason"] == "sufficient_evidence"
    assert chunk_titled(app, "Neil Peart") in {c["chunk_id"] for c in result["citations"]}

    result = app.ask(
        "On which lake is the birthplace of the drummer of the group that released Counterparts?", context=CHAIN
    )
    path = [[title_of(app, cid) for cid in hop["chunk_ids"]] for hop in result["trace"]]
    assert [titles[0] for titles in path] == ["Counterparts (album)", "Rush (band)", "Neil Peart", "Hamilton, Ontario"]
    assert result["trace"][3]["links"][0]["from"] == chunk_titled(app, "Neil Peart")  # links followed again
    assert result["retries"] == CHAIN.max_retries


def test_graph_hop_respects_the_caps(corpus):
    app, _, _ = corpus
    question = "Where was the drummer of the group that released Counterparts born?"
    one = app.ask(question, context=RunContext(deciders="rules", retrieve_k=1, max_evidence=4, max_retries=1))
    assert one["hops"] == 2 and one["retries"] == 1 and one["stop_reason"] == "max_retries"
    small = app.ask(question, context=RunContext(deciders="rules", retrieve_k=1, max_evidence=1, max_retries=3))
    state = app.graph.get_state({"configurable": {"thread_id": small["thread_id"]}}).values
    assert len(state["evidence"]) <= 1
    timed = app.ask(question, context=RunContext(deciders="rules", retrieve_k=1, time_limit_s=0.001))
    assert timed["hops"] == 1 and timed["stop_reason"] in {"time_limit", "sufficient_evidence"}
    off = app.ask(question, context=RunContext(deciders="rules", retrieve_k=1, max_retries=1, graph_hop=False))
    assert all("links" not in hop for hop in off["trace"])


def test_no_link_falls_back_to_the_entity_query_hop(corpus):
    app, _, _ = corpus
    result = app.ask("Which lake is Hamilton on, and what is its population?", context=CHAIN)
    assert result["trace"][0]["chunk_ids"] == [chunk_titled(app, "Hamilton, Ontario")]  # it links nowhere
    assert result["hops"] >= 2 and "links" not in result["trace"][1]  # so the second hop is a search
    assert result["trace"][1]["query_by"] == "rules"
    assert any(n.startswith("follow_links: no link from the evidence") for n in result["notes"])


def test_llm_chooses_links_among_the_candidates_and_invalid_choices_fall_back(make_app, corpus):
    _, folder, _ = corpus
    grade_all = {
        "route": '{"route": "retrieve", "reason": "facts"}',
        "grade": '{"relevant": true}',
        "sufficient": '{"sufficient": false}',
        "reformulate": "Counterparts",
        "generate": answer_reply("Rush [1]."),
    }
    question = "Who was in the group that released Counterparts?"
    context = RunContext(deciders="llm", retrieve_k=1, max_retries=1)
    chooser = scripted(**grade_all, links='{"follow": [1], "reason": "the band"}')
    app = make_app(chat_model=chooser)
    app.ingest([folder])
    result = app.ask(question, context=context)
    assert result["trace"][1]["query_reason"].startswith("the band")
    assert chooser.calls["links"] == 1
    for bad in ('{"follow": [7]}', '{"follow": [1, 1]}', "no idea"):
        model = scripted(**grade_all, links=bad)
        app = make_app(collection=app.settings.collection, chat_model=model)
        result = app.ask(question, context=context)
        assert result["trace"][1]["query_reason"].startswith("fallback: best-ranked links"), bad
        assert [link["entity"] for link in result["trace"][1]["links"]] == ["Rush (band)"]
        assert any(n.startswith("follow_links:") for n in result["notes"]), bad


def test_source_allowlist_and_metadata_filters_limit_search_and_links(corpus, tmp_path):
    app, folder, _ = corpus
    only_peart = RunContext(deciders="rules", sources=["*/peart.md"])
    result = app.ask("Where was the drummer born?", context=only_peart)
    seen = {title_of(app, cid) for hop in result["trace"] for cid in hop["chunk_ids"]}
    assert seen == {"Neil Peart"}
    # the graph hop may not leave the allowlist: Counterparts links to Rush, which is not allowed
    no_rush = RunContext(deciders="rules", retrieve_k=1, max_retries=1, sources=["*/counterparts.md", "*/peart.md"])
    result = app.ask("Which country is the group that released Counterparts from?", context=no_rush)
    seen = {title_of(app, cid) for hop in result["trace"] for cid in hop["chunk_ids"]}
    assert "Rush (band)" not in seen and "Counterparts (album)" in seen
    titled = RunContext(deciders="rules", filters={"title": ["Toronto", "Mount Rushmore"]})
    result = app.ask("Which city is far away?", context=titled)
    assert {title_of(app, cid) for hop in result["trace"] for cid in hop["chunk_ids"]} <= {"Toronto", "Mount Rushmore"}


def test_unknown_filter_field_is_a_clear_error():
    with pytest.raises(ConfigurationError, match="unknown filter field.*author.*filterable fields: source, title"):
        RunContext(filters={"author": "x"})


def test_links_from_the_chunk_the_question_names_come_first(make_app, tmp_path):
    write(
        tmp_path,
        {
            "glass.md": "# Glass Harbor Nights\n\nGlass Harbor Nights is an album by Velvet Tundra.",
            "echo.md": "# Echo Fields\n\nEcho Fields is an album released by the band Hollow Sparrows.",
            "velvet.md": "# Velvet Tundra\n\nVelvet Tundra is a rock group. The band's drummer is Marek Oskarsson.",
            "hollow.md": "# Hollow Sparrows\n\nHollow Sparrows is a band. The band's drummer is Ilse Marrow.",
        },
    )
    app = make_app()
    app.ingest([tmp_path])
    context = RunContext(deciders="rules", retrieve_k=2, max_evidence=4, max_retries=1)
    result = app.ask("Who is the drummer of the band that released Glass Harbor Nights?", context=context)
    # the look-alike band's page matches the question better, but the question names the album
    assert [link["entity"] for link in result["trace"][1]["links"]] == ["Velvet Tundra", "Hollow Sparrows"]
    # so, of two sentences that match the question as well, the answer takes the linked band's
    assert "Marek Oskarsson" in result["answer"] and "Ilse" not in result["answer"]
