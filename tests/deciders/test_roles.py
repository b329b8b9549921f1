"""Swapped roles (deciders/roles.py): a sentence holding the question's words around its verb the
other way round — on hand-made sentences and the SQuAD 2.0 shapes it was written for."""

from __future__ import annotations

import pytest

from deciders.roles import reversed_roles


@pytest.mark.parametrize(
    ("question", "sentence", "said"),
    [
        (
            "What was absorbed into the Anglo-Norman language?",
            "The Anglo-Norman language was eventually absorbed into the Anglo-Saxon language of their subjects.",
            "absorbed into the Anglo-Saxon",
        ),
        (
            "What precedes the period of Anglo-Saxon architecture?",
            "The period of Norman architecture succeeds that of the Anglo-Saxon and precedes the Early Gothic.",
            "precedes the Early Gothic",
        ),
    ],
)
def test_the_question_object_before_the_verb_is_a_reversal(question, sentence, said):
    assert reversed_roles(question, sentence) == said


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        # the roles as asked
        (
            "What was absorbed into the Anglo-Saxon language?",
            "Anglo-Norman was absorbed into the Anglo-Saxon language.",
        ),
        # a passive with its agent answers an active question
        (
            "Who challenged the plague theory first?",
            "The plague theory was first challenged by the work of Shrewsbury.",
        ),
        # a participle and a capitalised name are no use of the verb
        ("Who starred in the film in 1979?", "The Human Factor is a 1979 film starring Richard Attenborough."),
        (
            "Who funds the IPCC's Secretary?",
            "The IPCC receives funding through the IPCC Trust Fund, set up by the WMO.",
        ),
        # "what" before a noun asks no subject question
        ("What church in Virginia is a shrine?", "In Virginia the Huguenots keep the Manakin church as a shrine."),
        # another voice: not compared
        ("What was absorbed into Latin?", "Latin absorbed many Greek words."),
    ],
)
def test_no_reversal(question, sentence):
    assert reversed_roles(question, sentence) == ""
