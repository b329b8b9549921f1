"""Yes/no questions (deciders/yes_no.py, contrast.negated): subjects, predicate, negation scope."""

from __future__ import annotations

from dataclasses import replace

from core.text import term_set
from core.tuning import TUNING
from deciders.generator import AnswerRequest, ExtractiveGenerator
from deciders.negation import negated
from deciders.spans import spans
from deciders.yes_no import check, subjects, unnamed


def chunk(cid: str, title: str, text: str) -> dict:
    return {"chunk_id": cid, "text": text, "source": "s", "title": title, "score": 1.0, "dense_rank": None,
            "lexical_rank": None}  # fmt: skip


SUTERA = chunk("s", "Sutera", "Sutera is a genus of flowering plants in the family Scrophulariaceae.")
RHODO = chunk("r", "Rhodotypos", "Rhodotypos scandens is a deciduous shrub in the family Rosaceae.")
KERRIA = chunk("k", "Kerria", "Kerria japonica is a deciduous shrub in the family Rosaceae.")
WEIGHTS = {"type": 1.0, "shrub": 2.0, "famili": 1.0}


def test_the_two_subjects_are_the_evidence_titles_or_names_either_side_of_and():
    assert subjects("Are Sutera and Rhodotypos both types of shrub?", [SUTERA, RHODO]) == ["Sutera", "Rhodotypos"]
    realm = chunk("h", "In the Realm of the Hackers", "")
    question = "Are Freakonomics and In the Realm of the Hackers both American documentaries?"
    assert subjects(question, [realm]) == ["Freakonomics", "In the Realm of the Hackers"]
    assert subjects("Is the Virgilia found in Africa? And is Koeleria found all over?", []) == []  # two questions
    assert subjects("What is the default of work_mem?", []) == []
    chatter = chunk("c", "Chatterbox (1936 film)", "")
    question = "Do both films Chatterbox (1936 Film) and Swept From The Sea have directors of the same nationality?"
    assert subjects(question, [chatter]) == ["Chatterbox", "Swept From The Sea"]  # "(1936 Film)" is no subject


def test_both_is_yes_only_when_each_subject_holds_the_predicate():
    no = check("Are Sutera and Rhodotypos both types of shrub?", [SUTERA, RHODO], WEIGHTS, 0.5)
    assert no.winner == "No" and [v[0] for v in no.values] == ["Sutera", "Rhodotypos"]
    assert check("Are Kerria and Rhodotypos both types of shrub?", [KERRIA, RHODO], WEIGHTS, 0.5).winner == "Yes"
    assert check("Are Kerria and Rhodotypos both types of shrub?", [KERRIA], WEIGHTS, 0.5) is None  # no evidence


def test_same_compares_the_names_next_to_the_noun():
    assert check("Are Kerria and Rhodotypos in the same family?", [KERRIA, RHODO], WEIGHTS, 0.5).winner == "Yes"
    assert check("Are Sutera and Rhodotypos in the same family?", [SUTERA, RHODO], WEIGHTS, 0.5).winner == "No"


def test_the_same_country_compares_the_nationality_each_subject_is_given():
    patience = chunk("p", "Patience Lake", "Patience Lake is a lake in central Saskatchewan, Canada east of Saskatoon.")
    eastern = chunk("e", "Eastern Lake", "The Eastern Lake is a lake crossing the Canada–US border.")
    hilbert = chunk("h", "Andy Hilbert", "Andrew John Hilbert is an American former ice hockey forward.")
    bauer = chunk("b", "Barbara Bauer", "Barbara Bauer lives in the United States.She was born in Germany.")
    w = {"countri": 1.0, "locat": 1.0}
    same = check("Are both Patience Lake and Eastern Lake located in the same country?", [patience, eastern], w, 0.5)
    assert same.winner == "Yes" and all("Canada" in v[2] for v in same.values)
    assert check("Are Andy Hilbert and Barbara Bauer from the same country?", [hilbert, bauer], w, 0.5).winner == "Yes"
    assert check("Are Andy Hilbert and Patience Lake in the same country?", [hilbert, patience], w, 0.5).winner == "No"
    qualified = "Are Andy Hilbert (1981 Player) and Patience Lake in the same country?"  # the year is no count
    assert check(qualified, [hilbert, patience], {**w, "1981": 3.0, "player": 2.0}, 0.5).winner == "No"


def test_both_of_a_nationality_is_no_for_a_subject_given_another():
    freak = chunk("f", "Freakonomics", "Freakonomics: The Movie is a 2010 American documentary film.")
    realm = chunk("r", "In the Realm of the Hackers", "In the Realm of the Hackers is a 2003 Australian documentary.")
    weights = {"american": 2.0, "documentari": 2.0}
    question = "Are Freakonomics and In the Realm of the Hackers both American documentaries?"
    verdict = check(question, [freak, realm], weights, 0.5)
    assert verdict.winner == "No" and [v[1] for v in verdict.values] == [1.0, 0.0]
    both = chunk("r", "In the Realm of the Hackers", "In the Realm of the Hackers is a 2003 American documentary.")
    assert check(question, [freak, both], weights, 0.5).winner == "Yes"


def test_a_negation_counts_only_near_the_predicate():
    safe = term_set("Is libpq thread-safe?")
    assert negated("libpq is not thread-safe.", safe)
    assert not negated("Returns 1 if the libpq is thread-safe and 0 if it is not.", safe)
    assert not negated("It is a shrub, not a tree.", term_set("shrub"))
    assert spans("libpq is reentrant and thread-safe by default.", "yes_no", "Is libpq thread-safe?") == ["Yes"]
    assert spans("It does not return NULL.", "yes_no") == ["No"]  # no question: any negation


def test_the_generator_answers_both_with_each_subjects_sentence():
    answer = ExtractiveGenerator().generate(
        AnswerRequest("Are Sutera and Rhodotypos both types of shrub?", [SUTERA, RHODO], "answer")
    )
    assert answer.short_answer == "No" and not answer.abstained
    assert answer.cited == [(1, "s"), (2, "r")] and "Scrophulariaceae" in answer.text and "shrub" in answer.text


def test_a_yes_or_no_about_code_needs_a_sentence_naming_it():
    weights = {"postgresql": 1.4, "support": 1.9, "connect": 2.1, "mysql": 8.5, "enum": 4.1, "auto_incr": 8.5}
    assert unnamed("Does PostgreSQL support CONNECT BY?", "Connections are supported.", weights) == ["CONNECT BY"]
    question = "Does PostgreSQL support the MySQL ENUM syntax with AUTO_INCREMENT?"
    assert unnamed(question, "Enum types are created with CREATE TYPE.", weights) == ["MySQL", "AUTO_INCREMENT"]
    assert unnamed("Is libpq thread-safe?", "anything", weights) == []  # no code name to hold
    ssl = chunk("ssl", "18.9. Secure TCP/IP Connections with SSL", "PostgreSQL supports encrypted connections.")
    answer = ExtractiveGenerator().generate(
        AnswerRequest("Does PostgreSQL support CONNECT BY?", [ssl], "answer", term_weights=weights)
    )
    assert answer.abstained and answer.short_answer is None and "CONNECT BY" in answer.text


def test_a_name_mentioned_only_in_passing_must_be_in_the_answer_chunk():
    port = chunk("p", "postgres", "The server listens on port 5432 by default.")
    question = "What is MySQL's default port?"
    passing = chunk("x", "Migration", "Tools exist to convert a MySQL schema.")
    weights = {"mysql": 2.5, "default": 1.2, "port": 3.0}  # no name most chunks hold (idf < 2)
    request = AnswerRequest(question, [port, passing], "answer", term_weights=weights)
    assert ExtractiveGenerator().generate(request).short_answer == "5432"  # MySQL in many chunks: not checked
    rare = ExtractiveGenerator().generate(replace(request, rare_names=["MySQL"]))
    assert rare.abstained and "MySQL" in rare.text  # MySQL is in 1 chunk, not this one
    unnamed = ExtractiveGenerator().generate(replace(request, evidence=[port]))
    assert unnamed.abstained and "says it of MySQL)" in unnamed.text  # no evidence names MySQL at all
    held = chunk("m", "Migrating", "MySQL listens on port 3306 by default.")
    assert (
        ExtractiveGenerator().generate(replace(request, evidence=[held], rare_names=["MySQL"])).short_answer == "3306"
    )


def test_a_yes_or_no_about_code_is_answered_from_the_best_sentence_that_names_it():
    weights = {"vacuum": 3.5, "full": 3.3, "lock": 2.4, "tabl": 0.9, "exclus": 3.8}
    plain = chunk("p", "VACUUM", "Plain VACUUM takes no exclusive lock on the table, unlike the FULL form.")
    full = chunk("f", "Routine Vacuuming", "VACUUM FULL requires an ACCESS EXCLUSIVE lock on the table.")
    answer = ExtractiveGenerator().generate(
        AnswerRequest("Does VACUUM FULL lock the table exclusively?", [plain, full], "answer", term_weights=weights)
    )
    assert answer.short_answer == "Yes" and answer.cited == [(1, "f")]  # not "no passage says it of VACUUM FULL"


def test_an_unmentioned_predicate_is_no_no_for_a_subject_without_its_own_entry():
    vacuum = chunk("v", "Routine Vacuuming", "VACUUM FULL rewrites the table and blocks other operations.")
    locks = chunk("l", "Explicit Locking", "Acquired by CLUSTER and VACUUM FULL.")
    weights = {"vacuum": 3.5, "full": 3.3, "cluster": 4.0, "block": 2.9, "oper": 2.0}
    question = "Are VACUUM FULL and CLUSTER both blocking operations?"
    assert check(question, [vacuum, locks], weights, 0.5) is None  # CLUSTER has no entry of its own
    cluster = chunk("c", "CLUSTER", "CLUSTER reorders a table on disk.")
    assert check(question, [vacuum, locks, cluster], weights, 0.5).winner == "No"


def test_a_yes_or_no_asked_with_not_is_answered_by_the_sentences_polarity_against_the_questions():
    question = "Can a foreign key reference columns that are not unique?"
    must = "A foreign key must reference columns that either are a primary key or form a unique constraint."
    assert spans(must, "yes_no", question) == ["No"]  # the question says "not", the sentence does not
    assert spans("A foreign key may reference columns that are not unique.", "yes_no", question) == ["Yes"]
    varchar = "If I declare a column as varchar without giving a number, is there a maximum length?"
    assert spans("The maximum length is 10485760.", "yes_no", varchar) == ["Yes"]  # "without" is the clause's
    truncate = ExtractiveGenerator().generate(
        AnswerRequest(
            "Does TRUNCATE fire ON DELETE triggers?",
            [chunk("t", "TRUNCATE", "TRUNCATE will not fire any ON DELETE triggers that might exist for the tables.")],
            "answer",
        )
    )
    assert truncate.short_answer == "No" and not truncate.abstained  # was declined: "the passage says 'not fire'"
    assert truncate.support <= TUNING.untyped_support  # a yes or no read from negation cues alone: less sure


def test_a_command_named_only_as_the_start_of_a_longer_one_is_another_command():
    from deciders.yes_no import longer_command

    access_exclusive = "Acquired by the DROP TABLE, TRUNCATE, CLUSTER, VACUUM FULL, and REFRESH commands."
    assert longer_command("What lock does a plain VACUUM take?", access_exclusive)
    assert not longer_command("Which lock mode does VACUUM FULL acquire?", access_exclusive)
    assert not longer_command("What lock does a plain VACUUM take?", "Acquired by VACUUM (without FULL), ANALYZE.")
    assert longer_command("What lock does CREATE INDEX take?", "Acquired by CREATE INDEX CONCURRENTLY, ANALYZE.")


def test_a_lock_is_the_one_a_sentence_says_the_command_takes_not_one_that_blocks_it_or_a_longer_commands():
    weights = {"select": 1.5, "vacuum": 3.5, "full": 3.3, "analyz": 3.0}
    blocks = chunk("a", "Explicit Locking", "Only an ACCESS EXCLUSIVE lock blocks a SELECT statement.")
    takes = chunk("b", "Explicit Locking", "The SELECT command acquires an ACCESS SHARE lock on referenced tables.")
    request = AnswerRequest("What lock does an ordinary SELECT take?", [blocks, takes], "answer", term_weights=weights)
    assert ExtractiveGenerator().generate(request).short_answer == "ACCESS SHARE"
    # "This form" is VACUUM FULL, named by the sentence before it; a plain VACUUM's lock is said of VACUUM itself
    full = chunk("v", "VACUUM", "VACUUM FULL rewrites the table. This form requires an ACCESS EXCLUSIVE lock on it.")
    plain = chunk("s", "Explicit Locking", "VACUUM (without FULL) and ANALYZE take a SHARE UPDATE EXCLUSIVE lock.")
    question = "What lock does a plain VACUUM take?"
    answer = ExtractiveGenerator().generate(AnswerRequest(question, [full, plain], "answer", term_weights=weights))
    assert answer.short_answer == "SHARE UPDATE EXCLUSIVE", answer.text
