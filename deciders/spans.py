"""Spans: the parts of a sentence that are a value of the type a question asks for.

Candidate answer sentences are those holding a span of the expected type (:mod:`deciders.answer_types`), and the
short answer is such a span (Moldovan et al. 2000, "The Structure and Performance of an Open-Domain Question
Answering System"; Brill et al. 2002, "An Analysis of the AskMSR Question-Answering System"). The patterns are
English and surface-level: numbers and ranges, quantities with units, dates, names, commands and code, a default's
value after its wording, yes or no.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.text import MONTH, STOPWORDS, name_only, names, term_set, tidy_span
from deciders import lexicon
from deciders.answer_types import ASKS_OPERATOR, LEADING_CLAUSE, AnswerType, Measure, default_measure
from deciders.negation import negated

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
        # a meta-command (\dt), not an escape inside a string literal ('… the file.\n')
        r"((?<![\w.'\"\\])\\[a-zA-Z][\w+]*(?![\w+'\"\\])|(?<![\w-])(?:-[a-zA-Z]{1,2}\b|--[a-z][\w-]*)(?:=\w+)?|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\(\))?|\b[a-z_]+\(\)|"
        r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|"  # snake case in capitals: CURRENT_DATE, PG_VERSION_NUM
        r"(?<=^\| )[a-z_][a-z0-9_]*(?= \( )|"  # a function table row's name: "| lower ( text ) → text Converts …"
        rf"\b[a-z][\w.]*\.(?:conf|signal|sql|sh)\b|{lexicon.KEYWORD_RUN}|\b[a-z_]\w*(?:\.[a-z_]\w*)+(?=\())"
    ),
}
_EXAMPLE_MARK = re.compile(r"\b(?:e\.g\.|for example|for instance)(?=[\s,:])", re.I)
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
_UNITLESS_BOUND = re.compile(r"\b(?:maximum|minimum|max|min)\s+(?P<noun>precision|scale|depth|level|degree)\b", re.I)
"""A bound asked on a measure counted without a unit ("the maximum precision of a numeric")."""
_SIZE_QUESTION = re.compile(r"\bhow (?:many (?:bytes|bits|[kmgt]b)|much (?:memory|disk|space|storage))\b", re.I)
"""Wordings that ask for a duration ("how long does a session wait …?", "how much time passes …?", a setting named
by one: ``checkpoint_timeout``; not "how long can a name be?"), and for a size ("how many bytes does it take?")."""
_FILE = re.compile(
    r"(?<![\w/.$~-])(?:(?:\$\w+|~)?(?:/[\w.-]*\w)+/?|(?:[\w-]+/)*[\w-]{2,}(?:\.[a-z][\w-]{0,9})+(?![\w(]))"
)
"""A file name or path ("postgresql.auto.conf", "$PGDATA/standby.signal"): where documents keep a thing."""
_DEFAULT_VALUE = re.compile(
    # "the default setting of -1 selects …", "a default value of 10 seconds": the value, not what it does
    rf"\bdefault\s+(?:setting|value)\s+of\s+(?P<of>-?\d[\d.]*(?:\s?{lexicon.UNIT})?|zero|false|true|on|off)(?=[\s,.;]|$)|"
    r"\b(?!(?-i:DEFAULTS?)\b)"  # the keyword DEFAULT ("DEFAULT to use the default encoding") is no wording
    # "defaults to", never after other words ("the default for this source to destination encoding"); after other
    # words no passive clause: "By default, the dump is created in the database encoding" (the dump's, no value)
    # "the default encoding of open() is …": the words after "of" say what of (a call among them)
    r"defaults?\b(?:\s+to|\s+(?:is|are|=|of(?=\s+[\d'\"]))|(?:,?\s+(?!is\b|are\b|of\b|to\b)[\w-]+,?){1,4}?"
    r"(?:\s+of(?:\s+(?!is\b|are\b)[\w.-]+(?:\(\))?){1,4}?)?\s+"
    r"(?:is|are|=|of(?=\s+[\d'\"]))(?!\s+\w+ed\s+(?:in|into|by|with|from|on|at|as|for|using)\b))\s+"
    r"(?:(?:typically|usually|normally|currently)\s+)?(?!(?:chosen|used|determined|computed|selected|taken)\b)"
    r"(?!the (?:opposite|same)\b)"
    # a list opening on a quoted item runs to the sentence's end ('"$user", public'), else a value ends at a comma
    # a dot inside a name or number is no sentence end ("postgresql.conf", "locale.getencoding()", "0.5")
    r"(?P<value>(?:\"[^\"]*\"|'[^']*')(?:,\s*[\w$\"']+)+(?=\.(?!\w)|;|$)|(?:[^.;]|\.(?=\w))+?)"
    r"(?=\.(?!\w)|;|:\s|,\s|\s+(?:which|but|and|if|unless|when|for|because|since|although|though)\b|$)|"
    r"\bdefault,\s+(?P<comma>-?\d[\w.]*)(?=,)|"
    r"(?<![\w.\\'-])(?P<before>-?\d[\w.]*|zero|on|off|true|false|enabled|disabled|none|\w+_\w+|'[^']*'|the empty string"
    r"(?:\s+'')?|(?-i:[A-Z]{2,}\w*))\s+(?-i:by)\s+default\b|"
    # "If -1 is specified (which is the default)": the value, not "specified"
    r"(?<![\w.\\'-])(?P<given>-?\d[\w.]*|'[^']*'|\w+)\s+is\s+(?:specified|given|used|set)\s+"
    r"\((?:which is )?the default\)|"
    r"(?<![\w.\\'-])(?P<marked>'[^']*'|(?:an|the) empty string(?: '')?|[\w.+-]+)\s+\((?:which is )?the default\)|"
    # "partition is the default setting"; not "this conversion is the default for …": a thing, no value
    r"(?<![\w.\\'-])(?<!\bthis )(?<!\bthat )(?<!\bthe )(?P<named>[\w.+-]+)\s+is\s+the\s+default\b",
    re.I,
)
_DEFAULT_OF_WHAT = re.compile(
    r"defaults?\s+(?!(?:values?|settings?|is|are)\b)((?:[\w.-]+(?:\(\))?\s+){1,8}?)(?:is|are)\b(?<!\bvalue is)", re.I
)
"""A default said with what it is the default of: "default file mode is", "default queue length limit is",
"default file mode of open() is"."""
_KIND_WORDS = frozenset(term_set("method kind type sort"))
"""Words a default may be said of that name no thing ("The default method is btree" of "what kind of index")."""


def _of_other(what: str, asked: frozenset[str]) -> bool:
    """Whether the words a default is said of ("file mode", "file mode of open()": those before "of") name a
    thing the question (``asked``) does not."""
    named = term_set(re.split(r"\s+of\s+", what)[0]) - _KIND_WORDS
    return bool(named) and not named & asked


_PRONOUNS = frozenset({"it", "this", "that", "them", "they", "these", "those", "one"})
"""Words a default's wording may end on that name no value ("the default value scales proportionally to it")."""
_KEYWORD_DEFAULT = re.compile(r"(?<![\w.])(?P<name>[A-Za-z_]\w*)=(?P<value>'[^']*'|\"[^\"]*\"|[^\s,()=]+)")
"""A keyword parameter's default in a signature: ``lru_cache(maxsize=128, typed=False)``."""
_ARGUMENTS = re.compile(r"[\w.]+\((?:[^()]|\([^()]*\))*\)")
"""A call or signature with its argument list, where a keyword's value is its default (in prose, "passes
encoding=None as a parameter" is an argument given, not a default)."""
_ALTERNATIVES = re.compile(r"\b([A-Z]{2,})/([A-Z]{2,})((?: [A-Z]{2,})+)\b")
"""Two keywords sharing the words after them: "SET/DROP NOT NULL", "ENABLE/DISABLE TRIGGER"."""
_REFERENCE_BEFORE = re.compile(r"\b(?:the same (?:\w+ ){0,2}as|see|similar to|as with)\s+$", re.I)
"""Words naming a command as where to look, not as the way: "using the same syntax as CREATE FOREIGN TABLE"."""
_BLANK_LITERAL = re.compile(r"(['\"])\s*\1")
_YES, _NO = "Yes", "No"
_MORE_THAN = re.compile(r"\bmore than (one|two|three|four|five|\d+)\b", re.I)
"""A yes/no question asking past a number: "Can a table have more than one primary key?"."""
_AT_MOST = re.compile(
    r"\b(?:at most|no more than|only|just|exactly|a maximum of)\s+(one|two|three|four|five|\d+)\b", re.I
)
"""A sentence capping at a number: "A table can have at most one primary key.", "Only one … can be specified"."""
_COUNTS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}
_WHEREAS = re.compile(r",?\s+whereas\s+", re.I)
"""A contrast of two sides: "Quoting an identifier also makes it case-sensitive, whereas unquoted names are always
folded to lower case" answers "Are unquoted identifiers case sensitive?" No — what one side says, the other is not."""
_JUDGED = re.compile(r"\b(better|worse|best|worst|superior|inferior|preferable|recommended)\b", re.I)
"""A judgment a yes/no question asks for ("Is PostgreSQL better than Oracle?"): answered only by a sentence
making it, not by one that merely names both."""
_COMPARED = re.compile(
    r"^\s*(?:is|are|was|were)\s+(?:an?\s+|the\s+)?([\w.+-]+)|\bthan\s+(?:an?\s+|the\s+)?([\w.+-]+)", re.I
)
"""What a judgment compares: the thing asked about ("Is text …") and the one after "than" ("… than varchar")."""


def _judges(sentence: str, judgment: str, question: str) -> bool:
    """Whether ``sentence`` makes the ``judgment`` ("better") of what ``question`` compares: it says the word
    and names the thing asked about or the one it is compared with ("text is often a better choice" for "Is
    text better than varchar?")."""
    things = [t for m in _COMPARED.finditer(question) for t in m.groups() if t]
    said = sentence.lower()
    return bool(re.search(rf"\b{judgment}\b", said, re.I)) and any(t.lower() in said for t in things)


_OPERATOR = re.compile(r"(?<=[\w)\]] )[-#@<>=!~|&?^*/%+]{1,3}(?= [\w'(\[])")
"""An operator between its operands, as an operator table's row gives it: "json ->> text", "jsonb @> jsonb"."""


def _located(name: str) -> re.Pattern:
    """``name`` right after a locative preposition ("in Harrowgate", "at the Louvre"): a place."""
    return re.compile(rf"\b(?:in|at|near)\s+(?:the\s+)?{re.escape(name)}\b")


def spans(sentence: str, kind: AnswerType, question: str = "") -> list[str]:
    """Spans of ``sentence`` of type ``kind``, in order, without the question's own words, a
    document's furniture (``lexicon.FURNITURE``) or, for a command, an acronym ("RFC").

    ``default`` is the value after "default is / defaults to" (or before "by default"), or a
    signature's default of a parameter the question names (``maxsize=128``), kept only when it
    is the measure the question asks for (:func:`default_measure`);
    ``yes_no`` gives "No" when a negation cue negates a question term in the sentence
    (:func:`negated`) and none does in the question, or the other way round, else "Yes"; names
    are capitalised names (a place also a file or path); ``other`` gives nothing."""
    asked = term_set(question)
    if kind == "default":
        example = _EXAMPLE_MARK.search(sentence)  # "For example, initdb -E EUC_JP sets the default … to EUC_JP"
        matches = [m for m in _DEFAULT_VALUE.finditer(sentence) if not (example and example.start() < m.start())]
        # "The default file mode is 'r'" states the default of another thing than "the default encoding"
        matches = [m for m in matches if not ((of := _DEFAULT_OF_WHAT.match(m[0])) and _of_other(of[1], asked))]
        found = [next(filter(None, m.groups()), "") for m in matches]  # the value group
        found = [v for v in found if v.lower() not in STOPWORDS - {"on", "off", "none"}]  # "which is the default"
        found = [v for v in found if v.lower().strip(" .)") not in _PRONOUNS]  # "scales proportionally to it"
        if ">>>" not in sentence:  # an example call (">>> json.dumps(x, indent=4)") sets, not defaults
            keywords = (m for call in _ARGUMENTS.finditer(sentence) for m in _KEYWORD_DEFAULT.finditer(call[0]))
            named = [m for m in keywords if term_set(m["name"]) <= asked - {"default"}]
            found = [m["value"] for m in named if term_set(m["name"])] + found  # the parameter asked, first
        if measure := default_measure(question):
            found = [value for value in found if _measure_of(value, measure, question)]
        if measure == "number":  # "the value established during compilation (normally 5432)": the number
            found = [v if re.match(_NUMBER, v) else SPAN_PATTERNS["number"].findall(v)[0] for v in found]
    elif kind == "yes_no":
        # the sentence's polarity against the question's: "Can a foreign key reference columns that are not unique?"
        # is answered No by "A foreign key must reference columns that … form a unique constraint"
        # a setting's parts count too: "disables the timeout" negates "Is there a statement_timeout …?"
        said_of = asked | term_set(question.replace("_", " "))
        if (judged := _JUDGED.search(question)) and not _judges(sentence, judged[1], question):
            return []  # "Is MySQL better than PostgreSQL?" is no Yes from a sentence naming both
        if len(sides := _WHEREAS.split(sentence, maxsplit=1)) == 2:
            one, other = (term_set(side) & asked for side in sides)
            if one - other and other - one:  # the question takes a term from each side of the contrast
                return [_NO]
        past, cap = _MORE_THAN.search(question), _AT_MOST.search(sentence)
        if past and cap and _COUNTS.get(past[1].lower(), past[1]) == _COUNTS.get(cap[1].lower(), cap[1]):
            return [_NO]  # "more than one?" against "at most one"
        return [_NO if negated(sentence, said_of) != asks_negated(question) else _YES]
    elif kind == "person":  # no all-capitals word ("UK", "GR"), nor a name said as a place ("in Harrowgate")
        found = [name for name in names(sentence) if not name.isupper() and not _located(name).search(sentence)]
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
        if kind == "command":  # "SET/DROP NOT NULL" names SET NOT NULL and DROP NOT NULL
            sentence = _ALTERNATIVES.sub(lambda m: f"{m[1]}{m[3]} / {m[2]}{m[3]}", sentence)
        matches = list(SPAN_PATTERNS[kind].finditer(sentence))
        if kind == "command":  # a command referred to for its syntax is not the one doing it
            matches = [m for m in matches if not _REFERENCE_BEFORE.search(sentence, 0, m.start())]
        if kind == "command" and ASKS_OPERATOR.search(question):  # "json ->> text": the operator, first
            matches = [*_OPERATOR.finditer(sentence), *matches]
        if kind in ("number", "quantity"):  # a value given as an example is one throughout the sentence
            examples, idioms = set(_EXAMPLE.findall(sentence)), {m.start() for m in _PRONOUN_ONE.finditer(sentence)}
            matches = [m for m in matches if m.group(0) not in examples and m.start() not in idioms]
            # a sentence opening "For example, …" is the example's: "… 1,600 int columns would consume 6400 bytes"
            matches = [] if _EXAMPLE_MARK.match(sentence.lstrip("|- ")) else matches
            # "an 18-byte pointer" measures the pointer: no answer to the length of something else
            matches = [m for m in matches if not _measures_other(sentence, m, asked)]
        found = [m.group(0) for m in matches]
        if kind == "date" and re.search(r"\b(?:what|which) month\b", question, re.I):  # a year is no month
            found = [value for value in found if re.search(MONTH, value)]
        if kind == "command" and re.search(r"\b(?:which|what)\s+(?:\w+\s+)?file\b", question, re.I):  # not "SCRAM"
            found = [value for value in found if _FILE.fullmatch(value)]
        if kind == "quantity":
            found = [value for value in found if _measure_of(value, kind, question)]
            # "the maximum precision … is 1000": a bound on a measure of no unit is a bare number
            if (
                not found
                and (bound := _UNITLESS_BOUND.search(question))
                and term_set(bound["noun"]) <= term_set(sentence)
            ):
                found = [m.group(0) for m in SPAN_PATTERNS["number"].finditer(sentence)]
    else:
        return []
    if kind in ("person", "organisation", "place"):  # a possessor ("Robert's son") is not who is asked about
        found = [name_only(s) for s in found if not re.search(r"\w['’]s$", s)]
    # each span tidied once; a quoted blank stays as written: print's default sep=' ' is "' '", not nothing
    written = {s: tidy_span(s) or (s if _BLANK_LITERAL.fullmatch(s) else "") for s in found if s}
    kept = [w for w in written.values() if w and not (kind == "command" and w in lexicon.ACRONYMS)]
    # a label ("Warning", "Note") is no answer, but a default in capitals is an enum's value: "The default is WARNING"
    kept = [s for s in kept if not lexicon.FURNITURE.match(s) or (kind == "default" and s.isupper())]
    quoted = {w for s, w in written.items() if s[0] in "'\"‘“"}  # a literal: "The default is 'Default'"
    # a function row's name is code, a repeat only when called so: "lower" answers "… to lower case?"
    calls = {s for s in kept if kind == "command" and sentence.startswith(f"| {s} ( ") and f"{s}(" not in question}
    return list(dict.fromkeys(s for s in kept if s in quoted | calls or not _repeats(s, kind, question, asked)))


def _repeats(span: str, kind: AnswerType, question: str, asked: frozenset[str]) -> bool:
    """Whether ``span`` only repeats the question: its terms are all the question's; code, if named (``zip()``
    by "the zip function", not ``search_path`` by "search path"; ``\\password`` as is), a command phrase or a
    keyword in capitals as written ("CREATE INDEX", "UPDATE" answer "how do I create an index / update rows?"), a
    value in digits as written ("4 bytes" answers "how many bytes …?": a digit is no term)."""
    if (kind == "command" and (span.startswith("\\") or lexicon.COMMAND_PHRASE.fullmatch(span))) or (
        kind in ("default", "quantity", "number") and re.search(r"\d", span)
    ):
        return span.lower() in question.lower()
    if kind == "command" and re.fullmatch(r"[A-Z]{2,}", span):  # a keyword in capitals, only as written
        return re.search(rf"\b{span}\b", question) is not None
    if kind == "command" and lexicon.CODE_SPELLING.search(span):  # named whole or as a dotted name's head (pg_hba.conf)
        code = span.removesuffix("()").lower()
        return any(word == code or word.startswith(f"{code}.") for word in re.findall(r"[\w.]+", question.lower()))
    return bool(term_set(span)) and term_set(span) <= asked


@lru_cache(maxsize=256)
def asks_negated(question: str) -> bool:
    """Whether ``question`` negates one of its own terms outside a leading clause (:func:`negated`);
    cached, as each candidate sentence of a yes/no question is read against it."""
    return negated(LEADING_CLAUSE.sub("", question), term_set(question))


_MEASURED = re.compile(r"\s+(?P<noun>[a-z]+)")


def _measures_other(sentence: str, match: re.Match, asked: frozenset[str]) -> bool:
    """Whether the quantity ``match`` is no measure of what the question asks: hyphenated, it modifies
    a noun the question does not name ("an 18-byte pointer", asked the length of a varchar); with its
    unit word in the singular after a number other than one, it modifies such a noun or names a thing
    ("the zero byte terminator", "the terminating zero byte")."""
    text = match.group(0).strip("-")
    spelled = re.fullmatch(r"(?P<number>.+?)\s(?P<unit>[a-z]{3,})", text)
    singular = spelled and not spelled["unit"].endswith("s") and spelled["number"].lower() not in ("1", "one", "a")
    if "-" not in text and not singular:
        return False
    noun = _MEASURED.match(sentence, match.end())
    modifies_asked = bool(noun) and bool(term_set(noun["noun"]) & asked)  # "a 30 second timeout", asked of timeouts
    return not modifies_asked if singular else bool(noun) and not modifies_asked


def _measure_of(value: str, measure: Measure, question: str) -> bool:
    """Whether ``value`` holds the measure asked for: a name (no number, quantity, truth value or
    behaviour: "28 bytes" is no kind of index, "to create a database …" no database), a number, or
    a quantity — with a unit of time when the question asks for a duration ("how long does …?",
    "how much time …?"), of size when it asks for a size ("how many bytes …?"); a setting's "off"
    value ("zero (the default) disables the timeout", "-1") is either of the last two."""
    if measure == "name":
        truth = value.strip().lower() in {"true", "false", "on", "off", "yes", "no"}
        return not (re.search(r"(?<![^\W\d_])\d", value) or truth or re.match(r"to\s+[a-z]+\b", value.strip()))
    if re.fullmatch(r"(?:-1|0|zero)(?:\s*\([^)]*\))?", value.strip(), re.I):  # "zero (no delay)"
        return True
    if measure == "number":
        return bool(SPAN_PATTERNS["number"].search(value))
    quantities = [m.group(0) for m in SPAN_PATTERNS["quantity"].finditer(value)]
    if _DURATION_QUESTION.search(question):
        return any(lexicon.TIME_UNIT.search(q) for q in quantities)
    if _SIZE_QUESTION.search(question):
        return any(lexicon.SIZE_UNIT.search(q) for q in quantities)
    return bool(quantities)

