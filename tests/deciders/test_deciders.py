"""build_deciders (deciders/__init__.py): the model-free set or the LLM set."""

from __future__ import annotations

from conftest import scripted

from core.tuning import Tuning
from deciders import Deciders, build_deciders
from deciders.grader import LexicalGrader
from deciders.link_chooser import LLMLinkChooser, RankedLinkChooser


def test_without_a_model_the_model_free_set_with_its_threshold_and_tuning():
    deciders = build_deciders(None, Tuning(chain_weight=0.5), min_relevance=0.3)
    assert list(vars(deciders)) == [
        "router", "grader", "reformulator", "link_chooser", "generator", "grounder", "decomposer", "expander",
    ]  # fmt: skip
    assert isinstance(deciders.grader, LexicalGrader) and isinstance(deciders.link_chooser, RankedLinkChooser)
    assert deciders.grader.min_relevance == 0.3 and deciders.grader.chain_weight == 0.5
    assert deciders.router.route("hello", []).decider == "rules"


def test_with_a_model_every_decider_is_the_llm_one():
    deciders = build_deciders(scripted(route='{"route": "direct"}'))
    assert isinstance(deciders, Deciders) and isinstance(deciders.link_chooser, LLMLinkChooser)
    assert deciders.router.route("hello", []).decider == "llm:ScriptedChatModel"
    assert all(getattr(d, "name", "").startswith("llm:") for d in vars(deciders).values())
