"""Text utilities (core/text.py): sentences, headings, identifiers."""

from __future__ import annotations

import bm25s

from core.spelling import coined_words, near_words, spellings, unknown_words
from core.text import (
    STOPWORDS,
    _stemmer,
    api_entry_name,
    identifiers,
    is_heading,
    lemma,
    names,
    sentences,
    terms,
    tidy_span,
)
from core.wording import asked


def test_list_items_and_headings_are_sentences_of_their_own():
    text = "# Settings\n- work_mem (integer)\n- Sets the memory. The default is 4MB.\nhard\nwrapped line."
    assert sentences(text) == ["Settings", "work_mem (integer)", "Sets the memory.", "The default is 4MB.",
                               "hard wrapped line."]  # fmt: skip


def test_an_unindented_line_after_a_list_item_starts_a_paragraph():
    # runtime-config-wal.html as trafilatura writes it: the default belongs to the setting, not to its last value
    values = "- Possible values are:\n  - fsync (call fsync() at each commit)\nThe default is the first method."
    assert sentences(values) == [
        "Possible values are:",
        "fsync (call fsync() at each commit)",
        "The default is the first method.",
    ]
    assert sentences("- an item that\n  wraps") == ["an item that wraps"]  # its wrapped lines are indented


def test_a_heading_line_before_a_paragraph_is_a_sentence_of_its_own():
    extracted = "Notes\nLOCK TABLE only deals with table-level locks.\nExamples\nObtain a SHARE lock:"
    assert sentences(extracted) == ["Notes", "LOCK TABLE only deals with table-level locks.", "Examples",
                                    "Obtain a SHARE lock:"]  # fmt: skip
    signature = "str.zfill(width)\nReturn a copy of the string left filled with ASCII '0' digits."
    assert sentences(signature)[0] == "str.zfill(width)"
    wrapped = "The parser was written\nin C, then\nRewritten in Python."
    assert sentences(wrapped) == ["The parser was written in C, then Rewritten in Python."]  # lower case, a comma


def test_a_grid_table_row_is_read_as_its_cells_text():
    table = (
        "+------+--------------------------------------+\n"
        "| 'n'  | Number. Like 'g', except that it     |\n"
        "|      | uses the current locale setting.     |\n"
        "+------+--------------------------------------+\n"
        "| None | Same as 'g'.                         |\n"
        "+------+--------------------------------------+\n\n"
        "| Markdown | rows |"
    )
    assert sentences(table) == [
        "'n' Number.", "Like 'g', except that it uses the current locale setting.", "None Same as 'g'.",
        "| Markdown | rows |",  # a Markdown table row is left as it is
    ]  # fmt: skip


def test_paths_dot_files_and_dotted_names_stay_inside_their_sentence():
    text = "The default value is ~/.bash_history. Run ./configure first. Call os.path.join() to join; edit .gitignore."
    assert sentences(text) == [
        "The default value is ~/.bash_history.", "Run ./configure first.", "Call os.path.join() to join; edit .gitignore.",
    ]  # fmt: skip


def test_a_markdown_table_row_is_a_sentence_of_its_own():
    text = "| Item | Limit |\n|---|---|\n| columns per table | 1,600 |\nThe number of columns is further reduced."
    assert sentences(text) == ["| Item | Limit |", "| columns per table | 1,600 |",
                               "The number of columns is further reduced."]  # fmt: skip


def test_the_word_opening_a_function_rows_description_is_no_name():
    row = "| bit_xor ( smallint ) → smallint Computes the bitwise exclusive OR of all non-null input values."
    assert "Computes" not in names(row)
    assert names("The Oversized-Attribute Storage Technique stores values.") == [
        "Oversized-Attribute Storage Technique"
    ]


def test_a_heading_is_short_and_unpunctuated():
    assert is_heading("work_mem (integer)") and is_heading("Lock Management")
    assert not is_heading("The default is 4MB.") and not is_heading("one two three four five six seven eight nine")
    assert not is_heading("| query parameters | 65,535 |")  # a table row is a record, not what follows is about


def test_identifiers_name_something_exactly():
    assert identifiers("Is pg_stat_statements.sample_rate like transaction_timeout in MongoDB or Citus?") == [
        "pg_stat_statements.sample_rate", "transaction_timeout", "MongoDB", "Citus"]  # fmt: skip
    assert identifiers("what is the default port?") == []


def test_a_product_name_with_its_version_is_one_identifier():
    assert identifiers("What is new in PostgreSQL 19?") == ["PostgreSQL 19"]


def test_a_question_word_before_a_number_is_no_name():
    assert identifiers("Which 2009 animated film is from Japan?") == ["Japan"]  # not "Which 2009"


def test_terms_are_bm25s_tokens_of_one_text():
    texts = [
        "The café's 2nd édition sold 1,200 copies in the 1970s — what a run!",
        "ALTER SYSTEM writes postgresql.auto.conf; work_mem defaults to 4MB.",
        "Who is the drummer of Steely Dan?",
        "a I of",  # stop words and one-letter tokens only
    ]
    stem = lambda words: _stemmer.stemWords([lemma(w) for w in words])  # noqa: E731 - a list in, a list out
    expected = bm25s.tokenize(texts, stopwords=sorted(STOPWORDS), stemmer=stem, return_ids=False, show_progress=False)
    assert [list(terms(t)) for t in texts] == [list(e) for e in expected]
    assert terms("work_mem defaults") == ("work_mem", "default")
    # lemmas before stems: an irregular form is its verb's, a superlative keeps its own form
    assert terms("it took") == terms("it takes") == ("take",) and terms("sold") == ("sell",)
    assert terms("the longest") == ("longest",) and terms("Steely Dan") == ("steeli", "dan")
    # an everyday abbreviation is the word documentation spells out
    assert terms("the config file of a temp table") == terms("the configuration file of a temporary table")
    assert terms("the max length") == terms("the maximum length") and terms("max_connections") != terms("maximum")


def test_a_function_named_as_a_call_is_a_term_even_when_its_name_is_a_stop_word():
    assert "now" in terms("What does now() return?") and "now" not in terms("What happens now?")
    assert terms("Does any(x) return True for all (see below)?") == ("ani", "return", "true", "see")


def test_an_api_entry_heading_names_what_it_defines():
    assert api_entry_name("os.remove(path, *, dir_fd=None)") == "os.remove"
    assert api_entry_name("class collections.Counter([iterable-or-mapping])") == "collections.Counter"
    assert api_entry_name("exception KeyError") == "KeyError"
    assert api_entry_name("@functools.lru_cache(maxsize=128, typed=False)") == "functools.lru_cache"
    for line in ("Examples", "work_mem (integer)", "Use rmdir() to remove directories.", "print(x) prints x."):
        assert api_entry_name(line) is None


def test_a_reference_pages_name_line_is_a_sentence_of_its_own():
    page = (
        "pg_dump\npg_dump — extract a PostgreSQL database into a script file or other archive file\nSynopsis\n"
        "pg_dump [option...] [dbname]\nDescription\npg_dump is a utility for backing up a PostgreSQL database."
    )
    found = sentences(page)
    assert found[:2] == ["pg_dump", "pg_dump — extract a PostgreSQL database into a script file or other archive file"]
    assert sentences("It was — as the text says — a long wait.") == ["It was — as the text says — a long wait."]




def test_a_coined_lower_case_word_names_a_product():
    assert coined_words("What port does pgbouncer listen on, and does timescaledb?") == ["pgbouncer", "timescaledb"]
    assert coined_words("Which tablespace did the Normans stock?") == ["tablespace"]  # capitals are identifiers
    assert coined_words("What reserach was improtant?") == []  # typos: one edit from an English word
    assert near_words("whitespce") == ["whitespace"]  # a typo pyspellchecker's dictionary does not know
    assert near_words("pgbouncer") == []


def test_the_asked_sentence_is_the_last_ending_in_a_question_mark():
    assert asked("We run Django. I edited postgresql.conf. How do I reload it?") == "How do I reload it?"
    assert asked("What is the default of work_mem?") == "What is the default of work_mem?"
    assert asked("Tell me about VACUUM.") == "Tell me about VACUUM."  # no question mark: all of it
    # the words leading to the question ask nothing
    assert asked("We tuned it for years. Anyway, long story short, what is work_mem?") == "What is work_mem?"


def test_misspellings_are_one_edit_from_the_word_meant():
    asked = "Is shared_bufers set by defualt in pscl, with work_mem and the Normans?"
    assert unknown_words(asked) == ["shared_bufers", "work_mem", "defualt", "pscl"]  # English words, capitals not
    # a typo common enough to pass wordfreq's test is still no word of the dictionary
    assert unknown_words("how long is the statment timeout?") == ["statment"]
    assert "shared_buffers" in spellings("shared_bufers") and "shared_share" not in spellings("shared_bufers")
    assert spellings("maintenance_work_mem") == []  # every part is English
    assert {"default", "psql"} <= {*spellings("defualt"), *spellings("pscl")}
    assert all(len(w) >= 4 for w in spellings("pscl"))


ENTRY = (
    "Settings\n- work_mem (integer)\n- Sets the base maximum amount of memory.\n"
    "Note that a complex query might perform several sort operations.\n"
)






def test_a_count_asked_says_no_many():
    from core.wording import asked_terms

    assert asked_terms("How many client connections are allowed?") == {"client", "connect", "allow"}
    assert "mani" in asked_terms("Why do many clients connect?")


def test_multiword_names_are_runs_of_capitalised_words_not_keywords_nor_a_sentence_opening():
    from core.wording import multiword_names

    assert multiword_names("How do I set up SQL Server Always On availability groups?") == ["SQL Server Always On"]
    assert multiword_names("Amazon Aurora Serverless limits? And Oracle Data Guard.") == [
        "Aurora Serverless",
        "Oracle Data Guard",
    ]
    assert multiword_names("What lock does ALTER TABLE ADD COLUMN take?") == []  # SQL keywords
    assert multiword_names("Is Read Committed the default?") == ["Read Committed"]
    assert multiword_names("What took Sky UK Limited's spot?") == ["Sky UK Limited"]
    assert multiword_names("Which film did Shirley Temple star in?") == ["Shirley Temple"]


def test_a_span_loses_the_sentences_full_stop_but_not_an_abbreviations():
    assert tidy_span("0.") == "0" and tidy_span("the default.") == "the default"
    assert tidy_span("U.S.") == "U.S." and tidy_span("Python 3.11.") == "Python 3.11."


def test_names_keep_initialisms_and_ampersands_whole():
    assert names("a sitcom set on a U.S. Army post") == ["U.S. Army"]
    assert names("It was edited by T.S. Arthur.") == ["T.S. Arthur"]
    assert names("He played for Atlanta United in the U.S.") == ["Atlanta United", "U.S."]
    assert names("He is CEO of Mitchells & Butlers, which runs pubs.") == ["CEO of Mitchells & Butlers"]
