"""Decision makers behind the graph's nodes: one module per decision point, each holding its
protocol, its result type, a model-free version and an LLM version.

:func:`build_deciders` wires one complete set: model-free without a chat model, LLM with one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Collection

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from core.errors import ConfigurationError
from core.tuning import TUNING, Tuning
from deciders.decomposer import Decomposer, LLMDecomposer, RuleDecomposer
from deciders.expander import Expander, LLMExpander, NoExpander
from deciders.generator import ExtractiveGenerator, Generator
from deciders.grader import Grader, LexicalGrader, LLMGrader
from deciders.grounder import Grounder, LexicalGrounder, LLMGrounder
from deciders.link_chooser import LinkChooser, LLMLinkChooser, RankedLinkChooser
from deciders.llm import DEFAULT_LIMITS, CallLimits
from deciders.llm_generator import LLMGenerator
from deciders.reformulator import FeedbackReformulator, LLMReformulator, Reformulator
from deciders.router import LLMRouter, Router, RuleRouter


@dataclass
class Deciders:
    """One decider per decision point."""

    router: Router
    grader: Grader
    reformulator: Reformulator
    link_chooser: LinkChooser
    generator: Generator
    grounder: Grounder
    decomposer: Decomposer
    expander: Expander


DECISION_POINTS = tuple(f.name for f in fields(Deciders))
"""The decision points, by name: router, grader, reformulator, … (``AGENTIC_RAG_LLM_DECIDERS``)."""


def build_deciders(
    model: BaseChatModel | None,
    tuning: Tuning = TUNING,
    min_relevance: float = 0.4,
    embeddings: Embeddings | None = None,
    limits: CallLimits = DEFAULT_LIMITS,
    use_model: Collection[str] = DECISION_POINTS,
) -> Deciders:
    """The LLM deciders over ``model`` (calling it within ``limits``) at the decision points
    named in ``use_model``, the model-free ones elsewhere, or everywhere when ``model`` is
    ``None`` (``min_relevance`` is the lexical grader's threshold; ``embeddings``, the
    collection's model, lets the extractive generator rank sentences by similarity too).

    Raises:
        ConfigurationError: ``use_model`` names an unknown decision point.
    """
    unknown = sorted(set(use_model) - set(DECISION_POINTS))
    if unknown:
        raise ConfigurationError(f"unknown decision point(s) {', '.join(unknown)}; valid: {', '.join(DECISION_POINTS)}")
    free = Deciders(
        router=RuleRouter(),
        grader=LexicalGrader(min_relevance, tuning),
        reformulator=FeedbackReformulator(tuning),
        link_chooser=RankedLinkChooser(),
        generator=ExtractiveGenerator(tuning, embeddings),
        grounder=LexicalGrounder(tuning),
        decomposer=RuleDecomposer(tuning),
        expander=NoExpander(),
    )
    if model is None:
        return free
    llm = {
        "router": lambda: LLMRouter(model, tuning, limits),
        "grader": lambda: LLMGrader(model, tuning, limits, min_relevance),
        "reformulator": lambda: LLMReformulator(model, tuning, limits),
        "link_chooser": lambda: LLMLinkChooser(model, tuning, limits),
        "generator": lambda: LLMGenerator(model, tuning, limits, embeddings),
        "grounder": lambda: LLMGrounder(model, tuning, limits),
        "decomposer": lambda: LLMDecomposer(model, tuning, limits),
        "expander": lambda: LLMExpander(model, tuning, limits),
    }
    return replace(free, **{name: llm[name]() for name in use_model})


__all__ = ["DECISION_POINTS", "Deciders", "build_deciders"]
