"""The main content of an HTML page, read with lexbor (the ``selectolax`` bindings), an HTML5
parser in C that parses a manual's page in about a millisecond, and general main-content rules.

The rules, each general (no one site's markup), in order:

* The content container is the page's ``<main>``, ``<article>`` or ``role="main"`` element, else
  its ``<body>``; ``<title>`` gives the title (:func:`page_title`).
* Scripts, styles, forms, navigation (``<nav>``, ``<aside>``, ARIA ``navigation``,
  ``complementary``, ``search``; DocBook's ``navheader`` / ``navfooter`` bars), and a ``<header>``
  or ``<footer>`` that holds no heading are dropped, as are heading permalinks (a link to an
  anchor of the page whose text is one symbol such as "¶").
* Link density (Kohlschütter, Fankhauser & Nejdl 2010, "Boilerplate detection using shallow
  text features"; trafilatura's and jusText's rule): a list, table or ``<div>`` whose text is
  mostly link text, with at least :data:`DENSE_LINKS` links, is a table of contents or a link
  bar and is dropped. A page left empty by this (a page that is only a table of contents) keeps
  its container's text.

The rest is written as plain text in the layout trafilatura's ``txt`` output has (the reader
this one replaced, about 40x slower: ``bench/html_extraction.py``): headings and paragraphs one
per line, whitespace collapsed as a browser renders it, list items and definition-list terms
and descriptions as ``- `` lines (a setting's name next to its description), table rows as
``| cell | cell |`` with a ``|---|`` rule under a header row, ``<pre>`` blocks verbatim; markup
inside inline code is read as its text ("CLUSTER table_name", in order).
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

READER = "lexbor-main-content-1"
"""Names this way of reading HTML; it enters each page's content hash, so a folder ingested with an
earlier reader is read again instead of being skipped as unchanged. Change it when the output changes."""
CONTAINER = "main, article, [role=main]"
DROP = (
    "script, style, noscript, template, form, nav, aside, [role=navigation], [role=complementary], [role=search], "
    "div.navheader, div.navfooter"
)
"""Removed wherever they are: code, forms and navigation marked as such (DocBook XSL's Prev / Up /
Home / Next bars are ``div.navheader`` and ``div.navfooter``)."""
FURNITURE = "header, footer, [role=banner], [role=contentinfo]"
"""Removed unless they hold a heading (an article's ``<header>`` often holds its title)."""
DENSE = "ul, ol, dl, table, div"
"""Elements dropped when link-dense (see the module docstring)."""
DENSE_LINKS = 3
"""Fewest links of a link-dense element: one or two links make a sentence, not a link bar."""
LINK_SHARE = 0.8
"""Share of an element's characters inside links from which it counts as link-dense."""
PERMALINK = re.compile(r"^\W$")
"""A heading permalink's text: one symbol ("¶", "#", "§")."""
BLOCKS = {"p", "div", "section", "article", "main", "header", "footer", "blockquote", "figure", "figcaption"}
BLOCKS |= {"h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "address", "details", "summary", "caption", "hr"}
BLOCKS |= {"center", "fieldset", "legend", "body", "html", "tbody", "thead", "tfoot", "tr"}
ITEMS = {"li", "dt", "dd"}
"""Blocks written as ``- `` lines."""
SKIPPED = {"-comment", "head", "title", "img", "svg", "iframe", "object", "video", "audio", "canvas"}
_SPACE = re.compile(r"\s+")
_SITE_SUFFIX = re.compile(r"\s+[—|]\s+[^—|]*\bdocumentation\s*$", re.IGNORECASE)
"""A trailing " — Python 3.11.2 documentation" (Sphinx's title separator and project name)."""
_TITLE_SEPARATOR = re.compile(r"\s+[-—–|·]\s+")
"""What separates a page's title from its site's name in ``<title>``."""


class _Lines:
    """Text written line by line: inline text joins the current line, a block ends it."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.parts: list[str] = []
        self.bullet = False

    def text(self, text: str) -> None:
        self.parts.append(text)

    def end(self) -> None:
        line = _SPACE.sub(" ", "".join(self.parts)).strip() if self.parts else ""
        self.parts = []
        if line:
            self.lines.append(f"- {line}" if self.bullet else line)
            self.bullet = False

    def verbatim(self, text: str) -> None:
        self.end()
        if (text := text.strip("\n")).strip():
            self.lines.append(text)


def _table(table: LexborNode, out: _Lines) -> None:
    """``| cell | cell |`` per row of ``table`` (not of the tables inside it), a rule under a
    first row of header cells."""
    out.end()
    caption = table.css_first("caption")
    if caption is not None:
        out.text(caption.text(deep=True))
        out.end()
    spanned: dict[int, int] = {}  # column → rows still covered by a cell above (rowspan)
    for number, row in enumerate(row for row in table.css("tr") if _owner(row) == table.mem_id):
        cells, header = [], False
        for cell in (cell for cell in row.iter() if cell.tag in ("td", "th")):
            while spanned.get(len(cells), 0) > 0:  # an empty cell under a cell spanning rows
                spanned[len(cells)] -= 1
                cells.append("")
            header = header or cell.tag == "th"
            rows = cell.attrs.get("rowspan") or "1"
            if rows.isdigit() and int(rows) > 1:
                spanned[len(cells)] = int(rows) - 1
            cells.append(_SPACE.sub(" ", cell.text(deep=True)).strip().replace("|", "\\|"))
        while spanned.get(len(cells), 0) > 0:
            spanned[len(cells)] -= 1
            cells.append("")
        if any(cells):
            out.lines.append(f"| {' | '.join(cells)} |")
            if number == 0 and header:
                out.lines.append("|" + "---|" * len(cells))


def _owner(row: LexborNode) -> int | None:
    """The ``mem_id`` of the table ``row`` belongs to (the nearest one around it)."""
    node = row.parent
    while node is not None and node.tag != "table":
        node = node.parent
    return None if node is None else node.mem_id


def _write(node: LexborNode, out: _Lines) -> None:
    """Write ``node``'s children (see the module docstring); an explicit stack, so a page nested
    thousands deep is read whole."""
    stack: list[LexborNode | str] = list(reversed(list(node.iter(include_text=True))))
    while stack:
        item = stack.pop()
        if isinstance(item, str):  # a marker: the end of a block, or of a list item
            out.end()
            out.bullet = out.bullet and item != "item"
            continue
        tag = item.tag
        if tag == "-text":
            out.text(item.text_content)
        elif tag in SKIPPED:
            continue
        elif tag == "br":
            out.end()
        elif tag == "pre":
            out.verbatim(item.text(deep=True))
        elif tag == "table":
            _table(item, out)
        else:
            children = list(item.iter(include_text=True))
            if tag in BLOCKS or tag in ITEMS:
                out.end()
                out.bullet = out.bullet or tag in ITEMS
                stack.append("item" if tag in ITEMS else "block")
            stack.extend(reversed(children))


def page_title(tree: LexborHTMLParser) -> str | None:
    """The page's ``<title>``, whitespace collapsed, without the site's name after it: a trailing
    Sphinx-style " — <project> documentation", or a last part after a separator (" - ", " — ",
    " | ", …) of at least two words that a heading or a link to another page spells whole — the site
    naming itself in its navigation (mdBook's "cargo tree - The Cargo Book" under a menu title
    "The Cargo Book"). ``None`` when the page has no non-blank title. A title that is only the
    suffix's words ("PostgreSQL 15.18 Documentation") is kept."""
    element = tree.css_first("title")
    if element is None:
        return None
    title = _SITE_SUFFIX.sub("", _SPACE.sub(" ", element.text(deep=True)).strip())
    last = ([None, *_TITLE_SEPARATOR.finditer(title)])[-1]  # the last separator: what follows names the site
    site = title[last.end() :] if last else ""
    if len(site.split()) >= 2:
        named = tree.css("h1, a:not([href^='#'])")  # an in-page link names a section of the page, not the site
        if site in {_SPACE.sub(" ", node.text(deep=True)).strip() for node in named}:
            return title[: last.start()]
    return title or None


def _container(tree: LexborHTMLParser) -> LexborNode | None:
    return tree.css_first(CONTAINER) or tree.body


def _link_dense(node: LexborNode) -> bool:
    links = node.css("a")
    if len(links) < DENSE_LINKS:
        return False
    chars = _chars(node.text(deep=True))
    return chars > 0 and sum(_chars(a.text(deep=True)) for a in links) >= LINK_SHARE * chars


def _chars(text: str) -> int:
    """Characters of ``text`` but spaces and line breaks (indentation does not dilute a link bar)."""
    return len(text) - text.count(" ") - text.count("\n")


def _clean(tree: LexborHTMLParser, container: LexborNode, dense: bool) -> None:
    for node in tree.css(DROP):
        node.decompose()
    for node in container.css(FURNITURE):
        if node.css_first("h1, h2, h3, h4, h5, h6") is None:
            node.decompose()
    for link in container.css("a[href^='#']"):
        if PERMALINK.match(link.text(deep=True).strip()):
            link.decompose()
    if dense:
        for node in reversed(container.css(DENSE)):  # innermost first: a parent is judged without them
            if _link_dense(node):
                node.decompose()


def extract_main_text(raw: str) -> tuple[str, str | None]:
    """The main text of an HTML page and its title.

    Args:
        raw: the page, already decoded (an ``<?xml encoding=...?>`` declaration is allowed).

    Returns:
        ``(text, title)``: the content as plain text, one block per line (see the module
        docstring), and :func:`page_title`. A page left without text by the link-density rule
        gives its container's text; a page without text gives ``""``, one without a title
        ``None``. Nothing is raised: lexbor recovers from broken markup as browsers do.
    """
    title = None
    for dense in (True, False):
        tree = LexborHTMLParser(raw)
        title = page_title(tree)
        container = _container(tree)
        if container is None:
            return "", title
        _clean(tree, container, dense)
        out = _Lines()
        _write(container, out)
        out.end()
        if out.lines:
            return "\n".join(out.lines), title
    return "", title
