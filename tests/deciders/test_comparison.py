"""Comparison questions (deciders/comparison.py): options, direction, values, the winner."""

from __future__ import annotations

from deciders.comparison import compare, options
from deciders.generator import AnswerRequest, ExtractiveGenerator


def chunk(cid: str, title: str, text: str) -> dict:
    return {"chunk_id": cid, "text": text, "source": "s", "title": title, "score": 1.0, "dense_rank": None,
            "lexical_rank": None}  # fmt: skip


BLUR = chunk("blur", "Blur (band)", "Blur are an English rock band. They formed in London in 1988.")
OASIS = chunk("oasis", "Oasis (band)", "Oasis were an English rock band. The band formed in Manchester in 1991.")


PEARS = chunk("p", "Iain Pears", "Iain George Pears (born 1 January 1955) is an English novelist.")


def test_options_with_or_without_the_comma():
    assert options("Which is older, Blur or Oasis?") == ["Blur", "Oasis"]
    assert options("Which band formed first Blur or Oasis?") == ["Blur", "Oasis"]
    assert options("What is the default of work_mem?") == []


def test_the_winner_is_named_by_comparing_the_values():
    older = compare("Which band formed earlier, Blur or Oasis?", [OASIS, BLUR])
    assert older.winner == "Blur" and [v[1] for v in older.values] == [1988.0, 1991.0]
    assert compare("Which band formed more recently, Blur or Oasis?", [OASIS, BLUR]).winner == "Oasis"
    assert compare("Which band is better, Blur or Oasis?", [OASIS, BLUR]) is None  # no comparable value
    assert compare("Which band formed earlier, Blur or Oasis?", [BLUR]) is None  # Oasis has no value


def test_each_option_takes_the_value_after_its_own_mention_as_a_whole_word():
    constants = chunk("math", "math — Mathematical functions", "The constants are pi = 3.141592 and e = 2.718281.")
    larger = compare("Which is larger, pi or e?", [constants])
    assert larger.winner == "pi" and [v[1] for v in larger.values] == [3.141592, 2.718281]
    namesake = chunk("w", "Richard Llewellyn Williams", "Richard Llewellyn Williams (born 1929) was a cartoonist.")
    novelist = chunk("l", "Richard Llewellyn", "Richard Dafydd Vivian Llewellyn Lloyd (1906 – 1983), known by his "
                     "pen name Richard Llewellyn, was a novelist.")  # fmt: skip
    first = compare("Who was born first, Iain Pears or Richard Llewellyn?", [namesake, novelist, PEARS])
    assert [v[1] for v in first.values] == [1955.0, 1906.0]  # not the namesake's 1929
    assert first.winner == "Richard Llewellyn"
    letter = chunk("d", "A Letter to Elia", "A Letter to Elia is a 2010 film about the director Elia Kazan.")
    kazan = chunk("k", "Elia Kazan", "Elia Kazan (September 7, 1909 – September 28, 2003) was a director.")
    older = compare("Who was born first, Elia Kazan or Iain Pears?", [letter, kazan, PEARS])
    assert [v[1] for v in older.values] == [1909.0, 1955.0]  # not the 2010 of a film about him
    # "e" inside "The" or "constants" is no mention of e
    assert compare("Which is larger, pi or e?", [chunk("x", "Pi", "Pi is 3.14. The other is unknown.")]) is None


def test_the_generator_answers_a_comparison_with_the_winner_and_both_sentences():
    answer = ExtractiveGenerator().generate(AnswerRequest("Which band formed earlier, Blur or Oasis?", [OASIS, BLUR],
                                                          "answer"))  # fmt: skip
    assert answer.short_answer == "Blur" and not answer.abstained
    assert answer.text == "They formed in London in 1988. [1] The band formed in Manchester in 1991. [2]"
    assert answer.cited == [(1, "blur"), (2, "oasis")]


def test_a_choice_without_comparable_values_names_the_option_the_answer_sentence_names():
    bulldogs = chunk("am", "American Bulldog", "The American Bulldog includes the Standard and Classic types.")
    question = "Which Bulldog includes breeds such as Standard and Classic, the French Bulldog or the American Bulldog?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [bulldogs], "answer"))
    assert answer.short_answer == "American Bulldog"


def test_defaults_under_setting_entries_are_compared_as_sizes():
    resource = chunk(
        "res", "20.4. Resource Consumption",
        "- work_mem (integer)\n- The default value is four megabytes (4MB). Since only one of these operations can "
        "run at a time, it is safe to set it larger.\n- maintenance_work_mem (integer)\n- Since only one of these "
        "operations can be executed at a time, it's safe to set this value larger than work_mem. It defaults to 64 "
        "megabytes (64MB).\n- shared_buffers (integer)\n- The default is typically 128 megabytes (128MB).",
    )  # fmt: skip
    larger = compare("Which is larger by default, work_mem or maintenance_work_mem?", [resource])
    assert larger.winner == "maintenance_work_mem" and [v[1] for v in larger.values] == [4096.0, 65536.0]
    assert larger.values[1][2] == "maintenance_work_mem (integer): It defaults to 64 megabytes (64MB)."
    smaller = compare("Which is smaller by default, shared_buffers or maintenance_work_mem?", [resource])
    assert smaller.winner == "maintenance_work_mem"  # 128MB against 64MB: sizes, not the first numbers


def test_a_table_row_keyed_by_an_option_gives_its_value_before_a_row_only_naming_it():
    table = chunk(
        "t",
        "8.1. Numeric Types",
        "| smallint | 2 bytes | small-range integer | -32768 to +32767 |\n"
        "| integer | 4 bytes | typical choice for integer | -2147483648 to +2147483647 |",
    )
    verdict = compare("Which takes more storage, smallint or integer?", [table])
    assert verdict is not None and verdict.winner == "integer"  # 4 bytes, not "-32768" after "small-range integer"
