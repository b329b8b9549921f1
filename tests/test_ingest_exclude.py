"""Leaving paths out of a folder's ingestion: ``--exclude`` patterns and a ``.ragignore`` file,
both with gitignore semantics (pathspec), and how the folder mirror treats excluded files."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import IngestError
from ingest.loaders import iter_files
from ingest.pipeline import collect_files


def sphinx_like_folder(root: Path) -> Path:
    """A folder laid out like the Python manual: pages, their ``_sources/`` copies, a note."""
    (root / "library").mkdir(parents=True)
    (root / "_sources" / "library").mkdir(parents=True)
    (root / "library" / "bisect.md").write_text("# bisect\n\nThe bisect module keeps a list in sorted order.\n")
    (root / "_sources" / "library" / "bisect.rst.txt").write_text("bisect\n======\n\nThe source of the page.\n")
    (root / "README.txt").write_text("How this folder was built.")
    (root / "notes.md").write_text("# Notes\n\nThe kakapo is a flightless parrot.\n")
    return root


def names(root: Path, exclude: tuple[str, ...] = ()) -> list[str]:
    return [p.relative_to(root).as_posix() for p in iter_files(root, exclude)]


def test_exclude_patterns_and_ragignore_follow_gitignore_rules(tmp_path):
    root = sphinx_like_folder(tmp_path)
    everything = ["README.txt", "_sources/library/bisect.rst.txt", "library/bisect.md", "notes.md"]
    assert names(root) == everything
    assert names(root, ("_sources/*",)) == ["README.txt", "library/bisect.md", "notes.md"]
    assert names(root, ("_sources/", "*.txt")) == ["library/bisect.md", "notes.md"]
    assert names(root, ("/bisect.md",)) == everything  # anchored to the folder: library/bisect.md stays
    (root / ".ragignore").write_text("# Sphinx copies of the page sources\n_sources/\n\n*.txt\n!README.txt\n")
    assert names(root) == ["README.txt", "library/bisect.md", "notes.md"]
    assert names(root, ("README.txt",)) == ["library/bisect.md", "notes.md"]  # the command line comes last
    assert list(iter_files(root / "README.txt", ("*.txt",))) == [root / "README.txt"]  # named directly: kept


def test_invalid_pattern_and_everything_excluded_are_ingest_errors(tmp_path):
    root = sphinx_like_folder(tmp_path)
    with pytest.raises(IngestError, match="--exclude or .ragignore"):
        collect_files([root], exclude=["a/**b\\"])
    with pytest.raises(IngestError, match="no supported files.*check the --exclude"):
        collect_files([root], exclude=["*"])


def test_excluding_an_ingested_file_drops_its_chunks_like_a_deleted_one(make_app, tmp_path):
    root = sphinx_like_folder(tmp_path)
    app = make_app()
    first = app.ingest([root])
    assert (first.files, first.added) == (4, 4)
    store = app.services.store
    assert store.lexical.search("source page", 5)

    second = app.ingest([root], exclude=["_sources/", "*.txt"])
    assert (second.files, second.unchanged, second.excluded_files, second.deleted_files) == (2, 2, 2, 0)
    assert second.removed == 2 and store.count() == store.lexical.size() == 2
    assert store.lexical.search("source page", 5) == []
    assert not [s for s in store.catalog.sources_under(f"{root.resolve()}/") if "_sources" in s]

    (root / ".ragignore").write_text("_sources/\n*.txt\n")
    third = app.ingest([root])  # the same exclusions, from the folder's .ragignore
    assert (third.files, third.unchanged, third.added, third.removed, third.excluded_files) == (2, 2, 0, 0, 0)

    (root / ".ragignore").unlink()
    (root / "notes.md").unlink()
    fourth = app.ingest([root])  # nothing excluded any more: the copies come back; notes.md is gone
    assert (fourth.added, fourth.deleted_files, fourth.excluded_files) == (2, 1, 0)
    assert store.lexical.search("kakapo", 5) == [] and store.lexical.search("source page", 5)
