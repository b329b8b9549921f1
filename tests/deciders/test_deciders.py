"""build_deciders (deciders/__init__.py): the model-free set or the LLM set."""

from __future__ import annotations

import pytest
from conftest import scripted

from core.errors import ConfigurationError
from core.settings import LOCAL_LLM_DECIDERS, Settings
from core.tuning import Tuning
from deciders import Deciders, build_deciders
from deciders.grader import LexicalGrader
from deciders.link_chooser import LLMLinkChooser, RankedLinkChooser
from deciders.llm_generator import LLMGenerator


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


def test_the_model_takes_only_the_decision_points_named():
    deciders = build_deciders(scripted(), use_model=["generator", "expander"])
    assert isinstance(deciders.generator, LLMGenerator) and isinstance(deciders.grader, LexicalGrader)
    assert [name for name, d in vars(deciders).items() if getattr(d, "name", "").startswith("llm:")] == [
        "generator", "expander",
    ]  # fmt: skip
    with pytest.raises(ConfigurationError, match="unknown decision point.*graders.*valid: router"):
        build_deciders(scripted(), use_model=["graders"])


def test_a_local_model_defaults_to_the_decision_points_it_measured_at_least_as_good_on():
    assert Settings(chat_model="local").model_decision_points == LOCAL_LLM_DECIDERS.split(",")
    assert Settings(chat_model="local:qwen2.5-coder-1.5b").model_decision_points == LOCAL_LLM_DECIDERS.split(",")
    assert Settings(chat_model="gpt-4o-mini").model_decision_points is None  # every decision point
    assert Settings(chat_model="local", llm_deciders="grader, generator").model_decision_points == [
        "grader",
        "generator",
    ]
