"""Chat model factory for the LLM deciders."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from core.errors import ConfigurationError
from core.settings import Settings
from providers.local_llm import LocalServer, resolve_model


def openai_compatible(settings: Settings, model: str, base_url: str | None) -> BaseChatModel:
    """``ChatOpenAI`` at ``base_url`` with the settings' timeout, temperature 0, no client-side
    retries (the deciders retry, ``llm_max_retries``, within the question's time limit)."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=model,
        temperature=0,
        base_url=base_url,
        api_key=settings.openai_api_key or "not-needed",
        timeout=settings.llm_timeout_s,
        max_retries=0,  # the deciders retry within the question's time limit (deciders/llm.py)
    )


def load_chat_model(settings: Settings) -> BaseChatModel | None:
    """The configured chat model, or ``None`` when none is configured (a ``local`` model is
    started by :func:`start_local_model` instead).

    ``settings.chat_model`` is an OpenAI model name (served by ``OPENAI_BASE_URL`` when set, so
    Ollama, vLLM or a llama.cpp server work), or ``provider:model`` for LangChain's
    ``init_chat_model``.

    Raises:
        ConfigurationError: the provider package is missing or the model cannot be created.
    """
    spec = settings.resolved_chat_model
    if spec is None:
        return None
    try:
        if ":" in spec:
            from langchain.chat_models import init_chat_model

            return init_chat_model(spec, temperature=0)
        return openai_compatible(settings, spec, settings.openai_base_url)
    except ImportError as exc:
        raise ConfigurationError(f"chat model '{spec}': {str(exc).splitlines()[0]}") from exc
    except Exception as exc:
        raise ConfigurationError(f"cannot create chat model '{spec}': {exc}") from exc


def start_local_model(settings: Settings) -> tuple[BaseChatModel, LocalServer]:
    """Start a llama.cpp server for ``settings.chat_model`` (``local[:name or path]``) and return
    a chat model speaking to it over its OpenAI-compatible API, and the server (close it when
    done). One slot per ``llm_concurrency`` call in flight.

    Raises:
        LocalModelError: runtime missing, model missing or corrupt, port busy, start timeout.
    """
    spec = settings.chat_model or "local"
    model_path = resolve_model(spec.partition(":")[2], settings.models_dir)
    server = LocalServer(
        model_path,
        port=settings.local_port,
        context=settings.local_context * settings.llm_concurrency,
        parallel=settings.llm_concurrency,
        threads=settings.local_threads,
    )
    return openai_compatible(settings, model_path.stem, server.url), server
