"""Comparison questions answered by comparing values: "Which is older, Blur or Oasis?".

The options are the names on either side of the question's last "or"; the direction comes from
its comparison word (older, earlier, first → the smallest date; younger, later → the largest;
more, larger, longer → the largest number; fewer, smaller, shorter → the smallest). For each
option, the first evidence sentence that names it as a whole word (in the sentence or its
chunk's title) and holds a date (or
number; a size in kB, MB, GB or TB counts in kilobytes) gives its value — the first after the
option's mention, or in the option's own page or entry the sentence's first; for a comparison
"by default", the default the sentence gives. The winner is named when every option has one.
Extracting typed values per entity and comparing them is the comparison step of
answer-type QA pipelines (Moldovan et al. 2000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from core.text import sentences, strip_qualifier, term_set
from deciders.answer_types import ARTICLE, options
from deciders.chunks import HopChunk
from deciders.lexicon import BOTH, LARGEST, LARGEST_DATE, SMALLEST, SMALLEST_DATE
from deciders.reader import Candidate
from deciders.spans import SPAN_PATTERNS, spans

_YEAR = re.compile(r"\b(\d{3,4})\b")
_SIZE = re.compile(r"\b(\d+(?:\.\d+)?)\s*([kMGT])B\b")
_DEFAULT = re.compile(r"\bdefault\b", re.I)


@dataclass(frozen=True)
class Comparison:
    """The winner of a comparison question and the evidence for each option's value."""

    winner: str
    values: list[tuple[str, float, str, HopChunk]]
    """(option, value, sentence, chunk) for every option, in the question's order."""


def _whole_word(text: str) -> re.Pattern:
    """``text`` as a whole word or phrase, case-insensitively, and not the start of a longer name
    ("Richard Llewellyn" is not in "Richard Llewellyn Williams", another man)."""
    return re.compile(rf"(?<!\w){re.escape(text)}(?!\w)(?!\s+(?-i:[A-Z]))", re.IGNORECASE)


def page_key(title: str, qualified: bool = False) -> str:
    """A page title as an option would name it: lower case, no article; with ``qualified``, also
    without its qualifier ("CKY (band)" → "cky")."""
    return ARTICLE.sub("", strip_qualifier(title) if qualified else title).lower()


def _value(sentence: str, dates: bool) -> float | None:
    """The first date's year, else the first size in kilobytes ("4MB": 4096), else the first number."""
    if not dates and (size := _SIZE.search(sentence)):
        return float(size[1]) * 1024 ** "kMGT".index(size[2])
    if dates:
        found = SPAN_PATTERNS["date"].search(sentence)
        year = _YEAR.search(found.group(0)) if found else None
        return float(year.group(1)) if year else None
    found = SPAN_PATTERNS["number"].search(sentence)
    try:
        return float(found.group(0).replace(",", "")) if found else None
    except ValueError:  # a number word: not comparable here
        return None


def compare(question: str, evidence: Sequence[HopChunk]) -> Comparison | None:
    """The answer to a comparison between two or more named options, or ``None`` when the
    question is not one, or some option has no value in the evidence."""
    choices = options(question)
    stem = question
    for choice in choices:  # whole words: removing the option "e" must not touch "larger"
        stem = _whole_word(choice).sub(" ", stem)
    if len(choices) < 2:
        return None
    if SMALLEST_DATE.search(stem) or LARGEST_DATE.search(stem):
        dates, largest = True, bool(LARGEST_DATE.search(stem)) and not SMALLEST_DATE.search(stem)
    elif LARGEST.search(stem) or SMALLEST.search(stem):
        dates, largest = False, bool(LARGEST.search(stem))
    else:
        return None
    defaults = bool(_DEFAULT.search(stem))  # "larger by default": each option's default value
    values = []
    for choice in choices:
        found = None
        named = _whole_word(choice)
        # a table row keyed by the option ("| integer | 4 bytes | …") before one naming it ("small-range integer")
        keyed = re.compile(rf"\|\s*{re.escape(choice)}\s*\|", re.I)
        rows = ((c, row, m.end()) for c in evidence for row in sentences(c["text"]) if (m := keyed.match(row)))
        for chunk, row, after in rows if not defaults else ():
            if (value := _value(row[after:], dates)) is not None:
                found = (choice, value, row, chunk)
                break
        # the option's own page first ("Third Eye Blind", then "Third Eye Blind (album)"): it states its values
        own = sorted(
            evidence,
            key=lambda c: (page_key(c["title"]) != choice.lower(), page_key(c["title"], True) != choice.lower()),
        )
        for chunk in own if found is None else ():
            titled = bool(named.search(chunk["title"]))
            in_title = titled
            for sentence in sentences(chunk["text"]):
                mention = named.search(sentence)
                if not (mention or in_title):
                    continue
                # the value after the option's own mention ("pi = 3.14…, e = 2.71…" gives e 2.71); in
                # its own page, else the sentence's ("Richard … Lloyd (8 December 1906 – …), known as
                # Richard Llewellyn"), not in another's ("A Letter to Elia is a 2010 film … Elia Kazan")
                after = _value(sentence[mention.end() :], dates) if mention else None
                value = after if after is not None or not in_title else _value(sentence, dates)
                if defaults:  # "larger by default": the default the sentence gives ("It defaults to 64MB")
                    value = _value(" ".join(spans(sentence, "default")), dates)
                if value is not None:
                    found = (choice, value, sentence, chunk)
                    break
            if found:
                break
        if found is None:
            return None
        values.append(found)
    pick = max if largest else min
    return Comparison(pick(values, key=lambda v: v[1])[0], values)


def chosen_option(question: str, ranked: Sequence[Candidate]) -> str | None:
    """The option of a choice question ("Which is a comedy film, The Million Dollar Duck or Don
    Quixote?") that the reader's best candidate naming exactly one option names (in its sentence
    or its chunk's title); ``None`` when the question offers no options or no candidate names one
    alone. A choice's answer is one of its options: the reader ranks the evidence, this reads off
    which option the best of it is about."""
    choices = options(question)
    if len(choices) < 2:
        return None
    patterns = [(choice, _whole_word(choice)) for choice in choices]
    for candidate in ranked:
        text = f"{candidate.chunk.get('title', '')} {candidate.sentence}"
        named = [choice for choice, pattern in patterns if pattern.search(text)]
        if len(named) == 1:
            return named[0]
    return None


def both_verdict(question: str, evidence: Sequence[HopChunk]) -> str | None:
    """ "No" when a question asking the same of two things ("Are Joe Walsh and Chester Bennington
    both guitarists?", :data:`deciders.lexicon.BOTH`) has a term of what it asks that one thing's
    page says and the other's does not (a conjunction fails on the side that lacks it); "Yes" when
    both pages say all of it; ``None`` when the question is not one, a thing has no page among the
    ``evidence`` (its title naming it), or neither page tells the two apart."""
    match = BOTH.match(question.strip())
    asked = term_set(match["rest"]) - term_set(f"{match['a']} {match['b']}") if match else frozenset()
    if not asked:
        return None
    said = []
    for side in (match["a"], match["b"]):
        named = _whole_word(ARTICLE.sub("", side.strip()))
        pages = [c for c in evidence if named.search(c.get("title", ""))]
        if not pages:
            return None
        said.append(asked & term_set(" ".join(f"{c['title']} {c['text']}" for c in pages)))
    if said[0] != said[1]:
        return "No"
    return "Yes" if said[0] == asked else None
