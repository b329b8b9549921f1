"""HTML main-content extraction (ingest/html.py, lexbor) on a saved page of the PostgreSQL
manual and on small pages written here."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from ingest.html import extract_main_text, page_title
from ingest.loaders import load_file

FIXTURES = Path(__file__).parent / "fixtures"
PAGE = FIXTURES / "pg15-runtime-config-locks.html"
NAV_WORDS = re.compile(r"\b(?:Prev|Next|Home|Up)\b")


def test_manual_page_keeps_its_content_without_the_navigation_bars():
    raw = PAGE.read_text(encoding="utf-8")
    assert raw.count(">Prev<") == 2 and raw.count(">Next<") == 2  # the page has both bars
    text, title = extract_main_text(raw)
    assert title == "20.12. Lock Management"
    assert not NAV_WORDS.search(text), "navigation furniture left in the text"
    assert "Chapter 20. Server Configuration" not in text  # the header bar's chapter name
    assert (
        "The default is one second (1s), which is probably about the smallest value you would want in practice." in text
    )
    lines = text.splitlines()
    term = lines.index("- deadlock_timeout (integer)")  # the <dt>, with its type
    assert lines[term + 1].startswith("- This is the amount of time to wait on a lock")  # its <dd> right after


def test_manual_page_chunks_are_titled_by_the_page(tmp_path):
    path = shutil.copy(PAGE, tmp_path / "runtime-config-locks.html")
    chunks = load_file(Path(path), 1200, 150).chunks
    assert chunks and {c.metadata["title"] for c in chunks} == {"20.12. Lock Management"}
    assert not any(NAV_WORDS.search(c.page_content) for c in chunks)
    assert any("max_locks_per_transaction (integer)" in c.page_content for c in chunks)


def test_headings_tables_code_and_inline_code_survive():
    section = "".join(
        f"<p>Paragraph {i} of the description, long enough to read as content rather than boilerplate.</p>"
        for i in range(3)
    )
    page = (
        "<html><head><title>CLUSTER</title></head><body>"
        "<div class='navheader'><table><tr><td><a href='a.html'>Prev</a></td><td><a href='b.html'>Next</a></td>"
        "</tr></table></div>"
        "<div class='refentry'><div class='refsect1'><div class='titlepage'><div><h2>Description</h2></div></div>"
        f"{section}<p>The form <code class='command'>CLUSTER <em><code>table_name</code></em></code>\n"
        "   reclusters the table using the same index as before.</p>"
        "<div class='table'><p class='title'>Table 1. Modes</p><div class='table-contents'><table>"
        "<tr><th>Mode</th><th>Meaning</th></tr><tr><td>on</td><td>always</td></tr></table></div></div>"
        "<pre class='programlisting'>\\dt\n  indented line</pre></div></div>"
        "<div class='navfooter'><table><tr><td><a href='a.html'>Prev</a></td><td><a href='i.html'>Home</a></td>"
        "<td><a href='b.html'>Next</a></td></tr></table></div></body></html>"
    )
    text, title = extract_main_text(page)
    assert title == "CLUSTER"
    assert "Description" in text.splitlines()
    assert "The form CLUSTER table_name reclusters the table using the same index as before." in text
    assert "| on | always |" in text
    assert "\\dt\n  indented line" in text
    assert not NAV_WORDS.search(text)


def test_title_drops_a_sphinx_site_suffix_only():
    def title(text: str) -> str | None:
        from selectolax.lexbor import LexborHTMLParser

        return page_title(LexborHTMLParser(f"<html><head><title>{text}</title></head><body>x</body></html>"))

    assert title("itertools — Functions creating iterators &#8212; Python 3.11.2 documentation") == (
        "itertools — Functions creating iterators"
    )
    assert title("PostgreSQL 15.18 Documentation") == "PostgreSQL 15.18 Documentation"
    assert title("  19.3.\n Connections ") == "19.3. Connections"
    assert title("") is None


def test_title_drops_the_site_name_its_own_navigation_spells():
    def title(text: str, body: str) -> str | None:
        from selectolax.lexbor import LexborHTMLParser

        return page_title(LexborHTMLParser(f"<html><head><title>{text}</title></head><body>{body}</body></html>"))

    menu = '<h1 class="menu-title">The Cargo Book</h1><p>x</p>'  # mdBook's menu bar
    assert title("cargo tree - The Cargo Book", menu) == "cargo tree"
    assert title("cargo tree - The Cargo Book", "<p>The Cargo Book says so</p>") == "cargo tree - The Cargo Book"
    assert title("Settings | Home", '<a href="/">Home</a>') == "Settings | Home"  # one word: kept
    section = '<a href="#context-variables">Context Variables</a>'  # the page's own table of contents
    assert title("contextvars — Context Variables", section) == "contextvars — Context Variables"
    home = '<a href="index.html">Flask Documentation (2.2.x)</a>'
    assert title("Views — Flask Documentation (2.2.x)", home) == "Views"


def test_tiny_and_empty_pages(caplog):
    assert extract_main_text("<html><body><p>Moths fly at night.</p></body></html>") == ("Moths fly at night.", None)
    assert extract_main_text("  \n") == ("", None)
    assert extract_main_text("<html><body></body></html>") == ("", None)
    assert not caplog.records  # nothing logged: the ingest names empty files itself


def test_short_definition_lists_with_an_index_anchor_or_a_table_in_a_description():
    intro = "<p>These parameters control the prewarm worker and must be set in postgresql.conf at start.</p>" * 2
    page = (
        f"<html><body><div class='sect2'><h3>F.30.2. Configuration Parameters</h3>{intro}"
        "<div class='variablelist'><dl><dt><span class='term'><code>pg_prewarm.autoprewarm</code> "
        "(<code>boolean</code>) <a id='id-1.11' class='indexterm'></a></span></dt>"
        "<dd><p>Controls whether the server should run the autoprewarm worker.</p></dd></dl></div>"
        "<div class='variablelist'><dl><dt>pgstattuple(regclass) returns record</dt><dd><p>Tuple statistics.</p>"
        "<table><tr><th>Column</th><th>Type</th></tr><tr><td><code>table_len</code></td><td>bigint</td></tr></table>"
        "</dd></dl></div></div></body></html>"
    )
    text, _ = extract_main_text(page)
    assert "pg_prewarm.autoprewarm (boolean)\n- Controls whether the server should run the autoprewarm worker." in text
    assert "table_len | bigint" in text  # not "table_lenbigint"


def test_link_bars_and_permalinks_go_a_page_of_links_keeps_them():
    toc = "<ul>" + "".join(f"<li><a href='s{i}.html'>Section {i}</a></li>" for i in range(5)) + "</ul>"
    page = (
        "<html><head><title>Guide</title></head><body><header><a href='/'>Site</a></header>"
        f"<main><header><h1>Guide <a href='#guide'>¶</a></h1></header>{toc}"
        "<p>See <a href='a.html'>the tutorial</a> and <a href='b.html'>the reference</a> first.</p>"
        "<table><tr><th>Name</th><th>Kind</th></tr><tr><td rowspan='2'>box</td><td>a | b</td></tr>"
        "<tr><td>c</td></tr></table></main><aside>Related pages</aside><footer>© Someone</footer></body></html>"
    )
    text, title = extract_main_text(page)
    assert title == "Guide"
    assert text.splitlines() == [
        "Guide",  # the heading kept with its header, its permalink dropped
        "See the tutorial and the reference first.",  # two links make a sentence, not a link bar
        "| Name | Kind |",
        "|---|---|",
        "| box | a \\| b |",
        "|  | c |",  # under a cell spanning two rows
    ]
    only_links, _ = extract_main_text(f"<html><body>{toc}</body></html>")
    assert only_links.splitlines() == [f"- Section {i}" for i in range(5)]  # a page of links keeps them
