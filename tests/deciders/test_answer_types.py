"""Answer types (deciders/answer_types.py) and spans (deciders/spans.py): what a question asks for, and the spans of a
sentence that are one — on hand-made sentences."""

from __future__ import annotations

import pytest

from deciders.answer_types import default_check, default_measure, expected_type, self_contained_question
from deciders.headline import noun_phrase
from deciders.lexicon import spaced_names
from deciders.spans import spans


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What's the default value of work_mem?", "default"),
        ("How many autovacuum workers run at the same time by default?", "default"),
        ("How much memory may a sort use?", "quantity"),
        ("How long does a session wait on a lock?", "quantity"),
        ("How many columns can a table have?", "number"),
        ("In what year was the band formed?", "date"),
        ("In what month and year was the manual revised?", "date"),
        ("When was Neil Peart born?", "date"),
        ("What is the date of birth of the director of film Blind Shaft?", "date"),
        ("What is the birthday of the man who played Lex Luthor?", "date"),
        ("The Senate trial began on which date?", "date"),
        ("What is the place of birth of the director of film Blind Shaft?", "place"),
        ('"Ew!" is a song by a television host born where?', "place"),
        ("Who founded the company?", "person"),
        ("Who is Donnie Smith?", "definition"),
        ("What does VACUUM FULL do?", "definition"),
        ("What is the difference between break and continue?", "definition"),
        ("What is MVCC?", "definition"),
        ("Where does ALTER SYSTEM save the value?", "place"),
        ("Which team did he play for?", "organisation"),
        ("In psql, how do I list the tables?", "command"),
        ("What does lock_timeout do?", "definition"),  # what it is, though its name is a duration's
        ("What does the wal_level setting control?", "definition"),
        ("What does CONCURRENTLY do in CREATE INDEX?", "definition"),  # what the option does, where
        ("What happens if a session stays idle longer than idle_session_timeout?", "definition"),  # no duration
        ("Which function ends a backend's session?", "command"),
        ("Which psql command lists all databases?", "command"),  # a word between "which" and "command"
        ("In psql, what's the backslash command to list databases?", "command"),  # a word before "command"
        ("Which server setting controls the port?", "command"),
        ("psql command to show the columns of a table", "command"),  # a query typed as a search
        ("function that splits a string into an array", "command"),
        ("Which statement renames a table?", "command"),
        ("Does concat() return NULL when an argument is NULL?", "yes_no"),
        ("After a crash, does PostgreSQL replay the WAL?", "yes_no"),  # a clause before the question
        ("Is the server or the client older?", "other"),  # a choice, not a yes/no
        ("What does a bare char column hold?", "other"),
        ("What is the default of work_mem?", "default"),
        ("What is William Rankine's nationality?", "nationality"),
        ("Which country the director of film The White Countess is from?", "nationality"),
        ("Are Paul Curtin and Robert Mcfarlane of the same nationality?", "yes_no"),
        ("Which lock mode does VACUUM FULL acquire?", "other"),  # a which-noun: no type of its own
        ("How do I lock a table?", "command"),
        ("Does VACUUM take a lock?", "yes_no"),
        ("Which types of lock exist?", "other"),  # several: no one mode
        ("Which locks conflict with ROW SHARE?", "other"),
        ("May a name hold underscores after its first letter?", "yes_no"),  # any auxiliary opens one
        # the question after statements setting its scene, not the statements, names the type
        ("I locked an account with passwd -l. Does that also keep out SSH keys?", "yes_no"),
        ("Our NIC was renamed after the upgrade. Will the old name come back?", "yes_no"),
        ("We watch it with Grafana. Where do we start? What is the default of work_mem?", "default"),  # the last
        ("Does a timestamptz keep its zone? How is it stored?", "yes_no"),  # the last names no type: the whole text
        ("Can I run VACUUM FULL inside a BEGIN ... COMMIT block?", "yes_no"),  # cut at "...": the whole text
    ],
)
def test_expected_type_from_the_question_wording(question, kind):
    assert expected_type(question) == kind


def test_default_value_after_default_is_or_before_by_default():
    assert spans("The default value is four megabytes (4MB).", "default") == ["four megabytes (4MB)"]
    assert spans("The TCP port the server listens on; 5432 by default.", "default") == ["5432"]
    assert spans("B-trees use a default fillfactor of 90, but any value can be selected.", "default") == ["90"]
    assert spans("This parameter defaults to on.", "default") == ["on"]
    example = "It leaves the maxsize at its default value of 128: @lru_cache def count_vowels(s): return sum(s)"
    assert spans(example, "default") == ["128"]  # an example after a colon is not the value
    assert spans("If not given, a default reasonable value is chosen.", "default") == []  # no value stated
    assert spans("Sets the port number.", "default") == []  # no stated default: no span
    # a value marked "(the default)", as the PostgreSQL manual does 79 times
    empty = "The computer name is used if this parameter is set to the empty string '' (which is the default)."
    assert spans(empty, "default") == ["the empty string"]
    assert spans("Possible values are none (the default), ddl, mod and all.", "default") == ["none"]
    assert spans("The default is WARNING.", "default") == ["WARNING"]  # an enum's value, not a "Warning" label


def test_a_bound_on_a_measure_without_a_unit_is_a_bare_number():
    question = "What is the maximum precision I can declare for a numeric column?"
    declared = "The maximum precision that can be explicitly specified in a numeric type declaration is 1000."
    assert spans(declared, "quantity", question) == ["1000"]
    assert spans(declared, "quantity", "What is the maximum size of a numeric?") == []  # a size needs a unit
    assert spans("The default, and safe, setting is on.", "default") == ["on"]  # asides between commas
    # a list opening on a quoted item is the value, quotes kept; otherwise a comma ends it
    listed = 'search_path (string): The default value for this parameter is "$user", public.'
    assert spans(listed, "default") == ['"$user", public']
    assert spans("The default is 'md5', but you can choose another.", "default") == ["md5"]
    # a default stated relative to another is no value ("when the default is the opposite, issue SET LOCAL …")
    assert spans("To commit asynchronously when the default is the opposite, issue SET LOCAL.", "default") == []


def test_a_default_said_with_what_it_is_the_default_of():
    # "the default <what> of <thing> is <value>", the thing a few words or a call
    assert spans("The default value of work_mem is 4MB.", "default") == ["4MB"]
    assert spans("The default port of the server is 5432.", "default", "What is the default port?") == ["5432"]
    opened = "The default encoding of TextIOWrapper and open() is locale-specific (locale.getencoding())."
    assert spans(opened, "default", "What is the default encoding of open()?") == [
        "locale-specific (locale.getencoding())"
    ]
    # a dot inside a file or dotted name does not end the value; one ending the sentence does
    assert spans("The default is postgresql.conf.", "default") == ["postgresql.conf"]
    # still no value when what it is the default of is another thing than asked
    assert spans("The default file mode is 'r'.", "default", "What is the default encoding of open()?") == []
    assert spans("The default file mode of open() is 'r'.", "default", "What is the default encoding of open()?") == []


def test_a_judgment_asked_is_answered_yes_or_no_only_by_a_sentence_making_it():
    question = "Is MySQL better than PostgreSQL?"
    assert (
        spans("The clauses LIMIT and OFFSET are PostgreSQL-specific syntax, also used by MySQL.", "yes_no", question)
        == []
    )
    assert spans("Text is often a better choice.", "yes_no", question) == []  # better, but not of what is compared
    text = "Is text better than varchar?"
    assert spans("We use varchar, but text is often a better choice.", "yes_no", text) == ["Yes"]


def test_a_yes_no_question_taking_a_term_from_each_side_of_a_contrast_is_answered_no():
    contrast = "Quoting an identifier makes it case-sensitive, whereas unquoted names are always folded to lower case."
    assert spans(contrast, "yes_no", "Are unquoted identifiers case sensitive?") == ["No"]
    assert spans(contrast, "yes_no", "Are quoted identifiers case sensitive?") == ["Yes"]  # one side only


def test_one_as_a_pronoun_or_in_an_idiom_is_no_number():
    sentence = "More than one postgres instance can run at one time, one of them on port 5432; at least one must."
    assert spans(sentence, "number", "What port does Postgres use?") == ["5432"]
    assert spans("The cluster has one server.", "number", "What number of servers?") == ["one"]


def test_a_count_asked_for_is_not_a_measure():
    question = "What is the maximum number of columns a table can have?"
    assert expected_type(question) == "number"  # not a quantity: "maximum" counts here
    note = "The maximum number of columns is further reduced as the tuple must fit in a single 8192-byte page."
    assert spans(note, "number", question) == []  # bytes are no count of columns
    assert spans("A table can have at most 1,600 columns.", "number", question) == ["1,600"]
    assert spans("It ran for 10 years.", "number", "How many years did it run?") == ["10"]


def test_a_range_is_the_span_not_its_first_end():
    columns = "How many columns can a table have?"
    assert spans("Depending on the column types, it is between 250 and 1600.", "number", columns) == [
        "between 250 and 1600"
    ]
    assert spans("Use 8–16 kB pages.", "quantity", "How big is a page?") == ["8–16 kB"]
    assert spans("Ports 5432 and 6543 are open.", "number", "Which port?") == ["5432", "6543"]  # two numbers


def test_a_signature_gives_the_default_of_the_parameter_the_question_names():
    signature = "lru_cache(maxsize=128, typed=False) Least-recently-used cache decorator."
    assert spans(signature, "default", "What is the default maxsize of functools.lru_cache?") == ["128"]
    assert spans(signature, "default", "Does lru_cache default to typed?") == ["False"]
    assert spans(signature, "default", "What is the default size of the cache?") == []  # no parameter named
    passed = "If your API passes encoding=None as a parameter, use text_encoding()."
    assert spans(passed, "default", "What is the default encoding?") == []  # an argument given in prose
    example = ">>> print(json.dumps({'4': 5}, sort_keys=True, indent=4))"
    assert spans(example, "default", "What is the default indent of json.dumps?") == []  # a call, not a default
    hook = "json.JSONEncoder(default=encode_complex)"
    assert spans(hook, "default", "What is the default indent of json.dumps?") == []  # "default" names no parameter
    printing = "print(*objects, sep=' ', end='\\n', file=None, flush=False)"
    assert spans(printing, "default", "What is the default sep of print?") == ["' '"]  # a blank, quoted as written
    described = "sorted(iterable, *, key=None, reverse=False): The default value is None (compare the elements)."
    assert spans(described, "default", "What does sorted's reverse default to?")[0] == "False"  # the one asked, first
    assert spans("The default is 8 because pages are small.", "default", "What is the default?") == ["8"]


def test_a_default_asked_as_a_measure_must_be_one():
    """'0.9' is checkpoint_completion_target's default, not the time between checkpoints; 'on'
    is no number of bytes (pgdocs pg-010, pg-023)."""
    question = "If write volume is low, how much time passes between automatic checkpoints by default?"
    assert default_measure(question) == "quantity"
    assert spans("With the default value of 0.9, checkpoints spread out.", "default", question) == []
    assert spans("The default is five minutes (5min).", "default", question) == ["five minutes (5min)"]
    question = "How many bytes of query text are kept per session by default?"
    assert default_measure(question) == "number"
    assert spans("This parameter is on by default.", "default", question) == []
    assert spans("The default value is 1024 bytes.", "default", question) == ["1024 bytes"]
    question = "What's the out-of-the-box setting for how much information gets written to the WAL?"
    assert default_measure(question) is None  # a setting, any value
    assert spans("The default value is replica, which writes enough data.", "default", question) == ["replica"]
    question = "What kind of index do I get by default with CREATE INDEX?"  # a name: no size, no truth value
    assert default_measure(question) == "name"
    assert spans("It has the default signature length of 28 bytes.", "default", question) == []
    assert spans("If false (the default), only superusers can clone it.", "default", question) == []
    assert spans("The default method is btree.", "default", question) == ["btree"]


def test_a_default_said_of_another_thing_is_not_the_one_asked():
    encoding = "What's the default encoding of open()?"
    assert spans("The default file mode is 'r', meaning to open the file in read mode.", "default", encoding) == []
    assert spans("The default encoding is platform dependent.", "default", encoding) == ["platform dependent"]
    connections = "How many client connections (max_connections) does PostgreSQL allow by default?"
    assert spans("The default queue length limit is 128 on many platforms.", "default", connections) == []


def test_a_duration_asked_for_must_have_a_unit_of_time():
    """'16 megabytes' and '90%' are quantities, not the time between checkpoints."""
    question = "If write volume is low, how much time passes between automatic checkpoints?"
    assert spans("The default size is 16 megabytes, at around 90% of it.", "quantity", question) == []
    assert spans("The default is five minutes (5min).", "quantity", question) == ["five minutes", "5min"]
    assert spans("The default is 16 megabytes.", "default", question + " by default") == []
    assert spans("It waits one second (1s).", "quantity", "How long does a session wait on a lock?")[0] == "one second"
    assert spans("At most 63 bytes.", "quantity", "How long can an identifier be?") == ["63 bytes"]  # a length


def test_a_size_asked_for_must_have_a_unit_of_size_and_may_repeat_the_questions_unit():
    question = "How many bytes does an integer take?"
    row = "| integer | 4 bytes | typical choice for integer | -2147483648 to +2147483647 |"
    assert spans(row, "quantity", question) == ["4 bytes"]  # "bytes" is the question's, the 4 is not
    assert spans("It waits 1 day or 12 bytes.", "quantity", question) == ["12 bytes"]
    assert spans("Use 4 bytes.", "quantity", "Is 4 bytes enough for how many bytes it takes?") == []


def test_quantities_numbers_and_dates():
    assert spans("It takes 4 bytes on disk, and a uuid is 128 bits.", "quantity") == ["4 bytes", "128 bits"]
    assert spans("The limit is 1600 columns.", "number") == ["1600"]
    assert spans("There are three of them.", "number") == ["three"]
    assert spans("He was born on July 4, 1976 in Toronto.", "date") == ["July 4, 1976"]
    assert spans("Dates run up to 5874897 AD.", "date") == ["5874897 AD"]
    month = "In what month did the plague reach England?"  # a year is no month
    assert spans("It reached England in 1350, in June 1350 the south.", "date", month) == ["June 1350"]
    # a value given as an example is none, there or repeated later; nor is a shell redirection's 2>&1
    example = "To start postgres on a specific port, e.g., 1234: $ nohup postgres -p 1234 >logfile 2>&1 &"
    assert spans(example, "number", "What port does Postgres use?") == []
    assert spans("It takes, for example, 8 kB, but 16 kB is more.", "quantity") == ["16 kB"]


def test_a_possessor_is_not_who_is_asked_about():
    bohemond = "In 1107 the Normans under the command of Bohemond, Robert's son, landed in Valona."
    assert "Robert's" not in spans(bohemond, "person", "Who was Bohemond's son?")


def test_commands_names_and_yes_no():
    assert spans("Use \\dt to list tables or pg_cancel_backend() to cancel a query.", "command") == [
        "\\dt",
        "pg_cancel_backend()",
    ]
    assert spans("The first drummer was Neil Peart, from Canada.", "person") == ["Neil Peart", "Canada"]
    assert spans("NULL arguments are ignored.", "yes_no") == ["Yes"]
    assert spans("It does not return NULL.", "yes_no") == ["No"]
    asked = "Can a view be updated?"  # a typographic apostrophe negates as a plain one does
    assert spans("A view isn’t updatable.", "yes_no", asked) == ["No"]
    assert spans("A view isn't updatable.", "yes_no", asked) == ["No"]
    # past a number the sentence caps: "more than one?" against "at most one" is No
    more = "Can a table have more than one primary key?"
    assert spans("A table can have at most one primary key.", "yes_no", more) == ["No"]
    assert spans("Only one primary key can be specified for a table.", "yes_no", more) == ["No"]
    assert spans("A table can have many unique constraints.", "yes_no", more) == ["Yes"]
    assert spans("Anything at all.", "other") == []


def test_the_question_own_words_are_not_its_answer():
    question = "What is the default of work_mem?"
    assert spans("It uses work_mem by default.", "default", question) == []
    assert spans("work_mem is set by default.", "default") == []  # "set" is no value
    assert spans("Use work_mem or maintenance_work_mem.", "command", question) == ["maintenance_work_mem"]
    # a command phrase answers the question its words ask in prose, not one that names it
    drop = "DROP TABLE removes a table; add CASCADE or RESTRICT."
    assert spans(drop, "command", "How do I drop a table?") == ["DROP TABLE", "CASCADE", "RESTRICT"]
    assert spans(drop, "command", "What does DROP TABLE do?") == ["CASCADE", "RESTRICT"]
    # a statement's keyword in capitals answers the how-to saying it in prose ("update"), not one writing it
    assert spans("UPDATE — update rows of a table", "command", "How do I update rows in a table?") == ["UPDATE"]
    assert spans("UPDATE — update rows of a table", "command", "How do I use UPDATE on rows?") == []


def test_a_documents_furniture_is_no_answer():
    assert spans("Tip: see Chapter 13 and Table 8.4.", "person") == []
    assert spans("Description and Examples follow; Joan Baez sang.", "person") == ["Joan Baez"]
    assert spans("It was described in RFC 4180; use VACUUM.", "command") == ["VACUUM"]  # an acronym is no command
    assert spans("We can combine a file-system backup with a backup of the SSH files.", "command") == []  # an acronym
    assert spans("It avoids CVE-2020-10735; use VACUUM.", "command") == ["VACUUM"]  # nor an identifier's prefix
    assert spans("It corresponds to the SQL command SHOW.", "command", "Which command shows a setting?") == ["SHOW"]


def test_which_file_is_answered_by_a_files_name():
    sentence = "Set ssl_ca_file in postgresql.conf; SCRAM is used."
    assert spans(sentence, "command", "Which file controls client authentication?") == ["postgresql.conf"]
    assert spans(sentence, "command", "Which setting controls it?") == ["ssl_ca_file", "postgresql.conf", "SCRAM"]


def test_a_command_spelled_as_code_answers_a_question_using_its_words_unless_the_question_names_it():
    question = "How do I change my password from psql?"
    assert spans("psql has a command \\password that changes the password.", "command", question) == ["\\password"]
    assert spans("Use \\password.", "command", "What does \\password do?") == []
    assert spans("zip() stops at the shortest iterable.", "command", "What does the zip function do?") == []
    assert spans("Set search_path first.", "command", "How do I change the search path?") == ["search_path"]
    assert spans("Use os.remove(filename) or os.unlink(filename).", "command", question) == ["os.remove", "os.unlink"]
    in_file = "The general format of the pg_hba.conf file is a set of records, one per line."
    assert spans(in_file, "command", "When several lines in pg_hba.conf match, which one is used?") == []


def test_a_place_in_technical_documents_may_be_a_file_or_a_path():
    sentence = "ALTER SYSTEM writes the setting to the postgresql.auto.conf file, read in addition to postgresql.conf."
    assert spans(sentence, "place", "Where does ALTER SYSTEM save the value?")[:2] == [
        "postgresql.auto.conf",
        "postgresql.conf",
    ]
    assert spans("WAL lives in $PGDATA/pg_wal or /usr/local/pgsql/data.", "place")[:2] == [
        "$PGDATA/pg_wal",
        "/usr/local/pgsql/data",
    ]
    assert spans("He was born in Paris, e.g. near pg_ctl.", "place") == ["Paris"]  # no abbreviation or identifier


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("What is the default autovacuum naptime?", ["autovacuum_naptime"]),
        (
            "What is the default autovacuum vacuum scale factor?",
            ["autovacuum_vacuum_scale_factor"]
            + ["autovacuum_vacuum_scale", "vacuum_scale_factor", "autovacuum_vacuum", "vacuum_scale", "scale_factor"],
        ),
        ("What does maintenance work mem do?", ["maintenance_work_mem", "maintenance_work", "work_mem"]),
        ("What is the default value of shared buffers?", ["shared_buffers"]),  # "default value" asks, names nothing
        ("What is the default of work_mem?", []),  # named as code already
        ("Who founded Acme Corp?", []),  # capitalised words are names, not settings
        ("How do I change the shared buffers?", ["shared_buffers"]),
    ],
)
def test_a_setting_may_be_written_with_spaces(question, names):
    assert spaced_names(question) == names


def test_a_default_after_an_example_marker_is_the_examples():
    sentence = "For example, initdb -E EUC_JP sets the default character set to EUC_JP (Extended Unix Code)."
    assert spans(sentence, "default", "What encoding does initdb use by default?") == []
    assert spans("The default is 5; for example, 3 also works.", "default", "What is the default?") == ["5"]


def test_a_measure_after_an_example_marker_is_the_examples():
    question = "What is the maximum length of a table or column name?"
    sentence = "For example, excluding the tuple header, a tuple made up of 1,600 int columns would consume 6400 bytes."
    assert spans(sentence, "quantity", question) == []
    assert spans("Names are at most 63 bytes; for example, 70 bytes is too long.", "quantity", question) == ["63 bytes"]
    psql = "For instance: => SELECT * FROM test1; x | y ---+--- a | 3 c | 2 (2 rows)"  # psql's output
    assert spans(psql, "quantity", "How big can a text value get?") == []


def test_a_measure_modifying_a_noun_the_question_does_not_name_is_that_nouns():
    question = "What is the maximum length of a varchar?"
    assert spans("Declare it with the length including the zero byte terminator.", "quantity", question) == []
    assert spans("The length of the string without the terminating zero byte.", "quantity", question) == []
    assert spans("A varchar uses an 18-byte pointer.", "quantity", question) == []
    assert spans("It is one byte long.", "quantity", question) == ["one byte"]  # "one byte" is singular anyway
    assert spans("A 30 second timeout applies.", "quantity", "How long is the timeout?") == ["30 second"]


def test_a_heading_run_into_its_text_is_not_part_of_the_span():
    assert spans("DROP DATABASE DROP DATABASE removes a database.", "command", "Which command removes a database?") == [
        "DROP DATABASE"
    ]
    assert spans("Monetary Types The money type stores an amount.", "organisation") == ["Monetary Types"]


def test_times_of_day_and_centuries_are_dates():
    assert expected_type("What time do the MSPs decide?") == expected_type("In what century was it built?") == "date"
    assert spans("Normally at 5 pm, or at 10:30 a.m. in the late 19th century.", "date") == [
        "5 pm",
        "10:30 a.m",
        "19th century",
    ]


def test_a_nationality_is_a_nationality_word_and_a_country_asked_for_a_country_name():
    sentence = "Adlai Stevenson was an American politician, born in the U.S. to Scottish parents."
    assert spans(sentence, "nationality", "What nationality was Adlai Stevenson?") == ["American", "U.S.", "Scottish"]
    assert spans(sentence, "nationality", "Which country is Adlai Stevenson from?") == [
        "United States",
        "United Kingdom",
    ]
    assert spans("The Canadian actor, a Scot", "nationality", "What nationality is the Canadian actor?") == []


def test_a_setting_named_by_its_duration_defaults_to_a_time():
    question = "What is the default value of checkpoint_timeout?"
    assert spans("With the default value of 0.9, each checkpoint completes before the next.", "default", question) == []
    assert spans("The default settings are 5 minutes and 1 GB, respectively.", "default", question)[:1] == ["5 minutes"]
    # zero is a duration's "off" value, with its remark too
    delay = "What is the default commit_delay?"
    assert spans("The default commit_delay is zero (no delay).", "default", delay) == ["zero (no delay)"]


def test_which_port_asks_for_a_number():
    assert expected_type("Which port does the server listen on?") == "number"
    assert default_measure("Which port does PostgreSQL use by default?") == "number"


def test_a_default_asked_as_a_number_is_the_number():
    sentence = (
        "-p port: Defaults to the value of the PGPORT environment variable, or if PGPORT is not set, then "
        "defaults to the value established during compilation (normally 5432)."
    )
    assert spans(sentence, "default", "Which port does PostgreSQL listen on by default?") == ["5432"]
    assert spans("The default is typically 100 connections.", "default", "How many connections by default?") == [
        "100 connections"
    ]


def test_a_pronoun_is_no_default_value():
    question = "What is the default of effective_cache_size?"
    assert spans("(If BLCKSZ is not 8kB, the default value scales proportionally to it.)", "default", question) == []
    assert spans("The default is 4 gigabytes (4GB).", "default", question) == ["4 gigabytes (4GB)"]


def test_a_negative_default_keeps_its_sign_any_value_may_be_marked_and_the_keyword_default_is_no_wording():
    question = "What is the default value of log_min_duration_statement?"
    said = "log_min_duration_statement (integer): -1 (the default) disables logging statement durations."
    assert spans(said, "default", question) == ["-1"]
    timeout = "What is the default of statement_timeout?"  # a duration: "off" is one too
    assert spans("A value of zero (the default) disables the timeout.", "default", timeout) == ["zero"]
    keyword = "Specify an integer encoding number, or DEFAULT to use the default encoding (namely, the template's)."
    assert spans(keyword, "default", "What is the default encoding of a new database?") == []
    plan = "What is the default of plan_cache_mode?"  # any value marked the default, not "which"
    assert spans("The allowed values are auto (the default), force_custom_plan.", "default", plan) == ["auto"]
    assert spans("partition is the default setting.", "default", plan) == ["partition"]
    assert spans("This is the default.", "default", plan) == []
    assert spans("The default is 'Default', a collection.", "default", plan) == ["Default"]  # a literal
    port = "What port does http.server use by default?"  # "By default" opening the next sentence marks nothing
    assert spans("run: python -m http.server 9000 By default, the server binds itself to all.", "default", port) == []


def test_a_default_setting_of_a_value_is_that_value_not_what_it_does():
    question = "What is the default value of wal_buffers?"
    said = "The auto-tuning selected by the default setting of -1 should give reasonable results in most cases."
    assert spans(said, "default", question) == ["-1"]
    assert spans("The default value of 10 seconds, however, is fine.", "default", question) == ["10 seconds"]
    assert spans("A default value of zero selects a suitable size.", "default", question) == ["zero"]
    given = "If -1 is specified (which is the default), the regular vacuum_cost_limit value will be used."
    assert spans(given, "default", "What is the default autovacuum_vacuum_cost_limit?") == ["-1"]  # not "specified"
    conversion = "The DEFAULT clause says this conversion is the default for this source to destination encoding."
    assert spans(conversion, "default", "What is the default encoding?") == []  # a thing, not a value
    dump = "By default, the dump is created in the database encoding."  # what the dump is, no default value
    assert spans(dump, "default", "What is the default encoding?") == []
    derived = "The default is derived from the locale, if the libc locale provider is used."
    assert spans(derived, "default", "What encoding does initdb use by default?") == ["derived from the locale"]


def test_a_function_tables_row_names_its_function_as_code_though_spelled_as_a_word():
    row = "| lower ( text ) → text Converts the string to all lower case, according to the rules of the locale."
    assert spans(row, "command", "Which function converts a string to lower case?") == ["lower"]  # no repeat
    assert spans(row, "command", "What does lower() return for NULL?") == []  # the question calls it


def test_an_escape_in_a_string_literal_is_no_meta_command():
    example = ">>> f.readline() 'This is the first line of the file.\\n' >>> f.readline()"
    assert spans(example, "command", "How do I read a file line by line?") == ["f.readline"]
    assert spans('Use lines.rstrip("\\r\\n") for it.', "command", "How do I strip a line?") == ["lines.rstrip"]
    assert spans("Use \\dt or (\\x); \\timing on.", "command", "Which psql command?") == ["\\dt", "\\x", "\\timing"]


def test_keywords_sharing_the_words_after_them_are_two_commands():
    forms = "SET/DROP NOT NULL: These forms change whether a column is marked to allow null values."
    assert spans(forms, "command", "How do I make a column reject NULL values?") == ["SET NOT NULL", "DROP NOT NULL"]
    assert spans("ENABLE/DISABLE TRIGGER", "command", "How do I stop a trigger firing?") == [
        "ENABLE TRIGGER", "DISABLE TRIGGER",
    ]  # fmt: skip
    assert spans("It listens on TCP/IP sockets.", "command", "How does it listen?") == []  # no words after: no command


def test_a_yes_or_no_about_a_default_is_asked_as_the_default_and_the_value():
    assert default_check("Is the default transaction isolation level serializable?") == (
        "What is the default transaction isolation level?",
        "serializable",
    )
    assert default_check('Does work_mem default to "64MB"?') == ("What is the default work_mem?", "64MB")
    assert default_check("Is the port 5432?") is None and default_check("What is the default port?") is None


def test_a_default_that_is_a_behaviour_names_nothing():
    question = "Which database does createdb clone by default?"
    said = "The default is to create a database with the same name as the current system user."
    assert spans(said, "default", question) == []
    assert spans("The default is template1.", "default", question) == ["template1"]


def test_a_hyphenated_quantity_measures_the_noun_after_it():
    said = "Only an 18-byte pointer must remain inside the tuple."
    assert spans(said, "quantity", "What is the maximum length of a varchar?") == []  # the pointer's size
    assert spans("It is stored as a 4-byte integer.", "quantity", "How many bytes does an integer take?") == ["4-byte"]


def test_a_question_after_statements_is_searched_on_its_own_when_it_names_what_it_asks():
    situation = "Long queries look cut off in pg_stat_activity. How many bytes of query text are kept by default?"
    assert self_contained_question(situation) == "How many bytes of query text are kept by default?"
    assert self_contained_question("Hosts cannot reach my server. Which address does it bind to?") is None  # "it"
    assert self_contained_question("Does a column keep the zone? How is it stored?") is None  # two questions
    assert self_contained_question("What is the default port?") is None


def test_an_operator_asked_for_is_a_command_and_its_span_the_symbol_between_operands():
    asked = "which json operator gets an object field as text instead of json?"
    assert expected_type(asked) == expected_type("what operator gets a json object field as text?") == "command"
    row = "| json ->> text → text jsonb ->> text → text Extracts JSON object field with the given key, as text."
    assert spans(row, "command", asked)[0] == "->>"
    assert "=" not in spans("Set x = 1 to enable it.", "command", "How do I enable it?")  # no operator asked


def test_the_name_after_an_asked_noun_runs_across_an_ampersand_and_initials():
    sentence = "Blue Harbour Nights was released in 1999 by the label Smith & Jones Records."
    assert noun_phrase(sentence, "label", "Which label released Blue Harbour Nights?") == "Smith & Jones Records"
    assert noun_phrase("Sold by the label & others.", "label", "Which label sold it?") is None
    pianist = "It was founded by the saxophonist Mira Okonkwo and the pianist T.S. Moore."
    assert noun_phrase(pianist, "pianist", "Which pianist co-founded it?") == "T.S. Moore"


def test_a_name_said_as_a_place_is_no_persons_name():
    sentence = "Smith & Jones Records was founded in 1982 in Harrowgate by Ruth Smith and Colin Jones."
    assert spans(sentence, "person", "Who founded Smith & Jones Records?") == ["Ruth Smith", "Colin Jones"]
