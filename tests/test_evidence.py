"""The evidence pool: anchors, order across hops, the budget, and superseded versions."""

from __future__ import annotations

from graph.evidence import admit, merge_evidence, names_its_title, prefer_newer


def chunk(cid, hop, rank, **extra):
    return {"chunk_id": cid, "text": "", "source": "s", "title": cid, "score": 0.0, "dense_rank": None,
            "lexical_rank": None, "hop": hop, "rank": rank, **extra}  # fmt: skip


def test_evidence_order_keeps_anchors_then_later_hops_round_robin_then_the_first_hop_tail():
    first = [chunk(f"h1-{i}", 1, i, anchor=i < 2) for i in range(5)]
    first[4].update(named=True, anchor=True)  # the question names this chunk's entity
    second = [chunk("b-0", 2, 0), chunk("b-1", 2, 1), chunk("h1-3", 2, 2), chunk("h1-0", 2, 3)]
    kept = merge_evidence(first, second, budget=6)
    kept = merge_evidence(kept, [chunk("c-0", 3, 0)], budget=6)
    # anchors in their order; h1-3, reached again by hop 2, is confirmed; then each hop's best
    assert [c["chunk_id"] for c in kept] == ["h1-0", "h1-1", "h1-4", "h1-3", "b-0", "c-0"]
    assert kept[0]["hop"] == 1 and kept[3]["confirmed"] and kept[3]["hop"] == 2


def test_the_question_names_a_title_without_its_qualifier():
    assert names_its_title("Who is older, Neil Peart or Geddy Lee?", "Geddy Lee")
    assert names_its_title("Where was Lawless filmed?", "Lawless (TV series)")
    assert not names_its_title("Who founded Rushmore Records?", "Rush")


def test_admitting_the_first_hop_marks_anchors_and_counts_what_it_added():
    hop1 = [chunk("a", 1, 0, title="Blur"), chunk("b", 1, 1), chunk("c", 1, 2), chunk("d", 1, 3, title="Oasis")]
    kept, conflicts, added = admit("Which is older, Blur or Oasis?", 1, [], hop1, budget=3, anchors=2)
    assert [c["chunk_id"] for c in kept] == ["a", "b", "d"]  # "d" is named: an anchor though ranked 4th
    assert all(c["anchor"] for c in kept) and kept[2]["named"] and not kept[1]["named"]
    assert (conflicts, added) == ([], 3)
    again, _, added = admit("Which is older, Blur or Oasis?", 2, kept, [chunk("a", 2, 0)], budget=3, anchors=2)
    assert added == 0 and again == kept  # an anchor reached again stays as it was


def test_only_the_best_chunk_of_a_named_page_is_an_anchor():
    # "Postgres" names the manual page "postgres"; its other chunks are tail a later hop may displace
    hop1 = [chunk(f"p{i}", 1, i, title="postgres") for i in (0, 1, 3, 4)] + [chunk("port", 1, 2, title="Connections")]
    kept, _, _ = admit("What port does Postgres listen on?", 1, [], hop1, budget=5, anchors=1)
    assert [c["chunk_id"] for c in kept if c["anchor"]] == ["p0"] and all(c["named"] for c in kept[:1])
    later, _, _ = admit("What port does Postgres listen on?", 2, kept, [chunk("pg_ctl", 2, 0)], budget=5, anchors=1)
    assert "port" in [c["chunk_id"] for c in later] and "p4" not in [c["chunk_id"] for c in later]


def test_a_chunk_holding_the_entry_the_question_names_is_an_anchor():
    # "concat()" names its function table's row; the table chunk ranks last and holds few of the question's words
    hop1 = [chunk(f"c{i}", 1, i) for i in range(3)] + [chunk("row", 1, 3, entry_named=True)]
    kept, _, _ = admit("Does concat() give NULL back?", 1, [], hop1, budget=3, anchors=1)
    assert [c["chunk_id"] for c in kept] == ["c0", "row", "c1"] and kept[1]["anchor"]


def test_more_of_a_page_the_pool_holds_ranks_after_the_first_hop_tail():
    hop1 = [chunk("lock-0", 1, 0, title="LOCK"), chunk("select", 1, 1, title="SELECT")]
    hop1 += [chunk("modes", 1, 2, title="Explicit Locking")]
    kept, _, _ = admit("What lock does SELECT take?", 1, [], hop1, budget=3, anchors=1)
    hop2 = [chunk("lock-1", 2, 0, title="LOCK"), chunk("lock-2", 2, 1, title="LOCK", linked_from="select")]
    later, _, _ = admit("What lock does SELECT take?", 2, kept, hop2, budget=3, anchors=1)
    # a query's second LOCK chunk does not push out the page on lock modes; a graph link does
    assert [c["chunk_id"] for c in later] == ["lock-0", "select", "lock-2"]  # SELECT is named: an anchor
    assert later[2]["repeat"] is False


def test_a_rewording_of_a_single_hop_question_ranks_after_the_first_hop_tail():
    hop1 = [chunk(f"h1-{i}", 1, i) for i in range(4)]
    kept, _, _ = admit("What is the default of work_mem?", 1, [], hop1, budget=4, anchors=2)
    hop2 = [chunk("reworded", 2, 0), chunk("linked", 2, 1, linked_from="h1-0"), chunk("work_mem", 2, 2)]
    single, _, _ = admit("What is the default of work_mem?", 2, kept, hop2, budget=5, anchors=2, single_hop=True)
    # a graph link and a chunk about the entity the question names still displace the tail
    assert [c["chunk_id"] for c in single] == ["h1-0", "h1-1", "linked", "work_mem", "h1-2"]
    assert not any(c.get("reworded") for c in single)
    multi, _, _ = admit("What is the default of work_mem?", 2, kept, hop2, budget=5, anchors=2)
    assert [c["chunk_id"] for c in multi][:3] == ["h1-0", "h1-1", "reworded"]  # a chain's next link


def test_an_older_version_of_a_document_is_superseded_by_the_newer():
    old = chunk("old", 1, 0, title="Refund policy", source="/v1/refunds.md", version="2023-01-01", locator="/v1#0")
    new = chunk("new", 1, 1, title="Refund Policy", source="/v2/refunds.md", version="2024-05-01", locator="/v2#0")
    other = chunk("x", 1, 2, title="Shipping", source="/v1/shipping.md", version="2020")
    marked, conflicts = prefer_newer([old, new, other])
    assert marked[0]["superseded_by"] == "new" and "superseded_by" not in marked[1] | marked[2]
    expected = {"title": "Refund Policy", "preferred": "/v2#0@2024-05-01", "superseded": ["/v1#0@2023-01-01"]}
    assert conflicts == [expected]
