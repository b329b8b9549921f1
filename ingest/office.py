"""Office documents as Markdown-like text: Word with python-docx, PowerPoint with python-pptx,
Excel with openpyxl (all offline, pure Python). Headings become ``#`` lines and table rows
``| cell | cell |`` lines, so the Markdown splitter cuts at sections first."""

from __future__ import annotations

import zipfile
from pathlib import Path

OFFICE_SUFFIXES = {".docx", ".pptx", ".xlsx"}


def _row(cells) -> str | None:
    values = [" ".join(str(c).split()) for c in cells if c is not None and str(c).strip()]
    return f"| {' | '.join(values)} |" if values else None


def _docx(path: Path) -> tuple[list[str], str | None]:
    import docx

    document = docx.Document(str(path))
    lines = []
    for paragraph in document.paragraphs:
        style = paragraph.style.name if paragraph.style is not None else ""
        level = style.removeprefix("Heading ").strip() if style.startswith("Heading ") else ""
        text = paragraph.text.strip()
        if text:
            lines.append(
                f"{'#' * int(level)} {text}" if level.isdigit() else ("# " + text if style == "Title" else text)
            )
    for table in document.tables:
        lines += [r for r in (_row(cell.text for cell in row.cells) for row in table.rows) if r]
    return lines, document.core_properties.title


def _pptx(path: Path) -> tuple[list[str], str | None]:
    import pptx

    deck = pptx.Presentation(str(path))
    lines = []
    for number, slide in enumerate(deck.slides, 1):
        title = slide.shapes.title.text_frame.text.strip() if slide.shapes.title is not None else ""
        lines.append(f"## {title or f'Slide {number}'}")
        for shape in slide.shapes:
            if shape.has_text_frame and shape != slide.shapes.title:
                lines += [p for p in (para.strip() for para in shape.text_frame.text.splitlines()) if p]
            elif getattr(shape, "has_table", False) and shape.has_table:
                lines += [r for r in (_row(c.text for c in row.cells) for row in shape.table.rows) if r]
    return lines, deck.core_properties.title


def _xlsx(path: Path) -> tuple[list[str], str | None]:
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=True)  # cached values, not formulas
    try:
        lines = []
        for sheet in book.worksheets:
            lines.append(f"## {sheet.title}")
            lines += [r for r in (_row(values) for values in sheet.iter_rows(values_only=True)) if r]
        return lines, book.properties.title
    finally:
        book.close()


def read_office(path: Path) -> tuple[str, str | None]:
    """The text of a .docx, .pptx or .xlsx file and the title its properties state (or ``None``).

    Raises:
        ValueError: not a readable file of that type (not a ZIP package, a part missing or
            malformed), with the reason.
    """
    from docx.opc.exceptions import OpcError
    from openpyxl.utils.exceptions import InvalidFileException
    from pptx.exc import PythonPptxError

    reader = {".docx": _docx, ".pptx": _pptx, ".xlsx": _xlsx}[path.suffix.lower()]
    malformed = (OpcError, PythonPptxError, InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, OSError)
    try:
        lines, title = reader(path)
    except malformed as exc:
        kind = path.suffix.lower().lstrip(".")
        raise ValueError(f"not a readable .{kind} file ({type(exc).__name__}: {str(exc)[:120]})") from exc
    return "\n\n".join(lines), (title or "").strip() or None
