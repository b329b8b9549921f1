"""A passage that says something other than what the question asks.

SQuAD 2.0's unanswerable questions (Rajpurkar et al. 2018, "Know What You Don't Know") are often
a passage's sentence with one word swapped for its opposite: "When was the third German empire
founded?" against "… the second German Empire …". Such a sentence matches nearly every word of
the question, so coverage alone calls it an answer. :func:`contradicted` aligns each question
word the sentence lacks with its neighbours: when the sentence holds both neighbours with, between
them, a word opposite to it (:data:`deciders.lexicon.CONTRASTS`), the sentence is about something
else. The other checks follow the same paper's classes: :func:`unnegated` (a question asked with
"not" against sentences saying only what is), :func:`denied` (a sentence saying "not" of what the
question takes as given), :func:`unmentioned` (a name or year of the question no evidence
mentions), :func:`negative_clause` (the clause a "not" question's answer comes from) and
:func:`negated` (a negation cue before a word: a yes/no question's "No")."""

from __future__ import annotations

import difflib
import re
import unicodedata
from itertools import pairwise

from core.text import STOPWORDS, sentences, term_set, terms
from deciders.answer_types import expected_type
from deciders.lexicon import CONTRASTS

_TOKEN = re.compile(r"[a-z0-9']+")
_ARTICLES = frozenset({"the", "a", "an"})
MAX_GAP = 2
"""Most words (articles aside) a swapped word may span between the neighbours."""


def _opposite(asked: str, said: str) -> bool:
    if re.search(r"\d", asked) and re.search(r"\d", said):  # another number in its place: "the 32nd" for "the 22nd"
        return asked != said
    return any(
        any(asked in pole for pole in scale) and any(said in pole and asked not in pole for pole in scale)
        for scale in CONTRASTS
    )


def _negatives(word: str) -> set[str]:
    """``word`` with a negating prefix: "ametrical", "unencrypted", "nonlinear", "invalid"."""
    return {f"{prefix}{word}" for prefix in ("a", "un", "non", "in", "dis")}


def _stem(token: str) -> str:
    found = terms(token)
    return found[0] if found else token


_REACH = 3
"""Stop words a question word's neighbour may be passed over for the next content word, on each side."""


def _anchor(words: list[str], at: int, step: int) -> str | None:
    """The first word from ``at`` in direction ``step`` that is no stop word, within ``_REACH``."""
    for other in range(at + step, at + step * (_REACH + 1), step):
        if not 0 <= other < len(words):
            return None
        if words[other] not in STOPWORDS:
            return words[other]
    return None


def contradicted(question: str, sentence: str) -> list[tuple[str, str]]:
    """Where ``sentence`` says the opposite of a word of ``question``.

    Args:
        question: the question.
        sentence: the candidate answer sentence (with its context).

    Returns:
        (question word, the sentence's words from neighbour to neighbour) pairs, e.g.
        ``("third", "the second german")``; empty when nothing is contradicted.
    """
    asked = _TOKEN.findall(question.lower())
    said = _TOKEN.findall(sentence.lower())
    stems = [_stem(t) for t in said]
    held = set(stems) | set(said)
    found = []
    for i in range(1, len(asked) - 1):
        word, left, right = asked[i], asked[i - 1], asked[i + 1]
        if word in held or _stem(word) in held:
            continue
        # the word with a negating prefix added or dropped: "ametrical" for "metrical", "encrypted" for "unencrypted"
        negatives = _negatives(word)
        negating = (t for t in said if len(min(t, word, key=len)) >= 5 and (t in negatives or word in _negatives(t)))
        if opposite := next(negating, None):
            found.append((word, opposite))
            continue
        if left in STOPWORDS and right in STOPWORDS:  # "how weak the push": the content words around
            left, right = _anchor(asked, i, -1), _anchor(asked, i, 1)
            if left is None or right is None:
                continue
        left, right = _stem(left), _stem(right)
        for j, stem in enumerate(stems):
            if stem != left:
                continue
            for k in range(j + 2, min(j + 2 + MAX_GAP + _REACH + 1, len(stems))):
                between = [t for t in said[j + 1 : k] if t not in _ARTICLES]
                spaced = [t for t in between if t not in STOPWORDS]  # "upon how strong the": strong
                if (
                    stems[k] == right
                    and 0 < len(spaced) <= MAX_GAP
                    and len(between) <= MAX_GAP + _REACH
                    and any(_opposite(word, t) for t in spaced)
                ):
                    found.append((word, " ".join(said[j : k + 1])))
    shortest = {}  # each word's tightest span: "the second german", not "the other states into the second german"
    for word, span in found:
        if word not in shortest or len(span) < len(shortest[word]):
            shortest[word] = span
    return list(shortest.items())


_ASKS_NEGATED = re.compile(
    r"\b(?:not|no|never|cannot|fail(?:ed|s)?\s+to|refus(?:e|ed|es)|(?-i:forbid(?:s|den)?|prohibit(?:s|ed)?|banned))\b|n't\b",
    re.I,
)
"""A question asking about what did not happen ("Which entity did not develop …?", "What have
members failed to join?", "Which investigation found no statistical failings?", "Who did the US
refuse aid to?", "What are hospital medications forbidden from being?"; a title's "Forbidden Ground" is none)."""
_CONDITION = re.compile(r"\b(?:if|unless|without|that)\b[^,?]*|(?<!^)(?<!^\s)\bwhen\b[^,?]*", re.I)
"""A condition or a relative clause, whose negation describes the user's situation or the thing
asked about, not what is asked ("if I never touch the config", "the way that doesn't block
writes"); a question's first "When" asks for a time ("When wasn't King George's war?")."""
_RESTRICTION = re.compile(r"\b(?:only|just)\b[^,?.]*?(?:,|\band\b|\bbut\b)\s*(?:no|not)\s+\w+", re.I)
"""What a question leaves out of what it asks for ("dump only the schema, no data", "just the table
definitions and no rows"): a restriction, not a negation asked."""
_SAYS_NEGATED = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|fail(?:ed|s|ure)?|refus(?:e|ed|es|al)|"
    r"forb[ia]d\w*|prohibit\w*|bann?(?:s|ed)?|"
    r"rather than|instead|unlike|except|other than|lack(?:s|ed|ing)?)\b|n't\b",
    re.I,
)
"""A sentence stating something in the negative or by contrast."""
NEGATION_SCOPE = 10
"""Most words between a cue and the word it negates (:func:`unnegated`)."""


def unnegated(question: str, sentence: str) -> str:
    """The negation a question asks with when ``sentence`` states nothing in the negative.

    SQuAD 2.0 builds many unanswerable questions by negating a passage's sentence ("What did the
    European Community not originally focus on?" against "… originally focused upon free movement
    of workers"; Rajpurkar et al. 2018, "negation"): the sentence matches the question's words but
    answers the opposite question. Negations inside a condition ("if I never …") do not count.

    A cue counts within ``NEGATION_SCOPE`` words of where the sentence says the negated word (the
    question's first content word after its negation: "develop" in "did not develop"), or
    anywhere when the sentence does not say it: "… developed by the Court of Justice, … rules
    which are not expressly provided for in the treaties" says nothing negative of developing.

    Args:
        question: the question.
        sentence: the answer sentence(s), with their context.

    Returns:
        The question's negation ("not", "n't", "cannot", "failed to") when the sentence holds no negation
        or contrast cue (not, no, never, without, rather than, instead, except, lack …) in scope, else "".
    """
    asked, rest = _asked_negation(question)
    if not asked or (asked in ("not", "n't", "never", "cannot") and expected_type(question) == "yes_no"):  # polarity
        return ""
    target = next((_stem(w) for w in _WORD.findall(rest.lower()) if _content(w)), None)
    said = _WORD.findall(sentence.lower())
    at = [i for i, word in enumerate(said) if _stem(word) == target]
    scopes = [" ".join(said[max(0, i - NEGATION_SCOPE) : i + NEGATION_SCOPE + 1]) for i in at] or [sentence]
    return "" if any(_SAYS_NEGATED.search(scope) for scope in scopes) else asked


def _asked_negation(question: str) -> tuple[str, str]:
    """The negation ``question`` asks with, outside a condition or relative clause and the statements
    setting its scene ("Other hosts can't reach my server. Which address …?"), and the question's
    words after it (``("", "")`` if none)."""
    said = sentences(question)
    if len(said) > 1 and not said[-2].rstrip().endswith("?"):
        question = said[-1]
    stripped = _RESTRICTION.sub(" ", _CONDITION.sub(" ", question))
    asked = _ASKS_NEGATED.search(stripped)
    return (" ".join(asked.group(0).lower().split()), stripped[asked.end() :]) if asked else ("", "")


_NEGATORS = frozenset({"not", "no", "never", "n't", "cannot", "neither", "nor"})
_WORD = re.compile(r"[a-z0-9']+|n't")
_LINKS = _ARTICLES | {
    "of",
    "than",
    "in",
    "on",
    "to",
    "for",
    "with",
    "at",
    "by",
    "from",
    "as",
    "under",
    "within",
    "into",
}
_LINKS |= {"over", "about", "after", "before", "between", "through", "during", "against", "upon", "across", "among"}


def _content(word: str) -> bool:
    return len(word) > 2 and word not in STOPWORDS


def denied(question: str, sentence: str) -> str:
    """The words of ``sentence`` that deny what ``question`` takes as given.

    SQuAD 2.0's negation class also runs the other way (Rajpurkar et al. 2018): "When a commission
    reached a decision, what happened?" against "… but it reached no decision". Two content words
    (three letters or more) next to each other in the question, or with only articles and
    prepositions between them ("reached a decision", "difficult than multiplication" — not "could
    only propose"), with a negation between them in the sentence ("reached no decision") or right
    before both ("not more difficult than multiplication"), deny the question's premise.

    Args:
        question: the question; one with a negation or contrast cue, or a yes/no (its No), is never denied.
        sentence: the answer sentence, with its context.

    Returns:
        The sentence's words from the first denied word (or the negation) to the last, e.g.
        "reached no decision"; "" when nothing is denied.
    """
    if _SAYS_NEGATED.search(question) or expected_type(question) == "yes_no":
        return ""
    # content words of the question next to each other, at most articles and prepositions between
    words = _WORD.findall(question.lower())
    asked = [(i, _stem(w)) for i, w in enumerate(words) if _content(w)]
    pairs = {(a, b) for (i, a), (j, b) in pairwise(asked) if set(words[i + 1 : j]) <= _LINKS}
    said = _WORD.findall(sentence.lower().replace("n't", " n't"))
    content = [(i, _stem(w)) for i, w in enumerate(said) if _content(w) and w not in _NEGATORS | _LINKS]
    for n, word in enumerate(said):
        if word not in _NEGATORS:
            continue
        before = [c for c in content if n - 3 <= c[0] < n][-1:]
        after = [c for c in content if c[0] > n][:2]
        if not after or after[0][0] - n > 3:
            continue
        if before and (before[0][1], after[0][1]) in pairs:
            return " ".join(said[before[0][0] : after[0][0] + 1])
        if len(after) == 2 and (after[0][1], after[1][1]) in pairs:
            return " ".join(said[n : after[1][0] + 1])
    return ""


_CLAUSE = re.compile(r"\s*;\s*|,\s+(?:but|while|whereas)\s+", re.I)


def negative_clause(question: str, sentence: str) -> str | None:
    """The clause of ``sentence`` a question asked with a negation is about.

    "Which built-in objects are not hashable?" against "Most of Python's immutable built-in
    objects are hashable; mutable containers (such as lists or dictionaries) are not; …": the
    short answer comes from the clause stating something in the negative, never from the one
    saying the opposite (a negation's scope ends at its clause, as in NegEx, Chapman et al. 2001).

    Args:
        question: the question.
        sentence: the answer sentence.

    Returns:
        The first clause (split at semicolons and at ", but / while / whereas") holding a negation
        or contrast cue, when the question asks with a negation (outside a condition) and the
        sentence has several clauses; else ``None`` (the whole sentence is the answer's scope).
    """
    if not _asked_negation(question)[0]:
        return None
    clauses = [c for c in _CLAUSE.split(sentence) if c.strip()]
    negative = [c for c in clauses if _SAYS_NEGATED.search(c)]
    return negative[0] if len(clauses) > 1 and negative else None


TYPO_LENGTH = 6
"""Shortest name that may be misspelled by a letter and still count as named ("Bustlers" for
"Butlers"); shorter ones must match exactly."""
TYPO_SIMILARITY = 0.85
"""Least ``difflib`` similarity ratio (2 × matching letters / both lengths) of such a spelling."""
_NAMED = re.compile(r"[A-Za-z][\w'’-]*|\b(?:1\d{3}|20\d{2})\b")


def unmentioned(question: str, text: str) -> list[str]:
    """The names and years of ``question`` that ``text`` never mentions.

    A single fact is stated where the thing it is about is named: an answer sentence whose chunk
    never names the question's "Japan" or "1765" answers a question about something else, the
    other common pattern of SQuAD 2.0's unanswerable questions (Rajpurkar et al. 2018, "entity
    swap", "impossible condition").

    Args:
        question: the question.
        text: the answer's chunks (title and text), as one string.

    Returns:
        The capitalised words (the question's first word and "I" aside), acronyms and years of
        ``question`` found neither literally (case- and accent-insensitively, also inside a longer
        word: "Postgres" in "PostgreSQL"), nor by stem, nor — from ``TYPO_LENGTH`` letters — as a
        word of ``text`` spelled a letter or so apart (``difflib`` ratio ≥ ``TYPO_SIMILARITY``),
        each given as the whole capitalised name it is part of ("Oracle Data Guard" when only
        "Guard" is missing), in question order, accents removed.
    """
    folded = _folded(question).strip()
    found = list(_NAMED.finditer(folded))[1:]
    words = [m.group(0) for m in found]
    # capitalised and joined to the word before by a space only: the words of one name
    capital = [w[0].isupper() and w != "I" for w in words]
    joined = [i > 0 and folded[found[i - 1].end() : m.start()] == " " for i, m in enumerate(found)]
    lowered = _folded(text).lower()
    held, vocabulary = term_set(lowered), set(re.findall(r"\w{%d,}" % TYPO_LENGTH, lowered))
    missing = []
    for at, word in enumerate(words):
        stems = (word,) if word.isdigit() else terms(word) if capital[at] else ()
        if not stems or word.lower() in lowered or set(stems) <= held:
            continue
        if len(word) >= TYPO_LENGTH and difflib.get_close_matches(word.lower(), vocabulary, 1, TYPO_SIMILARITY):
            continue
        start, end = at, at + 1  # the whole name the word is part of: "Oracle Data Guard", not "Guard"
        while capital[at] and joined[start] and capital[start - 1]:
            start -= 1
        while capital[at] and end < len(words) and joined[end] and capital[end]:
            end += 1
        missing.append(re.sub(r"['’]s$", "", folded[found[start].start() : found[end - 1].end()]))
    return list(dict.fromkeys(missing))


def _folded(text: str) -> str:
    """``text`` without accents ("Benìtez" → "Benitez"): NFKD, combining marks dropped."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
