"""The demo corpus (ingest/pydoc_corpus.py): the Python manual and module pages shipped with CPython."""

from __future__ import annotations

from ingest.pydoc_corpus import MODULES, pydoc_sources


def test_module_pages_are_chunked_without_pydoc_drawing():
    sources = {source.key: source for source in pydoc_sources(chunk_size=1200, chunk_overlap=150)}
    assert {f"pydoc:module/{name}" for name in MODULES} <= set(sources)
    assert any(key.startswith("pydoc:topic/") for key in sources)
    chunks = sources["pydoc:module/itertools"].chunks
    groupby = next(c for c in chunks if "class groupby(builtins.object)" in c.page_content)
    assert "make an iterator that returns consecutive keys and groups" in groupby.page_content
    assert not any(line.lstrip().startswith("|") for c in chunks for line in c.page_content.splitlines())
    assert not any(" at 0x" in c.page_content for c in chunks)  # no memory addresses: stable hashes
