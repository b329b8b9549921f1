"""The ``agentic-rag`` console script: a command the warm service runs (:mod:`agentic_rag.client`)
is handed to it with only the standard library imported; the Typer app (:mod:`agentic_rag.cli`)
is imported for any other, and for one the service cannot take."""

from __future__ import annotations

import sys

from agentic_rag.client import dispatch


def _parses(argv: list[str]) -> bool:
    from agentic_rag.cli import parses

    return parses(argv)


def _run_here() -> None:
    from agentic_rag.cli import run_here

    run_here()


def main() -> None:
    """Run ``sys.argv`` (see the module docstring) and exit with its code."""
    dispatch(sys.argv[1:], _parses, _run_here)
