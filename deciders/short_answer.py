"""The short answer: which span of the answer sentence is the value, name or phrase asked for.

Among the spans of the expected type (:func:`deciders.spans.spans`) the one the question's
terms stand nearest (the proximity feature of answer ranking: Brill et al. 2002, "An Analysis of
the AskMSR Question-Answering System"; Ittycheriah et al. 2001), one holding the noun a
"what/which NOUN …?" question asks for, or the sentence's phrase naming that noun — the question's
focus noun as the answer type (Moldovan et al. 2000, "The Structure and Performance of an
Open-Domain Question Answering System").
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from core.spelling import coined_words
from core.text import STOPWORDS, term_set, terms, tidy_span
from deciders.answer_support import Candidate
from deciders.answer_types import ASKS_LIMIT, AnswerType
from deciders.comparison import options
from deciders.contrast import negative_clause
from deciders.lexicon import (
    API_NOUNS,
    CODE_SPELLING,
    CONTINENTS,
    COUNTRIES,
    EXCEPTION_NAME,
    KEYWORD_RUN,
    NATION,
    NOT_A_PERSON,
    PSQL,
    SQL_STATEMENT,
    WHICH_NOUN,
)
from deciders.spans import spans

_PHRASE_TOKEN = re.compile(r"[\w’'.-]*\w|[^\w\s]")
_REASON_OR_MANNER = re.compile(r"\s*(?:why|how)\b", re.I)
"""A question asking why, or how something happens (a typed "how many / much / long" is no ``other``)."""
_KEYWORDS = re.compile(KEYWORD_RUN)
_OPTIONAL_WORDS = re.compile(r"\[\s*([A-Z]{2,}(?:\s+[A-Z]{2,})*)\s*\]")
"""Optional keywords of a synopsis ("RENAME [ COLUMN ]"), read as written out."""
_API_STEMS = frozenset(t for noun in API_NOUNS for t in terms(noun))
_NOT_A_NAME = frozenset(
    "a an the this that these those its their each every any in of to for from by on at with as and or".split()
)
"""Words before an API noun that are no name of it ("the module", "in module winreg")."""
_BOUND = re.compile(r"\b(?:at most|at least|up to|no more than|no less than|as (?:many|much|few|little) as)\b", re.I)
"""A bound a question may ask for, which stands right before the answer's number in the sentence."""
_CAPPED = re.compile(
    r"\b(?:at most|up to|no more than|maximum(?: \w+){0,3}?(?: of| is)?|limit(?:s|ed|ing)?\b[^.;]{0,60}?\bto|"
    r"limit (?:of|is))\s*$",
    re.I,
)
"""Words that put an upper limit on the value after them: "at most", "up to", "limiting … to", "a maximum of"."""
_PROSE_WORD = re.compile(r"[A-Z][a-z]+$")

_HOW_TO_VERB = re.compile(r"^\s*how\s+(?:do|can|should|would)\s+(?:i|you|we|one)\s+(?P<verb>[a-z]+)\b", re.I)
"""The action a how-to asks for ("How do I restore …?": restore), which a command's name often holds (pg_restore)."""


def noun_phrase(sentence: str, noun: str, question: str) -> str | None:
    """The phrase of ``sentence`` that names a ``noun`` (a stemmed term: what a "what/which
    NOUN …?" question asks for), at its first mention: the capitalised name right after it
    ("the river Aare" → "Aare", "anthropologists David Graeber" → "David Graeber"), else the
    words before it that are neither stop words nor other question terms, with it ("the RNA
    interference pathway" → "RNA interference pathway"; for an API noun also a lower-case stop
    word: "the re module" → "re module"); ``None`` when the sentence does not
    mention the noun or nothing qualifies it. The question's focus noun as the answer's type
    (Moldovan et al. 2000)."""
    asked = term_set(question) - {noun}
    tokens = list(_PHRASE_TOKEN.finditer(sentence))
    stems = [terms(t.group(0)) for t in tokens]  # () for a stop word or punctuation
    for i, token in enumerate(tokens):
        if stems[i] != (noun,):
            continue
        end = i + 1
        while end < len(tokens) and tokens[end].group(0)[:1].isupper() and not set(stems[end]) & asked:
            end += 1
        if end > i + 1:
            return tidy_span(sentence[tokens[i + 1].start() : tokens[end - 1].end()])
        start = i
        while start > 0 and stems[start - 1] and not set(stems[start - 1]) & asked:
            start -= 1
        before = tokens[i - 1].group(0) if i else ""
        if start == i and noun in _API_STEMS and re.fullmatch(r"[a-z_]\w*", before) and before not in _NOT_A_NAME:
            start -= 1  # an API's name that is also a stop word: "the re module" → "re"
        return tidy_span(sentence[tokens[start].start() : token.end()]) if start < i else None
    return None


def nearest_first(sentence: str, found: list[str], weights: Mapping[str, float]) -> list[str]:
    """``found`` spans of ``sentence`` ordered by the question terms near them: each term in the
    sentence adds its weight over one plus its distance, in words, to the span, half a word more
    when the span comes before an exact name (``pgbench_accounts``: a listing's value follows the
    name; sentence order among equals); a snake-case name holds the terms of its parts
    (``CURRENT_TIME`` for "the current time"). The answer stands next to what the question says
    of it ("Nixon named William E. Simon as the first administrator" → "William E. Simon" for "Who
    was the first administrator?"; "a center in Hong Kong which opened in 2015" → 2015 for "What
    year did it open a center in Hong Kong?"). The proximity feature of answer ranking (Brill et
    al. 2002; Ittycheriah et al. 2001)."""
    tokens = list(_PHRASE_TOKEN.finditer(sentence))
    at: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):  # a snake-case name holds its parts' terms too: CURRENT_DATE, "current date"
        for term in {*terms(token.group(0)), *terms(token.group(0).replace("_", " "))} & weights.keys():
            at.setdefault(term, []).append(i)
    if not at or len(found) < 2:
        return found

    def nearness(span: str) -> float:
        start = sentence.find(span)
        inside = [i for i, t in enumerate(tokens) if start <= t.start() < start + len(span)] if start >= 0 else []
        if not inside:
            return 0.0
        # a span after an exact name is nearer than one as far before it: "pgbench_tellers 10 pgbench_accounts 100000"
        return sum(
            weights[t] / (1 + min(abs(p - i) + (i < p and "_" in t) / 2 for p in places for i in inside))
            for t, places in at.items()
        )

    return sorted(found, key=nearness, reverse=True)


_RANGE_END = re.compile(
    r"\b(?:(?P<upper>maximum|max|largest|highest|biggest|longest|most)|minimum|min|smallest|lowest|shortest|least)\b",
    re.I,
)
"""A question for one end of a range: "the maximum value of …", "… at most?", "the smallest …"."""


def range_end(sentence: str, found: list[str], upper: bool) -> list[str]:
    """``found`` with the end of a range ``sentence`` states first: of "between A and B", "from A to
    B" or "A to B" (two spans, or one span that is the whole range), B when ``upper``, else A;
    ``found`` as it is when it states no range of them."""
    for span in found:  # "between 250 and 1600" as one span
        if whole := re.fullmatch(r"between\s+(.+?)\s+and\s+(.+)", span):
            return [whole[2] if upper else whole[1], *(f for f in found if f != span)]
    for a, b in zip(found, found[1:], strict=False):
        between = (
            rf"\b(?:between\s+{re.escape(a)}\s+and|(?:from\s+)?{re.escape(a)}\s+(?:to|through)|{re.escape(a)}\s*–)"
        )
        if re.search(rf"{between}\s*{re.escape(b)}", sentence):
            return [b if upper else a, *(f for f in found if f not in (a, b))]
    return found


def _bound_before(sentence: str, span: str) -> str | None:
    """The bound (:data:`_BOUND`) right before ``span``'s first mention in ``sentence``, lower-cased."""
    before = sentence[: max(sentence.find(span), 0)].rstrip()
    found = [m for m in _BOUND.finditer(before) if m.end() == len(before)]
    return found[-1].group(0).lower() if found else None


def chosen_option(question: str, chosen: Sequence[Candidate]) -> str | None:
    """For a choice question ("…, the French Bulldog or the American Bulldog?"), the option the
    answer sentences (or their chunks' titles) name first; ``None`` otherwise."""
    choices = options(question)
    for cand in chosen:
        text = f"{cand.chunk['title']} {cand.sentence}".lower()
        named = [(text.find(o.lower()), o) for o in choices if o.lower() in text]
        if named:
            return min(named)[1]
    return None


def statement_clause(sentence: str, question: str, title: str = "") -> str | None:
    """For a how-to answered by an SQL statement, its command and the clause doing what the
    question asks, the identifiers between elided: "How do I rename a column?" over "To rename a
    column: ALTER TABLE products RENAME COLUMN product_no TO product_number;" → "ALTER TABLE …
    RENAME COLUMN" (the clause alone repeats the question, the identifiers are the example's); over
    a line of the statement's synopsis on its own page (``title`` "ALTER TABLE": "RENAME [ COLUMN ]
    column_name TO new_column_name"), the page's statement and as much of the line's first clause, its
    optional words kept, as is made of question terms ("ADD COLUMN" of "ADD [ COLUMN ] [ IF NOT
    EXISTS ]"). ``None`` when the sentence's first keyword run opens no statement
    (``lexicon.SQL_STATEMENT``) or no later run of the same statement is made of question terms."""
    asked = term_set(question)
    synopsis = _OPTIONAL_WORDS.sub(r"\1", sentence.removeprefix("Synopsis: "))
    if _KEYWORDS.fullmatch(title) and title.split()[0] in SQL_STATEMENT and (clause := _KEYWORDS.match(synopsis)):
        words = clause.group().split()
        said = next((n for n in range(len(words), 0, -1) if term_set(" ".join(words[:n])) <= asked), 0)
        while 0 < said < len(words) and not term_set(words[said - 1]):  # no "IF NOT" cut from "IF NOT EXISTS"
            said -= 1
        if words[0] not in SQL_STATEMENT and said and term_set(words[0]):  # "ADD COLUMN" of "ADD COLUMN IF NOT EXISTS"
            return f"{title} … {' '.join(words[:said])}"
    runs = list(_KEYWORDS.finditer(sentence))
    if not runs or runs[0].group().split()[0] not in SQL_STATEMENT:
        return None
    command = runs[0]
    for run in runs[1:]:
        if ";" in sentence[command.end() : run.start()]:
            return None
        if term_set(run.group()) and term_set(run.group()) <= asked:  # "DROP CONSTRAINT" drops no table
            elided = " … " if sentence[command.end() : run.start()].strip() else " "
            return f"{command.group()}{elided}{run.group()}"
    return None


def command_line(sentence: str, option: str) -> str:
    """The command line an ``option`` span sits in, when a program's name (spelled as code, a
    word English does not use: :func:`core.spelling.coined_words`, or any word after a shell prompt
    ``$``) comes right before it: its program, the option and up to three arguments before a
    stop word, a capitalised word of prose (the next sentence's "See") or the clause's end
    ("python3 -m venv /path/to/env" for ``-m``, "postgres -D /usr/local/pgsql/data" for ``-D`` in
    "$ postgres -D /usr/local/pgsql/data"); else the option alone."""
    found = re.search(rf"(?<![\w./-])([a-z][\w.-]*)\s+{re.escape(option)}(?![\w-])", sentence)
    prompted = found and re.search(r"(?:^|\s)\$\s*$", sentence[: found.start()])
    if not (found and (prompted or re.search(r"[\d_.]", found[1]) or coined_words(found[1]))):  # python3, psql
        return option
    line = [found.group(0)]
    for word in sentence[found.end() :].split()[:3]:  # arguments: up to a word of prose or the clause's end
        argument = word.rstrip(".:")
        prose = _PROSE_WORD.match(argument)  # the next sentence's "See"
        if not argument or argument.lower() in STOPWORDS or re.search(r"[;,]", argument) or prose:
            break
        line.append(argument)
        if argument != word:
            break
    return " ".join(line)


def head_noun(question: str) -> str | None:
    """The stemmed noun after "which"/"what" ("Which league does …" → "leagu"), if any."""
    match = WHICH_NOUN.search(question)
    found = term_set(match.group(1)) if match else frozenset()
    return next(iter(found), None)


def short_answer(
    kind: AnswerType, best: Candidate, question: str, weights: Mapping[str, float] | None = None
) -> str | None:
    """The best sentence's first span of the expected type (for ``other``, its first name or
    code-like term the question lacks; for a why or how question only a term spelled as code,
    ``lexicon.CODE_SPELLING``: a reason or a way is no name, the sentence answers it) — given the
    question's term ``weights``, the one nearest the question's terms
    (:func:`nearest_first`; ``None`` for a chain's last link, which is about
    the bridge, not the question: sentence order) — preferring one
    that holds the noun the question asks for ("Which league …?" → "Major League Soccer"), and
    for a person a name without an organisation's or place's head word (``NOT_A_PERSON``), and
    for a question asked with "not" only from the sentence's clause in the negative
    (:func:`deciders.contrast.negative_clause`); ``None`` when there is none."""
    if kind == "definition":  # the sentence is the answer
        return None
    if kind == "command" and (term := best.chunk.get("matched_term")) and best.sentence in best.chunk["matched_entry"]:
        return term  # the command of the matched group entry the question asks for: psql's \dt of "\dE … \dv"
    if kind == "command" and (clause := statement_clause(best.sentence, question, best.chunk["title"])):
        return clause
    found = list(best.spans)
    if kind == "other" and _REASON_OR_MANNER.match(question):  # a reason or a way is no name: code, or the sentence
        found = [f for f in found + spans(best.sentence, "command", question) if CODE_SPELLING.search(f)]
    elif kind == "other":  # its API entry's name, else a name or a code-like term with content words
        found = found or spans(best.sentence, "person", question) or spans(best.sentence, "command", question)
        found = [f for f in found if term_set(f)]
    # a question asked with "not": the spans of the clause saying something in the negative
    clause = negative_clause(question, best.sentence)
    scope = clause or best.sentence
    found = [f for f in found if f in clause] if clause else found
    if weights is not None:
        found = nearest_first(best.sentence, found, weights)
    if kind in ("number", "quantity") and (bounds := {b.lower() for b in _BOUND.findall(question)}):
        # "… at most?" → the span the sentence bounds the same way: "fields can be at most 1 GB", not "up to 4 TB"
        found = sorted(found, key=lambda f: _bound_before(scope, f) not in bounds)
    elif kind in ("number", "quantity") and ASKS_LIMIT.search(question):
        # "how big can a text value be?" → the span the sentence caps: "limiting the size … to 1 GB", not "two bits"
        found = sorted(found, key=lambda f: not _CAPPED.search(scope[: max(scope.find(f), 0)]))
    if kind in ("number", "quantity") and (end := _RANGE_END.search(question)):
        # "the maximum value of checkpoint_timeout" → the upper end of "between 30 seconds and one day"
        found = range_end(scope, found, upper=bool(end["upper"]))
    if kind == "person":  # "Donald Davies at the National Physical Laboratory, UK" → Donald Davies
        found = sorted(found, key=lambda f: bool(NOT_A_PERSON.search(f) or NATION.fullmatch(f)))
    noun = head_noun(question)  # "which league …" → a name holding "league": "Major League Soccer"
    gazetteer = {"contin": CONTINENTS, "countri": COUNTRIES}.get(noun or "", frozenset())
    named = [f for f in found if (noun and noun in term_set(f)) or f in gazetteer]  # "what continent …?" → Africa
    if noun in ("except", "error", "warn"):  # "what exception …?" → an exception class's name: ValueError
        raised = [f for f in found if EXCEPTION_NAME.fullmatch(f)] + EXCEPTION_NAME.findall(scope)
        raised += EXCEPTION_NAME.findall(best.context or "")  # the entry the sentence defines: "exception KeyError"
        raised = [e for e in dict.fromkeys(raised) if e.lower() not in question.lower()]
        raised = nearest_first(best.sentence, raised, weights) if weights is not None else raised
        return raised[0] if raised else None
    # "what pathway …" → the sentence's phrase naming a pathway: "RNA interference pathway"
    phrase = noun_phrase(scope, noun, question) if kind == "other" and noun else None
    meta = [f for f in found if f.startswith("\\")] if PSQL.search(question) else []  # psql's \dt, \l
    how_to = _HOW_TO_VERB.match(question)
    if kind == "command" and how_to:  # "restore a dump": pg_restore, not pg_dump
        found = sorted(found, key=lambda f: not set(terms(how_to["verb"])) <= set(terms(f.replace("_", " "))))
    chosen = (named or [p for p in [phrase] if p] or meta or found or [None])[0]
    run = chosen and re.search(rf"(?<![\w./-]){re.escape(chosen)}\s+(--?[a-zA-Z][\w-]*)", scope)
    if kind == "command" and how_to and run:
        chosen = run[1]  # the way is the program run so: "pg_dump -Fc dbname > filename", not "pg_dump"
    return command_line(scope, chosen) if kind == "command" and chosen and chosen.startswith("-") else chosen
