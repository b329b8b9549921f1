"""File readers and format detection, on files made here."""

from __future__ import annotations

import pytest

from ingest import parallel
from ingest.loaders import (
    EmptySourceError,
    Source,
    UnreadableSourceError,
    decode_text,
    iter_files,
    load_file,
)
from ingest.parallel import load_files
from ingest.qa_jsonl import detect_qa_format, qa_paragraphs
from tests.conftest import read_jsonl


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF whose content stream draws ``text`` in Helvetica (byte offsets exact)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_each_supported_format_is_read_and_titled(tmp_path):
    files = {
        "guide.md": "# Field Guide\n\n## Birds\n\nThe kea is a parrot from New Zealand.\n",
        "plain.txt": "Plain text about lichens.",
        "manual.rst": "Manual\n======\n\nThe rst manual mentions sextants.\n",
        "page.html": "<html><head><title>Moths</title><script>var x=1;</script></head>"
        "<body><p>Moths fly at night.</p></body></html>",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "paper.pdf").write_bytes(minimal_pdf("Tardigrades survive in space."))
    sources = {p.name: load_file(p, 500, 50) for p in iter_files(tmp_path)}
    assert sources["guide.md"].chunks[0].metadata["title"] == "Field Guide"
    assert sources["page.html"].chunks[0].metadata["title"] == "Moths"
    assert "var x" not in sources["page.html"].chunks[0].page_content
    assert "Tardigrades survive in space." in sources["paper.pdf"].chunks[0].page_content
    assert all(s.chunks for s in sources.values())


def test_long_text_is_split_with_overlap(tmp_path):
    (tmp_path / "long.txt").write_text(" ".join(f"word{i}" for i in range(3000)))
    chunks = load_file(tmp_path / "long.txt", 1000, 100).chunks
    assert len(chunks) > 10 and all(len(c.page_content) <= 1000 for c in chunks)
    assert [c.metadata["chunk_index"] for c in chunks] == list(range(len(chunks)))


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("broken.pdf", b"%PDF-1.4 garbage", "PDF"),
        ("binary.txt", bytes(range(256)) * 4, "encoding|NUL"),
        ("broken.docx", b"PK\x03\x04 not a real package", "not a readable .docx file"),
        ("broken.xlsx", b"not a zip", "not a readable .xlsx file"),
        ("drawing.svg", b"<svg/>", "unsupported file type '.svg'"),
        ("Makefile", b"all:\n", "no file extension"),
        ("empty.md", b"   \n", "empty"),
        ("nul.txt", b"text\x00\x01binary", "NUL"),
        ("other.jsonl", b'{"a": 1}\n', "HotpotQA"),
        ("bad.jsonl", b'{"a": 1\n', "line 1"),
    ],
)
def test_unreadable_files_say_why(tmp_path, name, content, reason):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(UnreadableSourceError, match=reason):
        load_file(tmp_path / name, 500, 50)


LATIN = "Le café est une boisson préparée à partir des grains torréfiés du caféier. À Paris, on boit un café crème."


def test_office_documents_and_text_in_other_encodings_are_read(tmp_path):
    """Issue 14 defect 13: .docx, .pptx and .xlsx converted (python-docx, python-pptx,
    openpyxl); Latin-1 and UTF-16 text decoded (charset-normalizer)."""
    import docx
    import openpyxl
    import pptx

    document = docx.Document()
    document.core_properties.title = "Okapi notes"
    document.add_heading("Habitat", level=1)
    document.add_paragraph("The okapi lives in the Ituri rainforest.")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Diet", "leaves"
    document.save(tmp_path / "okapi.docx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Quarterly kea survey"
    slide.placeholders[1].text = "Keas were counted in Arthur's Pass."
    deck.save(tmp_path / "survey.pptx")
    book = openpyxl.Workbook()
    book.active.title = "Prices"
    book.active.append(["Item", "Price"])
    book.active.append(["Sextant", 120])
    book.save(tmp_path / "prices.xlsx")
    (tmp_path / "latin1.txt").write_bytes(LATIN.encode("latin-1"))
    (tmp_path / "utf16.txt").write_bytes(LATIN.encode("utf-16"))
    text = {p.name: "\n".join(c.page_content for c in load_file(p, 500, 50).chunks) for p in iter_files(tmp_path)}
    assert load_file(tmp_path / "okapi.docx", 500, 50).chunks[0].metadata["title"] == "Okapi notes"
    assert "# Habitat" in text["okapi.docx"] and "Ituri rainforest" in text["okapi.docx"]
    assert "| Diet | leaves |" in text["okapi.docx"]
    assert "## Quarterly kea survey" in text["survey.pptx"] and "Arthur's Pass" in text["survey.pptx"]
    assert "## Prices" in text["prices.xlsx"] and "| Sextant | 120 |" in text["prices.xlsx"]
    assert text["latin1.txt"] == text["utf16.txt"] == LATIN


@pytest.mark.parametrize(
    "dataset, fmt",
    [
        ("hotpotqa_smoke_10.jsonl", "hotpotqa"),
        ("2wikimultihopqa_smoke_10.jsonl", "hotpotqa"),
        ("musique_smoke_10.jsonl", "musique"),
    ],
)
def test_qa_format_detection(dataset, fmt):
    assert detect_qa_format(read_jsonl(dataset)[0]) == fmt


def test_a_paragraphs_sentences_are_joined_with_one_space_whether_or_not_they_carry_it():
    hotpot = {"context": [["Arthur's Magazine", ["It was a periodical.", " It was edited by T.S. Arthur."]]]}
    two_wiki = {"context": [["Ole Selberg", ["He was an educator.", "He was born in Flora."]]]}
    assert list(qa_paragraphs(hotpot, "hotpotqa")) == [
        ("Arthur's Magazine", "It was a periodical. It was edited by T.S. Arthur.")
    ]
    assert list(qa_paragraphs(two_wiki, "hotpotqa")) == [("Ole Selberg", "He was an educator. He was born in Flora.")]


@pytest.mark.parametrize(
    "text",
    [
        "Café Grünwald serves crème brûlée. The owner is Hélène Müller.",
        "La crêperie où Hélène travaille. Ça coûte 5 €.",
    ],
)
def test_short_western_text_is_read_as_windows_1252_not_another_code_page(text):
    assert decode_text(text.encode("cp1252")) == text  # cp1250 and cp1257 fit as well: "crčme"


def test_files_parsed_in_worker_processes_come_back_in_order_as_read_here(tmp_path):
    (tmp_path / "empty.md").write_text("")
    (tmp_path / "logo.svg").write_text("<svg/>")
    for i in range(6):
        page = f"<html><head><title>Note {i}</title></head><body><p>Kea {i}.</p></body></html>"
        (tmp_path / f"note{i}.html").write_text(page)
    paths = sorted(tmp_path.iterdir())
    here = list(load_files(paths, 500, 50, workers=1))
    workers = list(load_files(paths, 500, 50, workers=2, window=3))
    assert [type(r) for r in workers] == [type(r) for r in here]
    assert isinstance(workers[0], EmptySourceError) and isinstance(workers[1], UnreadableSourceError)
    assert str(workers[1]) == "unsupported file type '.svg'"
    sources = [r for r in workers if isinstance(r, Source)]
    assert [s.key for s in sources] == [str(p.resolve()) for p in paths[2:]]
    assert [[c.page_content for c in s.chunks] for s in sources] == [
        [c.page_content for c in s.chunks] for s in here if isinstance(s, Source)
    ]
    assert sources[0].chunks[0].metadata["title"] == "Note 0"


def test_an_unchanged_file_is_not_parsed_again(make_app, tmp_path, monkeypatch):
    (tmp_path / "kea.md").write_text("# Kea\n\nThe kea is a parrot.\n")
    (tmp_path / "tui.md").write_text("# Tui\n\nThe tui sings.\n")
    app = make_app()
    assert app.ingest([tmp_path]).added == 2
    (tmp_path / "tui.md").write_text("# Tui\n\nThe tui sings at dawn.\n")
    parsed = []
    monkeypatch.setattr(parallel, "load_file", lambda path, *args: parsed.append(path.name) or load_file(path, *args))
    report = app.ingest([tmp_path])
    assert parsed == ["tui.md"] and report.unchanged == 1 and report.added == 1
