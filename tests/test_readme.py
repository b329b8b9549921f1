"""The README a newcomer reads: short, its links lead somewhere, its configuration tables name every
setting, and its commands run as shown on a fresh clone.

The command test runs, in the README's order and in a fresh data folder, every command of its
``bash`` blocks that use the demo collection (``pydocs``) or this clone's ``docs/`` folder, and its
Python snippet as a plain script. Left out: what needs the network or a model server (package
installs, model downloads, a hosted or local chat model, ``langgraph dev``), and the test run of
the second setup command, which is this very run."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 250
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
SETUP = re.compile(r"^(python3 -m venv|\S*pip install|\S*python -m pytest)")
"""Parts of a command line that set up the clone or run the tests: done by whoever runs this test."""
OUTSIDE = re.compile(r"pip install|model install|langgraph dev|OPENAI_|--chat-model|--deciders llm|mkdocs serve")
"""What needs the network or a model server."""
DEMO = re.compile(r"--collection pydocs|agentic-rag demo|docs/|--thread readme-")
"""The blocks a fresh clone can run: the demo collection, the clone's own docs/ folder, the
threads asked there."""


def fenced(language: str) -> list[str]:
    """The README's code blocks in ``language``, in order."""
    return [body for lang, body in FENCE.findall(README.read_text()) if lang == language]


def runnable(line: str) -> str | None:
    """The part of a README command line a fresh clone runs offline: setup parts dropped
    (``python3 -m venv … && pip install … &&``), ``None`` when what remains needs the network or
    a model server, or nothing remains."""
    parts = [part.strip() for part in line.split(" && ") if not SETUP.match(part.strip())]
    if not parts or any(OUTSIDE.search(part) for part in parts):
        return None
    return " && ".join(parts)


def offline_env(data_dir: Path) -> dict:
    """This environment without any model, external database or telemetry setting, and with a
    fresh data folder."""
    kept = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AGENTIC_RAG_", "OPENAI_", "OTEL_", "LANGSMITH_")) and k != "DATABASE_URL"
    }
    return {**kept, "AGENTIC_RAG_DATA_DIR": str(data_dir)}


def test_readme_is_short():
    lines = README.read_text().count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; at most {MAX_LINES}: move details to docs/"


def test_readme_links_lead_somewhere():
    text = README.read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    missing = [t for t in targets if not t.startswith(("http://", "https://")) and not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_readme_configuration_names_every_setting():
    """Every environment variable of :class:`core.settings.Settings` and every field of
    :class:`graph.context.RunContext` has a row in the README's configuration tables."""
    from pydantic import AliasChoices

    from core.settings import Settings
    from graph.context import RunContext

    text = README.read_text()
    missing = []
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias
        names = alias.choices if isinstance(alias, AliasChoices) else [alias] if alias else []
        if not any(f"`{n}`" in text for n in [*map(str, names), f"AGENTIC_RAG_{name.upper()}"]):
            missing.append(f"Settings.{name}")
    missing += [f"RunContext.{f.name}" for f in dataclasses.fields(RunContext) if f"`{f.name}`" not in text]
    assert not missing, f"README.md's configuration tables lack: {', '.join(missing)}"


def readme_steps() -> list[tuple[str, str]]:
    """``("bash", command)`` and ``("python", script)`` in README order, as a fresh clone runs them."""
    steps = []
    for language, body in FENCE.findall(README.read_text()):
        if language == "bash" and DEMO.search(body):
            for line in body.splitlines():
                command = re.sub(r"\s+#.*$", "", line).strip()  # trailing comments stay in the README
                if command and not command.startswith("#") and (run := runnable(command)):
                    steps.append(("bash", run))
        elif language == "python" and "App(" in body:
            steps.append(("python", body))
    return steps


def test_readme_has_runnable_steps():
    steps = readme_steps()
    kinds = {kind for kind, _ in steps}
    assert kinds == {"bash", "python"}, f"expected shell commands and a Python snippet to run, got {steps}"
    assert steps[0] == ("bash", ".venv/bin/agentic-rag demo"), "the README starts with the demo"


def test_readme_commands_run_as_shown(tmp_path):
    """Each step exits 0 in a fresh data folder; an ``ask`` prints its trace (or, with ``--json``,
    one JSON object with an answer)."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "agentic-rag").exists():
        pytest.skip(f"no agentic-rag console script beside {sys.executable}: install the project (pip install -e .)")
    env = offline_env(tmp_path / "data")
    for kind, step in readme_steps():
        if kind == "python":
            script = tmp_path / "readme_snippet.py"
            script.write_text(step)
            argv, shown = [sys.executable, str(script)], "the README's Python snippet"
        else:
            argv, shown = ["bash", "-c", step.replace(".venv/bin/", f"{bin_dir}/")], step
        proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{shown} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        if kind == "bash" and " ask " in step:
            if "--json" in step:
                assert json.loads(proc.stdout)["answer"], f"{shown}: no answer in {proc.stdout[:500]}"
            else:
                assert "Trace:" in proc.stdout, f"{shown} printed no trace:\n{proc.stdout[-2000:]}"
