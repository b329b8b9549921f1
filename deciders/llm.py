"""Shared plumbing of the LLM deciders, over any LangChain chat model.

Deciders ask for structured output (``with_structured_output``) and fall back to parsing JSON
out of a plain reply for models without tool calling. Whatever a model returns, a decider never
raises: an invalid or empty reply becomes the conservative choice (retrieve; not relevant; keep
the query; extractive answer) with a ``note`` saying what happened, which the trace records.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import JsonOutputParser
from pydantic import BaseModel, ValidationError

from core.tuning import TUNING, Tuning
from store.chunks import Chunk

Schema = TypeVar("Schema", bound=BaseModel)


def short_error(exc: BaseException) -> str:
    """``ExceptionType: first line of its message`` (at most 160 characters of it), for notes."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160]}" if text else type(exc).__name__


def model_name(model: BaseChatModel) -> str:
    """``llm:<model name>`` for traces."""
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
    return f"llm:{name}"


class LLMDecider:
    """Base of the LLM deciders: the chat model, the name traces show (``llm:<model class>``), the
    tuning, and — when the subclass names a model-free ``fallback`` class — an instance of it
    (built with the same tuning) to answer when the model's reply is unusable."""

    fallback: type | None = None

    def __init__(self, model: BaseChatModel, tuning: Tuning = TUNING) -> None:
        self.model = model
        self.name = model_name(model)
        self.tuning = tuning
        self._fallback = self.fallback(tuning) if self.fallback else None


def ask_structured(
    model: BaseChatModel, schema: type[Schema], system: str, user: str
) -> tuple[Schema | None, str | None]:
    """Ask for a reply shaped as ``schema``.

    Returns:
        (parsed reply, None) on success; (None, note) when neither structured output nor the
        JSON fallback produced a valid reply. Never raises for model errors.
    """
    messages = [SystemMessage(system), HumanMessage(user)]
    note = None
    try:
        structured = model.with_structured_output(schema)
    except NotImplementedError:
        structured = None  # no tool calling: parse JSON from plain text below
    if structured is not None:
        try:
            out = structured.invoke(messages)
            if isinstance(out, schema):
                return out, None
            if isinstance(out, dict):
                return schema.model_validate(out), None
            note = f"structured output returned {type(out).__name__}"
        except Exception as exc:  # providers raise many types; fall back to plain text
            note = f"structured output failed ({short_error(exc)})"
    try:
        reply = model.invoke(messages)
        return schema.model_validate(JsonOutputParser().parse(str(reply.content))), None
    except (ValidationError, ValueError) as exc:
        return None, f"invalid reply ({short_error(exc)})" + (f"; {note}" if note else "")
    except Exception as exc:
        return None, f"model call failed ({short_error(exc)})"


def format_conversation(conversation: Sequence[BaseMessage], turns: int = 6) -> str:
    """The last ``turns`` messages as ``type: content`` lines (``(none)`` when empty)."""
    lines = [f"{m.type}: {m.content}" for m in conversation[-turns:]]
    return "\n".join(lines) or "(none)"


def provenance(chunk: Chunk) -> str:
    """``title; locator; version …; ingested …`` — what a model is told of a passage's origin."""
    parts = [chunk["title"], chunk.get("locator") or chunk["source"]]
    if chunk.get("version"):
        parts.append(f"version {chunk['version']}")
    if chunk.get("ingested_at"):
        parts.append(f"ingested {chunk['ingested_at']}")
    return "; ".join(parts)


def format_evidence(evidence: Sequence[Chunk], passage_chars: int = TUNING.llm_passage_chars) -> str:
    """The evidence as numbered passages ``[n] (provenance) text``, each text cut to
    ``passage_chars`` characters (``(no evidence)`` when empty)."""
    return (
        "\n\n".join(f"[{i}] ({provenance(c)}) {c['text'][:passage_chars]}" for i, c in enumerate(evidence, 1))
        or "(no evidence)"
    )
