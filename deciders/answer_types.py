"""Answer types: what kind of value a question asks for (a number, a quantity, a date, a person, a
command, a default, yes or no, a definition, …), read from its wording.

The answer-type step of classic question-answering pipelines: the question's wording names the type of the answer,
candidate sentences are those holding a span of that type (:mod:`deciders.spans`), and the short answer is that
span (Moldovan et al. 2000, "The Structure and Performance of an Open-Domain Question Answering System", LASSO;
Brill et al. 2002, "An Analysis of the AskMSR Question-Answering System", answer-type filtering of candidates).
The patterns are English and surface-level; ``other`` means no span is required.
"""

from __future__ import annotations

import re
from typing import Literal

from core.text import names, sentences, term_set
from core.wording import DEFAULT_IDIOM
from deciders.lexicon import CHOICE, PRONOUN, WHICH_NOUN

AnswerType = Literal[
    "yes_no", "default", "quantity", "number", "date", "person",
    "place", "organisation", "nationality", "command", "definition", "other",
]  # fmt: skip
UNTYPED: frozenset[str] = frozenset({"definition", "other"})
"""Types with no span to find: any sentence may answer, and only ``other`` has a short answer."""

LEADING_CLAUSE = re.compile(r"^(?:if|when|after|once|with|without|in|on)\b[^,?]*,\s*", re.I)
"""A clause before the question proper: "If I declare a column as plain varchar without giving a
number, " (its "without" does not negate what is asked)."""

ASKS_OPERATOR = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+)?operator\b", re.I)
"""A question asking for an operator ("which json operator gets …?"): its symbol, a command."""

# Checked in order: the first that matches names the type.
_QUESTION_TYPES: list[tuple[AnswerType, re.Pattern]] = [
    (
        "command",
        re.compile(
            r"\b(how (?:do|can|should|would) (?:i|you|we)|is there (?:a|any) way to|"
            r"what(?:'s| is) the (?:[\w-]+ )?(?:syntax|command|option|flag|function)|"
            r"which (?:format|file)|which (?:[\w-]+ )?(?:command|meta-command|statement|function|option|flag|switch|"
            r"clause|setting|parameter)|"
            r"what (?:command|function|option|flag|clause|file|setting|parameter))\b|"
            # a query typed as a search: "psql command to show the columns of a table", "function that splits …"
            r"^(?:the |a )?(?:[\w-]+ )?(?:command|meta-command|function|option|flag|switch|syntax) "
            r"(?:to|that|for|which)\b",
            re.I,
        ),
    ),
    ("command", ASKS_OPERATOR),  # "which json operator …?": the symbol of an operator table's row
    (
        "yes_no",
        re.compile(
            rf"^(?:{LEADING_CLAUSE.pattern[1:]})?"  # "If I …, is there …?"
            r"(?:is|are|was|were|does|do|did|can|could|may|might|must|has|have|had|will|would|shall|should)\b"
            r"(?!.*\bor\b.*\?)",
            re.I,
        ),
    ),
    (
        "default",
        re.compile(
            rf"\b(default|by default|{DEFAULT_IDIOM.pattern})\b",
            re.I,
        ),
    ),
    (
        "quantity",
        re.compile(
            r"\b(how (?:much|long|large|big|wide|old|far|many (?:bytes|bits|seconds|minutes|hours|days))|"
            r"how (?:often)|what(?:'s| is) the (?:size|length|limit|(?:maximum|minimum|max|min)(?! number\b))|"
            r"(?:memory|disk|space|timeout|interval|delay|size) budget)\b|_(?:timeout|delay|naptime|interval)\b",
            re.I,
        ),
    ),
    (
        "number",
        re.compile(
            r"\b(how many|what number|which number|what percentage|(?:what|which) port|"
            r"what(?:'s| is| was| were) the (?:(?:maximum|minimum|max|min|largest|smallest) )?"
            r"(?:population|number|total|count|percentage|ranking|rank))\b",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(
            r"\b(?:when (?:was|were|did|had|has)|(?:what|which) (?:year|date|day|century|time|month)|"
            r"what(?:'s| is) the (?:latest|earliest) year|birth ?day|birth ?date|date of (?:birth|death))\b",
            re.I,
        ),
    ),
    (
        "nationality",
        re.compile(r"\b(?:nationality|citizenship)\b|\bwhat citizen\b|\b(?:which|what) country\b.*\bfrom\b", re.I),
    ),
    (
        "person",
        re.compile(
            r"^(?:who|whom|whose)\b|\bwhich (?:person|actor|actress|author|writer|director|"
            r"singer|player|politician)\b",
            re.I,
        ),
    ),
    (
        "place",
        re.compile(
            r"^where\b|\bwhere\s*\?$|\bplace of (?:birth|death|burial)\b|"
            r"\b(?:which|what) (?:city|country|county|state|town|region|place|"
            r"continent|island|river)\b",
            re.I,
        ),
    ),
    (
        "organisation",
        re.compile(
            r"\b(?:which|what) (?:company|organi[sz]ation|team|band|university|club|party|label|network|school)\b", re.I
        ),
    ),
]

_QUANTITY_WORDING = re.compile(
    r"\b(how (?:long|large|big|wide|old|far|often)|how much (?:time|memory|disk|space|storage|ram)|"
    r"(?:memory|disk|space|timeout|interval|delay|size) budget)\b|_(?:timeout|delay|naptime|interval)\b",
    re.I,
)
Measure = Literal["quantity", "number", "name"]
_MEASURES: list[tuple[Measure, re.Pattern]] = [
    ("quantity", _QUANTITY_WORDING),
    ("number", re.compile(r"\b(how many|what (?:port|number|percentage)|which port)\b", re.I)),
    ("name", re.compile(r"\b(?:what|which)\s+(?:kind|type|sort)s?\s+of\b|\bwhich\s+(?:database|method)\b", re.I)),
]
"""Question wordings that ask for a measure, checked in order (see :func:`default_measure`)."""


_DEFAULT_CHECK = (
    re.compile(r"^\s*(?:is|are)\s+the\s+default\s+(?P<x>.+?)\s+(?P<y>[^\s?]+)\s*\?\s*$", re.I),
    re.compile(r"^\s*(?:does|do)\s+(?P<x>.+?)\s+default\s+to\s+(?P<y>.+?)\s*\?\s*$", re.I),
)


def default_check(question: str) -> tuple[str, str] | None:
    """A yes/no question about a default value as ("What is the default X?", the value asked
    about): "Is the default transaction isolation level serializable?", "Does work_mem default to
    64MB?"; ``None`` for any other question. Its answer is the default found, compared."""
    for pattern in _DEFAULT_CHECK:
        if match := pattern.match(question):
            return f"What is the default {match['x']}?", match["y"].strip("'\"“”")
    return None


_DEFINITION = re.compile(r"^(?:who|what)(?:'s|\s+(?:is|was|are|were))\s+(?P<subject>[^?]+?)\s*\??$", re.I)
""""Who is Donnie Smith?", "What is MVCC?": a definition, not a person or a value."""
_EXPLANATION = re.compile(
    r"^what does (?P<subject>.+?) (?:do|mean|stand for|control|determine|show|display|track|report)"
    r"(?:\s+(?:in|for|with|to)\s+[^?]+)?\s*\??$|"
    r"\bdifference between\b|"
    r"^(?:explain|describe)\b|^what happens\b|"
    r"^what (?:is|are) the (?:purpose|point|use|meaning|advantages?|benefits?) of\b",
    re.I,
)
"""Questions a sentence answers but no single value does: "What does VACUUM FULL do?", "What does
the wal_level setting control?", "What happens if a session idles longer than idle_session_timeout?"."""


SCENE_WORDS = 3
"""Fewest words before a question that set its scene: a quoted title ending "!" ("\"Ew!\" is a song
by … born where?") is part of the question, not a statement before it."""


def asking_sentence(question: str) -> str:
    """The sentence of ``question`` that asks: its last one ending in "?" when statements (or a
    question of their own: "Where do we start?") set the scene first ("I locked an account with
    passwd -l. Does that also keep him out …?"), else the whole text (sentences by
    :func:`core.text.sentences`)."""
    said = sentences(question)
    asking = max((at for at, s in enumerate(said) if s.rstrip().endswith("?")), default=0)
    scene = " ".join(said[:asking]).split()
    return said[asking].strip() if len(scene) >= SCENE_WORDS else question.strip()


def expected_type(question: str) -> AnswerType:
    """The type of answer ``question`` asks for: the one its :func:`asking_sentence` names, else
    the one the whole text names (a sentence cut short, "… inside a BEGIN ... COMMIT block?",
    names none): ``definition`` for "Who is <a name>?", "What is X?" (a few words), "What does X
    do?" and "the difference between …"; ``other`` when its wording names no type."""
    asking = asking_sentence(question)
    kind = _named_type(asking)
    return _named_type(question.strip()) if kind == "other" and asking != question.strip() else kind


def _named_type(text: str) -> AnswerType:
    if (match := _DEFINITION.match(text)) and names(match["subject"]) == [match["subject"].strip()]:
        return "definition"
    if _EXPLANATION.match(text):  # "What does lock_timeout do?": what it is, though it names a duration
        return "definition"
    for kind, pattern in _QUESTION_TYPES:
        if pattern.search(text):
            return kind
    if _EXPLANATION.search(text) or ((match := _DEFINITION.match(text)) and len(match["subject"].split()) <= 3):
        return "definition"
    return "other"


def default_measure(question: str) -> Measure | None:
    """What a default asked for must be: ``quantity`` ("how much time passes … by default?"),
    ``number`` ("what port … if I never touch the config?"), ``name`` ("what kind of index …?",
    "which database …?": no number, size or true/false) or ``None`` (any value: "how much
    information …?" asks for a setting)."""
    for kind, pattern in _MEASURES:
        if pattern.search(question):
            return kind
    return None


def self_contained_question(question: str) -> str | None:
    """The question a text ends with when statements set its scene first and it names what it asks
    itself ("Long queries look cut off in pg_stat_activity. How many bytes of query text are kept
    per session by default?": the second sentence, by :func:`core.text.sentences`); ``None`` for one
    sentence, two questions, or a last question that points back ("Which address does it bind to?")."""
    said = sentences(question)
    if len(said) < 2 or said[-2].rstrip().endswith("?") or PRONOUN.search(said[-1]):
        return None
    return said[-1]


ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)


def options(question: str) -> list[str]:
    """The things a choice question compares: "X, A or B?" → [A, B]; else the names on either
    side of its last " or "; empty when it offers no choice of two names."""
    if match := CHOICE.match(question.strip()):
        found = [o.strip() for o in match["options"].split(",") if o.strip()] + [match["last"].strip()]
        return [_option(o) for o in found]
    if " or " not in question:
        return []
    split = question.rindex(" or ")
    # a name at the question's start holds its opening word ("Is Baiyin or Xinghua …?"): not the option's
    found = [
        (at, name.split(None, 1)[-1] if at == 0 else name)
        for name in names(question)
        if (at := question.find(name)) >= 0
    ]
    before = [name for at, name in found if at < split]
    after = [name for at, name in found if at > split]
    return [_option(before[-1]), _option(after[0])] if before and after else []


def _option(text: str) -> str:
    """An option as named, without the quotes, commas and article around it."""
    return ARTICLE.sub("", text.strip(" \"'“”,"))


def head_noun(question: str) -> str | None:
    """The stemmed noun after "which"/"what" ("Which league does …" → "leagu"), if any."""
    match = WHICH_NOUN.search(question)
    found = term_set(match.group(1)) if match else frozenset()
    return next(iter(found), None)
