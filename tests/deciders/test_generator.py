"""Generators (deciders/generator.py): extractive answers with citations, the LLM answer and its fallback."""

from __future__ import annotations

import json

import pytest
from conftest import answer_reply, scripted
from langchain_core.messages import HumanMessage

from core.tuning import Tuning
from deciders.generator import NO_ANSWER, AnswerRequest, ExtractiveGenerator, completing
from deciders.lexicon import MODEL_FREE
from deciders.llm_generator import LLMGenerator
from deciders.passages import answer_sentences, citation_marks
from deciders.reader import FEATURES, MODEL_FILE, Candidate, ReaderModel
from providers.embeddings import load_embedding_model

QUESTION = "Which league does Donnie Smith play in?"
DECLINING = ReaderModel(tuple(0.0 for _ in FEATURES), 0.0, (), (), 1.01, 1.01)
"""A reader that declines every whole question (the fixture of the by-part answers)."""


@pytest.fixture(autouse=True)
def answering_reader(tmp_path_factory, monkeypatch):
    """The shipped reader, declining nothing: these tests are of which sentence and span answer, not
    of the fitted decline level (refitting moves it; :mod:`tests.test_train_reader` checks the fit)."""
    path = tmp_path_factory.getbasetemp() / "reader_answering.json"
    if not path.exists():
        path.write_text(json.dumps({**json.loads(MODEL_FILE.read_text()), "decline_below": 0.0}))
    monkeypatch.setenv("AGENTIC_RAG_READER_MODEL", str(path))


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


PG_WORK_MEM = chunk(
    "work_mem", "20.4. Resource Consumption",
    "work_mem (integer)\n\nSets the base maximum amount of memory to be used by a query operation. "
    "The default value is four megabytes (4MB).\n\nhash_mem_multiplier (floating point)\n\n"
    "Used to compute the maximum amount of memory that hash-based operations can use. "
    "The default value is 2.0.",
)  # fmt: skip


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


def test_a_question_term_the_answer_leaves_unsaid_is_cited_from_another_page():
    def said(c, sentence):
        return Candidate(sentence, c, None, (), 0.0, 0.0)

    answer = said(DONNIE, "He plays in Major League Soccer.")
    club = said(REVS, "Donnie Smith joined them in 2014.")
    same_page = said(DONNIE, "He is an American soccer player.")
    question = "Which league does the player who joined the Revolution play in?"
    weights = {"leagu": 2.0, "player": 1.0, "join": 1.5, "revolut": 3.0, "play": 1.0}
    assert completing(question, [answer], [answer, same_page, club], weights) == [club]  # "revolution"
    assert completing("Which league does Donnie Smith play in?", [answer], [answer, club], {}) == []  # all said
    common = {**weights, "revolut": 0.5, "join": 0.5}  # only words too common to be what is asked through
    assert completing(question, [answer], [answer, same_page, club], common) == []


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


def test_sub_questions_are_answered_part_by_part_or_said_unanswered():
    subs = ["Which league does Donnie Smith play in?", "When was Oasis formed?"]
    answer = ExtractiveGenerator(reader=DECLINING).generate(
        AnswerRequest("both", [DONNIE, REVS], "answer", sub_questions=subs)
    )
    assert answer.abstained  # not answered as a whole: what each part's best sentence says
    assert answer.text.splitlines() == [
        f"{NO_ANSWER} contain a clear answer to the whole question. By part:",
        "(1) Which league does Donnie Smith play in? He plays in Major League Soccer. [1]",
        f"(2) When was Oasis formed? {NO_ANSWER} answer this part.",
    ]
    assert answer.cited == [(1, "donnie")]
    strict = ExtractiveGenerator(Tuning(part_coverage=1.01), reader=DECLINING).generate(
        AnswerRequest("both", [DONNIE], "answer", sub_questions=subs)
    )
    assert strict.cited == [] and strict.text.count(NO_ANSWER) == 3  # the whole and both parts


def test_a_part_is_answered_only_by_evidence_about_its_own_subject():
    subs = ["Are Donnie Smith soccer players?", "Are Radiohead soccer players?"]
    answer = ExtractiveGenerator(reader=DECLINING).generate(
        AnswerRequest("both", [DONNIE], "answer", sub_questions=subs)
    )
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


TYPES = (
    "Long values are compressed by the system automatically. "
    "In any case, the longest possible character string that can be stored is about 1 GB."
)
PLANNER = (
    "To find a reasonable query plan in reasonable time, PostgreSQL uses a genetic query optimizer "
    "when the number of joins exceeds a threshold (see geqo_threshold)."
)


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


def test_a_choice_is_answered_with_the_option_its_best_evidence_names():
    duck = chunk("duck", "The Million Dollar Duck", "The Million Dollar Duck is a 1971 American comedy film.")
    quixote = chunk("quixote", "Don Quixote", "Don Quixote is a Spanish novel by Miguel de Cervantes.")
    generator = ExtractiveGenerator()
    for question in ("Which is a comedy film, The Million Dollar Duck or Don Quixote?",
                     "Is The Million Dollar Duck or Don Quixote a comedy film?"):  # fmt: skip
        answer = generator.generate(AnswerRequest(question, [quixote, duck], "answer"))
        assert answer.short_answer == "Million Dollar Duck", question


def test_a_comparison_reads_each_options_value_from_its_own_page_first():
    album = chunk(
        "album", "Third Eye Blind (album)", "Third Eye Blind is the debut album by Third Eye Blind, released in 1997."
    )
    band = chunk("band", "Third Eye Blind", "Third Eye Blind is an American rock band formed in 1993.")
    puppies = chunk("puppies", "Sick Puppies", "Sick Puppies is an Australian rock band formed in 1997.")
    question = "Which band was formed first, Sick Puppies or Third Eye Blind?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [album, puppies, band], "answer"))
    assert answer.short_answer == "Third Eye Blind"
    assert {cid for _, cid in answer.cited} == {"puppies", "band"}


def test_both_is_answered_no_when_one_page_says_what_the_other_does_not():
    walsh = chunk("walsh", "Joe Walsh", "Joe Walsh is an American rock guitarist and songwriter.")
    bennington = chunk("chester", "Chester Bennington", "Chester Bennington was an American singer and songwriter.")
    generator = ExtractiveGenerator()
    no = generator.generate(
        AnswerRequest("Are Joe Walsh and Chester Bennington both guitarists?", [walsh, bennington], "answer")
    )
    yes = generator.generate(
        AnswerRequest("Are Joe Walsh and Chester Bennington both songwriters?", [walsh, bennington], "answer")
    )
    assert (no.short_answer, yes.short_answer) == ("No", "Yes")


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


def test_a_chunk_a_graph_hop_reached_is_cited_with_the_passage_that_led_to_it():
    film = chunk("film", "Miracle on 34th Street", "Susan Walker is played by Natalie Wood in the 1947 film.")
    actress = chunk(
        "wood", "Natalie Wood", "Natalie Wood was married to Robert Wagner.", linked_from="film", via="Natalie Wood"
    )
    question = "Who was married to the actress that played Susan Walker?"  # one relation: "single"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [actress, film], "answer"))
    assert {cid for _, cid in answer.cited} == {"wood", "film"}
    assert "Natalie Wood was married to Robert Wagner." in answer.text


def test_a_question_about_two_named_things_cites_both_their_pages():
    photographer = chunk("rm", "Robert McFarlane (photographer)", "Robert McFarlane is an Australian photographer.")
    cricketer = chunk("rc", "Robert McFarlane (cricketer)", "Robert McFarlane is an Australian cricketer.")
    curtin = chunk("pc", "Paul Curtin", "Paul Curtin was an Irish footballer who played for Cork.")
    question = "Are Paul Curtin and Robert Mcfarlane (Photographer) of the same nationality?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [cricketer, photographer, curtin], "answer"))
    assert {"pc", "rm"} <= {cid for _, cid in answer.cited}
