"""What makes a sentence a definition of the thing a "What is X?" question asks about."""

from __future__ import annotations

import pytest

from deciders.answer_support import defines, opens_on


@pytest.mark.parametrize(
    ("sentence", "head", "subject"),
    [
        ("A schema is a namespace for SQL objects.", None, "schema"),
        ("Tablespaces are locations in the file system.", None, "tablespace"),
        ("TRUNCATE — empty a table or set of tables", None, "TRUNCATE"),
        ("A named location on the server file system.", "Tablespace", "tablespace"),
        ("A mechanism designed to allow several transactions …", "- Multi-version concurrency control (MVCC)", "MVCC"),
        ("A relation that contains data derived from a table.", "Index (relation)", "index"),
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
        ("Specifies that indexes will be rebuilt on a new tablespace.", "TABLESPACE new_tablespace", "tablespace"),
    ],
)
def test_what_does_not_define_it(sentence, head, subject):
    assert not defines(sentence, head, subject)


def test_a_sentence_opening_on_the_subject_is_about_it():
    assert opens_on("VACUUM FULL can reclaim more disk space.", "VACUUM FULL")
    assert opens_on("The tablespace name must be distinct.", "tablespace")
    assert not opens_on("The usual goal is to avoid needing VACUUM FULL.", "VACUUM FULL")
