"""Command-line field parsing (agentic_rag/options.py) into run filters (store/filters.py)."""

from __future__ import annotations

from agentic_rag.options import field_values
from store.filters import ChunkFilter


def test_a_number_like_filter_value_keeps_the_text_the_user_typed():
    values = field_values(["version=2.10", "chunk_index=3", 'title=["A", "B"]'], "--filter")
    assert values == {"version": "2.10", "chunk_index": "3", "title": ["A", "B"]}
    built = ChunkFilter.build(fields=values)
    assert dict(built.fields) == {"chunk_index": (3,), "title": ("A", "B"), "version": ("2.10",)}


def test_a_repeated_field_collects_its_values():
    assert field_values(["version=1.0", "version=1.10"], "--filter") == {"version": ["1.0", "1.10"]}
