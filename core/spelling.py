"""Words English does not use, and typos: which lower-case words of a question are coined names
(``pgbouncer``) rather than English words or misspellings of them."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import product

from core.text import STOPWORDS

COINED_ZIPF = 1.5
"""Zipf frequency (log10 of uses per billion words) below which a lower-case word is no English
word: "pgbouncer" 0, "tablespace" 1.49, against "rebranded" 2.1, "stock" 4.9."""


@lru_cache(maxsize=1)
def _spelling():
    """pyspellchecker's English dictionary, for typos (its word list loads in ~0.2 s: on first use)."""
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1)


def _lower_words(text: str) -> list[str]:
    """Lower-case words of ``text`` of four or more letters, no stop word, in order, without repeats."""
    return [w for w in dict.fromkeys(re.findall(r"(?<![\w.-])[a-z]{4,}(?![\w.-])", text)) if w not in STOPWORDS]


def _rare_words(text: str) -> list[str]:
    """:func:`_lower_words` used below :data:`COINED_ZIPF` in wordfreq's English frequencies."""
    from wordfreq import zipf_frequency  # its word lists load in ~0.3 s: only when a question is read

    return [w for w in _lower_words(text) if zipf_frequency(w, "en") < COINED_ZIPF]


def coined_words(text: str) -> list[str]:
    """Lower-case words of ``text`` of four or more letters that English does not use, nor are a
    typo of an English word, in order, without repeats: products and tools written in lower case
    (``pgbouncer``, ``timescaledb``, ``tablespace``), which :func:`identifiers` does not see.

    A word is unused below :data:`COINED_ZIPF` in wordfreq's English frequencies (Speer, wordfreq
    3); a typo ("reserach") is one edit from a word of pyspellchecker's English dictionary
    (Norvig 2007, "How to Write a Spelling Corrector"). A coined word one edit from an English word
    is missed ("patroni": "patron"): the typo is the likelier reading.
    """
    rare = _rare_words(text)
    spelling = _spelling() if rare else None
    return [w for w in rare if not spelling.known(spelling.edit_distance_1(w))]


TYPO_ZIPF = 2.0
"""Zipf frequency from which a word one edit from a coined word may be what was meant:
"whitespace" 2.17 for "whitespce"."""


def near_words(word: str) -> list[str]:
    """English words one edit (a letter deleted, inserted, replaced or two swapped) from ``word``
    used at least :data:`TYPO_ZIPF` in wordfreq's frequencies, most used first: what a typo may
    have meant ("whitespace" for "whitespce"), whether or not pyspellchecker's dictionary has it."""
    from wordfreq import zipf_frequency

    near = {c: zipf_frequency(c, "en") for c in _spelling().edit_distance_1(word) if c.isalpha() and c != word}
    return sorted((c for c, zipf in near.items() if zipf >= TYPO_ZIPF), key=lambda c: -near[c])


def unknown_words(text: str) -> list[str]:
    """The words of ``text`` a reader may have misspelt, in order, without repeats: snake_case names
    (``shared_bufers``), lower-case words of four or more letters English does not use (below
    :data:`COINED_ZIPF`: "defualt", "pscl", "pgbouncer"), then those pyspellchecker's dictionary does
    not list (a common typo is used often enough on the web to pass wordfreq's test: "statment")."""
    snake = re.findall(r"(?<![\w.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w.-])", text)
    words = _lower_words(text)
    unlisted = _spelling().unknown(words) if words else set()
    return list(dict.fromkeys([*snake, *_rare_words(text), *(w for w in words if w in unlisted)]))


def spellings(word: str) -> list[str]:
    """What ``word`` may have meant (Norvig 2007's one-edit candidates): a snake_case name with each
    part English does not use replaced by its :func:`near_words` ("shared_bufers" → "shared_buffers",
    fewest changes first); a lower-case word's one-edit variants of four or more letters ("defualt" →
    "default", "pscl" → "psql"), for a collection to choose among by what it holds."""
    from wordfreq import zipf_frequency

    if "_" in word:
        parts = [
            [part, *near_words(part)] if part.isalpha() and zipf_frequency(part, "en") < COINED_ZIPF else [part]
            for part in word.split("_")
        ]
        changed = sorted(product(*parts), key=lambda p: sum(x != o[0] for x, o in zip(p, parts, strict=True)))
        return ["_".join(p) for p in changed if "_".join(p) != word]
    return sorted(c for c in _spelling().edit_distance_1(word) if c.isalpha() and len(c) >= 4 and c != word)
