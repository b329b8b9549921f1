"""The layers: every module imports only its own folder and the folders below it (imports read
with the standard library's ``ast``), there is no import cycle, and no module outside the tests
passes 350 lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LAYERS = [
    ["core"],
    ["providers"],
    ["store"],
    ["ingest"],
    ["prompts"],
    ["deciders"],
    ["graph"],
    ["nodes"],
    ["evaluation"],
    ["agentic_rag"],
    ["bench"],
]
"""Bottom first; a module may import its own folder and any folder of a lower layer."""
LEVEL = {folder: level for level, folders in enumerate(LAYERS) for folder in folders}
MAX_LINES = 350


def modules() -> list[Path]:
    return sorted(p for folder in LEVEL for p in (ROOT / folder).rglob("*.py"))


def imported_folders(path: Path) -> set[str]:
    """Our top-level folders that ``path`` imports (anywhere in the module, lazily or not)."""
    found = set()
    for item in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(item, ast.Import):
            names = [alias.name for alias in item.names]
        elif isinstance(item, ast.ImportFrom) and item.level == 0 and item.module:
            names = [item.module]
        else:
            continue
        found |= {name.split(".")[0] for name in names if name.split(".")[0] in LEVEL}
    return found


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_import_points_down_or_within_its_folder():
    upward = []
    for path in modules():
        own = path.relative_to(ROOT).parts[0]
        upward += [
            f"{path.relative_to(ROOT)} imports {folder} ({LEVEL[folder]} > {LEVEL[own]})"
            for folder in imported_folders(path)
            if LEVEL[folder] > LEVEL[own]
        ]
    assert not upward, "\n".join(upward)


def test_no_import_cycle_between_modules():
    names = {module_name(p): p for p in modules()}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        targets = set()
        for item in ast.walk(ast.parse(path.read_text())):
            if isinstance(item, ast.ImportFrom) and item.level == 0 and item.module:
                candidates = [item.module, *(f"{item.module}.{alias.name}" for alias in item.names)]
            elif isinstance(item, ast.Import):
                candidates = [alias.name for alias in item.names]
            else:
                continue
            targets |= {c for c in candidates if c in names and c != name}
        graph[name] = targets
    # a package's __init__ importing its own submodules is not a cycle through them
    for name in graph:
        graph[name] = {t for t in graph[name] if not (t.startswith(f"{name}.") and "." not in t[len(name) + 1 :])}
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                return [*path, name, target]
            if target not in state and (cycle := visit(target, [*path, name])):
                return cycle
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state:
            cycle = visit(name, [])
            assert cycle is None, " → ".join(cycle)


def test_the_checker_sees_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom graph.state import AgentState\n\ndef f():\n    from agentic_rag.app import App\n")
    assert imported_folders(bad) == {"graph", "agentic_rag"}


def test_no_module_outside_the_tests_is_over_350_lines():
    long = [f"{p.relative_to(ROOT)}: {n}" for p in modules() if (n := len(p.read_text().splitlines())) > MAX_LINES]
    assert not long, long
