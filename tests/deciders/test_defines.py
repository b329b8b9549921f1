"""What makes a sentence a definition of the thing a "What is X?" question asks about, and which of a
question's words are its focus."""

from __future__ import annotations

import pytest

from core.wording import focus_weights
from deciders.definitions import defines, opens_on


@pytest.mark.parametrize(
    ("sentence", "head", "subject"),
    [
        ("A schema is a namespace for SQL objects.", None, "schema"),
        ("Tablespaces are locations in the file system.", None, "tablespace"),
        ("TRUNCATE — empty a table or set of tables", None, "TRUNCATE"),
        ("A named location on the server file system.", "Tablespace", "tablespace"),
        ("A mechanism designed to allow several transactions …", "- Multi-version concurrency control (MVCC)", "MVCC"),
        ("A relation that contains data derived from a table.", "Index (relation)", "index"),
        ("| bigint | 8 bytes | large-range integer |", None, "bigint"),  # a table's row keyed by it
    ],
)
def test_what_defines_a_subject(sentence, head, subject):
    assert defines(sentence, head, subject)


@pytest.mark.parametrize(
    ("sentence", "head", "subject"),
    [
        ("The usual goal is to avoid needing VACUUM FULL.", None, "VACUUM FULL"),
        ("The name of a tablespace to be created.", "tablespace_name", "tablespace"),
        ("VACUUM FULL can reclaim more disk space.", None, "VACUUM FULL"),  # about it, but says no "is"
        ("| smallint | 2 bytes | small-range integer |", None, "integer"),  # a row keyed by another
        ("Specifies that indexes will be rebuilt on a new tablespace.", "TABLESPACE new_tablespace", "tablespace"),
    ],
)
def test_what_does_not_define_it(sentence, head, subject):
    assert not defines(sentence, head, subject)


def test_a_sentence_opening_on_the_subject_is_about_it():
    assert opens_on("VACUUM FULL can reclaim more disk space.", "VACUUM FULL")
    assert opens_on("The tablespace name must be distinct.", "tablespace")
    assert not opens_on("The usual goal is to avoid needing VACUUM FULL.", "VACUUM FULL")


def _candidate(sentence: str, context: str, source: str, spans: tuple[str, ...]):
    from deciders.answer_support import Candidate

    chunk = {"chunk_id": source, "title": source, "text": sentence, "source": source}
    return Candidate(sentence, chunk, context, 0.9, {}, None, spans, 1.0)


def test_a_rival_entry_is_the_same_entry_line_on_another_page_with_another_value():
    from deciders.rivals import rival_entry

    setting = _candidate("Valid values are on (the default), off.", "synchronous_commit (enum)", "wal.html", ("on",))
    option = _candidate("The default value is off.", "synchronous_commit (enum)", "sub.html", ("off",))
    agreeing = _candidate("The default is on.", "synchronous_commit (enum)", "other.html", ("on",))
    other_name = _candidate("The default value is off.", "fsync (boolean)", "x.html", ("off",))
    same_page = _candidate("Set it off to save time.", "synchronous_commit (enum)", "wal.html", ("off",))
    assert rival_entry(setting, [setting, agreeing, other_name, same_page, option]) is option
    assert rival_entry(setting, [setting, agreeing, other_name, same_page]) is None
    assert rival_entry(_candidate("on", "", "wal.html", ("on",)), [option]) is None  # under no entry


def test_what_kind_of_x_asks_which_x():
    assert set(focus_weights("What kind of index do I get?", {})) == {"index", "get"}
    assert set(focus_weights("Which types of lock exist?", {})) == {"lock", "exist"}
    assert "kind" in focus_weights("Is this kind of lock strong?", {})  # no "what/which": a word of the question


def test_what_an_abbreviation_stands_for_asks_what_it_is():
    assert set(focus_weights("What does GIL stand for?", {})) == {"gil"}  # its definition holds no "stand"
    assert "stand" in focus_weights("Who did stand for election in 1990?", {})  # not at the question's end
