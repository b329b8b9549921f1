"""Yes/no questions: two subjects checked on each one's own evidence; code names checked literally.

"Are Sutera and Rhodotypos both types of shrub?" asks whether a predicate (type, shrub) holds of
every subject; "Are Ecballium and Elatostema in the same family?" whether the subjects share a
value (the family each belongs to). Each subject's sentences are those of the evidence chunks
titled by it and those naming it; the predicate is the question's terms that are not the
subjects'. A subject holds the predicate when one of its sentences holds at least
``Tuning.yes_no_share`` of the predicate's weight with no negation cue in reach of it; a shared
value is the name next to the compared noun ("family Cucurbitaceae", "the Araceae family") in each
subject's sentence — for "the same country / nationality?", the country its first nationality
word or country name says ("an American …", "…, Canada"); "both American …?" is No for a
subject given another nationality. This is the per-entity verification step of answer-type QA
pipelines applied to yes/no comparisons (Moldovan et al. 2000), with negation scoped to a few
words around the predicate as NegEx does (Chapman et al. 2001).

A yes/no question naming code — SQL syntax ("CONNECT BY"), a rare identifier (``MySQL``,
``AUTO_INCREMENT``) — is answered only from a sentence that names it (:func:`unnamed`): "Does
PostgreSQL support CONNECT BY?" is not answered "Yes" from a sentence about connections.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from core.text import CODE_SHAPE, identifiers, names, sentences, strip_qualifier, term_set, terms
from deciders.chunks import HopChunk
from deciders.comparison import Comparison
from deciders.lexicon import NATION, NATION_OF
from deciders.negation import negated

_CAPS_PHRASE = re.compile(r"\b[A-Z][A-Z0-9_]+(?:\s+[A-Z][A-Z0-9_]+)+\b")
RARE_IDF = 3.0
"""Least IDF (over the collection) of a code-like name's terms for a yes/no answer to have to
name it: about 1 chunk in 20 or fewer (``PostgreSQL`` in its own manual is no such name)."""
_TWO_SUBJECTS = re.compile(r"^(?:are|were|is|was|did|do|does|have|has|had)\b.+?\band\b", re.I)
_LEADING = re.compile(r"^(?:(?:are|were|is|was|did|do|does|have|has|had|both|the|a|an)\s+)+", re.I)
_SAME = re.compile(r"\bsame\s+(?P<noun>[a-z]+)\b", re.I)
_NATIONAL_NOUNS = frozenset({"country", "nation", "nationality", "citizenship"})
_NAME_AFTER = re.compile(r"\s+([A-Z][\w-]+(?:\s+[A-Z][\w-]+)*)")
_NAME_BEFORE = re.compile(r"([A-Z][\w-]+(?:\s+[A-Z][\w-]+)*)\s+$")


def unnamed(question: str, text: str, weights: Mapping[str, float]) -> list[str]:
    """The code names of ``question`` that ``text`` (an answer sentence with its heading and
    title) does not hold, case-insensitively: runs of two or more upper-case words ("CONNECT BY",
    "VACUUM FULL"), and code-like identifiers — snake_case, dotted, CamelCase or upper case —
    whose terms all weigh at least ``RARE_IDF`` in ``weights``."""
    phrases = _CAPS_PHRASE.findall(question)
    words = [
        i
        for i in identifiers(question)
        if CODE_SHAPE.search(i)
        and not any(i in p for p in phrases)
        and (found := terms(i))
        and all(weights.get(t, 0.0) >= RARE_IDF for t in found)
    ]
    held = text.lower()
    return [name for name in [*phrases, *words] if name.lower() not in held]


_CAPITALS = re.compile(r"\b[A-Z]{3,}(?: [A-Z]{2,})*\b")
_ANOTHER_CAPITAL = re.compile(r" [A-Z]{2,}\b")


def longer_command(question: str, sentence: str) -> bool:
    """Whether ``sentence`` names a command the question writes in capitals only as the start of a
    longer one: "VACUUM FULL" for "VACUUM", "CREATE INDEX CONCURRENTLY" for "CREATE INDEX" — another
    command ("Acquired by VACUUM (without FULL)" names VACUUM itself)."""
    for command in _CAPITALS.findall(question):
        found = list(re.finditer(rf"\b{re.escape(command)}\b", sentence))
        if found and all(_ANOTHER_CAPITAL.match(sentence, m.end()) for m in found):
            return True
    return False


_CONFLICT = re.compile(r"\block (?:blocks|conflicts)\b|^Conflicts with\b")
"""A lock said to block or conflict with something: "Only an ACCESS EXCLUSIVE lock blocks a SELECT"."""


def conflict_only(question: str, sentence: str) -> bool:
    """Whether ``sentence`` says what a lock blocks or conflicts with (:data:`_CONFLICT`) when
    ``question`` asks neither: what blocks SELECT is not what SELECT takes ("DROP INDEX acquires an
    ACCESS EXCLUSIVE lock …, blocking other accesses" says what it takes)."""
    return bool(_CONFLICT.search(sentence)) and not re.search(r"\b(?:block|conflict)", question, re.I)


def subjects(question: str, evidence: Sequence[HopChunk]) -> list[str]:
    """The two things a yes/no question asks about, either side of its first "and": evidence
    titles the question names (longest first), then its capitalised names where no title is;
    empty when there are not two."""
    if not _TWO_SUBJECTS.match(question.strip()) or question.count("?") > 1:  # one question, not two
        return []
    split = question.lower().index(" and ")
    lowered = question.lower()
    titled = sorted({_title(c) for c in evidence}, key=len, reverse=True)
    # a qualifier is no subject: "Chatterbox (1936 Film)" names Chatterbox, not "Film" (masked, positions kept)
    bare = re.sub(r"\([^)]*\)", lambda m: " " * len(m[0]), question)
    named = [(bare.find(name), _LEADING.sub("", name)) for name in names(bare)]
    found: list[tuple[int, str]] = []
    for at, name in [(lowered.find(t.lower()) if len(t) > 2 else -1, t) for t in titled] + named:
        overlaps = any(start <= at < start + len(seen) or at <= start < at + len(name) for start, seen in found)
        if at >= 0 and not overlaps:
            found.append((at, name))
    before = [name for at, name in sorted(found) if at < split]
    after = [name for at, name in sorted(found) if at > split]
    return [before[-1], after[0]] if before and after else []


def _own_sentences(subject: str, evidence: Sequence[HopChunk]) -> list[tuple[str, HopChunk]]:
    """Sentences about ``subject``: every sentence of a chunk titled by it, then sentences of
    other chunks that name it."""
    name = subject.lower()
    named = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")  # "cluster", not "pg_stat_progress_cluster"
    own = [(s, c) for c in evidence if is_titled(c, subject) for s in sentences(c["text"])]
    others = [(s, c) for c in evidence if not is_titled(c, subject) for s in sentences(c["text"])]
    return own + [(s, c) for s, c in others if named.search(s.lower())]


def _title(chunk: HopChunk) -> str:
    """A chunk's title as a subject's name: without its qualifier or final dot."""
    return strip_qualifier(chunk["title"]).rstrip(".")


def is_titled(chunk: HopChunk, subject: str) -> bool:
    """Whether ``chunk`` is titled by ``subject`` (:func:`_title`, any case)."""
    return _title(chunk).lower() == subject.lower()


def _value_near(sentence: str, noun: str) -> str | None:
    """The capitalised name right after or right before ``noun`` in ``sentence`` ("family
    Cucurbitaceae", "the Araceae family"), if any."""
    for match in re.finditer(rf"\b{noun}\w*\b", sentence, re.I):
        after = _NAME_AFTER.match(sentence, match.end())
        before = _NAME_BEFORE.search(sentence[: match.start()])
        if after or before:
            return (after or before)[1]
    return None


def _nation(own: Sequence[tuple[str, HopChunk]]) -> tuple[str, str, HopChunk] | None:
    """(country, sentence, chunk) of the first nationality word or country name ("American",
    "Canada") in a subject's sentences, in their order (its own entry's first): what "the same
    country?" compares."""
    for sentence, chunk in own:
        if match := NATION.search(sentence):
            return NATION_OF[match[1]], sentence, chunk
    return None


def check(question: str, evidence: Sequence[HopChunk], weights: Mapping[str, float], share: float) -> Comparison | None:
    """The answer to a two-subject yes/no question: ``Comparison`` with winner "Yes" or "No" and,
    per subject, (subject, 1.0 when it holds the predicate else 0.0, its best sentence, that
    sentence's chunk); ``None`` when the question is not one, a subject has no sentence in the
    evidence (or, for "same …?", no value), or a subject whose sentences do not mention the
    predicate has no chunk of its own (titled by it) — an entry about it would have said so.

    Args:
        question: the (standalone) question.
        evidence: the chunks to answer from.
        weights: the question's terms with their weights (IDF), as the generator ranks with.
        share: least share (0–1) of the predicate's weight a sentence must hold to affirm it.
    """
    pair = subjects(question, evidence)
    if not pair:
        return None
    same = _SAME.search(question)
    qualifiers = re.findall(r"\(([^)]*)\)", question)  # "(1936 Film)": part of a name, not of the predicate
    taken = set().union(*(term_set(s) for s in [*pair, *qualifiers]))
    asked_noun = term_set(same["noun"]) if same else frozenset()
    predicate = {t: w for t, w in weights.items() if t not in taken and t not in asked_noun}
    if any(t.isdigit() for t in predicate):  # "more than 15 novels": a count to compare, not a property
        return None
    total = sum(predicate.values())
    national = bool(same) and same["noun"].lower() in _NATIONAL_NOUNS
    named = [m for m in NATION.finditer(question) if not any(m[1] in subject for subject in pair)]
    asked = {NATION_OF[m[1]] for m in named}  # "both American …?"
    values = []
    for subject in pair:
        own = _own_sentences(subject, evidence)
        if not own:
            return None
        nation = _nation(own) if national or asked else None
        if national and nation:
            values.append((subject, *nation))
            continue
        if same:
            found = [(value, s, c) for s, c in own if (value := _value_near(s, same["noun"]))]
            if not found:
                return None
            values.append((subject, found[0][0], found[0][1], found[0][2]))
            continue
        scored = [(sum(w for t, w in predicate.items() if t in term_set(s)) / (total or 1.0), s, c) for s, c in own]
        best = max(scored, key=lambda item: item[0])
        held = best[0] >= share and not negated(best[1], frozenset(predicate))
        if not held and best[0] < share and not any(is_titled(c, subject) for c in evidence):
            return None  # no page of its own: a predicate only unmentioned is not a No
        if held and nation and nation[0] not in asked:  # "an Australian documentary" is no American one
            best, held = (0.0, nation[1], nation[2]), False
        values.append((subject, float(held), best[1], best[2]))
    if same:
        answer = "Yes" if len({v[1].lower() for v in values}) == 1 else "No"
        return Comparison(answer, [(s, 1.0, sentence, chunk) for s, _, sentence, chunk in values])
    return Comparison("Yes" if all(v[1] for v in values) else "No", values)
