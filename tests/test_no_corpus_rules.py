"""The shared code path names no one manual's vocabulary or formats: what depends on a corpus is
learned from data (deciders/reader.py) or configured per collection, never written into the
code. Strings the code runs with (patterns, word lists, headers) are checked; docstrings and
comments, which may use a manual's names as examples, are not."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_PATH = ("agentic_rag", "core", "deciders", "graph", "nodes", "prompts", "providers", "store", "ingest")
"""Every package but evaluation/ and bench/, which may name the manuals they measure on."""
FORBIDDEN = re.compile(
    r"\bpsql\b|\bGUC\b|Upper Limit|\bBLCKSZ\b|postgresql\.conf|\bwork_mem\b|shared_buffers|"
    r"max_connections|\bwal_level\b|\bautovacuum|\bVACUUM\b|ACCESS EXCLUSIVE|ROW EXCLUSIVE|SHARE UPDATE EXCLUSIVE|"
    r"ROW SHARE|table-level lock|"
    r"\bclusterdb\b|\bvacuumdb\b|\binitdb\b|\bpg_dump\b|\(integer\)|\(floating point\)|wrapper around the SQL|"
    r"\bmanage\.py\b|\bshopt\b|\bsetopt\b",
    re.I,
)
"""One manual's names (the PostgreSQL manual's settings, programs, lock modes, entry formats and
table headers; Django's, Bash's and zsh's commands)."""
SERVER_CONFIGURATION = {Path("store/embedded.py")}
"""Modules that configure the embedded PostgreSQL server itself (its ``wal_level`` in its
``postgresql.conf``): the server's own settings, never read from or matched against a document."""


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings: a module's, class's or function's first
    statement, and a bare string after an assignment (an attribute's docstring)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for stmt in body:
                value = stmt.value if isinstance(stmt, ast.Expr) else None
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.add(id(value))
    return found


def code_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant in ``path`` that is not a docstring."""
    tree = ast.parse(path.read_text())
    skip = _docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
    ]


def test_no_string_the_shared_code_runs_with_names_one_manuals_vocabulary():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {FORBIDDEN.search(text)[0]!r}"
        for package in SHARED_PATH
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.relative_to(ROOT) not in SERVER_CONFIGURATION
        for line, text in code_strings(path)
        if FORBIDDEN.search(text)
    ]
    assert not found, "corpus rules in the shared path:\n" + "\n".join(found)


def test_the_check_sees_a_rule_and_not_a_docstring(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""Reads work_mem (integer) entries."""\nLINE = "- work_mem (integer)"\n')
    assert [text for _, text in code_strings(module)] == ["- work_mem (integer)"]
