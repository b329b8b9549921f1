"""One page, one copy (issue 49, item 7): a folder holding a page twice, as an HTML page and as its
text source, is indexed once and the ingest says which copy it skipped; ingesting it again
parses nothing; the copy is ingested once the page it copies leaves the folder, and gives way
again when the page returns. Real ingests into the embedded PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_rag.output import print_ingest
from ingest import parallel
from ingest.copies import POOL_TIER, CopyFinder, format_tier, page_sketch
from ingest.loaders import load_file

KEA = [
    "The kea is a large species of parrot in the family Nestoridae found in the forested and alpine regions of "
    "the South Island of New Zealand. About 48 cm long, it is mostly olive-green with a brilliant orange under "
    "its wings and has a large, narrow, curved, grey-brown upper beak.",
    "The kea is the world's only alpine parrot. Its omnivorous diet includes carrion, but consists mainly of "
    "roots, leaves, berries, nectar, and insects. Now uncommon, the kea was once killed for bounty due to "
    "concerns by the sheep-farming community that it attacked livestock, especially sheep.",
    "Kea nest in burrows or crevices among the roots of trees. They are known for their intelligence and "
    "curiosity, both vital to their survival in a harsh mountain environment.",
]
TUI = (
    "The tui is a boisterous medium-sized bird native to New Zealand, blue, green and bronze with a white throat "
    "tuft. Tui pollinate flax, kowhai and pohutukawa, and sing songs beyond the range of human hearing."
)


def html(title: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{p.replace(chr(39), '&rsquo;')}</p>" for p in paragraphs)
    return f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"


def text_source(title: str, paragraphs: list[str]) -> str:
    """The page as its reStructuredText source would hold it: an underlined title, lines wrapped
    at 72 columns, a role."""
    import textwrap

    wrapped = [textwrap.fill(p.replace("Nestoridae", "*Nestoridae*"), 72) for p in paragraphs]
    return f"{title}\n{'=' * len(title)}\n\n" + "\n\n".join(wrapped) + "\n"


def kea_folder(root: Path) -> Path:
    root.mkdir(exist_ok=True)
    (root / "kea.html").write_text(html("Kea", KEA))
    (root / "kea.txt").write_text(text_source("Kea", KEA))
    (root / "tui.html").write_text(html("Tui", [TUI]))
    return root.resolve()


def sources(app) -> list[str]:
    return [Path(s).name for s in app.services.store.catalog.sources_under("")]


def test_a_page_and_its_text_copy_are_ingested_once_and_the_copy_is_reported(make_app, tmp_path, capsys):
    root = kea_folder(tmp_path / "birds")
    app = make_app()
    report = app.ingest([root])
    assert report.files == 2 and report.copies == [(str(root / "kea.txt"), str(root / "kea.html"))]
    assert sources(app) == ["kea.html", "tui.html"]
    print_ingest(report, "birds", app.services.store.count())
    out = capsys.readouterr()
    assert "3 files: 2 ingested, 0 unchanged, 1 copy skipped;" in out.out
    assert "kept one file per page: skipped 1 copy: kea.txt (kea.html kept)" in out.err


def test_ingesting_the_folder_again_parses_nothing_and_changes_nothing(make_app, tmp_path, monkeypatch):
    root = kea_folder(tmp_path / "birds")
    app = make_app()
    first = app.ingest([root])
    parsed = []
    monkeypatch.setattr(parallel, "load_file", lambda path, *args: parsed.append(path.name) or load_file(path, *args))
    again = app.ingest([root])
    assert parsed == []  # the copy too is recognised by its bytes' hash and its stored sketch
    assert (again.files, again.unchanged, again.added, again.removed) == (2, 2, 0, 0)
    assert again.copies == first.copies and sources(app) == ["kea.html", "tui.html"]


def test_the_copy_is_ingested_when_its_page_leaves_and_gives_way_when_it_returns(make_app, tmp_path):
    root = kea_folder(tmp_path / "birds")
    app = make_app()
    app.ingest([root])
    page = (root / "kea.html").read_text()
    (root / "kea.html").unlink()
    gone = app.ingest([root])
    assert gone.copies == [] and gone.deleted_files == 1 and gone.added >= 1
    assert sources(app) == ["kea.txt", "tui.html"]
    (root / "kea.html").write_text(page)
    back = app.ingest([root])
    assert back.copies == [(str(root / "kea.txt"), str(root / "kea.html"))]
    assert back.removed >= 1 and sources(app) == ["kea.html", "tui.html"]  # the text copy's chunks went


def test_files_of_one_format_are_two_pages_however_alike(make_app, tmp_path):
    """Release notes of two branches share their text (Django's, 0.98 alike): both are kept."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "1.4.14.html").write_text(html("Django 1.4.14 release notes", KEA))
    (root / "1.5.9.html").write_text(html("Django 1.5.9 release notes", KEA))
    report = make_app().ingest([root])
    assert report.files == 2 and report.copies == []


FLASK = Path("/usr/share/doc/python-flask-doc/html")


@pytest.mark.skipif(not FLASK.is_dir(), reason="needs Debian's python-flask-doc")
def test_a_sphinx_page_and_its_source_are_one_page_two_pages_of_one_template_are_two():
    """Flask's ``eventlet`` and ``gevent`` pages are written on one template (0.64 alike): the
    nearest distinct pair of the Flask and Python manuals."""
    names = ["deploying/eventlet.html", "deploying/gevent.html", "_sources/deploying/gevent.rst.txt"]
    names += ["quickstart.html", "_sources/quickstart.rst.txt"]
    finder = CopyFinder()
    decided = {}
    for name in sorted(names, key=lambda n: (format_tier(n), n)):
        sketch = page_sketch(load_file(FLASK / name, 1200, 150).chunks)
        decided[name] = finder.copy_of(name, format_tier(name), sketch)
    assert decided["_sources/quickstart.rst.txt"][0] == "quickstart.html"
    assert decided["_sources/deploying/gevent.rst.txt"][0] == "deploying/gevent.html"
    assert decided["deploying/eventlet.html"] is None and decided["quickstart.html"] is None


def chapter(n: int) -> list[str]:
    """Three paragraphs of about 900 characters: each its own chunk, in the chapter's page and in a
    one-page edition alike."""
    return [
        f"Chapter {n}, part {i}: the kea of valley {n * 10 + i} feeds on roots, leaves and berries, and nests in "
        f"burrow number {n * 100 + i} among the roots of old beech trees. " * 6
        for i in range(3)
    ]


def test_a_one_page_edition_of_the_other_pages_is_skipped_and_reported(make_app, tmp_path, capsys, monkeypatch):
    """mdBook's ``print.html`` holds every chapter again: skipped, though its name sorts first."""
    root = tmp_path / "book"
    root.mkdir()
    chapters = {f"chapter{n}.html": (f"Chapter {n}", chapter(n)) for n in (1, 2, 3)}
    for name, (title, paragraphs) in chapters.items():
        (root / name).write_text(html(title, paragraphs))
    body = "".join(f"<h1>{t}</h1>" + "".join(f"<p>{p}</p>" for p in ps) for t, ps in chapters.values())
    (root / "all.html").write_text(f"<html><head><title>The book</title></head><body><main>{body}</main></body></html>")
    app = make_app()
    report = app.ingest([root.resolve()])
    assert report.editions == [(str(root.resolve() / "all.html"), 3)] and report.files == 3
    assert sources(app) == sorted(chapters) and app.services.store.count() == 9
    print_ingest(report, "book", app.services.store.count())
    out = capsys.readouterr()
    assert "4 files: 3 ingested, 0 unchanged, 1 one-page edition(s) skipped;" in out.out
    assert "skipped one-page editions of other pages: all.html (repeats 3 pages)" in out.err
    parsed = []
    monkeypatch.setattr(parallel, "load_file", lambda path, *args: parsed.append(path.name) or load_file(path, *args))
    again = app.ingest([root.resolve()])
    assert parsed == [] and again.editions == report.editions and (again.added, again.removed) == (0, 0)


def test_a_pool_of_passages_repeating_other_pools_is_no_edition():
    """``bench/scale.py`` builds large collections from JSONL pools of copied paragraphs."""
    from langchain_core.documents import Document

    finder = CopyFinder()
    parts = [[Document(page_content=p) for p in chapter(n)] for n in (1, 2)]
    for n, chunks in enumerate(parts):
        assert finder.copy_of(f"pool{n}.jsonl", POOL_TIER, page_sketch(chunks)) is None
    copied = page_sketch([chunk for chunks in parts for chunk in chunks])
    assert finder.repeated_pages(POOL_TIER, copied) == []
    assert finder.repeated_pages(format_tier("all.html"), copied) == ["pool0.jsonl", "pool1.jsonl"]
