"""Text analysis shared by the model-free deciders.

Terms are bm25s's tokenization — its token pattern, lower-cased, its extended English stop-word
list (NLTK's, which also drops question words such as "what" and "how") removed, then the
Snowball English stemmer (PyStemmer) — applied to one text at a time; sentences come from
BlingFire's sentence breaker (Microsoft; a compiled finite-state model), which keeps dotted names,
paths and dot files whole ("~/.bashrc", "./configure", "os.path.join()") where pysbd split them.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache

import blingfire
import bm25s
import simplemma
import Stemmer
from bm25s.stopwords import STOPWORDS_EN_PLUS

# Request phrasing ("tell me about X", "please explain Y") carries no topic.
_REQUEST_WORDS = {"tell", "explain", "describe", "please", "know", "give", "show", "find", "info", "information"}
STOPWORDS = frozenset(STOPWORDS_EN_PLUS) | _REQUEST_WORDS
_stemmer = Stemmer.Stemmer("english")
# bm25s.tokenize's own token pattern; calling bm25s.tokenize itself on one short text at a time
# costs ~4× more (it sets up progress bars and a vocabulary per call) for the same terms
_TOKEN = re.compile(inspect.signature(bm25s.tokenize).parameters["token_pattern"].default)

# A name: capitalised words (allowing inner "of", "the", "de", …, initials and numbers), or a
# quoted title, not an option's letters ("-Fc"). Used to find entities that evidence mentions and a question lacks.
_NAME = re.compile(
    r"\"([^\"]{3,60})\"|"
    r"(?<![\s(\[]-)((?:(?:[A-Z]\.)+|[A-Z][\w'’-]*)"
    r"(?:(?:\s+(?:(?:of|the|de|da|du|von|van|del|la|le)\s+)?|\s+&\s+)(?:(?:[A-Z]\.)+|[A-Z][\w'’-]*|\d+\b))*)"
)

_INITIALS = re.compile(r"(?:^|\s)(?:[A-Z]\.){2,}$")
"""A name ending in an initialism ("U.S.", "Washington, D.C."): its last dot is part of it."""

MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
"""An English month's name (a pattern): a name holding one is a date."""

_ARTICLE = re.compile(r"^(?:A|An|The)\s+(?=[A-Z0-9])")


_QUALIFIER = re.compile(r"\s*\([^)]*\)$")


def strip_qualifier(title: str) -> str:
    """A title without its trailing parenthesised qualifier: "Lawless (TV series)" → "Lawless"."""
    return _QUALIFIER.sub("", title).strip()


_CALL = re.compile(r"\b([a-z]\w*)\(")
"""A function's name written as a call (``now()``, ``any(iterable)``): a name, never a stop word."""


@lru_cache(maxsize=4096)
def terms(text: str) -> tuple[str, ...]:
    """Stemmed content terms of ``text`` (stop words removed, except a function's name written as
    a call: ``now()``), in order, with repeats; each word is lemmatised before it is stemmed, so an
    irregular form is its verb's ("took" is "take", which "takes" also is): simplemma's English
    dictionary (Barbaresi 2021), then Snowball's stemmer; an everyday abbreviation is its word
    (:data:`_SPELLED_OUT`: "config" is "configuration")."""
    words = [lemma(_SPELLED_OUT.get(w, w)) for w in content_words(text)]
    return tuple(_stemmer.stemWords(words))


def content_words(text: str) -> list[str]:
    """The lower-cased words of ``text`` that :func:`terms` keeps (before lemmas and stems), in order."""
    lowered = text.lower()
    calls = set(_CALL.findall(lowered)) & STOPWORDS if "(" in lowered else set()
    return [w for w in _TOKEN.findall(lowered) if w not in STOPWORDS or w in calls]


def has_terms(text: str) -> bool:
    """Whether :func:`terms` of ``text`` is not empty, found without lemmatising or stemming (a
    word never loses its term to either): ~50× cheaper for a text not seen before."""
    return bool(content_words(text))


_SPELLED_OUT = {
    "config": "configuration", "configs": "configurations", "temp": "temporary", "db": "database", "dbs": "databases",
    "auth": "authentication", "stats": "statistics", "info": "information", "dir": "directory", "dirs": "directories",
    "param": "parameter", "params": "parameters", "perms": "permissions", "env": "environment", "max": "maximum",
}  # fmt: skip
"""Everyday abbreviations, read as the words documentation spells out ("config file" is a "configuration file")."""


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The lower-case lemma of a lower-case ``word`` (simplemma), but for a comparative or superlative,
    which says more than its adjective ("longest" is a maximum), and
    for a word with other characters than letters."""
    if not word.isalpha() or _COMPARED.search(word):
        return word
    return simplemma.lemmatize(word, lang="en").lower()


_COMPARED = re.compile(r"(?:er|est)$|^(?:best|better|worse|worst|most|least|more|less)$")


def term_set(text: str) -> frozenset[str]:
    """Distinct stemmed content terms of ``text``."""
    return frozenset(terms(text))


def coverage(question_terms: frozenset[str], text: str) -> float:
    """Fraction (0–1) of ``question_terms`` present in ``text``; 0 when there are none."""
    if not question_terms:
        return 0.0
    return len(question_terms & term_set(text)) / len(question_terms)


_LIST_ITEM = re.compile(r"^[-*•]\s+")
NAME_LINE = re.compile(r"^[\w.$:-]+(?: [\w.$:-]+){0,4} — \S")
"""A reference page's name line (a man page's NAME section, DocBook's ``refnamediv``): "TRUNCATE — empty a table"."""
_GRID_BORDER = re.compile(r"\+[-=+:]{3,}\+")
"""A border line of a plain-text grid table (``+------+-----+``, reStructuredText's and
pydoc's): it separates rows."""
_GRID_ROW = re.compile(r"^\|(.*)\|$")
_TABLE_RULE = re.compile(r"[|:\- ]+")
"""A Markdown table's header rule (``|---|:--|``)."""


def sentences(text: str) -> list[str]:
    """Sentences of ``text``: paragraphs (blank-line separated), Markdown headings and list items
    (a definition list's term and its description: ``- work_mem (integer)``), a reference page's
    name line ("pg_dump — extract a PostgreSQL database …"), Markdown table rows
    and the rows of a plain-text grid table (its cells' lines joined, borders and ``|`` dropped)
    are segmented separately, hard line wraps joined (a list item's only when indented: an
    unindented line after an item starts a paragraph), heading and item marks dropped, blanks
    dropped. Cached:
    a chunk is segmented once per process."""
    return list(_sentences(text))


@lru_cache(maxsize=4096)
def _sentences(text: str) -> tuple[str, ...]:
    blocks: list[list[str]] = [[]]
    grid: set[int] = set()  # blocks that are rows of a grid table (opened by a border line)
    item = -1  # the block opened by the last list item
    for line in text.splitlines():
        stripped = line.strip()
        grid_row = _GRID_ROW.match(stripped) if len(blocks) - 1 in grid else None
        if _GRID_BORDER.fullmatch(stripped):  # a grid table's row ends (and the next may start)
            grid.add(len(blocks))
            blocks.append([])
        elif grid_row:  # a line of the row's cells: their text, without the column rules
            blocks[-1].append(" ".join(grid_row.group(1).replace("|", " ").split()))
        elif _GRID_ROW.match(stripped):  # a Markdown table row is a unit of its own ("| port | 5432 |")
            blocks += [[] if _TABLE_RULE.fullmatch(stripped) else [stripped], []]
        elif stripped.startswith("#"):
            blocks += [[stripped.lstrip("#").strip()], []]
        elif _LIST_ITEM.match(stripped):
            blocks += [[_LIST_ITEM.sub("", stripped)]]
            item = len(blocks) - 1
        elif item == len(blocks) - 1 and not line[:1].isspace():  # a list item's wrapped lines are indented
            blocks.append([stripped])
        elif NAME_LINE.match(stripped):  # a reference page's "pg_dump — extract a PostgreSQL database …"
            blocks += [[stripped], []]
        elif not stripped:
            blocks.append([])
        elif blocks[-1] and _titles(blocks[-1][-1]) and stripped[:1].isupper():
            blocks += [[blocks[-1].pop()], [stripped]]  # a heading line ("Examples") before a paragraph
        else:
            blocks[-1].append(stripped)
    found = []
    for block in blocks:
        joined = " ".join(block)
        if joined:
            _, offsets = blingfire.text_to_sentences_and_offsets(joined)  # spans of the text, unchanged
            found += [joined[start:end].strip() for start, end in offsets if joined[start:end].strip()]
    return tuple(found)


def _titles(line: str) -> bool:
    """Whether a line reads as a section's title or an API entry's signature when a capitalised
    line follows it: heading-like (:func:`is_heading`), capitalised, numbered or a signature
    (:func:`api_entry_name`), no trailing comma (text extracted one block per line — "Examples"
    then "Obtain a SHARE lock …" — runs them together otherwise)."""
    opens = line[:1].isupper() or line[:1].isdigit() or api_entry_name(line) is not None
    return opens and is_heading(line) and not line.endswith(",")


SEE = re.compile(r"^See (?!(?i:also)\b)(?P<target>[^.\n]{2,80})\.$")
"""A glossary's or an index's cross-reference sentence ("See Write-ahead log."), its target named."""


def is_heading(sentence: str) -> bool:
    """A heading-like line: at most 8 words, no closing punctuation and no table row ("work_mem
    (integer)", "Lock Management", not "| field size | 1 GB |") — it names what the sentences
    after it are about."""
    text = sentence.strip()
    return len(text.split()) <= 8 and not text.endswith((".", "!", "?", ":", ";")) and not text.startswith("|")


_API_KEYWORD = r"(?:class|exception|classmethod|staticmethod|abstractmethod|async|awaitable|coroutine|method|function)"
_SIGNATURE = re.compile(rf"^(?:{_API_KEYWORD}\s+)*@?(?P<name>[A-Za-z_][\w.]*)\(.*\)(?:\s*(?:→|->).*)?$")
_DECLARED = re.compile(rf"^(?:{_API_KEYWORD}\s+)+(?P<name>[A-Za-z_][\w.]*)$")


def api_entry_name(line: str) -> str | None:
    """The name an API reference entry's heading line defines, as Sphinx and pydoc write them: a
    call signature ("os.remove(path, *, dir_fd=None)" → ``os.remove``, "class
    collections.Counter([iterable-or-mapping])" → ``collections.Counter``) or a declared class or
    exception ("exception KeyError" → ``KeyError``); ``None`` for any other line."""
    text = line.strip()
    match = (_SIGNATURE.match(text) or _DECLARED.match(text)) if len(text) <= 300 else None
    return match["name"] if match else None


_DESCRIBED = re.compile(r"→ [^A-Z|→]*$")
"""A function table row's text up to its description: "bit_xor ( smallint ) → smallint "."""


def names(text: str) -> list[str]:
    """Capitalised multi-word names and quoted titles in ``text``, in order of appearance.

    Single capitalised words that open a sentence are dropped (they are usually ordinary words), as
    is one opening a function table row's description after its result type ("→ bigint Computes …").
    """
    found: list[str] = []
    for match in _NAME.finditer(text):
        raw = (match.group(1) or match.group(2) or "").strip(" ,'’-")
        raw = raw if _INITIALS.search(raw) else raw.rstrip(" .,'’-")  # "the U.S." keeps its last dot
        start = match.start()
        sentence_start = start == 0 or text[max(0, start - 2) : start].strip() in {".", "!", "?", ""}
        sentence_start = sentence_start or ("→" in text and bool(_DESCRIBED.search(text, 0, start)))
        if not raw or (" " not in raw and sentence_start):
            continue
        name = _ARTICLE.sub("", raw)
        if name not in found:
            found.append(name)
    return found


_IDENTIFIER = re.compile(
    r"\b(?:[A-Z][A-Za-z]+ \d+(?:\.\d+)?(?![\w.])|[A-Za-z_]\w*(?:\.\w+)+|\w*_\w+|\w*[a-z]\w*[A-Z]\w*|[A-Z]{2,}\w*|"
    r"(?<=[\w,;] )[A-Z]\w+)\b"
)


def identifiers(text: str) -> list[str]:
    """Words of ``text`` that name something exactly: a name with its version (``PostgreSQL
    17``), dotted (``pg_stat_statements.max``),
    snake_case (``work_mem``), CamelCase
    (``MongoDB``), all-caps (``TDE``) and capitalised words that do not open a sentence
    (``Citus``), in order, without repeats."""
    found = (m.group(0) for m in _IDENTIFIER.finditer(text))
    return list(dict.fromkeys(w for w in found if w.split()[0].lower() not in STOPWORDS))  # not "Which 2009"


_COMPOUND = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b")


def compound_names(text: str) -> list[str]:
    """Hyphenated compounds of ``text`` with a capitalised part ("Seven-Day", "non-Islamic",
    "Nassau-Saarbucken"): names, unlike "co-starred" or "wall-clock"; in order, without repeats."""
    found = (m.group(0) for m in _COMPOUND.finditer(text))
    return list(dict.fromkeys(w for w in found if any(part[:1].isupper() for part in w.split("-"))))


def exact_names(text: str) -> list[str]:
    """The :func:`identifiers` of ``text`` spelled as code — ``snake_case`` or dotted
    (``work_mem``, ``pg_hba.conf``) — which the search index splits into common words."""
    return [name for name in identifiers(text) if "_" in name or "." in name]


def normalise_query(query: str) -> str:
    """Normal form used to detect a repeated query: lower case, punctuation and extra spaces
    removed, stop words dropped, terms stemmed and sorted."""
    return " ".join(sorted(set(terms(query)))) or " ".join(query.lower().split())


def tidy_span(span: str) -> str:
    """``span`` without edge punctuation (a sentence's full stop too: "of 0." → "0", not "U.S."'s), its
    parentheses and double quotes balanced ("four megabytes (4MB" → "four megabytes (4MB)", "(4MB)" →
    "4MB"), a phrase said twice in a row once (a heading run into its first sentence: "DROP DATABASE
    DROP DATABASE" → "DROP DATABASE")."""
    words = span.split()
    if len(words) % 2 == 0 and words and words[: len(words) // 2] == words[len(words) // 2 :]:
        span = " ".join(words[: len(words) // 2])
    quoted, span = span.strip(" ,:;"), span.strip(" ,:;\"'“”‘’")
    if span.count('"') % 2:  # a quote inside: the edge one it pairs with stays ('"$user", public')
        span = f'"{span}' if quoted.startswith('"') else f'{span}"'
    if span.startswith("(") and span.endswith(")"):
        span = span[1:-1]
    span = span.strip(" ,:;")
    if re.search(r"(?:^|\s)[^\s.]+\.$", span):  # the sentence's full stop ("of 0."), not an abbreviation's ("U.S.")
        span = span[:-1]
    if span.count("(") > span.count(")"):
        span += ")"
    elif span.count(")") > span.count("("):
        span = span.rstrip(")")
    return span


def name_only(name: str) -> str:
    """A name found by :func:`core.text.names` without a leading or trailing capitalised stop
    word ("During the Yuan" → "Yuan"; a heading run into its text, "Monetary Types The" →
    "Monetary Types"); empty when that leaves no capitalised word ("In 1973") or it holds a month
    (a date, not a name). A quoted title ("white nights") stays as it is."""
    words = name.split()
    while words and words[0].istitle() and words[0].lower() in STOPWORDS:  # not "US"
        words.pop(0)
        while words and words[0].islower() and words[0] in STOPWORDS:  # "During the Yuan"
            words.pop(0)
    while words and words[-1].istitle() and words[-1].lower() in STOPWORDS:
        words.pop()
    rest = " ".join(words)
    if re.search(rf"\b{MONTH}\b", rest) or (rest != name and not re.search(r"\b[A-Z]", rest)):
        return ""
    return rest
