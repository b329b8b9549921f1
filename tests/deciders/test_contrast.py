from __future__ import annotations

from deciders.contrast import contradicted


def test_a_word_swapped_for_its_opposite_between_the_same_neighbours_is_a_contradiction():
    assert contradicted("When the Rhine took a right turn what did it create?", "The Rhine took a left turn.") == [
        ("right", "a left turn")
    ]
    assert contradicted("Which islands comprise a larger number of electors?", "They hold a much smaller number.") == [
        ("larger", "a much smaller number")
    ]


def test_the_same_meaning_spelled_otherwise_or_a_word_merely_missing_is_none():
    assert contradicted("Who was Genghis's 3rd son?", "Ogedei was Genghis' third son.") == []
    assert contradicted("What is the maximum number of columns?", "A table can have at most 1600 columns.") == []
    assert (
        contradicted("Which trade magazine covers design?", "ENR is a trade magazine for the construction industry.")
        == []
    )
