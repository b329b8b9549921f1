"""Generators (deciders/generator.py): extractive answers with citations, the LLM answer and its fallback."""

from __future__ import annotations

import pytest
from conftest import answer_reply, scripted
from langchain_core.messages import HumanMessage

from core.tuning import TUNING, Tuning
from core.wording import equated, equivalents, focus_weights, said_terms
from deciders.answer_support import Candidate, answer_sentences, rank_candidates
from deciders.generator import (
    NO_ANSWER,
    Answer,
    AnswerRequest,
    ExtractiveGenerator,
    _unsaid_focus,
)
from deciders.lexicon import MODEL_FREE
from deciders.llm_generator import LLMGenerator, wrong_type
from deciders.passages import citation_marks, closest_passages
from providers.embeddings import load_embedding_model

QUESTION = "Which league does Donnie Smith play in?"


def chunk(cid: str, title: str, text: str, **extra) -> dict:
    return {"chunk_id": cid, "text": text, "source": "s", "title": title, "score": 1.0, "dense_rank": None,
            "lexical_rank": None, **extra}  # fmt: skip


DONNIE = chunk(
    "donnie", "Donnie Smith", "Donnie Smith. He is an American soccer player. He plays in Major League Soccer."
)
REVS = chunk("revs", "New England Revolution", "The Revolution are a soccer club. Donnie Smith joined them in 2014.")


def test_citation_marks_number_chunks_by_first_citation():
    assert citation_marks(["b", "a", "b", "c"]) == {"b": 1, "a": 2, "c": 3}


def test_answer_sentences_skip_the_title_line_and_avoided_claims():
    assert answer_sentences(DONNIE) == ["He is an American soccer player.", "He plays in Major League Soccer."]
    assert answer_sentences(DONNIE, avoid=["He is an American soccer player."]) == ["He plays in Major League Soccer."]


def test_extractive_answer_is_the_best_supported_sentence_with_its_mark():
    answer = ExtractiveGenerator().generate(AnswerRequest(QUESTION, [DONNIE, REVS], "answer"))
    assert answer.text == "He plays in Major League Soccer. [1]"
    assert answer.cited == [(1, "donnie")] and answer.decider == "rules" and answer.note is None
    assert answer.short_answer == "Major League Soccer" and not answer.abstained and answer.support == 0.8


def test_who_is_answered_with_a_persons_name_not_an_institutions():
    lab = chunk(
        "npl",
        "Packet switching",
        "Starting in 1965, Donald Davies at the National Physical Laboratory, UK, developed it.",
    )
    answer = ExtractiveGenerator().generate(
        AnswerRequest("Who developed packet switching at a laboratory?", [lab], "answer")
    )
    assert answer.short_answer == "Donald Davies"
    usa = chunk("usa", "Imperialism", "It has been argued by Mao Zedong that the Soviet Union had become imperialist.")
    argued = ExtractiveGenerator().generate(
        AnswerRequest("Who argued the Soviet Union was imperialist?", [usa], "answer")
    )
    assert argued.short_answer == "Mao Zedong"


def test_a_second_sentence_only_when_it_adds_question_terms():
    question = "Who joined the Revolution and plays in Major League Soccer?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [DONNIE, REVS], "answer"))
    # "them" is named in the sentence before, which is shown with it
    assert answer.text == (
        "The Revolution are a soccer club. Donnie Smith joined them in 2014. [1] He plays in Major League Soccer. [2]"
    )
    assert answer.short_answer == "Donnie Smith"
    one = ExtractiveGenerator(Tuning(answer_sentences=1)).generate(AnswerRequest(question, [DONNIE, REVS], "answer"))
    assert one.text == "The Revolution are a soccer club. Donnie Smith joined them in 2014. [1]"
    assert one.short_answer == "Donnie Smith" and one.support < answer.support


PG_WORK_MEM = chunk(
    "work_mem", "20.4. Resource Consumption",
    "work_mem (integer)\n\nSets the base maximum amount of memory to be used by a query operation. "
    "The default value is four megabytes (4MB).\n\nhash_mem_multiplier (floating point)\n\n"
    "Used to compute the maximum amount of memory that hash-based operations can use. "
    "The default value is 2.0.",
)  # fmt: skip


def test_the_answer_sentence_is_the_one_near_the_focus_term_holding_the_expected_type():
    weights = {"default": 1.0, "work_mem": 6.0}
    request = AnswerRequest("What is the default of work_mem?", [PG_WORK_MEM], "answer", term_weights=weights)
    answer = ExtractiveGenerator().generate(request)
    assert answer.text == "work_mem (integer): The default value is four megabytes (4MB). [1]"
    assert answer.short_answer == "four megabytes (4MB)" and answer.support > 0.5


PG_MAINTENANCE = chunk(
    "maintenance", "20.4. Resource Consumption",
    "maintenance_work_mem (integer)\n\nSpecifies the maximum amount of memory to be used by maintenance "
    "operations, such as VACUUM, CREATE INDEX, and ALTER TABLE ADD FOREIGN KEY. If this value is specified "
    "without units, it is taken as kilobytes. It defaults to 64 megabytes (64MB).\n\n"
    "vacuum_truncate (boolean)\n\nThis feature is disabled by default for manually issued VACUUM commands.",
)  # fmt: skip


def test_an_entrys_defining_sentence_counts_for_the_sentences_that_follow_it():
    question = "What's the default memory budget for maintenance jobs like VACUUM or building an index?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [PG_MAINTENANCE], "answer"))
    assert answer.short_answer == "64 megabytes (64MB)"


def test_an_api_entrys_defining_sentence_answers_with_the_entrys_command():
    entry = chunk(
        "os", "os",
        "- os.remove(path, *, dir_fd=None)\n- Remove (delete) the file path. If path is a directory, an OSError "
        "is raised. Use rmdir() to remove directories.",
    )  # fmt: skip
    answer = ExtractiveGenerator().generate(AnswerRequest("How do I remove a file?", [entry], "answer"))
    assert answer.short_answer == "os.remove" and "Remove (delete) the file path." in answer.text


def test_what_an_api_entry_does_is_its_defining_sentence_never_its_signature_alone():
    entry = chunk(
        "path", "os.path",
        "- os.path.isabs(path)\n- Return True if path is an absolute pathname.\n- os.path.join(path, *paths)\n"
        "- Join one or more path segments intelligently. The return value is the concatenation of path and any "
        "members of *paths.",
    )  # fmt: skip
    answer = ExtractiveGenerator().generate(AnswerRequest("What does os.path.join do?", [entry], "answer"))
    assert answer.text.startswith("os.path.join(path, *paths): Join one or more path segments intelligently.")


def test_which_exception_is_the_entry_whose_defining_sentence_answers():
    entry = chunk(
        "exc", "Built-in Exceptions",
        "- exception KeyError\n- Raised when a mapping (dictionary) key is not found in the set of existing keys.\n"
        "- exception KeyboardInterrupt\n- Raised when the user hits the interrupt key.",
    )  # fmt: skip
    question = "Which exception is raised when a dictionary key is not found?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [entry], "answer"))
    assert answer.short_answer == "KeyError" and "key is not found" in answer.text


def test_what_an_entry_does_is_its_defining_sentence_not_a_later_note():
    entry = chunk(
        "ctx", "contextlib",
        "- contextlib.suppress(*exceptions)\n- Return a context manager that suppresses any of the specified "
        "exceptions if they occur in the body of a with statement and then resumes execution with the first "
        "statement following the end of the with statement.\n- As with any other mechanism that completely "
        "suppresses exceptions, this context manager should be used only to cover very specific errors.\n"
        "- New in version 3.4.",
    )  # fmt: skip
    generator = ExtractiveGenerator(embeddings=load_embedding_model("wordllama").embeddings)
    answer = generator.generate(AnswerRequest("What does contextlib.suppress do?", [entry], "answer"))
    assert answer.text.startswith("contextlib.suppress(*exceptions): Return a context manager that suppresses")


PYDOC_FUNCTOOLS = chunk(
    "ft", "functools module",
    "FUNCTIONS\n    lru_cache(maxsize=128, typed=False)\n        Least-recently-used cache decorator.\n        \n"
    "        If *maxsize* is set to None, the LRU features are disabled.\n        \n        View the cache "
    "statistics named tuple with f.cache_info().  Clear the cache and statistics with f.cache_clear().\n",
)  # fmt: skip


def test_a_dotted_name_is_held_where_its_module_and_its_entry_are():
    generator = ExtractiveGenerator(embeddings=load_embedding_model("wordllama").embeddings)
    question = "What does functools.lru_cache do?"
    request = AnswerRequest(question, [PYDOC_FUNCTOOLS], "answer", rare_names=["functools.lru_cache"])
    answer = generator.generate(request)  # pydoc never writes "functools.lru_cache": its page and entry do
    assert not answer.abstained and "Least-recently-used cache decorator." in answer.text
    elsewhere = AnswerRequest("What does functools.partial do?", [PYDOC_FUNCTOOLS], "answer",
                              rare_names=["functools.partial"])  # fmt: skip
    assert generator.generate(elsewhere).abstained  # no "partial(" entry here


def test_which_module_is_the_module_whose_page_answers():
    page = chunk(
        "heapq", "heapq — Heap queue algorithm",
        "Source code: Lib/heapq.py\nThis module provides an implementation of the heap queue algorithm, also known "
        "as the priority queue algorithm.",
    )  # fmt: skip
    question = "Which module provides an implementation of the heap queue algorithm?"
    assert ExtractiveGenerator().generate(AnswerRequest(question, [page], "answer")).short_answer == "heapq"


def test_release_notes_rank_below_the_reference_unless_the_question_asks_about_versions():
    notes = chunk(
        "new", "What's New In Python 3.8",
        "functools.lru_cache() can now be used as a straight decorator rather than as a function returning a "
        "decorator.",
    )  # fmt: skip
    reference = chunk(
        "ref", "functools",
        "- @functools.lru_cache(maxsize=128, typed=False)\n- Decorator to wrap a function with a memoizing "
        "callable that saves up to the maxsize most recent calls.",
    )  # fmt: skip
    answer = ExtractiveGenerator().generate(
        AnswerRequest("What does functools.lru_cache do?", [notes, reference], "answer")
    )
    assert answer.cited == [(1, "ref")] and "memoizing callable" in answer.text
    changed = "What changed about functools.lru_cache in Python 3.8?"
    assert ExtractiveGenerator().generate(AnswerRequest(changed, [notes, reference], "answer")).cited[0] == (1, "new")
    # a version note in the reference itself ranks below what the reference says now
    page = chunk("pool", "pool", "Changed in version 3.4: The default pool size is 5. The default pool size is 4.")
    answer = ExtractiveGenerator().generate(AnswerRequest("What is the default pool size?", [page], "answer"))
    assert answer.short_answer == "4"


def test_abstains_when_no_sentence_supports_the_question_and_names_what_is_never_mentioned():
    weights = {"default": 1.0, "transaction_timeout": 9.0}
    request = AnswerRequest(
        "What is the default of transaction_timeout?", [PG_WORK_MEM], "answer",
        term_weights=weights, absent_terms=["transaction_timeout"],
    )  # fmt: skip
    answer = ExtractiveGenerator().generate(request)
    assert answer.abstained and answer.short_answer is None and answer.support < 0.5
    assert answer.text.startswith(
        f"{NO_ANSWER} contain a clear answer to this question (they never mention transaction_timeout). "
        "The closest passages found:"
    )


def test_a_measure_of_what_the_sentence_does_not_name_is_no_answer():
    units = chunk("units", "9.27. System Administration Functions", "Note that 1kB is 1024 bytes, and so on.")
    rows = chunk("rows", "8.1. Numeric Types", "| integer | 4 bytes | typical choice for integer |")
    generator = ExtractiveGenerator()
    declined = generator.generate(AnswerRequest("How many bytes is a bigint?", [units], "answer"))
    assert declined.abstained and declined.short_answer is None
    assert "(no passage found says it of bigint)" in declined.text
    answer = generator.generate(AnswerRequest("How many bytes is an integer?", [units, rows], "answer"))
    assert answer.short_answer == "4 bytes" and not answer.abstained


def test_caveat_says_the_documents_do_not_answer_first():
    caveat = ExtractiveGenerator().generate(AnswerRequest(QUESTION, [DONNIE], "caveat"))
    assert caveat.abstained and caveat.short_answer is None
    assert caveat.text.startswith(f"{NO_ANSWER} contain a clear answer to this question. The closest passages found:")
    assert caveat.cited == [(1, "donnie")]
    empty = ExtractiveGenerator().generate(AnswerRequest(QUESTION, [], "caveat"))
    assert empty.text == f"{NO_ANSWER} contain an answer to this question, and nothing related was found."
    assert empty.cited == [] and empty.abstained


def test_direct_replies_to_small_talk():
    generator = ExtractiveGenerator()
    assert generator.generate(AnswerRequest("thanks!", [], "direct")).text.startswith("You're welcome.")
    assert generator.generate(AnswerRequest("bye", [], "direct")).text == "Goodbye!"
    assert generator.generate(AnswerRequest("hello", [], "direct")).text.startswith("Hello!")
    assert generator.generate(AnswerRequest("ok", [], "direct")).text.startswith("Noted.")
    asked = generator.generate(AnswerRequest("Is it used by hash tables?", [], "direct"))
    assert asked.text.startswith('What does "it" refer to? This thread has no earlier question')
    assert asked.cited == [] and not asked.abstained
    model = scripted(generate="It is.")
    assert LLMGenerator(model).generate(AnswerRequest("Is it used by hash tables?", [], "direct")).text == asked.text
    assert model.calls == {}


def test_a_split_question_is_answered_whole_when_the_evidence_answers_it():
    subs = ["Which league does Donnie Smith play in?", "Who plays for the Revolution?"]
    answer = ExtractiveGenerator().generate(AnswerRequest(QUESTION, [REVS, DONNIE], "answer", sub_questions=subs))
    assert not answer.abstained and "(1)" not in answer.text and answer.short_answer == "Major League Soccer"


def test_sub_questions_are_answered_part_by_part_or_said_unanswered():
    subs = ["Which league does Donnie Smith play in?", "When was Oasis formed?"]
    answer = ExtractiveGenerator().generate(AnswerRequest("both", [DONNIE, REVS], "answer", sub_questions=subs))
    assert answer.abstained  # not answered as a whole: what each part's best sentence says
    assert answer.text.splitlines() == [
        f"{NO_ANSWER} contain a clear answer to the whole question. By part:",
        "(1) Which league does Donnie Smith play in? He plays in Major League Soccer. [1]",
        f"(2) When was Oasis formed? {NO_ANSWER} answer this part.",
    ]
    assert answer.cited == [(1, "donnie")]
    strict = ExtractiveGenerator(Tuning(part_coverage=1.01)).generate(
        AnswerRequest("both", [DONNIE], "answer", sub_questions=subs)
    )
    assert strict.cited == [] and strict.text.count(NO_ANSWER) == 3  # the whole and both parts


def test_a_part_is_answered_only_by_evidence_about_its_own_subject():
    subs = ["Are Donnie Smith soccer players?", "Are Radiohead soccer players?"]
    answer = ExtractiveGenerator().generate(AnswerRequest("both", [DONNIE], "answer", sub_questions=subs))
    lines = answer.text.splitlines()
    assert lines[1] == "(1) Are Donnie Smith soccer players? He is an American soccer player. [1]"
    assert lines[2] == f"(2) Are Radiohead soccer players? {NO_ANSWER} answer this part."  # not Donnie's page


def test_llm_generator_reads_its_citation_marks():
    model = scripted(generate=answer_reply("Major League Soccer [2][1][2][7].", "Major League Soccer"))
    answer = LLMGenerator(model).generate(
        AnswerRequest(QUESTION, [REVS, DONNIE], "answer", conversation=[HumanMessage("hi")])
    )
    assert answer.text == "Major League Soccer [2][1][2]."  # [7] cites no passage: dropped
    assert answer.cited == [(2, "donnie"), (1, "revs")]  # in order of use
    assert answer.decider == "llm:ScriptedChatModel" and model.calls == {"generate": 1}


@pytest.mark.parametrize("reply", ["null", "  ", "not json at all", '{"short_answer": "", "answer": ""}'])
def test_llm_generator_unusable_reply_gives_the_extractive_answer_with_a_note(reply):
    answer = LLMGenerator(scripted(generate=reply)).generate(AnswerRequest(QUESTION, [DONNIE], "answer"))
    assert answer.text == "He plays in Major League Soccer. [1]" and answer.decider == MODEL_FREE
    assert answer.note.endswith("; extractive answer instead")


def test_llm_generator_short_answer_and_abstention_contract():
    asked = []
    model = scripted(generate=lambda p: asked.append(p) or answer_reply("He plays in MLS [1].", "Major League Soccer"))
    answer = LLMGenerator(model).generate(AnswerRequest(QUESTION, [DONNIE], "answer"))
    assert answer.short_answer == "Major League Soccer" and not answer.abstained
    assert answer.text == "He plays in MLS [1]." and answer.cited == [(1, "donnie")]
    assert asked[0].index("Evidence:") < asked[0].index(f"Question: {QUESTION}")  # the question comes last
    assert "/" not in asked[0].split("Question:")[0]  # no local paths in the passages' metadata
    none = scripted(generate=answer_reply("", "none"))
    abstained = LLMGenerator(none).generate(AnswerRequest(QUESTION, [DONNIE], "answer"))
    assert abstained.abstained and abstained.short_answer is None and abstained.text.startswith(NO_ANSWER)


def test_llm_generator_cites_the_sentence_holding_a_bare_short_answer():
    bare = scripted(generate=answer_reply("Major League Soccer", "Major League Soccer"))
    answer = LLMGenerator(bare).generate(AnswerRequest(QUESTION, [REVS, DONNIE], "answer"))
    assert answer.text == "He plays in Major League Soccer. [2]" and answer.cited == [(2, "donnie")]
    uncited = scripted(generate=answer_reply("Donnie Smith plays in Major League Soccer.", "Major League Soccer"))
    answer = LLMGenerator(uncited).generate(AnswerRequest(QUESTION, [REVS, DONNIE], "answer"))
    assert answer.text == "Donnie Smith plays in Major League Soccer. [2]"
    invented = scripted(generate=answer_reply("The Premier League [1].", "Premier League"))
    answer = LLMGenerator(invented).generate(AnswerRequest(QUESTION, [REVS, DONNIE], "answer"))
    assert answer.short_answer == "Major League Soccer" and answer.decider == MODEL_FREE
    assert answer.note == "short answer 'Premier League' is in no passage; extractive answer instead"


def test_a_psql_question_is_answered_with_the_meta_command():
    psql = chunk("psql", "psql", "The catalog pg_class holds the tables; list the tables with \\dt in psql.")
    answer = ExtractiveGenerator().generate(AnswerRequest("In psql, how do I list the tables?", [psql], "answer"))
    assert answer.short_answer == "\\dt"


def test_a_definition_question_has_no_short_answer():
    answer = ExtractiveGenerator().generate(AnswerRequest("Who is Donnie Smith?", [DONNIE], "answer"))
    assert answer.short_answer is None and not answer.abstained


def test_an_llm_caveat_answer_always_opens_by_saying_the_documents_do_not_answer():
    model = scripted(generate="Terry Crews had a part in Gamer [1].")
    answer = LLMGenerator(model).generate(AnswerRequest(QUESTION, [DONNIE], "caveat"))
    assert answer.abstained and answer.text.startswith(f"{NO_ANSWER} contain a clear answer")
    assert answer.text.endswith("Terry Crews had a part in Gamer [1].") and answer.cited == [(1, "donnie")]
    said = scripted(generate="The documents searched do not contain a clear answer. Passage [1] names Gamer.")
    answer = LLMGenerator(said).generate(AnswerRequest(QUESTION, [DONNIE], "caveat"))
    assert answer.text.count("do not contain") == 1  # said once, not prefixed again


def test_llm_short_answer_of_the_wrong_form_gives_the_extractive_answer():
    question = "Does Donnie Smith play in Major League Soccer?"
    model = scripted(generate=answer_reply("Donnie Smith is a left back [1].", "Donnie Smith is a left back"))
    answer = LLMGenerator(model).generate(AnswerRequest(question, [DONNIE], "answer"))
    assert answer.decider == MODEL_FREE and answer.short_answer == "Yes"
    assert answer.note.endswith("is not the yes_no asked for; extractive answer instead")
    assert not wrong_type("1965", "When was he born?") and wrong_type("Jerry", "When was he born?")
    assert not wrong_type("Rush", "Which band was it?")  # names are not checked by form


def test_a_well_supported_extractive_answer_wins_a_disagreement_with_the_model():
    request = AnswerRequest(QUESTION, [REVS, DONNIE], "answer")
    support = ExtractiveGenerator().generate(request).support
    other = scripted(generate=answer_reply("He joined the New England Revolution [1].", "New England Revolution"))
    overruled = LLMGenerator(other, Tuning(extractive_over_model=support)).generate(request)
    assert overruled.short_answer == "Major League Soccer" and overruled.decider == MODEL_FREE
    assert overruled.note == (
        "short answer 'New England Revolution' disagrees with a well-supported 'Major League Soccer'; "
        "extractive answer instead"
    )
    kept = LLMGenerator(other, Tuning(extractive_over_model=support + 0.01)).generate(request)
    assert kept.short_answer == "New England Revolution" and kept.note is None
    agreeing = scripted(generate=answer_reply("He plays in MLS [2].", "Major League Soccer"))
    assert LLMGenerator(agreeing, Tuning(extractive_over_model=0.0)).generate(request).decider.startswith("llm:")


def test_an_abstention_on_a_question_with_no_content_words_is_not_sure():
    answer = ExtractiveGenerator().generate(AnswerRequest("And when was that?", [DONNIE], "answer"))
    assert answer.abstained and answer.support == 1.0  # its confidence: sufficient ceiling × (1 − 1) = 0


def test_an_llm_answer_to_a_choice_question_cites_the_evidence_of_each_option():
    question = "Which women's magazine was published first, Mirabella or Home Monthly?"
    mirabella = chunk("mira", "Mirabella", "Mirabella was a women's magazine published from June 1989 to April 2000.")
    home = chunk("home", "Home Monthly", "Home Monthly was a monthly women's magazine published from 1896 to 1900.")
    model = scripted(generate=answer_reply("Home Monthly came first, from 1896 [2].", "Home Monthly"))
    answer = LLMGenerator(model).generate(AnswerRequest(question, [mirabella, home], "answer"))
    assert answer.short_answer == "Home Monthly" and answer.decider != MODEL_FREE
    assert answer.text == (  # the reader sees both sides
        "Home Monthly came first, from 1896 [2]. "
        "Mirabella was a women's magazine published from June 1989 to April 2000. [1]"
    )
    assert answer.cited == [(2, "home"), (1, "mira")]


def test_an_exact_name_mentioned_under_another_entry_loses_to_its_own_entry():
    question = "What is the default value of work_mem?"
    hash_entry = chunk(
        "hash", "20.4. Resource Consumption", "- hash_mem_multiplier (floating point)\n- Used to compute the memory of "
        "hash operations. The default value is 2.0, which makes hash operations use twice the usual work_mem.",
    )  # fmt: skip
    own_entry = chunk(
        "work", "20.4. Resource Consumption", "- work_mem (integer)\n- Sets the base maximum amount of memory to be "
        "used by a query operation. The default value is four megabytes (4MB).",
    )  # fmt: skip
    weights = {"work_mem": 6.0, "default": 1.5, "valu": 1.0}
    answer = ExtractiveGenerator().generate(
        AnswerRequest(question, [hash_entry, own_entry], "answer", term_weights=weights)
    )
    assert answer.short_answer == "four megabytes (4MB)"
    assert answer.text.startswith("work_mem (integer): The default value is four megabytes (4MB).")


def test_a_table_row_answer_is_shown_without_its_empty_cells():
    row = chunk("locks", "13.3. Explicit Locking", "| | waiting for writers to finish before the build begins |")
    answer = ExtractiveGenerator().generate(AnswerRequest("What does the build wait for?", [row], "answer"))
    assert answer.text.startswith("waiting for writers to finish before the build begins [1]")


def test_a_what_noun_question_gets_the_phrase_naming_that_noun():
    rna = chunk(
        "rna", "Immune system", "Ribonucleases and the RNA interference pathway are conserved across all eukaryotes."
    )
    question = "What pathway is conserved across all eukaryotes?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [rna], "answer"))
    assert answer.short_answer == "RNA interference pathway" and not answer.abstained


def test_a_single_hop_answer_needs_one_sentence_that_supports_it_alone():
    question = "Which port does the Zeta archiver open for nightly backup uploads?"
    # each sentence holds two of the seven terms, together four: two half-answers are no answer
    split = [chunk("a", "Tools", "The Zeta archiver is a tool."), chunk("b", "Network", "Uploads go to port 8443.")]
    answer = ExtractiveGenerator().generate(AnswerRequest(question, split, "answer"))
    assert answer.abstained and answer.text.startswith(NO_ANSWER)
    whole = chunk("c", "Zeta", "The Zeta archiver opens port 8443 for nightly backup uploads.")
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [whole], "answer"))
    assert not answer.abstained and answer.text == f"{whole['text']} [1]"


def test_table_rows_lend_no_proximity_credit_to_the_prose_after_them():
    limits = chunk(
        "k",
        "Appendix K. Limits",
        "| field size | 1 GB |\n| maximum rows | 10 |\n"
        "For short fields, a 1-byte header is used and the value is stored inline.",
    )
    question = "What is the maximum size of a single field value?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [limits], "answer"))
    assert answer.short_answer == "1 GB" and answer.text == "field size | 1 GB [1]"


def test_what_continent_or_country_takes_a_name_that_is_one():
    text = "The Canary Islands coast faces Lanzarote; the islands belong geographically to Africa."
    canary = chunk("c", "Canary Islands", text)
    question = "What continent are the Canary Islands off the coast of?"
    assert ExtractiveGenerator().generate(AnswerRequest(question, [canary], "answer")).short_answer == "Africa"


def test_a_command_written_in_capitals_is_answered_from_its_own_page_not_its_syntax_line():
    procedure = chunk(
        "proc", "ALTER PROCEDURE",
        "SET FROM CURRENT saves the value of the parameter that is current when ALTER PROCEDURE is executed as "
        "the value to be applied when the procedure is entered.",
    )  # fmt: skip
    system = chunk(
        "system", "ALTER SYSTEM",
        "ALTER SYSTEM SET configuration_parameter { TO | = } { value [, ...] | DEFAULT }\n\n"
        "ALTER SYSTEM writes the given parameter setting to the postgresql.auto.conf file, which is read in "
        "addition to postgresql.conf.",
    )  # fmt: skip
    question = "Where does ALTER SYSTEM SET save the value it changes?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [procedure, system], "answer"))
    assert answer.short_answer == "postgresql.auto.conf" and answer.cited == [(1, "system")]
    syntax = "What is the syntax of ALTER SYSTEM SET?"  # a syntax line still answers how a command is written
    assert "{ TO | = }" in ExtractiveGenerator().generate(AnswerRequest(syntax, [procedure, system], "answer")).text


def test_a_passage_saying_the_opposite_of_the_question_is_no_answer():
    empire = chunk(
        "empire", "Germany",
        "After Prussia unified the other states into the second German Empire in 1871, Bismarck led it.",
    )  # fmt: skip
    answer = ExtractiveGenerator().generate(
        AnswerRequest("When was the third German empire founded?", [empire], "answer")
    )
    assert answer.abstained and "'the second german', not 'third'" in answer.text
    same = ExtractiveGenerator().generate(AnswerRequest("When was the 2nd German Empire founded?", [empire], "answer"))
    assert not same.abstained and same.short_answer == "1871"


def test_a_question_asked_with_not_is_no_answer_from_a_sentence_saying_only_what_is():
    community = chunk(
        "ec", "European Union",
        "The European Community originally focused upon free movement of workers as a factor of production.",
    )  # fmt: skip
    answer = ExtractiveGenerator().generate(
        AnswerRequest("What did the European Community not originally focus on?", [community], "answer")
    )
    assert answer.abstained and "asks with 'not'" in answer.text and "[1]" in answer.text  # the closest passage
    plain = ExtractiveGenerator().generate(
        AnswerRequest("What did the European Community originally focus on?", [community], "answer")
    )
    assert not plain.abstained and "free movement of workers" in plain.text


@pytest.mark.parametrize(
    ("question", "text", "reason"),
    [
        # a name no evidence chunk mentions
        ("How many schools of medicine were recognized in Japan?",
         "Harvard has 11 principal academic units, including its medical school.", "says it of Japan)"),
        # a sentence saying "not" of what the question takes as given
        ("When a commission reached a decision, what happened?",
         "The issues of conflicting territorial claims were turned over to a commission to resolve, but it reached "
         "no decision.", "says 'reached no decision')"),
    ],
)  # fmt: skip
def test_a_single_hop_answer_about_something_else_is_no_answer(question, text, reason):
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [chunk("c", "History", text)], "answer"))
    assert answer.abstained and reason in answer.text


def test_a_name_much_of_the_collection_holds_need_not_be_in_the_evidence():
    truncate = chunk("t", "TRUNCATE", "TRUNCATE is transaction-safe: the truncation is rolled back on abort.")
    question = "Is TRUNCATE transaction-safe in PostgreSQL?"
    common = {"truncat": 3.7, "transact": 2.2, "safe": 3.7, "postgresql": 1.44}  # a quarter of the chunks say it
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [truncate], "answer", term_weights=common))
    assert not answer.abstained and answer.short_answer == "Yes", answer.text
    rare = ExtractiveGenerator().generate(
        AnswerRequest(question, [truncate], "answer", term_weights={**common, "postgresql": 4.0})
    )
    assert rare.abstained and "says it of PostgreSQL)" in rare.text


def test_a_rare_name_of_the_scene_before_the_question_need_not_be_in_the_answer():
    port = chunk("p", "Connections", "The server listens on port 5432 by default.")
    question = "We run a busy OLTP shop. Which port does the server listen on by default?"
    request = AnswerRequest(question, [port], "answer", rare_names=["OLTP"])
    assert ExtractiveGenerator().generate(request).short_answer == "5432"
    asked = AnswerRequest("Which port does OLTP listen on by default?", [port], "answer", rare_names=["OLTP"])
    assert ExtractiveGenerator().generate(asked).abstained  # asked of it: the answer must say it


def test_a_rare_name_of_a_single_hop_question_must_be_in_the_answers_sentence():
    huguenots = chunk(
        "hu", "Huguenot",
        "The Peace of Westphalia ended the war in 1648. Many fled to England. Huguenots began to settle in "
        "the Dutch Cape Colony in 1688.",
    )  # fmt: skip
    question = "When did Huguenots settle in the Cape Colony after the Peace of Westphalia?"
    generator = ExtractiveGenerator()
    # "Westphalia" is named in one chunk only, not in the sentence the answer would come from
    swapped = generator.generate(AnswerRequest(question, [huguenots], "answer", rare_names=["Westphalia"]))
    assert swapped.abstained and "says it of Westphalia)" in swapped.text
    # a rare name that titles an evidence chunk is what the question is about: the answer may be elsewhere
    titled = {**huguenots, "title": "Westphalia"}
    assert not generator.generate(AnswerRequest(question, [titled], "answer", rare_names=["Westphalia"])).abstained
    # a common name, or the same question without the rare-name finding, is answered
    assert not generator.generate(AnswerRequest(question, [huguenots], "answer")).abstained


def test_a_rare_code_name_must_be_said_by_the_answer_not_only_by_its_chunk():
    select = chunk(
        "sel", "PREPARE",
        "The LIMIT ALL syntax is also accepted by MySQL. Each statement is planned anew. To enable a cache of "
        "query plans in a session, use PREPARE.",
    )  # fmt: skip
    question = "How do I enable the MySQL query cache?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [select], "answer", rare_names=["MySQL"]))
    assert answer.abstained and answer.short_answer is None and "MySQL" in answer.text
    assert not ExtractiveGenerator().generate(AnswerRequest(question, [select], "answer")).abstained  # a common name


def test_the_short_answer_to_a_not_question_is_never_the_clause_saying_the_opposite():
    glossary = chunk(
        "hashable", "Glossary",
        "Most of Python's immutable built-in objects are hashable; mutable containers (such as lists or "
        "dictionaries) are not; immutable containers (such as tuples and frozensets) are only hashable if "
        "their elements are hashable.",
    )  # fmt: skip
    question = "Which built-in objects are not hashable?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [glossary], "answer"))
    assert not answer.abstained and "Python" not in (answer.short_answer or "")


def test_a_why_or_how_question_gets_no_name_as_its_short_answer():
    fresno = chunk(
        "fresno",
        "Fresno, California",
        "Fresno has only UHF stations, as the Federal Communications Commission kept them away from VHF "
        "stations to avoid interference.",
    )
    answer = ExtractiveGenerator().generate(
        AnswerRequest("Why does Fresno only have UHF stations?", [fresno], "answer")
    )
    assert answer.short_answer is None and not answer.abstained  # the reason is the sentence, not the FCC
    said = chunk("tmp", "Temporary tables", "Temporary tables are dropped at the end of a session by pg_temp cleanup.")
    answer = ExtractiveGenerator().generate(AnswerRequest("How are temporary tables dropped?", [said], "answer"))
    assert answer.short_answer == "pg_temp"  # a term spelled as code still is one


def test_what_exception_is_answered_by_an_exception_class_or_by_the_sentence():
    missing = chunk("keys", "Mapping types", "Looking up a missing key raises KeyError in the mapping protocol.")
    answer = ExtractiveGenerator().generate(
        AnswerRequest("What exception does a missing key raise?", [missing], "answer")
    )
    assert answer.short_answer == "KeyError"
    handling = chunk("errors", "Errors", "The most common pattern for handling Exception is to log it and re-raise it.")
    answer = ExtractiveGenerator().generate(AnswerRequest("What exception does int('x') raise?", [handling], "answer"))
    assert answer.short_answer is None  # not "handling Exception": the sentence names no exception class


def test_a_how_to_prefers_the_sentence_with_the_statement_it_asks_for_in_prose():
    prose = chunk("only", "ALTER INDEX", "If the ONLY option is specified, no index is created on the partitions.")
    statement = chunk("create", "CREATE INDEX", "Indexes are made with CREATE INDEX on a column of the table.")
    answer = ExtractiveGenerator().generate(AnswerRequest("How do I create an index?", [prose, statement], "answer"))
    assert answer.short_answer == "CREATE INDEX" and answer.cited == [(1, "create")]


def test_a_how_to_in_everyday_words_prefers_the_statement_its_verb_means():
    rows = chunk("rows", "DELETE", "Delete all films but musicals: DELETE FROM films WHERE kind <> 'Musical';")
    drop = chunk("drop", "DROP DATABASE", "DROP DATABASE — remove a database")
    answer = ExtractiveGenerator().generate(AnswerRequest("How do I delete a database?", [rows, drop], "answer"))
    assert answer.short_answer == "DROP DATABASE" and answer.cited[0] == (1, "drop")


def test_a_statement_keyword_says_the_everyday_verb_of_a_how_to():
    # "delete" is DROP in "DROP USER — remove a database role": the statement's page answers, not a
    # sentence that says "delete" and "user" of rows
    rows = chunk("rows", "Policies", "The user must have access to the rows being deleted through a DELETE policy.")
    drop = chunk("drop", "DROP USER", "DROP USER — remove a database role")
    answer = ExtractiveGenerator().generate(AnswerRequest("How do I delete a user?", [rows, drop], "answer"))
    assert answer.short_answer == "DROP USER" and answer.cited[0] == (1, "drop")


def test_a_how_to_is_answered_by_the_command_named_for_its_action():
    custom = chunk(
        "custom", "Backup", "A custom-format dump made by pg_dump -Fc is read back into a database with pg_restore -d."
    )
    answer = ExtractiveGenerator().generate(
        AnswerRequest("How do I restore a dump in the custom format?", [custom], "answer")
    )
    # "restore" is its action, run so; pg_dump stands nearer "dump" and "custom"
    assert answer.short_answer == "pg_restore -d"


def test_a_setting_named_in_passing_under_another_settings_entry_is_not_its_default():
    interval = chunk(
        "interval",
        "Client Connection Defaults",
        "- IntervalStyle (enum)\n- The value postgres (which is the default) "
        "will produce output matching releases prior to 8.4 when the DateStyle parameter was set to ISO.",
    )
    date = chunk("date", "Client Connection Defaults", "- DateStyle (string)\n- Sets the display format for date "
                 "and time values. The built-in default is ISO, MDY, but initdb will initialize the file.")  # fmt: skip
    answer = ExtractiveGenerator().generate(AnswerRequest("What is the default DateStyle?", [interval, date], "answer"))
    assert answer.short_answer == "ISO" and answer.cited[0] == (1, "date"), answer.text


def test_a_function_table_row_answers_with_its_own_function_not_the_row_before():
    table = chunk(
        "string",
        "9.4. String Functions and Operators",
        "| char_length ( text ) → integer Returns number of characters in the string. char_length('josé') → 4 |\n"
        "| lower ( text ) → text Converts the string to all lower case, according to the rules of the locale. "
        "lower('TOM') → tom |",
    )
    answer = ExtractiveGenerator().generate(
        AnswerRequest("Which function converts a string to lower case?", [table], "answer")
    )
    assert answer.short_answer == "lower" and "char_length" not in answer.text, answer.text


def test_a_sentence_with_the_question_roles_swapped_is_no_answer():
    norman = chunk("norman", "Normans", "The Anglo-Norman language was absorbed into the Anglo-Saxon language.")
    answer = ExtractiveGenerator().generate(
        AnswerRequest("What was absorbed into the Anglo-Norman language?", [norman], "answer")
    )
    assert answer.abstained and "absorbed into the Anglo-Saxon" in answer.text


def test_a_bound_the_question_asks_picks_the_number_the_sentence_bounds_the_same_way():
    toast = chunk(
        "lo",
        "Large objects",
        "One advantage of the large object facility is that it allows values up to 4 TB in size, "
        "whereas TOASTed fields can be at most 1 GB.",
    )
    asked = ExtractiveGenerator().generate(AnswerRequest("How large can a field value be at most?", [toast], "answer"))
    assert asked.short_answer == "1 GB"
    unbounded = ExtractiveGenerator().generate(AnswerRequest("How large can a large object be?", [toast], "answer"))
    assert unbounded.short_answer == "4 TB"  # no bound asked: the nearest number
    # a limit asked: the number the sentence caps ("limiting … to"), not another it measures with
    varlena = chunk(
        "toast", "TOAST", "TOAST usurps two bits of the length word, thereby limiting the size of a value to 1 GB."
    )
    capped = ExtractiveGenerator().generate(AnswerRequest("What's the maximum size of a value?", [varlena], "answer"))
    assert capped.short_answer == "1 GB"


def test_a_best_sentence_denying_the_question_yields_to_one_as_well_supported():
    nextfile = chunk(
        "fileinput",
        "fileinput",
        "fileinput.nextfile() closes the current file so that the next iteration will read the first line from "
        "the next file; lines not read from the file will not count towards the cumulative line count.",
    )
    tutorial = chunk("io", "Input and Output", "f.readline() reads a single line from the file.")
    question = "How do I read a file line by line?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [nextfile, tutorial], "answer"))
    assert not answer.abstained and "f.readline() reads a single line" in answer.text


def test_a_sentence_says_what_its_superlatives_imply_and_not_its_cross_references():
    assert {"maximum", "length", "longest"} <= said_terms("The longest possible string is about 1 GB.")
    assert said_terms("The highest value") >= {"maximum"} and "minimum" in said_terms("the smallest size")
    assert "see" not in said_terms("PostgreSQL uses GEQO when the joins exceed a threshold (see geqo_threshold).")
    assert "see" not in said_terms("For more information, see Section 13.3 or see the ANALYZE documentation.")
    assert "see" in said_terms("They can see the query plan using EXPLAIN.")
    # a size without a limit says what "maximum" asks: there is none
    assert "maximum" in said_terms(
        "If character varying is used without length specifier, it accepts strings of any size."
    )
    assert "maximum" in said_terms("The number of indexes is unlimited.") and "maximum" not in said_terms(
        "any sizes fit"
    )
    # an exclusion says nothing of what it leaves out, nor does a cross-reference's "for full details"
    said = said_terms("Acquired by VACUUM (without FULL), ANALYZE (for full details see the documentation).")
    assert {"vacuum", "analyz", "acquir"} <= said and "full" not in said


TYPES = (
    "Long values are compressed by the system automatically. "
    "In any case, the longest possible character string that can be stored is about 1 GB."
)
PLANNER = (
    "To find a reasonable query plan in reasonable time, PostgreSQL uses a genetic query optimizer "
    "when the number of joins exceeds a threshold (see geqo_threshold)."
)


@pytest.mark.parametrize(
    "question, wrong, right, short",
    [
        ("What is the maximum length of a text value?",
         "The maximum identifier length is 63 bytes, so longer names are truncated.", TYPES, "1 GB"),
        ("How do I see the query plan?", PLANNER, "For example, they can see the query plan using EXPLAIN.", "EXPLAIN"),
    ],
)  # fmt: skip
def test_the_sentence_saying_what_is_asked_wins_over_one_sharing_its_words(question, wrong, right, short):
    request = AnswerRequest(
        question, [chunk("wrong", "Identifiers", wrong), chunk("right", "Data Types", right)], "answer"
    )
    assert ExtractiveGenerator().generate(request).short_answer == short


def test_closest_passages_repeat_no_sentence_another_shows():
    def candidate(sentence: str, context: str | None = None) -> Candidate:
        return Candidate(sentence, DONNIE, context, 0.5, {}, None, (), 0.5)

    first, its_next = "He is an American soccer player.", "He plays in Major League Soccer."
    ranked = [candidate(first), candidate(its_next, context=first), candidate(first), candidate("Other.")]
    assert [c.sentence for c in closest_passages(ranked)] == [first, "Other."]
    assert closest_passages(ranked, n=1) == ranked[:1] and closest_passages([]) == []


def test_a_term_line_starts_its_own_entry_and_takes_no_credit_from_the_one_before():
    settings = chunk(
        "mem",
        "Resource Consumption",
        "- alpha_mem (integer)\n- Sets the base memory of each sort. The default is four megabytes.\n"
        "- beta_factor (floating point)\n- Used to compute the memory of hash tables from alpha_mem.",
    )
    question = "How do I set alpha_mem?"
    ranked = rank_candidates(question, "command", [settings], focus_weights(question, {}), Tuning())
    credits = {c.sentence: c.credits for c in ranked}
    assert credits["beta_factor (floating point)"]["alpha_mem"] == 0.0  # was 1.0, from alpha_mem's term line
    assert credits["Sets the base memory of each sort."]["alpha_mem"] == 1.0  # under its own entry's term line


def test_one_property_of_two_names_is_answered_for_each_and_an_unanswered_one_is_said():
    replication = chunk(
        "rep", "20.6. Replication",
        "- wal_keep_size (integer)\n- If wal_keep_size is zero (the default), no extra segments are kept.\n"
        "- max_slot_wal_keep_size (integer)\n- If max_slot_wal_keep_size is -1 (the default), slots keep all WAL.\n"
        "- wal_sender_timeout (integer)\n- Terminate replication connections inactive longer than this.",
    )  # fmt: skip
    logging = chunk("log", "20.8. Logging", "- log_rotation_size (integer)\n- The default is 10 megabytes.")
    generator = ExtractiveGenerator()

    def ask(a: str, b: str) -> Answer:
        question = f"What are the default values of {a} and {b}?"
        subs = [f"What are the default values of {a}?", f"What are the default values of {b}?"]
        return generator.generate(AnswerRequest(question, [logging, replication], "answer", sub_questions=subs))

    both = ask("wal_keep_size", "max_slot_wal_keep_size")
    assert both.short_answer == "wal_keep_size: zero; max_slot_wal_keep_size: -1" and not both.abstained
    assert both.cited == [(1, "rep")] and both.text.count("[1]") == 2  # one chunk, one mark
    one = ask("log_rotation_size", "wal_sender_timeout")  # the timeout's entry states no default
    assert one.short_answer == "log_rotation_size: 10 megabytes" and one.cited == [(1, "log")]
    assert one.text.endswith(f"{NO_ANSWER} say it of wal_sender_timeout.")


def test_a_yes_or_no_about_a_default_compares_the_default_found():
    client = chunk(
        "cli", "20.11. Client Connection Defaults",
        "- default_transaction_isolation (enum)\n- This parameter controls the default isolation level of each new "
        "transaction. The default is “read committed”.",
    )  # fmt: skip
    generator = ExtractiveGenerator()
    question = "Is the default default_transaction_isolation level serializable?"
    no = generator.generate(AnswerRequest(question, [client], "answer"))
    assert no.short_answer == "No" and "The default is “read committed”." in no.text
    yes = generator.generate(
        AnswerRequest("Is the default default_transaction_isolation read committed?", [client], "answer")
    )
    assert yes.short_answer == "Yes"


def test_a_glossarys_cross_references_equate_terms_a_sentence_then_says_by_either():
    references = [
        ("Standby (server)", "Replica (server)"),  # the qualifier "(server)" is no part of the name
        ("WAL", "Write-ahead log"),
        ("Data area", "Data directory"),  # they share "data": nothing to equate
        ("Return Value", "SPI_execute"),  # code, no glossary name
    ]
    synonyms = equivalents(references)
    assert synonyms == {
        "standbi": (frozenset({"replica"}),),
        "replica": (frozenset({"standbi"}),),
        "wal": (frozenset({"write", "ahead", "log"}),),
    }
    assert "replica" in equated(said_terms("Create a file standby.signal in the standby's data directory."), synonyms)
    assert "wal" in equated(said_terms("The write-ahead log is flushed."), synonyms)
    assert "wal" not in equated(said_terms("The log is flushed."), synonyms)  # all of its equivalent, or nothing


def test_a_how_to_answered_by_a_program_run_with_an_option_gets_the_command_line():
    dump = chunk(
        "custom", "SQL Dump",
        "The following command dumps a database using the custom dump format: pg_dump -Fc dbname > filename "
        "See the pg_dump reference page for details.",
    )  # fmt: skip
    answer = ExtractiveGenerator().generate(
        AnswerRequest("How do I dump a database in the custom format?", [dump], "answer")
    )
    assert answer.short_answer == "pg_dump -Fc dbname > filename"  # the way, not the program alone; "See" is prose
    answer = ExtractiveGenerator().generate(AnswerRequest("Which program dumps a database?", [dump], "answer"))
    assert answer.short_answer == "pg_dump"  # a program asked for by name is its name


def test_a_count_of_what_the_answer_never_names_is_declined():
    port = chunk(
        "port", "postgres", "- -p port\n- Defaults to the value established during compilation (normally 5432)."
    )
    question = "How many client connections does Postgres allow by default?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [port], "answer"))
    assert answer.abstained and "client connections" in answer.text  # a port counts no connections
    workers = chunk("w", "Autovacuum", "- autovacuum_max_workers (integer)\n- The default is three autovacuum workers.")
    question = "How many autovacuum worker processes are there by default?"
    assert ExtractiveGenerator().generate(AnswerRequest(question, [workers], "answer")).short_answer.startswith("three")


def test_a_value_whose_sentence_never_says_the_questions_rarest_term_is_unsure():
    weights = {"varchar": 4.6, "length": 3.1, "maximum": 3.6}
    question = "What is the maximum length of a varchar?"
    said = chunk("v", "Types", "A varchar holds strings of a maximum length of 49 characters.")
    unsaid = chunk("c", "Host variables", "A string of a maximum length of 49 characters overflows the buffer.")
    named = ExtractiveGenerator().generate(AnswerRequest(question, [said], "answer", term_weights=weights))
    other = ExtractiveGenerator().generate(AnswerRequest(question, [unsaid], "answer", term_weights=weights))
    assert named.short_answer == other.short_answer == "49 characters"
    assert other.support < named.support * TUNING.unsaid_focus_support * 1.5  # halved for the C array's string


def test_the_entry_of_an_option_the_question_names_is_cited_with_an_answer_another_page_states():
    vacuumdb = chunk(
        "vacuumdb", "vacuumdb", "- -e\n- --echo\n- Echo the commands.\n- -f\n- --full\n- Perform “full” vacuuming.",
        matched_entry="Perform “full” vacuuming.", matched_names="-f --full", entry_named=True,
    )  # fmt: skip
    routine = chunk(
        "routine", "25.1. Routine Vacuuming",
        "VACUUM FULL requires an ACCESS EXCLUSIVE lock on the table it is working on.",
    )  # fmt: skip
    question = "What lock does vacuumdb -f take on the tables?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [vacuumdb, routine], "answer"))
    assert answer.short_answer == "ACCESS EXCLUSIVE" and answer.cited == [(1, "routine"), (2, "vacuumdb")]
    assert answer.text.endswith("-f --full: Perform “full” vacuuming. [2]")
    # an entry the question does not name as written is not put to its answer
    unnamed = {**vacuumdb, "entry_named": False}
    answer = ExtractiveGenerator().generate(
        AnswerRequest("What lock does a full vacuum take?", [unnamed, routine], "answer")
    )
    assert answer.cited == [(1, "routine")]


def test_the_rarest_terms_tied_all_count_whatever_their_order():
    grew = chunk(
        "g", "Southern California", "Southern California's rate grew less than the state average in the 2000s."
    )
    best = Candidate(grew["text"], grew, None, 0.5, {}, None, (), 0.5)
    request = AnswerRequest("How much did southern California grow in the year 2000?", [grew], "answer")
    tied = {"2000": 4.3, "grow": 4.3, "california": 3.7}  # "grew" says grow, "2000s" says no 2000
    assert _unsaid_focus(best, tied, request) and _unsaid_focus(best, dict(reversed(tied.items())), request)
    assert not _unsaid_focus(best, {"grow": 4.3, "california": 3.7}, request)


def test_a_how_tos_command_is_read_from_its_best_sentence_not_an_example_after_it():
    question = "How do I see the execution plan of a query along with actual run times?"  # long: "multi"
    idf = {"see": 1.5, "execut": 1.9, "plan": 2.8, "queri": 1.5, "along": 4.9, "actual": 2.5, "run": 2.1, "time": 1.8}
    explain = chunk(
        "explain",
        "EXPLAIN",
        "In order to measure the run-time cost of each node in the execution plan, the current implementation of "
        "EXPLAIN ANALYZE adds profiling overhead to query execution.",
    )
    example = chunk("schema", "DROP SCHEMA", "To remove a schema along with everything it contains: DROP SCHEMA s;")
    request = AnswerRequest(question, [explain, example], "answer", term_weights=idf)
    answer = ExtractiveGenerator().generate(request)
    assert answer.cited == [(1, "explain"), (2, "schema")]  # "along" is said only by the example
    assert answer.short_answer == "EXPLAIN ANALYZE", answer.text
