"""Every word list and word pattern the model-free deciders use, in one place.

The lists are English and small on purpose: they recognise the surface form of small talk,
follow-up pronouns, comparisons and compound questions, not their meaning. Two functions read a
question through them: the SQL statements a how-to names in prose (:func:`prose_statements`) and
the setting names it writes with spaces (:func:`spaced_names`).
"""

from __future__ import annotations

import re

from core.text import STOPWORDS

MODEL_FREE = "rules"
"""The name every model-free decider signs its results with (``decider`` in traces)."""

# -- small talk (router, generator's direct replies) ------------------------------------------------
SMALL_TALK = frozenset(
    """
    hi hello hey hiya howdy yo greetings good morning afternoon evening day
    thanks thank thx ty you so very much a lot
    ok okay k cool great nice perfect awesome got it understood alright fine sure yes no yep nope
    bye goodbye cheers see later again there appreciated wow that helps helped makes sense
    """.split()
)
"""Words a turn may consist of and still be small talk (a greeting, thanks, an acknowledgement,
a farewell)."""
THANKS = frozenset({"thanks", "thank", "thx", "ty", "appreciated", "cheers", "helps", "helped"})
GREETINGS = frozenset({"hi", "hello", "hey", "hiya", "howdy", "yo", "greetings", "morning", "afternoon", "evening"})
FAREWELLS = frozenset({"bye", "goodbye", "later"})
MAX_SMALL_TALK_WORDS = 8
"""Longer turns are never small talk."""
WORD = re.compile(r"[a-z']+")
"""A word of a lower-cased turn."""

# -- dates (reformulator: a month is not a bridge entity) -----------------------------------------
MONTHS = frozenset("january february march april may june july august september october november december".split())

# -- follow-ups (router's contextualize) ----------------------------------------------------------
PRONOUN = re.compile(r"\b(he|she|him|her|it|they|them|his|its|their)\b", re.IGNORECASE)
POSSESSIVE = frozenset({"his", "its", "their"})
PERSONAL = frozenset({"he", "she", "him", "her", "his"})
"""Pronouns that refer to a person."""
SECTION = re.compile(r"^(?:\d+\.)+\d*\s|^(?:Chapter|Appendix|Part)\s+[\dIVXA-Z]+\.", re.IGNORECASE)
"""A numbered section heading ("13.1. Introduction", "Appendix D. SQL Conformance"): a page's
place in a manual, not what a follow-up's pronoun refers to."""
ASKED_ABOUT = re.compile(
    r"^\s*(?:what|how)\s+(?:does|do|did|is|are|was|were)\s+(?:the\s+|an?\s+)?([a-z_][\w.]*(?:\(\))?)", re.IGNORECASE
)
"""The word a "what does X do?" / "what is X?" / "how does X work?" question asks about
("enumerate"), for a question that names nothing capitalised or spelled as code."""
LEADING_CONNECTIVE = re.compile(r"^(?:and|so|also|then)\b[\s,]*", re.IGNORECASE)
CITATION_MARK = re.compile(r"\s*\[\d+\]")
"""A citation mark with the space before it (stripped from an earlier answer)."""

# -- complexity (router's classify_complexity) -----------------------------------------------------
COMPARISON = re.compile(
    r"\b(both|either|neither|same|compared?|than|older|oldest|younger|youngest|earlier|earliest|later|"
    r"first|larger|largest|bigger|longer|shorter|higher|more|fewer|less|difference|which one)\b",
    re.IGNORECASE,
)
RELATION = re.compile(r"\bof\b|'s\b|(?<=\w )\b(?:who|whom|that|which|whose|where)\b", re.IGNORECASE)
"""A relation outside the names: "of", a possessive, a relative clause after the first word."""
POSSESSIVE_SUFFIX = re.compile(r"['’]s$")

# -- compound questions (rule decomposer) ---------------------------------------------------------
CHOICE = re.compile(r"^(?P<stem>[^,]+?),\s*(?P<options>.+?)\s+or\s+(?P<last>[^,?]+?)\s*\?*$", re.IGNORECASE)
"""A choice between named options: "Which is older, Blur or Oasis?"."""
BOTH = re.compile(
    r"^(?P<aux>are|were|is|was|do|did|does|have|has)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+"
    r"(?:both|each)\b\s*(?P<rest>.*?)\s*\?*$",
    re.IGNORECASE,
)
"""A property asked of two things: "Are A and B both X?"."""
CLAUSES = re.compile(
    r"^(?P<wh>which|what|who|whose)\b(?P<first>.+?),?\s+and\s+(?P<second>(?:had|has|have|was|were|is|are|did|does|"
    r"also|won|played|released|wrote|starred)\b(?!\s+(?:it|they|this|that|he|she)\b).+?)\s*\?*$",
    re.IGNORECASE,
)
"""Two clauses on one subject: "Which band released X and had Y?"; not a second question about a pronoun
("Which lock does X take, and does it block SELECT?")."""
SPLIT_CUE = re.compile(r"\b(?:or|and|both|either|neither|versus|vs)\b", re.IGNORECASE)
"""A word without which a question has nothing to split on (no model is asked to split it)."""


# -- comparisons answered by value (generator) ------------------------------------------------------


# -- the noun a question asks for (generator's short answer) -----------------------------------------
KEYWORD_RUN = r"\b[A-Z]{2,}(?:\s+[A-Z]{2,})*\b(?!-\d)"
"""A run of words in capitals ("ALTER TABLE"): an SQL keyword phrase (a pattern); no "CVE" of "CVE-2020-10735"."""
COMMAND_PHRASE = re.compile(r"\b[A-Z][A-Z_]+(?:\s+[A-Z][A-Z_]+)+\b")
"""A command written in capitals in a question ("ALTER SYSTEM SET", "SELECT DISTINCT ON"): a
sentence naming it is about it; one naming another command ("ALTER PROCEDURE … SET FROM
CURRENT") is not, whatever words they share."""
WHICH_NOUN = re.compile(
    r"\b(?:which|what)\s+(?:(?:kind|type|sort|form)s?\s+of\s+)?"
    r"(?!(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should|kind|type|sort)\b)([a-z]+)\b",
    re.I,
)
"""The word after "which"/"what" when it is a noun ("which league", not "what is")."""


# -- measures (answer types: a quantity's unit, a number in words) ---------------------------------
UNIT = (
    r"(?:[kKMGT]i?B|bytes?|bits?|kilobytes?|megabytes?|gigabytes?|terabytes?|ms|milliseconds?|"
    r"s|sec|seconds?|min|minutes?|h|hours?|days?|weeks?|months?|years?|%|percent|transactions?|"
    r"connections?|rows?|pages?|blocks?|characters?|digits?)"
)
"""A unit after a number (a pattern)."""
NUMBER_WORD = (
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:thir|four|fif|six|seven|eigh|nine)teen|"
    r"(?:twen|thir|for|fif|six|seven|eigh|nine)ty|hundred|thousand|million|billion)"
)
"""A number written as a word (a pattern)."""
TIME_UNIT = re.compile(
    r"(?<![a-z])(?:ms|milliseconds?|s|sec|seconds?|min|minutes?|h|hours?|days?|weeks?|months?|years?)$", re.I
)
"""A unit of time ending a quantity ("5 min")."""
SIZE_UNIT = re.compile(r"(?<![a-z])(?:[kKMGT]i?B|bytes?|bits?|kilobytes?|megabytes?|gigabytes?|terabytes?)$", re.I)
"""A unit of storage size ending a quantity ("4 bytes", "eight-byte", "8kB")."""

# -- the LLM generator's reply -----------------------------------------------------------------------
NO_SHORT_ANSWER = frozenset({"none", "null", "n/a", "unknown", "not found", "not mentioned"})
"""Short answers that say the passages hold none."""
NOT_IN_DOCUMENTS = re.compile(
    r"^\W*(?:the )?(?:documents?|passages?|evidence|sources?)(?: \w+)? (?:do|does|did) not "
    r"(?:contain|say|mention|answer|state)",
    re.I,
)
"""An answer that opens by saying the documents do not hold the answer (an abstention)."""

# -- citations in answers (grounder, LLM generator) -----------------------------------------------
MARKS = re.compile(r"\[(\d+)\]")
"""A citation mark ``[n]``, capturing ``n``."""
MARK_RUN = re.compile(r"((?:\s*\[\d+\])+)")
"""A run of citation marks (they close the claim before them)."""

QUESTION_WORD = re.compile(r"[\w'-]+")
"""A word of a question, as the reformulator splits it (its uncovered words)."""

# -- nationality (yes/no: "the same country?", "both American …?") ---------------------------------
_NATIONS = """
United States: American, U.S., US, USA, United States, New England, New Mexico |
United Kingdom: British, English, Scottish, Welsh, UK, U.K., United Kingdom, England, Scotland, Wales |
Ireland: Irish, Ireland | Canada: Canadian, Canada | Australia: Australian, Australia, New South Wales |
New Zealand: New Zealander, New Zealand | France: French, France |
Germany: German, Germany, West German, East German | Italy: Italian, Italy | Spain: Spanish, Spain |
Portugal: Portuguese, Portugal | Netherlands: Dutch, Netherlands | Belgium: Belgian, Belgium |
Switzerland: Swiss, Switzerland | Austria: Austrian, Austria | Sweden: Swedish, Sweden |
Norway: Norwegian, Norway | Denmark: Danish, Denmark | Finland: Finnish, Finland | Iceland: Icelandic, Iceland |
Poland: Polish, Poland | Czech Republic: Czech, Czechoslovak, Czechoslovakia | Hungary: Hungarian, Hungary |
Romania: Romanian, Romania | Bulgaria: Bulgarian, Bulgaria | Greece: Greek, Greece | Turkey: Turkish, Turkey |
Russia: Russian, Russia, Soviet, Soviet Union | Ukraine: Ukrainian, Ukraine |
Serbia: Serbian, Serbia, Yugoslav, Yugoslavia | Croatia: Croatian, Croatia | Israel: Israeli, Israel |
Iran: Iranian, Iran, Persian | Egypt: Egyptian, Egypt | Nigeria: Nigerian, Nigeria |
South Africa: South African, South Africa | India: Indian, India | Pakistan: Pakistani, Pakistan |
Bangladesh: Bangladeshi, Bangladesh | China: Chinese, China | Taiwan: Taiwanese, Taiwan | Hong Kong: Hong Kong |
Japan: Japanese, Japan | South Korea: South Korean, Korean, South Korea |
Philippines: Filipino, Philippine, Philippines | Indonesia: Indonesian, Indonesia | Thailand: Thai, Thailand |
Vietnam: Vietnamese, Vietnam | Malaysia: Malaysian, Malaysia | Singapore: Singaporean, Singapore |
Mexico: Mexican, Mexico | Brazil: Brazilian, Brazil | Argentina: Argentine, Argentinian, Argentina |
Chile: Chilean, Chile | Colombia: Colombian, Colombia | Peru: Peruvian, Peru | Cuba: Cuban, Cuba |
Venezuela: Venezuelan, Venezuela
"""
NATION_OF: dict[str, str] = {
    name.strip(): country.strip()
    for entry in " ".join(_NATIONS.split()).split("|")
    for country, names in [entry.split(":")]
    for name in names.split(",")
}
"""A nationality word or country name (as written: capitalised) → its country."""
NATION = re.compile(
    r"(?<![\w.])(" + "|".join(re.escape(n) for n in sorted(NATION_OF, key=len, reverse=True)) + r")(?!\w)"
)
"""A nationality word or country name in a sentence, the longest first ("South African", not "African")."""


_VALUE_WORDS = frozenset({"default", "defaults", "value", "values", "setting", "settings"})
"""Words that ask for a setting's value, never part of its name."""


def spaced_names(question: str) -> list[str]:
    """Setting-like names a question writes with spaces: its runs of two to four lowercase words
    joined by underscores, longest first ("the default autovacuum naptime" → ``autovacuum_naptime``
    among them), without stop words, the words that ask for a setting's value ("default",
    "value", "setting"). Candidates for an exact entry lookup (most name nothing)."""
    runs, run = [], []
    for word in [*re.findall(r"[A-Za-z]+|[^\sA-Za-z]", question), "."]:
        if word.islower() and word not in STOPWORDS and word not in _VALUE_WORDS:
            run.append(word)
            continue
        runs.append(run)
        run = []
    names = [run[i : i + n] for n in (4, 3, 2) for run in runs for i in range(len(run) - n + 1)]
    return list(dict.fromkeys("_".join(words) for words in names))


CODE_SPELLING = re.compile(r"^[\\-]|_|\(\)|\.\w")
"""Code spelling: a meta-command (``\\password``), an option (``-f``), a snake_case or dotted name, a call ``f()``."""

FURNITURE = re.compile(
    r"^(?:(?:chapter|section|table|figure|example|appendix|part)\s+[\dIVX][\d.]*|tip|notes?|warning|caution|important|"
    r"examples?|source(?: code)?|see(?: also)?|description|synopsis|parameters|outputs?|overview|introduction)$",
    re.IGNORECASE,
)
"""A document's furniture, never an answer: a cross-reference ("Chapter 13", "Table 8.4") or a
label ("Tip", "Note", "Examples", "Source code")."""
ACRONYMS = frozenset(
    "RFC PEP API ABI URL URI HTTP HTTPS HTML XML JSON CSV TSV UTF ASCII UTC GMT ISO ANSI IEEE POSIX CPU GPU RAM OS IO "
    "SQL TCP IP UDP SSL TLS DNS ID UUID GIL IDE CLI GUI PDF FAQ MB GB KB TB "
    "SSH LDAP".split()
)
"""All-capitals words that name a standard, format, unit or mechanism, never a command ("RFC 4180", "UTC",
"WAL"), unlike SQL's keywords ("VACUUM", "CREATE INDEX")."""

# -- contrasts (generator: a question asking about the opposite of what a passage says) -----------


def _any_word(words: str) -> re.Pattern:
    return re.compile(rf"\b({'|'.join(words.split())})\b", re.I)


SMALLEST_DATE = _any_word("older oldest earlier earliest first before sooner")
LARGEST_DATE = _any_word("younger youngest later latest newer newest recently last after")
LARGEST = _any_word("more most larger largest bigger biggest higher highest longer longest taller greater")
SMALLEST = _any_word("less least fewer fewest smaller smallest lower lowest shorter shortest")
"""Comparison words and the direction each asks for (:mod:`deciders.comparison`): the smallest or
largest date, or number."""
