"""What a question asks and what a sentence says, as terms (:func:`core.text.term_set`): the
question's terms without its wording ("stand for", "what kind of"), weighted by IDF; a
sentence's terms with what its superlatives imply and without its cross-references."""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from core.text import term_set

PLAIN_FORM = re.compile(r"\b(?:ordinary|plain|regular|normal|simple|bare|vanilla)\s+(?=[A-Z]{2,}\b)")
"""A word asking for a command's plain form ("an ordinary SELECT", "a plain VACUUM"): the documents say the
command alone, and "ordinary" elsewhere ("the ROW SHARE lock is still taken in the ordinary way")."""


DEFAULT_IDIOM = re.compile(
    r"\b(?:out[- ]of[- ]the[- ]box|unless (?:told|i say) otherwise|"
    r"(?:a |the )?(?:stock|fresh|clean) (?:[\w.]+ ){0,2}install(?:ation)?|"
    r"without (?:choosing|specifying|giving|picking|passing|setting) (?:(?:a|an|the|any) [\w-]+|-{1,2}[\w-]+)|"
    r"if (?:i|you|we) (?:never|haven't|don't|didn't|do not) (?:touch|chang|set|tun|configur|specif|choos|pick)\w*"
    r"(?: (?:the|my|any) (?:config\w*|settings?)| one| it)?)",
    re.I,
)
"""Everyday words for a default: "out of the box", "a fresh install", "if I never touch the config", "if you
don't specify one", "without choosing a mode"."""


_CAPITAL_RUN = re.compile(r"\b[A-Z][\w'+#]*(?: [A-Z][\w'+#]*)+")


def multiword_names(text: str) -> list[str]:
    """Runs of capitalised words in ``text`` with at least two in title case ("SQL Server Always On",
    "Oracle Data Guard"), without a word opening a sentence: the name of a product or feature, which a
    collection can hold word by word ("SQL", "Server", "Always") without ever naming it. Not keyword
    runs ("ALTER TABLE"); in order, without repeats."""
    names = []
    for run in _CAPITAL_RUN.finditer(text):
        words = re.sub(r"['’]s$", "", run.group(0)).split(" ")  # "Sky UK Limited's"
        if re.search(r"(?:^|[.?!:])\s*$", text[: run.start()]):  # "How", "Amazon Aurora …" opening a sentence
            words = words[1:]
        if sum(1 for w in words if re.match(r"[A-Z][a-z]", w)) >= 2:
            names.append(" ".join(words))
    return list(dict.fromkeys(names))


def asked_terms(question: str) -> frozenset[str]:
    """The question's content terms (:func:`core.text.term_set`) without those of its wording:
    "what kind of X" asks "which X", "what does X stand for" what X is (the definition of an
    abbreviation holds no "stand"), "how many X" X (a count: "100 connections" says no "many"),
    "an ordinary SELECT" SELECT (:data:`PLAIN_FORM`), "out of
    the box" the default (:data:`DEFAULT_IDIOM`: a sentence says "The default is …", not "box")."""
    asked = DEFAULT_IDIOM.sub(" default ", PLAIN_FORM.sub("", question))
    asked = re.sub(r"\b(which|what)\s+(?:kind|type|sort)s?\s+of\b", r"\1", asked, flags=re.I)
    asked = re.sub(r"\bhow\s+(?:many|much)\b", "how", asked, flags=re.I)  # a count asked: no "many" said
    return term_set(re.sub(r"\bstands?\s+for\s*\?*\s*$", "", asked, flags=re.I))


Synonyms = Mapping[str, tuple[frozenset[str], ...]]
"""Each term and the term sets a collection equates with it (:func:`equivalents`)."""
_GLOSSARY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9 -]{0,40}(?: \([A-Za-z ]+\))?")
"""A name a cross-reference may join: words (a type's "int8"), a qualifier in brackets ("Standby (server)"); no
other code."""


def equivalents(references: Sequence[tuple[str, str]]) -> dict[str, tuple[frozenset[str], ...]]:
    """The terms a collection's cross-references equate, from (term line, target) pairs
    (:meth:`store.names.NameIndex.see_references`; or a name and its alias,
    :meth:`store.names.NameIndex.alias_rows`: "character varying", "varchar"): the glossary's "Standby (server)" — "See
    Replica (server)." makes ``standbi`` and ``replica`` one; "WAL" — "See Write-ahead log." makes
    ``wal`` what ``write``, ``ahead`` and ``log`` say together. Only between names
    (:data:`_GLOSSARY_NAME`, a bracketed qualifier left out), sharing no term, one side a single term;
    a thesaurus built from the documents' own glossary (query expansion with a controlled
    vocabulary, e.g. Voorhees 1994, "Query Expansion Using Lexical-Semantic Relations")."""
    found: dict[str, list[frozenset[str]]] = {}
    for term, target in references:
        if not (_GLOSSARY_NAME.fullmatch(term) and _GLOSSARY_NAME.fullmatch(target)):
            continue
        one, other = (term_set(re.sub(r"\s*\([^)]*\)", "", name)) for name in (term, target))
        for side, rest in ((one, other), (other, one)):
            if len(side) == 1 and rest and not side & rest:
                found.setdefault(next(iter(side)), []).append(rest)
    return {term: tuple(dict.fromkeys(sets)) for term, sets in found.items()}


_DISCOURSE = re.compile(
    r"^(?:(?:anyway|anyhow|so|ok(?:ay)?|well|basically|also|btw|by the way|long story short|in short|tl;?dr|"
    r"(?:my |quick |simple )?question)\s*[,:;-]?\s+)+",
    re.I,
)
"""Words opening a sentence that lead to the question without asking anything: "Anyway, long story short, …"."""


def asked(question: str) -> str:
    """The last sentence of ``question`` that ends in a question mark, when it has sentences before
    it ("We run Django. What is the default of work_mem?" asks "What is the default of work_mem?"),
    without the words leading to it (:data:`_DISCOURSE`: "Anyway, long story short, what is …?");
    else ``question`` as it is."""
    found = re.findall(r"(?:^|(?<=[.!?])\s+)([^.!?]*(?:\.\w[^.!?]*)*\?)", question.strip())
    last = _DISCOURSE.sub("", found[-1].strip()) if found else ""
    return last[:1].upper() + last[1:] if found and found[-1].strip() != question.strip() else question


