"""Fuzzing the LLM deciders: 1,000 random model replies (empty, null, prose, truncated JSON, wrong
types, huge strings, citation marks out of range, valid JSON of the wrong schema, and valid ones
so that runs reach every node) through the scripted model, on the real store and checkpoints.
Whatever the model says, every run ends done or paused for a review, within
:meth:`RunContext.step_bound` steps (never stopped by the recursion limit), and every reply a
decider could not use left a note."""

from __future__ import annotations

import json
import random
import re

import pytest
from langgraph.errors import GraphRecursionError

from graph.context import RunContext
from prompts import generator
from tests.conftest import ScriptedChatModel, read_jsonl, shared_file

REPLIES = 1_000
SEED = 14

JSON_KINDS = {
    "route": "route:",
    "grade_hop": "grade (hop",
    "links": "follow_links:",
    "ground": "check_grounding:",
    "decompose": "decompose:",
    "expand": "expand_query:",
    "generate": "generate:",
}
"""Kinds of call whose reply must be JSON, with the prefix of the note a fallback leaves."""
TEXT_KINDS = {"reformulate": "reformulate:", "generate_text": "generate:"}
"""Kinds of call whose reply is plain text (the next query; a caveat or small-talk answer)."""
PREFIXES = {**JSON_KINDS, **TEXT_KINDS}
UNUSABLE = {"empty", "null", "prose", "wrong_schema"}
"""Categories no JSON-reply decider can use: each must fall back, with a note."""


class FuzzModel(ScriptedChatModel):
    """The scripted model, telling the generator's JSON answer from its plain-text caveat and
    small-talk replies (the same user prompt, another system prompt)."""

    def _kind(self, system: str) -> str:
        kind = super()._kind(system)
        return "generate_text" if kind == "generate" and system != generator.ANSWER_SYSTEM else kind


def numbers(prompt: str, after: str = "") -> list[int]:
    """The passage or candidate numbers ``[n]`` opening lines of the prompt (after ``after``)."""
    return [int(n) for n in re.findall(r"^\[(\d+)\] ", prompt.split(after, 1)[-1] if after else prompt, re.M)]


def valid(kind: str, prompt: str, rng: random.Random) -> str:
    """A reply of the right schema, with plausible values."""
    if kind == "route":
        route = rng.choice(["retrieve", "retrieve", "direct"])
        return json.dumps({"route": route, "complexity": rng.choice(["single", "multi"]), "reason": "fuzz"})
    if kind == "grade_hop":
        passages = numbers(prompt, "Passages:\n")
        relevant = rng.sample(passages, rng.randint(0, len(passages)))
        return json.dumps({"relevant": relevant, "sufficient": rng.random() < 0.5})
    if kind == "links":
        offered = numbers(prompt)
        return json.dumps({"follow": rng.sample(offered, min(len(offered), rng.randint(1, 2))), "reason": "fuzz"})
    if kind == "ground":
        return json.dumps({"unsupported": rng.choice([[], ["The answer is made up."]])})
    if kind == "decompose":
        return json.dumps({"sub_questions": ["Who is Donnie Smith?", "Which league is the Revolution in?"]})
    if kind == "expand":
        return json.dumps({"queries": ["Donnie Smith soccer league", "New England Revolution"]})
    titles = re.findall(r"^\[(\d+)\] title: ([^;\n]+)", prompt, re.M)
    if kind == "generate":
        number, title = rng.choice(titles) if titles else ("1", "none")
        return json.dumps({"short_answer": title, "answer": f"{title} [{number}]."})
    if kind == "reformulate":
        return rng.choice(["Donnie Smith league", "Revolution founded year", "Stanley Kubrick films"])
    return "The documents do not say clearly; the closest passages are cited [1]."


def truncated(kind: str, prompt: str, rng: random.Random) -> str:
    text = valid(kind, prompt, rng)
    return text[: rng.randint(1, max(1, len(text) - 1))]


def wrong_types(kind: str, rng: random.Random) -> str:
    value = rng.choice([42, -1.5, True, None, "yes", [], {}, [[1]], {"a": {"b": 1}}])
    fields = {
        "route": ["route", "complexity"],
        "grade_hop": ["relevant", "sufficient"],
        "links": ["follow"],
        "ground": ["unsupported"],
        "decompose": ["sub_questions"],
        "expand": ["queries"],
        "generate": ["short_answer", "answer"],
    }.get(kind, ["query"])
    return json.dumps({name: value for name in fields})


def huge(kind: str, rng: random.Random) -> str:
    blob = "Revolution " * rng.randint(2_000, 20_000)
    field = {"route": "reason", "links": "reason", "generate": "answer", "grade_hop": "relevant"}.get(kind, "x")
    return rng.choice([blob, json.dumps({field: blob}), json.dumps({"route": "retrieve", "reason": blob})])


def marks_out_of_range(kind: str, rng: random.Random) -> str:
    wild = rng.choice([[0], [99], [-1], [10**30], [1, 1, 1, 1, 1, 1]])
    if kind in ("grade_hop", "links"):
        return json.dumps({"relevant": wild, "sufficient": True, "follow": wild})
    marks = "".join(f"[{abs(n)}]" for n in wild)
    if kind == "generate":
        return json.dumps({"short_answer": "Major League Soccer", "answer": f"Major League Soccer {marks}."})
    return f"Major League Soccer {marks}"


def fuzz_reply(kind: str, prompt: str, rng: random.Random) -> tuple[str, str]:
    """(category, reply) drawn at random."""
    category = rng.choice(
        ["empty", "null", "prose", "truncated", "wrong_types", "huge", "marks", "wrong_schema", "valid", "valid"]
    )
    reply = {
        "empty": lambda: rng.choice(["", " ", "\n\n", "``````"]),
        "null": lambda: rng.choice(["null", "```json\nnull\n```"]),
        "prose": lambda: rng.choice(["I am not sure.", "¯\\_(ツ)_/¯", "Sure! Here is what I think: maybe."]),
        "truncated": lambda: truncated(kind, prompt, rng),
        "wrong_types": lambda: wrong_types(kind, rng),
        "huge": lambda: huge(kind, rng),
        "marks": lambda: marks_out_of_range(kind, rng),
        "wrong_schema": lambda: rng.choice(['{"result": 42}', "[1, 2, 3]", '"retrieve"', "17", "true", '{"x": []}']),
        "valid": lambda: valid(kind, prompt, rng),
    }[category]()
    return category, reply


def must_fall_back(kind: str, category: str, reply: str) -> bool:
    """Whether no decider could use this reply (so a note must say it fell back)."""
    if kind in JSON_KINDS:
        return category in UNUSABLE
    first = next((line.strip().strip("\"'`").strip() for line in reply.splitlines() if line.strip()), "")
    if kind == "reformulate":
        return not first or len(first) > 500
    return not reply.strip(" .`'\"\n") or reply.strip(" .`'\"\n").lower() == "null"


def test_a_thousand_random_llm_replies_never_break_a_run(make_app):
    rng = random.Random(SEED)
    calls: list[tuple[str, str, str]] = []

    def reply_for(kind: str):
        def reply(prompt: str) -> str:
            category, text = fuzz_reply(kind, prompt, rng)
            calls.append((kind, category, text))
            return text

        return reply

    model = FuzzModel(replies={kind: reply_for(kind) for kind in PREFIXES}, calls={})
    app = make_app(collection="hotpot_smoke", chat_model=model)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    questions = [r["question"] for r in read_jsonl("hotpotqa_smoke_10.jsonl")]
    questions += ["Which is older, Blur or Oasis?", "Hello!", "Who founded the club Donnie Smith plays for and when?"]
    runs = 0
    seen: set[str] = set()
    statuses: set[str] = set()
    while len(calls) < REPLIES:
        context = RunContext(
            deciders="llm",
            max_retries=rng.randint(0, 3),
            expansion=rng.choice(["none", "none", "multi_query", "hyde", "step_back"]),
            decompose=rng.random() < 0.25,
            adaptive=rng.random() < 0.25,
            graph_hop=rng.random() < 0.8,
            review_route=rng.random() < 0.05,
            review_stop=rng.random() < 0.05,
            review_answer=rng.random() < 0.05,
        )
        start = len(calls)
        runs += 1
        try:
            result = app.ask(rng.choice(questions), context=context)
        except GraphRecursionError:
            pytest.fail(f"run {runs} ({context}) was stopped by the recursion limit: {calls[start:]}")
        run_calls = calls[start:]
        statuses.add(result["status"])
        seen.update(kind for kind, _, _ in run_calls)
        where = f"run {runs} ({context}): {[(k, c) for k, c, _ in run_calls]}; notes {result['notes']}"
        assert result["status"] in ("done", "interrupted"), where
        assert not any("model call failed" in note for note in result["notes"]), where  # the fuzzer itself raised
        state = app.graph.get_state({"configurable": {"thread_id": result["thread_id"]}})
        assert state.metadata["step"] <= context.step_bound(), where
        if result["stop_reason"] == "sufficient_evidence":  # never on passage numbers that name no passage
            assert state.values["evidence"], where
        marks = {int(n) for n in re.findall(r"\[(\d+)\]", result.get("answer") or "")}
        assert marks <= {c["mark"] for c in result["citations"]}, where  # marks out of range are removed
        for prefix in set(PREFIXES.values()):
            fallbacks = sum(must_fall_back(k, c, text) for k, c, text in run_calls if PREFIXES[k] == prefix)
            noted = sum(note.startswith(prefix) for note in result["notes"])
            assert noted >= fallbacks, f"{prefix} {fallbacks} unusable replies, {noted} notes; {where}"
    assert seen == set(PREFIXES)  # every decider was fuzzed
    assert statuses == {"done", "interrupted"}  # and runs paused for a review too
