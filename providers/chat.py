"""Chat model factory for the LLM deciders."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from core.errors import ConfigurationError
from core.settings import Settings


def load_chat_model(settings: Settings) -> BaseChatModel | None:
    """The configured chat model, or ``None`` when none is configured.

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
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model=spec,
            temperature=0,
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key or "not-needed",
            timeout=60,
            max_retries=2,
        )
    except ImportError as exc:
        raise ConfigurationError(f"chat model '{spec}': {str(exc).splitlines()[0]}") from exc
    except Exception as exc:
        raise ConfigurationError(f"cannot create chat model '{spec}': {exc}") from exc
