"""The main content of an HTML page, with trafilatura (Barbaresi 2021, "Trafilatura: A Web
Scraping Library and Command-Line Tool for Text Discovery and Extraction").

trafilatura finds the page's content container, drops what its rules and link-density tests
call boilerplate (navigation bars, headers, footers, tables of contents, "Prev / Up / Home /
Next" link tables), and writes the rest as plain text: headings and paragraphs one per line,
definition lists as ``- term`` / ``- description`` pairs (a setting's name stays next to its
description), tables as ``| cell | cell |`` rows, ``<pre>`` blocks verbatim.

The page is parsed with lxml and prepared first; each step works around a failure measured on
the PostgreSQL (DocBook) and Python (Sphinx) manuals (``bench/html_extraction.py``):

* Navigation marked as such (``<nav>``, ``role="navigation"``, DocBook's ``navheader`` /
  ``navfooter`` bars) is removed; so are scripts, styles, Sphinx's "¶" permalinks and empty
  anchors (see :data:`NAVIGATION_XPATH`, :data:`DROP_XPATH`).
* Markup nested inside inline code (DocBook's ``<code>CLUSTER <em><code>table_name</code></em>
  </code>``) is flattened to its text: trafilatura otherwise moves the inner part elsewhere in
  the sentence ("use the table_nameCLUSTER or ...").
* Whitespace outside ``<pre>`` is collapsed as a browser renders it, so hard-wrapped source
  lines do not reach the chunks as runs of spaces and newlines.
* A ``<div>`` that only wraps a table (and its caption) is unwrapped: trafilatura drops some
  tables inside DocBook's ``div.table > div.table-contents`` (the ``pg_enum`` columns).
* A table inside a list item (``<dd>``, ``<li>``) becomes one ``a | b | c`` line per row:
  trafilatura flattens it to "table_lenbigintPhysical relation length".
* A page nested deeper than libxml2 parses (256 levels; 2,048 with ``huge_tree``) loses
  everything below that depth: it is parsed again from a shallower copy (:func:`shallower`).
* Pages that mark no content container (``<main>``, ``<article>``, ``role="main"``; DocBook
  pages put their sections straight under ``<body>``) get a ``<main>`` around the body's
  children. Without it trafilatura falls back to recovering loose paragraphs, which drops every
  heading. Inside the container, ``id`` attributes are removed: trafilatura reads ids as
  boilerplate hints, and Sphinx names sections after their heading, so the "Sharing state
  between processes" section of ``multiprocessing`` was dropped as a share button.
"""

from __future__ import annotations

import logging
import re
from html.parser import HTMLParser

import lxml.html
from lxml import etree

READER = "trafilatura-main-content-2"
"""Names this way of reading HTML; it enters each page's content hash, so a folder ingested with an
earlier reader is read again instead of being skipped as unchanged. Change it when the output changes."""
CODE_TAGS = ("code", "kbd", "samp", "tt", "pre")
"""Elements whose nested markup is flattened to text before extraction."""
DROP_XPATH = (
    "//script | //style | //noscript | //a[contains(concat(' ', @class, ' '), ' headerlink ')]"
    " | //a[not(normalize-space()) and not(.//img)]"
)
"""Removed (their tail text kept): scripts, styles, Sphinx's heading permalinks ("¶"), and empty
anchors (DocBook's ``<a id=... class="indexterm"></a>`` index targets): trafilatura counts a link
without text as boilerplate and drops the short definition list holding it (measured: the
``pg_prewarm.autoprewarm`` settings of the PostgreSQL manual)."""
CONTAINER_XPATH = "//main | //article | //*[@role='main']"
NAVIGATION_XPATH = [
    "//nav",
    "//*[@role='navigation']",
    "//div[@class='navheader' or @class='navfooter']",  # DocBook XSL's Prev / Up / Home / Next bars
]
"""Navigation marked as such, removed before trafilatura looks for the content: its link-density
tests leave DocBook's bars in once the page is wrapped in ``<main>`` (measured: 1,219 chunks of the
PostgreSQL manual kept "Prev ... Next" without this), and on a page that is only a table of
contents its last fallback keeps the whole page text."""
BLOCK_TAGS = {"p", "div", "dd", "dt", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "caption"}
_SPACE = re.compile(r"\s+")
_SITE_SUFFIX = re.compile(r"\s+[—|]\s+[^—|]*\bdocumentation\s*$", re.IGNORECASE)
"""A trailing " — Python 3.11.2 documentation" (Sphinx's title separator and project name)."""


MAX_DEPTH = 128
"""Levels of elements a page keeps when it is too deep for libxml2 (:func:`shallower`): well
below its limit of 256, well above what a page's structure uses (the PostgreSQL and Python
manuals nest at most 20 deep)."""
GENERIC_TAGS = {"div", "span", "section", "font", "center"}
"""Containers that say nothing of their content: unwrapped first when a page is too deep."""
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
INLINE_TAGS = {"a", "abbr", "b", "cite", "code", "em", "font", "i", "kbd", "q", "s", "samp", "small", "span"}
INLINE_TAGS |= {"strong", "sub", "sup", "tt", "u", "var"}
IMPLIED_END = {"p": {"p"}, "li": {"li"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"}, "tr": {"tr"}, "td": {"td", "th"}}
IMPLIED_END |= {"th": {"td", "th"}, "option": {"option"}}
"""Elements whose start closes an open one of these (HTML's optional end tags), so that a page
of unclosed ``<p>`` or ``<li>`` is not counted as nested."""


class _Shallower(HTMLParser):
    """Copies a page, unwrapping the elements nested more than ``max_depth`` deep (see :func:`shallower`)."""

    def __init__(self, max_depth: int) -> None:
        super().__init__(convert_charrefs=False)
        self.max_depth = max_depth
        self.out: list[str] = []
        self.open: list[tuple[str, bool]] = []
        """The open elements, outermost first, with whether each is kept."""
        self.kept = 0

    def _break(self, tag: str) -> None:  # an unwrapped block still ends a line
        if tag not in INLINE_TAGS and (not self.out or self.out[-1] != "<br>"):
            self.out.append("<br>")

    def _close(self, until: str | None) -> None:
        while self.open:
            name, keep = self.open.pop()
            self.kept -= keep
            if keep:
                self.out.append(f"</{name}>")
            else:
                self._break(name)
            if until is None or name == until:
                return

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in VOID_TAGS:
            self.out.append(self.get_starttag_text())
            return
        if self.open and self.open[-1][0] in IMPLIED_END.get(tag, ()):
            self._close(None)
        keep = self.kept < (self.max_depth // 2 if tag in GENERIC_TAGS else self.max_depth)  # generic ones first
        self.open.append((tag, keep))
        self.kept += keep
        if keep:
            self.out.append(self.get_starttag_text())
        else:
            self._break(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.out.append(self.get_starttag_text())

    def handle_endtag(self, tag: str) -> None:
        if any(name == tag for name, _ in self.open):  # a stray end tag is dropped, as browsers do
            self._close(tag)

    def handle_data(self, data: str) -> None:
        self.out.append(data)

    def handle_entityref(self, name: str) -> None:
        self.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.out.append(f"&#{name};")

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")

    def handle_pi(self, data: str) -> None:
        self.out.append(f"<?{data}>")


def shallower(raw: str, max_depth: int = MAX_DEPTH) -> str:
    """``raw`` with no element nested more than ``max_depth`` deep, for a page libxml2 cannot
    parse whole: past its depth limit it drops the rest of the page (the text of a page wrapped
    in 300 ``<div>``s, built by a page builder, is lost). Elements past ``max_depth / 2`` levels
    are unwrapped, generic containers (:data:`GENERIC_TAGS`) first and any element past
    ``max_depth``; their text is kept, an unwrapped block ending a line (``<br>``). Comments are
    dropped. Read with the standard library's event parser, which has no depth limit.

    Args:
        raw: the page, decoded.
        max_depth: the most levels of elements kept.

    Returns:
        The page's markup, at most ``max_depth`` elements deep.
    """
    copier = _Shallower(max_depth)
    copier.feed(raw)
    copier.close()
    copier._close(None)
    return "".join(copier.out)


def _parse(raw: str) -> lxml.html.HtmlElement:
    # bytes, not str: lxml refuses a str that carries an XML encoding declaration
    parser = lxml.html.HTMLParser(encoding="utf-8")
    tree = lxml.html.document_fromstring(raw.encode("utf-8"), parser=parser)
    if any(error.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT for error in parser.error_log):  # "Excessive depth"
        tree = lxml.html.document_fromstring(
            shallower(raw).encode("utf-8"), parser=lxml.html.HTMLParser(encoding="utf-8")
        )
    return tree


def page_title(tree: lxml.html.HtmlElement) -> str | None:
    """The page's ``<title>``, whitespace collapsed, without a trailing Sphinx-style
    " — <project> documentation" suffix; ``None`` when the page has no non-blank title.
    A title that is only the suffix's words ("PostgreSQL 15.18 Documentation") is kept."""
    element = tree.find(".//title")
    if element is None:
        return None
    title = _SPACE.sub(" ", element.text_content()).strip()
    return _SITE_SUFFIX.sub("", title) or None


def _collapse(text: str | None) -> str | None:
    return _SPACE.sub(" ", text) if text else text


def _prepare(tree: lxml.html.HtmlElement) -> None:
    """The in-place preparation described in the module docstring."""
    for element in tree.xpath(" | ".join([DROP_XPATH, *NAVIGATION_XPATH])):
        element.drop_tree()
    for element in tree.xpath(" | ".join(f"//{tag}" for tag in CODE_TAGS)):
        nested = {child.tag for child in element.iterdescendants() if isinstance(child.tag, str)}
        if nested:
            etree.strip_tags(element, *nested)
    in_pre = set(tree.xpath("//pre/descendant-or-self::*"))
    for element in tree.iter():
        if not isinstance(element.tag, str):  # comments, processing instructions
            continue
        if element not in in_pre:
            element.text = _collapse(element.text)
            if element.text and element.tag in BLOCK_TAGS:
                element.text = element.text.lstrip()
        if element.getparent() not in in_pre:
            element.tail = _collapse(element.tail)
    for wrapper in reversed(tree.xpath("//div[.//table]")):  # innermost first
        children = [child for child in wrapper if isinstance(child.tag, str)]
        if 0 < len(children) <= 2 and children[-1].tag == "table" and not (wrapper.text or "").strip():
            wrapper.drop_tag()
    for table in tree.xpath("//dd//table | //li//table"):
        rows = etree.Element("div")
        for row in table.iter("tr"):
            cells = (_SPACE.sub(" ", cell.text_content()).strip() for cell in row.iter("td", "th"))
            etree.SubElement(rows, "p").text = " | ".join(cells)
        rows.tail = table.tail
        table.getparent().replace(table, rows)
    body = tree.find("body")
    if body is not None and not tree.xpath(CONTAINER_XPATH):
        main = etree.Element("main")
        main.extend(list(body))
        body.append(main)
    for container in tree.xpath(CONTAINER_XPATH)[:1]:
        for element in container.iterdescendants():
            element.attrib.pop("id", None)


def extract_main_text(raw: str) -> tuple[str, str | None]:
    """The main text of an HTML page and its title.

    Args:
        raw: the page, already decoded (an ``<?xml encoding=...?>`` declaration is allowed).

    Returns:
        ``(text, title)``: the content as plain text, one block per line, and :func:`page_title`.
        A page trafilatura finds no content in gives the text of its content container
        (navigation removed) instead; a page without text gives ``""``, one without a title
        ``None``. Nothing is raised: lxml's parser recovers from broken markup, and a page
        nested too deep for it is read from a shallower copy (:func:`shallower`).
    """
    from trafilatura import extract  # imported on first use: it loads its rules and lxml cleaners once

    # "discarding data: None" for a page without content: the ingest reports such a file itself, by name
    logging.getLogger("trafilatura").setLevel(logging.ERROR)

    try:
        tree = _parse(raw)
    except etree.ParserError:  # "Document is empty"
        return "", None
    title = page_title(tree)
    _prepare(tree)
    text = extract(
        tree,
        output_format="txt",  # markdown escapes brackets in command synopses: CLUSTER \[VERBOSE\]
        include_tables=True,
        include_comments=False,
        include_links=False,
        include_images=False,
        favor_recall=True,  # the default drops the "(integer)" after DocBook setting names
        deduplicate=False,
        with_metadata=False,
    )
    if not text:
        container = (tree.xpath(CONTAINER_XPATH) or [tree])[0]
        text = "\n".join(line.strip() for line in container.text_content().splitlines() if line.strip())
    return text.strip(), title
