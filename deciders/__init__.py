"""Decision makers behind the graph's nodes: one module per decision point, each holding its
protocol, its result type, a model-free version and an LLM version.

:func:`build_deciders` wires one complete set: model-free without a chat model, LLM with one.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

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


def build_deciders(
    model: BaseChatModel | None,
    tuning: Tuning = TUNING,
    min_relevance: float = 0.4,
    embeddings: Embeddings | None = None,
    limits: CallLimits = DEFAULT_LIMITS,
) -> Deciders:
    """The model-free deciders when ``model`` is ``None`` (``min_relevance`` is the lexical
    grader's threshold; ``embeddings``, the collection's model, lets the extractive generator
    rank sentences by similarity too), else the LLM deciders over ``model``, calling it within
    ``limits``."""
    if model is None:
        return Deciders(
            router=RuleRouter(),
            grader=LexicalGrader(min_relevance, tuning),
            reformulator=FeedbackReformulator(tuning),
            link_chooser=RankedLinkChooser(),
            generator=ExtractiveGenerator(tuning, embeddings),
            grounder=LexicalGrounder(tuning),
            decomposer=RuleDecomposer(tuning),
            expander=NoExpander(),
        )
    return Deciders(
        router=LLMRouter(model, tuning, limits),
        grader=LLMGrader(model, tuning, limits, min_relevance),
        reformulator=LLMReformulator(model, tuning, limits),
        link_chooser=LLMLinkChooser(model, tuning, limits),
        generator=LLMGenerator(model, tuning, limits),
        grounder=LLMGrounder(model, tuning, limits),
        decomposer=LLMDecomposer(model, tuning, limits),
        expander=LLMExpander(model, tuning, limits),
    )


__all__ = ["Deciders", "build_deciders"]
