"""Answer types: what kind of value a question asks for, and the spans of a sentence that are one.

The answer-type step of classic question-answering pipelines: the question's wording names the type of the answer (a
number, a date, a person, a command, …), candidate sentences are those holding a span of that type, and the short
answer is that span (Moldovan et al. 2000, "The Structure and Performance of an Open-Domain Question Answering
System", LASSO; Brill et al. 2002, "An Analysis of the AskMSR Question-Answering System", answer-type filtering of
candidates). The patterns are English and surface-level; ``other`` means no span is required.
"""

from __future__ import annotations

import re
from typing import Literal

from core.text import MONTH, STOPWORDS, name_only, names, term_set, tidy_span
from deciders import lexicon
from deciders.contrast import negated

AnswerType = Literal[
    "yes_no", "default", "quantity", "number", "date", "person",
    "place", "organisation", "nationality", "command", "definition", "other",
]  # fmt: skip
UNTYPED: frozenset[str] = frozenset({"definition", "other"})
"""Types with no span to find: any sentence may answer, and only ``other`` has a short answer."""

# Checked in order: the first that matches names the type.
_QUESTION_TYPES: list[tuple[AnswerType, re.Pattern]] = [
    (
        "command",
        re.compile(
            r"\b(how (?:do|can|should|would) (?:i|you|we)|what(?:'s| is) the (?:syntax|command|option|flag|function)|"
            r"which (?:command|function|option|flag|meta-command|switch|clause|format|file|setting|parameter)|"
            r"what (?:command|function|option|flag|clause|file|setting|parameter))\b",
            re.I,
        ),
    ),
    (
        "yes_no",
        re.compile(
            r"^(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should)\b(?!.*\bor\b.*\?)",
            re.I,
        ),
    ),
    (
        "default",
        re.compile(
            r"\b(default|by default|out[- ]of[- ]the[- ]box|"
            r"if i (?:never|haven't|don't|didn't) (?:touch|chang|set|tun|configur)\w*|"
            r"unless (?:told|i say) otherwise|stock install)\b",
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

_NUMBER = (
    rf"(?:-?\d[\d,]*(?:\.\d+)?(?:\s(?:million|billion|thousand))?|{lexicon.NUMBER_WORD}(?:[\s-]{lexicon.NUMBER_WORD})*)"
)

_RANGE = rf"(?:between\s+{_NUMBER}\s+and\s+|{_NUMBER}\s?–\s?)?{_NUMBER}"
"""A number or a range of them ("between 250 and 1600", "8–16"): the range is the answer, not its first end."""

SPAN_PATTERNS: dict[str, re.Pattern] = {
    "quantity": re.compile(rf"(?<![\w.-]){_RANGE}\s?-?{lexicon.UNIT}(?![\w])", re.I),
    "number": re.compile(rf"(?<![\w.&-]){_RANGE}(?![\w>])", re.I),  # not a shell redirection's 2>&1
    "date": re.compile(
        rf"\b(?:{MONTH}\s+\d{{1,2}},?\s+\d{{3,4}}|\d{{1,2}}\s+{MONTH}\s+\d{{3,4}}|{MONTH}\s+\d{{3,4}}|"
        rf"\d{{3,7}}\s?(?:AD|BC|BCE|CE)\b|(?:1[0-9]|20)\d{{2}}s?|\d{{1,2}}(?:st|nd|rd|th) century|"
        r"\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m|p\.m))\b"
    ),
    "command": re.compile(
        r"(\\[a-zA-Z][\w+]*|(?<![\w-])(?:-[a-zA-Z]{1,2}\b|--[a-z][\w-]*)(?:=\w+)?|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\(\))?|\b[a-z_]+\(\)|"
        rf"\b[a-z][\w.]*\.(?:conf|signal|sql|sh)\b|{lexicon.KEYWORD_RUN}|\b[a-z_]\w*(?:\.[a-z_]\w*)+(?=\())"
    ),
}
_EXAMPLE_MARK = re.compile(r"\b(?:e\.g\.|for example|for instance)(?=[\s,])", re.I)
"""Where an example starts: a default said after it is the example's setting, not the default."""
_EXAMPLE = re.compile(rf"{_EXAMPLE_MARK.pattern},?\s+({_RANGE}(?:\s?-?{lexicon.UNIT}(?![\w]))?)", re.I)
"""A value given as an example ("to start postgres with a specific port, e.g., 1234"), not the answer."""
_PRONOUN_ONE = re.compile(
    r"(?:(?<=\bthan )|(?<=\bleast )|(?<=\bmost )|(?<=\bno )|(?<=\bany )|(?<=\beach )|(?<=\bat ))one\b|"
    r"\bone(?=\s+(?:of|another|or more|at a time|by one)\b)",
    re.I,
)
""""one" as a pronoun or in an idiom ("more than one instance", "at least one", "one of them"), no value."""
_COUNTED = re.compile(r"\b(?:number of|how many)\s+(?P<noun>\w+)", re.I)
"""A count asked for ("the maximum number of columns"): a measure ("8192-byte") is not one, nor
a year ("in April 2015", "the 2000 census": :data:`_YEAR_BEFORE` ends at it)."""
_YEAR_BEFORE = re.compile(rf"\b(?:in|since|of|from|until|by|the|{MONTH}(?:\s+\d{{1,2}},)?)\s+(?:1[6-9]|20)\d\d$", re.I)
_UNIT_AFTER = re.compile(rf"\s?-?(?P<unit>{lexicon.UNIT})(?![\w])", re.I)
_DURATION_QUESTION = re.compile(
    r"\bhow (?:long (?:does|do|did|will|would|should|has|have|before|until|after)\b|often\b|much time\b)|"
    r"_(?:timeout|delay|naptime|interval)\b",
    re.I,
)
_SIZE_QUESTION = re.compile(r"\bhow (?:many (?:bytes|bits|[kmgt]b)|much (?:memory|disk|space|storage))\b", re.I)
"""Wordings that ask for a duration ("how long does a session wait …?", "how much time passes …?", a setting named
by one: ``checkpoint_timeout``; not "how long can a name be?"), and for a size ("how many bytes does it take?")."""
_FILE = re.compile(
    r"(?<![\w/.$~-])(?:(?:\$\w+|~)?(?:/[\w.-]*\w)+/?|(?:[\w-]+/)*[\w-]{2,}(?:\.[a-z][\w-]{0,9})+(?![\w(]))"
)
"""A file name or path ("postgresql.auto.conf", "$PGDATA/standby.signal"): where documents keep a thing."""
_DEFAULT_VALUE = re.compile(
    r"\b(?!(?-i:DEFAULTS?)\b)"  # the keyword DEFAULT ("DEFAULT to use the default encoding") is no wording
    r"defaults?\b(?:,?\s+(?!is\b|are\b|of\b|to\b)[\w-]+,?){0,4}?\s+(?:is|are|to|=|of(?=\s+[\d'\"]))\s+"
    r"(?:(?:typically|usually|normally|currently)\s+)?(?!(?:chosen|used|determined|computed|selected|taken)\b)"
    r"(?!the (?:opposite|same)\b)"
    # a list opening on a quoted item runs to the sentence's end ('"$user", public'), else a value ends at a comma
    r"(?P<value>(?:\"[^\"]*\"|'[^']*')(?:,\s*[\w$\"']+)+(?=\.(?!\d)|;|$)|(?:[^.;]|\.(?=\d))+?)"
    r"(?=\.(?!\d)|;|:\s|,\s|\s+(?:which|but|and|if|unless|when|for)\b|$)|"
    r"\bdefault,\s+(?P<comma>-?\d[\w.]*)(?=,)|"
    r"(?<![\w.\\'-])(?P<before>-?\d[\w.]*|zero|on|off|true|false|enabled|disabled|none|\w+_\w+|'[^']*'|the empty string"
    r"(?:\s+'')?|(?-i:[A-Z]{2,}\w*))\s+(?-i:by)\s+default\b|"
    r"(?<![\w.\\'-])(?P<marked>'[^']*'|(?:an|the) empty string(?: '')?|[\w.+-]+)\s+\((?:which is )?the default\)|"
    r"(?<![\w.\\'-])(?P<named>[\w.+-]+)\s+is\s+the\s+default\b",  # "partition is the default setting"
    re.I,
)
_PRONOUNS = frozenset({"it", "this", "that", "them", "they", "these", "those", "one"})
"""Words a default's wording may end on that name no value ("the default value scales proportionally to it")."""
_KEYWORD_DEFAULT = re.compile(r"(?<![\w.])(?P<name>[A-Za-z_]\w*)=(?P<value>'[^']*'|\"[^\"]*\"|[^\s,()=]+)")
"""A keyword parameter's default in a signature: ``lru_cache(maxsize=128, typed=False)``."""
_QUANTITY_WORDING = re.compile(
    r"\b(how (?:long|large|big|wide|old|far|often)|how much (?:time|memory|disk|space|storage|ram)|"
    r"(?:memory|disk|space|timeout|interval|delay|size) budget)\b|_(?:timeout|delay|naptime|interval)\b",
    re.I,
)
_MEASURES: list[tuple[Literal["quantity", "number"], re.Pattern]] = [
    ("quantity", _QUANTITY_WORDING),
    ("number", re.compile(r"\b(how many|what (?:port|number|percentage)|which port)\b", re.I)),
]
"""Question wordings that ask for a measure, checked in order (see :func:`default_measure`)."""
_YES, _NO = "Yes", "No"

_DEFINITION = re.compile(r"^(?:who|what)(?:'s|\s+(?:is|was|are|were))\s+(?P<subject>[^?]+?)\s*\??$", re.I)
""""Who is Donnie Smith?", "What is MVCC?": a definition, not a person or a value."""
_EXPLANATION = re.compile(
    r"^what does (?P<subject>.+) (?:do|mean|stand for)\s*\??$|\bdifference between\b|^(?:explain|describe)\b|"
    r"^what (?:is|are) the (?:purpose|point|use|meaning|advantages?|benefits?) of\b",
    re.I,
)
"""Questions a sentence answers but no single value does: "What does VACUUM FULL do?"."""


def expected_type(question: str) -> AnswerType:
    """The type of answer ``question`` asks for: ``definition`` for "Who is <a name>?", "What is
    X?" (a few words), "What does X do?" and "the difference between …"; ``other`` when its
    wording names no type."""
    text = question.strip()
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


_SUBJECT_DRESSING = re.compile(
    r"^(?:the|a|an)\s+|\s+(?:option|command|function|setting|parameter|clause|keyword|flag|statement)$", re.I
)


def definition_subject(question: str) -> str | None:
    """What a definition question asks about ("VACUUM FULL" in "What does VACUUM FULL do?",
    "tablespace" in "What is a tablespace?"), without its article or a trailing "option",
    "command", …; ``None`` when ``question`` is no definition question (:func:`expected_type`)."""
    text = question.strip()
    match = _DEFINITION.match(text) or _EXPLANATION.match(text)
    if expected_type(text) != "definition" or match is None or not match["subject"]:
        return None
    return _SUBJECT_DRESSING.sub("", match["subject"].strip()) or None


_FAMILY: dict[str, str] = {
    "default": "value", "quantity": "value", "number": "value", "yes_no": "yes_no",
    "person": "name", "place": "name", "organisation": "name", "date": "name", "command": "name", "nationality": "name",
}  # fmt: skip


def confidence_group(question: str, abstained: bool) -> str:
    """The calibration group of a response (:mod:`core.calibration`): ``abstention``, or the
    family of the type ``question`` asks for — ``value`` (default, quantity, number), ``yes_no``,
    ``name`` (person, place, organisation, date, command) or ``other`` (other, definition).
    Answers of these families are right at different rates for the same support (agentic dev
    runs: values 0.79, yes/no 0.79, names 0.32, other 0.52), so each has its own map."""
    return "abstention" if abstained else _FAMILY.get(expected_type(question), "other")


def default_measure(question: str) -> Literal["quantity", "number"] | None:
    """What a default asked for must be: ``quantity`` ("how much time passes … by default?"),
    ``number`` ("what port … if I never touch the config?") or ``None`` (any value: "how much
    information …?" asks for a setting)."""
    for kind, pattern in _MEASURES:
        if pattern.search(question):
            return kind
    return None


def spans(sentence: str, kind: AnswerType, question: str = "") -> list[str]:
    """Spans of ``sentence`` of type ``kind``, in order, without the question's own words, a
    document's furniture (``lexicon.FURNITURE``) or, for a command, an acronym ("RFC").

    ``default`` is the value after "default is / defaults to" (or before "by default"), or a
    signature's default of a parameter the question names (``maxsize=128``), kept only when it
    is the measure the question asks for (:func:`default_measure`);
    ``yes_no`` gives "No" when a negation cue negates one of the question's terms in the
    sentence (:func:`negated`), else "Yes"; names are capitalised names (a place also a file or
    path); ``other`` gives nothing."""
    asked = term_set(question)
    if kind == "default":
        example = _EXAMPLE_MARK.search(sentence)  # "For example, initdb -E EUC_JP sets the default … to EUC_JP"
        matches = [m for m in _DEFAULT_VALUE.finditer(sentence) if not (example and example.start() < m.start())]
        found = [next(filter(None, m.groups()), "") for m in matches]  # the value group
        found = [v for v in found if v.lower() not in STOPWORDS - {"on", "off", "none"}]  # "which is the default"
        found = [v for v in found if v.lower().strip(" .)") not in _PRONOUNS]  # "scales proportionally to it"
        if ">>>" not in sentence:  # an example call (">>> json.dumps(x, indent=4)") sets, not defaults
            named = [m for m in _KEYWORD_DEFAULT.finditer(sentence) if term_set(m["name"]) <= asked - {"default"}]
            found += [m["value"] for m in named if term_set(m["name"])]
        if measure := default_measure(question):
            found = [value for value in found if _measure_of(value, measure, question)]
        if measure == "number":  # "the value established during compilation (normally 5432)": the number
            found = [v if re.match(_NUMBER, v) else SPAN_PATTERNS["number"].findall(v)[0] for v in found]
    elif kind == "yes_no":
        return [_NO if negated(sentence, asked) else _YES]
    elif kind == "person":  # an all-capitals word ("UK", "GR") is no person's name
        found = [name for name in names(sentence) if not name.isupper()]
    elif kind == "organisation":
        found = names(sentence)
    elif kind == "nationality":  # "an American politician": American; "which country … from?": United States
        country = re.search(r"\bcountry\b", question, re.I)
        found = [lexicon.NATION_OF[m[1]] if country else m[1] for m in lexicon.NATION.finditer(sentence)]
    elif kind == "place":
        found = [m.group(0) for m in _FILE.finditer(sentence)] + names(sentence)
    elif kind == "number" and (counted := _COUNTED.search(question)):  # a count of things, not a measure
        noun = term_set(counted["noun"])
        found = [
            m.group(0)
            for m in SPAN_PATTERNS["number"].finditer(sentence)
            if (not (unit := _UNIT_AFTER.match(sentence, m.end())) or term_set(unit["unit"]) == noun)
            and not _YEAR_BEFORE.search(sentence, 0, m.start() + len(m.group(0).rstrip(",")))
        ]
    elif kind in SPAN_PATTERNS:
        matches = list(SPAN_PATTERNS[kind].finditer(sentence))
        if kind in ("number", "quantity"):  # a value given as an example is one throughout the sentence
            examples, idioms = set(_EXAMPLE.findall(sentence)), {m.start() for m in _PRONOUN_ONE.finditer(sentence)}
            matches = [m for m in matches if m.group(0) not in examples and m.start() not in idioms]
        found = [m.group(0) for m in matches]
        if kind == "date" and re.search(r"\b(?:what|which) month\b", question, re.I):  # a year is no month
            found = [value for value in found if re.search(MONTH, value)]
        if kind == "command" and re.search(r"\b(?:which|what)\s+(?:\w+\s+)?file\b", question, re.I):  # not "SCRAM"
            found = [value for value in found if _FILE.fullmatch(value)]
        if kind == "quantity":
            found = [value for value in found if _measure_of(value, kind, question)]
    else:
        return []
    if kind in ("person", "organisation", "place"):  # a possessor ("Robert's son") is not who is asked about
        found = [name_only(s) for s in found if not re.search(r"\w['’]s$", s)]
    kept = [tidy_span(s) for s in found if s and tidy_span(s)]
    kept = [s for s in kept if not (kind == "command" and s in lexicon.ACRONYMS) and not lexicon.FURNITURE.match(s)]
    quoted = {tidy_span(s) for s in found if s and s[0] in "'\"‘“"}  # a literal: "The default is 'Default'"
    return list(dict.fromkeys(s for s in kept if s in quoted or not _repeats(s, kind, question, asked)))


def _repeats(span: str, kind: AnswerType, question: str, asked: frozenset[str]) -> bool:
    """Whether ``span`` only repeats the question: its terms are all the question's; code, if named (``zip()``
    by "the zip function", not ``search_path`` by "search path"; ``\\password`` as is), a command phrase or a
    statement's keyword as written ("CREATE INDEX", "UPDATE" answer "how do I create an index / update rows?"), a
    value in digits as written ("4 bytes" answers "how many bytes …?": a digit is no term)."""
    if (kind == "command" and (span.startswith("\\") or lexicon.COMMAND_PHRASE.fullmatch(span))) or (
        kind in ("default", "quantity", "number") and re.search(r"\d", span)
    ):
        return span.lower() in question.lower()
    if kind == "command" and span in lexicon.SQL_STATEMENT:
        return re.search(rf"\b{span}\b", question) is not None
    if kind == "command" and lexicon.CODE_SPELLING.search(span):  # named whole or as a dotted name's head (pg_hba.conf)
        code = span.removesuffix("()").lower()
        return any(word == code or word.startswith(f"{code}.") for word in re.findall(r"[\w.]+", question.lower()))
    return bool(term_set(span)) and term_set(span) <= asked


def _measure_of(value: str, measure: Literal["quantity", "number"], question: str) -> bool:
    """Whether ``value`` holds the measure asked for: a number, or a quantity — with a unit of
    time when the question asks for a duration ("how long does …?", "how much time …?"), of size
    when it asks for a size ("how many bytes …?"); a setting's "off" value ("zero (the default)
    disables the timeout", "-1") is either."""
    if re.fullmatch(r"-1|0|zero", value.strip(), re.I):
        return True
    if measure == "number":
        return bool(SPAN_PATTERNS["number"].search(value))
    quantities = [m.group(0) for m in SPAN_PATTERNS["quantity"].finditer(value)]
    if _DURATION_QUESTION.search(question):
        return any(lexicon.TIME_UNIT.search(q) for q in quantities)
    if _SIZE_QUESTION.search(question):
        return any(lexicon.SIZE_UNIT.search(q) for q in quantities)
    return bool(quantities)
