from __future__ import annotations

from deciders.contrast import contradicted, denied, negative_clause, unmentioned, unnegated
from deciders.negation import negated
from deciders.spans import spans


def test_a_word_swapped_for_its_opposite_between_the_same_neighbours_is_a_contradiction():
    assert contradicted("When the Rhine took a right turn what did it create?", "The Rhine took a left turn.") == [
        ("right", "a left turn")
    ]
    assert contradicted("Which islands comprise a larger number of electors?", "They hold a much smaller number.") == [
        ("larger", "a much smaller number")
    ]

    # another number in the same place
    ranked = "In 2012 the Economist ranked Warsaw as the 32nd most liveable city in the world."
    assert contradicted("When was Warsaw ranked as the 22nd most liveable city?", ranked) == [
        ("22nd", "ranked warsaw as the 32nd most liveable")
    ]
    assert contradicted("When was Warsaw ranked as the 32nd most liveable city?", ranked) == []
    # the word with a negating prefix added or dropped, anywhere in the sentence
    messiaen = "The French composer Olivier Messiaen used prime numbers to create ametrical music."
    assert contradicted("Which French composer wrote metrical music?", messiaen) == [("metrical", "ametrical")]
    encrypted = "Some broadcasts are encrypted and show ads."
    assert contradicted("What is seen in unencrypted broadcasts?", encrypted) == [("unencrypted", "encrypted")]
    assert contradicted("What is seen in encrypted broadcasts?", encrypted) == []


def test_the_same_meaning_spelled_otherwise_or_a_word_merely_missing_is_none():
    assert contradicted("Who was Genghis's 3rd son?", "Ogedei was Genghis' third son.") == []
    assert contradicted("What is the maximum number of columns?", "A table can have at most 1600 columns.") == []
    assert (
        contradicted("Which trade magazine covers design?", "ENR is a trade magazine for the construction industry.")
        == []
    )


def test_a_question_asking_with_a_negation_needs_a_sentence_saying_something_in_the_negative():
    focus = "Reflecting the economic nature of the project, the European Community originally focused upon workers."
    assert unnegated("What did the European Community not originally focus on?", focus) == "not"
    assert unnegated("What have many HT members failed to join?", "Many HT members have gone on to join groups.") == (
        "failed to"
    )
    assert unnegated("Who wasn't Al-Banna's assassination a retaliation for?", "It was a retaliation.") == "n't"
    assert unnegated("Which commands cannot run in a transaction block?", "VACUUM runs in a block.") == "cannot"
    # a statement setting the scene is not asked: "can't reach" is what happens, "Which address …?" the question
    scene = "Other hosts can't reach my server over TCP. Which address does it bind to by default?"
    assert unnegated(scene, "The default value is localhost.") == ""
    assert unnegated("Which commands cannot run in a transaction block?", "VACUUM cannot run in one.") == ""
    aid = "The US spent billions to aid the mujahideen, enemies of the Soviet Union."
    assert unnegated("Who did the US refuse aid to?", aid) == "refuse"  # a refusal is a negation
    assert unnegated("Who did the US refuse aid to?", "The US refused aid to Egypt.") == ""
    # forbidding is one too, in lower case: a title's "Forbidden Ground" asks nothing in the negative
    assert unnegated("What are hospital medications forbidden from being?", "They are unit-dose.") == "forbidden"
    assert unnegated("What is banned in Paris?", "Smoking is banned in Paris.") == ""
    assert unnegated("Who directed Forbidden Ground?", "Forbidden Ground is a film by Pál Gábor.") == ""
    # what a question leaves out of what it asks for is a restriction, not a negation
    schema = "Dump only the object definitions (schema), not data."
    assert unnegated("How do I dump only the schema, no data, with pg_dump?", "Dump the schema.") == ""
    assert unnegated("Which flag dumps just the table definitions and no rows?", schema) == ""
    assert unnegated("Why did only the king not attend?", "The king attended.") == "not"
    # a sentence in the negative or by contrast may answer it
    greeks = "Greeks did not consider 1 a number."
    assert unnegated("What number did early Greeks not regard as a number?", greeks) == ""
    assert unnegated("Which job does not require citizenship?", "Any job other than a member's.") == ""


def test_a_negation_counts_near_where_the_sentence_says_the_negated_word():
    principles = (
        "The principles of European Union law are rules which have been developed by the European Court of "
        "Justice that constitute unwritten rules which are not expressly provided for in the treaties."
    )
    assert unnegated("Which entity did not develop the principles of European Union law?", principles) == "not"
    # the word said nowhere: a cue anywhere may speak of it
    assert unnegated("Which entity did not create the principles?", principles) == ""
    # a question's first "When" asks for a time; it opens no condition
    war = "As there had already been a King George's War in the 1740s, colonists named the second war after it."
    assert unnegated("When wasn't King George's war?", war) == "n't"


def test_a_negation_in_a_condition_or_a_relative_clause_describes_the_situation_not_the_question():
    default = "port: The TCP port the server listens on; 5432 by default."
    assert unnegated("What port does Postgres listen on if I never touch the config?", default) == ""
    assert unnegated("If I never drop a temp table myself, when does it go away?", "At the end of a session.") == ""
    assert unnegated("Which lock is held by the index build that doesn't block writes?", "SHARE UPDATE EXCLUSIVE") == ""
    assert unnegated("When does it go away?", "At the end of a session.") == ""
    # a yes or no asked with "not" is answered by the sentence's polarity against it, not declined
    assert unnegated("Does VACUUM FULL not require an exclusive lock?", "VACUUM FULL requires a lock.") == ""


def test_a_sentence_saying_not_of_what_the_question_takes_as_given_denies_it():
    commission = "The issues were turned over to a commission to resolve, but it reached no decision."
    assert denied("When a commission reached a decision, what happened?", commission) == "reached no decision"
    squaring = "Thus squaring is not more difficult than multiplication, since it reduces to multiplication."
    assert denied("What is more difficult than multiplication?", squaring) == "not more difficult than multiplication"
    # the negation must split or precede two words the question puts side by side
    assert denied("When did the commission reach a decision?", "A decision was not reached by May.") == ""
    assert denied("Which exception is raised when a key is missing?", "KeyError: raised when a key is not found.") == ""
    # a yes/no question's premise is what it asks: the sentence's "not" answers it No
    assert denied("Does TRUNCATE fire ON DELETE triggers?", "TRUNCATE will not fire any ON DELETE triggers.") == ""
    # a question holding a negation or contrast of its own is left to unnegated()
    assert (
        denied("What does str.partition return if the separator is not found?", "If the separator is not found") == ""
    )


def test_names_and_years_of_the_question_that_the_answer_chunk_never_mentions():
    harvard = "Harvard Medical School is located on a 21-acre campus in Boston, founded 1782."
    assert unmentioned("How many schools of medicine were recognized in Japan in 1765?", harvard) == ["Japan", "1765"]
    assert unmentioned("How many acres does Harvard Medical School cover?", harvard) == []
    # stems and longer spellings count as named; the question's first word and "I" are not names
    assert unmentioned("What does Postgres build when I add a primary key?", "PostgreSQL creates a unique index.") == []
    assert unmentioned("Which church do Huguenots maintain?", "the Huguenot church") == []
    # accents and a misspelt letter in a longer name still name it
    jimena = "Jimena Benìtez, played by Isabel Macedo"
    assert unmentioned("Which telenovela starred Isabel Macedo as Jimena Benitez?", jimena) == []
    urban = "What does Phil Urban of Mitchells & Bustlers manage?"
    assert unmentioned(urban, "Phil Urban, CEO of Mitchells & Butlers") == []
    assert unmentioned(urban, "Phil Urban, CEO of Mitchells") == ["Bustlers"]
    # a missing word is reported as the name it belongs to
    guard = "How do I configure Oracle Data Guard?"
    assert unmentioned(guard, "Porting from Oracle PL/SQL: data types") == ["Oracle Data Guard"]


def test_a_question_asked_with_not_takes_its_answer_from_the_clause_in_the_negative():
    hashable = (
        "Most of Python's immutable built-in objects are hashable; mutable containers (such as lists or "
        "dictionaries) are not; immutable containers (such as tuples and frozensets) are only hashable if "
        "their elements are hashable."
    )  # the Python 3.11 glossary's "hashable"
    not_hashable = negative_clause("Which built-in objects are not hashable?", hashable)
    assert not_hashable == "mutable containers (such as lists or dictionaries) are not"
    assert negative_clause("Which built-in objects are hashable?", hashable) is None
    assert negative_clause("What did the Greeks not regard as a number?", "They did not count 1.") is None  # one clause


def test_a_question_asking_with_no_needs_a_negative_sentence():
    question = "Which council's investigation found no statistical failings?"
    assert unnegated(question, "The council's report agreed that there were some statistical failings.") == "no"
    assert unnegated(question, "The council found no statistical failings in the graph.") == ""


def test_a_denial_across_a_preposition_the_sentence_swaps():
    question = "What should fall under article 56 according to several governments?"
    sentence = "Several governments submitted that hospital services should not fall within article 56."
    assert denied(question, sentence) == "not fall within article"
    assert denied(question, "Several governments submitted that hospital services fall under article 56.") == ""


def test_a_swapped_word_between_stop_words_is_aligned_on_the_content_words_around():
    question = "What has sizes depending on how weak the push or pull is?"
    said = "Forces have sizes dependent upon how strong the push or pull is."
    assert contradicted(question, said) == [("weak", "dependent upon how strong the push")]
    assert contradicted(question, "Forces have sizes dependent upon how weak the push or pull is.") == []


def test_a_negation_cue_negates_what_follows_it_not_what_comes_before():
    predicate = frozenset({"chang", "redo", "crash", "log"})
    redone = "Any changes that have not been applied to the data pages can be redone from the log records."
    assert not negated(redone, predicate)  # "not" negates "applied", not the "changes" before it
    assert negated("After a crash the changes are not replayed from the log.", frozenset({"replay"}))
    assert not negated("Without a crash, the log is replayed.", frozenset({"replay"}))  # another clause


def test_an_auxiliarys_negation_closing_its_clause_negates_what_comes_before_it():
    concurrently = frozenset({"concurr"})
    said = "A regular CREATE INDEX can be performed within a transaction block, but CREATE INDEX CONCURRENTLY cannot."
    assert negated(said, concurrently)
    assert negated("VACUUM can run in a transaction block; VACUUM FULL does not.", frozenset({"full"}))
    assert not negated("Whether the table exists or not, it is dropped.", frozenset({"tabl", "exist"}))  # no auxiliary
    assert not negated("CREATE INDEX CONCURRENTLY cannot run in a block, but REINDEX can.", frozenset({"reindex"}))


def test_disabling_a_thing_says_there_is_none():
    assert negated("A value of zero (the default) disables the timeout.", frozenset({"timeout"}))
    # the question spells the setting as its name; the sentence says its last part
    said = "A value of zero (the default) disables the timeout."
    assert spans(said, "yes_no", "Is there a statement_timeout by default?") == ["No"]
