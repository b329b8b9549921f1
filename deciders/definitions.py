"""Whether a sentence defines a subject or opens on it: the sentences a definition question
("What is a tablespace?", "What does VACUUM FULL do?") is answered by."""

from __future__ import annotations

import re

from core.text import NAME_LINE, unbracketed

_LIST_MARK = re.compile(r"^[\s*•-]+")


def opens_on(sentence: str, subject: str) -> bool:
    """Whether ``sentence`` (after list marks, an article) opens on ``subject``, case-insensitively."""
    return re.match(rf"(?:(?:an?|the)\s+)?{re.escape(subject)}\b", _LIST_MARK.sub("", sentence), re.I) is not None


def defines(sentence: str, head: str | None, subject: str) -> bool:
    """Whether ``sentence`` defines ``subject`` (case-insensitively): says what it is ("A schema
    is a namespace …", "Tablespaces are …"), is its reference page's name line ("TRUNCATE —
    empty a table …"), a table's row keyed by it ("| bigint | 8 bytes | …") or is the first sentence
    under ``head``, a term line naming it alone or in brackets ("Checkpoint", "Multi-version
    concurrency control (MVCC)"), or with its last word in brackets ("Replica (server)" for
    "replica server")."""
    said = _LIST_MARK.sub("", sentence)
    name = re.escape(subject)
    if re.match(rf"\|\s*{name}\b", said, re.I):
        return True
    if re.match(rf"(?:(?:an?|the)\s+)?{name}(?:e?s)?\s+(?:is|are|refers? to|means)\s", said, re.I):
        return True
    if NAME_LINE.match(said) and re.match(rf"{name}\s", said, re.I):
        return True
    term = _LIST_MARK.sub("", head or "")
    return bool(re.fullmatch(rf"(?:{name}|.*\({name}\))(?:\s*\([^)]*\))?", term, re.I)) or (
        " " in subject and unbracketed(term).lower() == subject.lower()  # "Replica (server)": "replica server"
    )
