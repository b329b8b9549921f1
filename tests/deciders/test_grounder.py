"""Grounders (deciders/grounder.py): lexical support of each claim, the LLM check and its fallback."""

from __future__ import annotations

from conftest import scripted

from core.tuning import Tuning
from deciders.generator import NO_ANSWER
from deciders.grounder import LexicalGrounder, LLMGrounder

ALBUM = {"title": "Counterparts (album)", "text": "Counterparts is the fifteenth studio album by Rush."}
BAND = {"title": "Rush (band)", "text": "Rush was a Canadian rock band from Toronto."}
CITED = [(1, ALBUM), (2, BAND)]


def test_lexical_grounder_checks_each_claim_against_the_chunks_it_cites():
    grounder = LexicalGrounder()
    grounded = grounder.check("Counterparts is an album by Rush [1]. Rush was a band from Toronto [2].", CITED)
    assert grounded.unsupported == [] and grounded.checked == 2
    # the second claim cites the album only, which says nothing of Paris or Grammys
    wrong = grounder.check("Counterparts is an album by Rush [1]. Rush came from Paris and won ten Grammys [1].", CITED)
    assert wrong.unsupported == ["Rush came from Paris and won ten Grammys"] and wrong.checked == 2


def test_questions_and_statements_of_absence_are_not_checked():
    answer = f"Was Rush from Paris? {NO_ANSWER} say. Rush was a band from Toronto [2]."
    grounding = LexicalGrounder().check(answer, CITED)
    assert grounding.unsupported == [] and grounding.checked == 1 and grounding.decider == "rules"


def test_a_claim_citing_nothing_is_checked_against_every_cited_chunk():
    assert LexicalGrounder().check("Rush was a Canadian band; Counterparts is their album.", CITED).unsupported == []


def test_the_support_needed_comes_from_the_tuning():
    claim = "Rush was a Canadian rock band from Toronto, Ontario [2]."  # 6 of 7 terms: 0.86
    assert LexicalGrounder().check(claim, CITED).unsupported == []
    assert LexicalGrounder(Tuning(min_support=0.9)).check(claim, CITED).unsupported == [claim[:-5]]


def test_llm_grounder_lists_what_the_model_found_unsupported():
    model = scripted(ground='{"unsupported": ["won ten Grammys", "  "]}')
    grounding = LLMGrounder(model).check("Rush came from Toronto. Rush won ten Grammys [1].", CITED)
    assert grounding.unsupported == ["won ten Grammys"] and grounding.checked == 2
    assert grounding.decider == "llm:ScriptedChatModel" and grounding.note is None


def test_llm_grounder_garbage_falls_back_to_the_lexical_check():
    grounding = LLMGrounder(scripted(ground="looks fine to me")).check("Rush came from Paris [2].", CITED)
    assert grounding.unsupported == ["Rush came from Paris"] and grounding.decider == "rules"
    assert grounding.note.startswith("invalid reply") and grounding.note.endswith("; lexical check instead")
