"""Run standard and agentic RAG over a dataset on one corpus, one question at a time,
appending each result to ``questions.jsonl`` so an interrupted run continues where it stopped.

The corpus is the dataset's paragraphs pooled into one collection, or for pgdocs-qa a folder
of documents ingested as they are (:mod:`evaluation.pgdocs`).

* ``standard``: single shot — retrieve the top ``k`` chunks for the question once, generate.
* ``agentic``: the full graph, with the evidence budget handed to the generator also ``k``.
* ``agentic-query``: the same without the graph hop (every retry is a reformulated query).

Both use the same deciders (model-free unless a chat model is configured) and the same corpus.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from langchain_core.callbacks import UsageMetadataCallbackHandler
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda
from tqdm import tqdm

from core.errors import ConfigurationError
from deciders.generator import AnswerRequest
from evaluation.datasets import QAItem, corpus, load_dataset
from evaluation.metrics import abstained, hop_contributions, page_name, support_recall
from evaluation.pgdocs import corpus_collection
from evaluation.scoring import answer_fields
from graph.context import RunContext
from graph.policy import generation_plan
from ingest.loaders import Source
from ingest.qa_jsonl import READER as QA_READER
from store.chunks import chunk_id

AGENTIC_MODES: dict[str, dict] = {
    "agentic": {},
    "agentic-query": {"graph_hop": False},
    "agentic-adaptive": {"adaptive": True},
    "agentic-whole": {"decompose": False},
}
"""Variants of the graph compared by the harness: mode → run settings over the defaults
(``agentic-query``: every retry writes a new query, no graph hop; ``agentic-adaptive``: the
router's complexity class decides between one retrieval and the loop; ``agentic-whole``: no
decomposition, every question searched whole)."""
MODES = ("standard", *AGENTIC_MODES)


@dataclass
class EvalConfig:
    """What to evaluate. Everything but ``limit`` must match to continue a run in ``out``."""

    dataset: str
    format: str
    modes: list[str]
    k: int
    deciders: str
    max_retries: int
    limit: int | None
    corpus: str | None = None
    """pgdocs: the folder of documents (resolved path); ``None`` for pooled datasets."""
    exclude: list[str] | None = None
    """pgdocs: gitignore-style patterns of files under the folder to leave out (``_sources/*``)."""


class CostCallback(UsageMetadataCallbackHandler):
    """Counts chat-model calls as well as their token usage."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def on_llm_end(self, response, **kwargs) -> None:  # noqa: ANN001 — LangChain's signature
        self.calls += 1
        super().on_llm_end(response, **kwargs)

    def tokens(self) -> tuple[int, int]:
        usage = self.usage_metadata.values()
        return sum(u.get("input_tokens", 0) for u in usage), sum(u.get("output_tokens", 0) for u in usage)


def collection_name(path: Path) -> str:
    """A collection per dataset file and content: ``eval_<stem>_<8 hex of sha256>``."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]
    stem = re.sub(r"[^a-z0-9]+", "_", path.stem.lower()).strip("_")[:24]
    return f"eval_{stem}_{digest}"


class EvalRun:
    """One evaluation: corpus, questions, output folder.

    Args:
        open_app: opens the application (``agentic_rag.app.App``) on a collection name; the
            collection is chosen here, one per dataset.
        config: what to evaluate.
        out: output folder for ``questions.jsonl``, ``report.json``, ``report.md`` and plots.

    Raises:
        ConfigurationError: unknown mode, ``out`` holds a run with other settings, or a
            pgdocs dataset without a corpus folder (or a corpus given to another format).
    """

    def __init__(self, open_app: Callable[[str], Any], config: EvalConfig, out: Path) -> None:
        unknown = sorted(set(config.modes) - set(MODES))
        if unknown or not config.modes:
            raise ConfigurationError(f"unknown mode(s) {unknown}; use {', '.join(MODES)}")
        if config.limit is not None and config.limit < 1:
            raise ConfigurationError(f"--limit {config.limit}: give at least 1")
        self.path = Path(config.dataset)
        self.items: list[QAItem] = load_dataset(self.path, config.format)[: config.limit]
        self.pgdocs = config.format == "pgdocs"
        if self.pgdocs and not (config.corpus and Path(config.corpus).is_dir()):
            raise ConfigurationError(f"a pgdocs dataset needs its corpus folder; {config.corpus!r} is not one")
        if config.corpus and not self.pgdocs:
            raise ConfigurationError(f"--corpus is for pgdocs datasets; {self.path.name} brings its own paragraphs")
        self.app = open_app(corpus_collection(Path(config.corpus)) if self.pgdocs else collection_name(self.path))
        # Fail on a decider that cannot run before anything is written, and record what "auto"
        # resolved to, so a continued run cannot mix model-free and LLM results.
        probe = RunContext(deciders=config.deciders)
        self.app.services.deciders(probe)
        if config.deciders == "auto":
            config.deciders = "llm" if self.app.services.chat_model is not None else "rules"
        self.config = config
        self.out = out
        self._check_out_folder()
        self.source_key = f"eval:{self.path.name}"
        self.contexts = {
            mode: RunContext(
                deciders=config.deciders,
                max_evidence=config.k,
                retrieve_k=config.k,
                max_retries=config.max_retries,
                **AGENTIC_MODES.get(mode, {}),
            )
            for mode in MODES
        }

    def _check_out_folder(self) -> None:
        if self.out.exists() and not self.out.is_dir():
            raise ConfigurationError(f"--out {self.out} is a file; give a folder")
        self.out.mkdir(parents=True, exist_ok=True)
        saved = self.out / "config.json"
        mine = {k: v for k, v in asdict(self.config).items() if k != "limit"}
        mine["modes"] = sorted(mine["modes"])
        if saved.exists():
            theirs = {k: v for k, v in json.loads(saved.read_text()).items() if k != "limit"}
            theirs["modes"] = sorted(theirs.get("modes", []))
            diff = [f"{k}: {theirs.get(k)!r} there, {mine.get(k)!r} here" for k in mine if theirs.get(k) != mine.get(k)]
            if diff:
                raise ConfigurationError(
                    f"{self.out} holds a run with other settings ({'; '.join(diff)}); "
                    "use another --out or the same settings"
                )
        saved.write_text(json.dumps(asdict(self.config), indent=2))

    # -- corpus ---------------------------------------------------------------------------------

    def build_corpus(self, progress: bool = False) -> int:
        """Ingest the pooled paragraphs, or the pgdocs corpus folder (unchanged on a rerun;
        ``progress`` shows a bar per file); returns the chunk count."""
        if self.pgdocs:
            self.app.ingest([Path(self.config.corpus)], progress=progress, exclude=self.config.exclude or ())
            return self.app.services.store.count()
        paragraphs = corpus(self.items if self.config.limit is None else load_dataset(self.path, self.config.format))
        chunks = [Document(page_content=text, metadata={"title": title, "chunk_index": i})
                  for i, (title, text) in enumerate(paragraphs)]  # fmt: skip
        digest = hashlib.sha256(self.path.read_bytes() + QA_READER.encode()).hexdigest()
        self.app.ingest_sources([Source(self.source_key, digest, chunks)])
        return self.app.services.store.count()

    def gold_ids(self, item: QAItem) -> set[str]:
        """Gold chunk ids; for pgdocs, gold page names (retrieval is then scored per page)."""
        if self.pgdocs:
            return set(item.gold_pages)
        return {chunk_id(self.source_key, title, text) for title, text in item.supporting}

    def _pages(self, run: dict) -> dict:
        """pgdocs: the run's chunk ids (handed and per hop) replaced by their page names."""
        ids = list(dict.fromkeys([*run["handed"], *(i for hop in run["hops_ids"] for i in hop)]))
        known = run.get("sources", {})
        fetched = self.app.services.fetch([i for i in ids if i not in known])
        pages = {i: page_name(known.get(i) or fetched.get(i, {}).get("source", "")) for i in ids}
        return {**run, "handed": [pages[i] for i in run["handed"]],
                "hops_ids": [[pages[i] for i in hop] for hop in run["hops_ids"]]}  # fmt: skip

    # -- questions ------------------------------------------------------------------------------

    def records(self) -> list[dict]:
        """The results saved so far. A last line cut short by a crash is dropped (and removed
        from the file), so that question is simply asked again."""
        path = self.out / "questions.jsonl"
        if not path.exists():
            return []
        records, lines = [], path.read_text().splitlines()
        for number, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                if number != len(lines) - 1:
                    raise ConfigurationError(f"{path} line {number + 1} is not JSON; fix or delete it") from None
                path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
        return records

    def done(self) -> set[tuple[str, str]]:
        return {(r["id"], r["mode"]) for r in self.records()}

    def run_standard(self, item: QAItem, cost: CostCallback) -> dict:
        started = time.perf_counter()
        chunks = self.app.services.search(item.question, self.config.k)
        generator = self.app.services.deciders(self.contexts["standard"]).generator
        known = self.app.services.question_terms(item.question)
        request = AnswerRequest(
            item.question, chunks, "answer", term_weights=known.weights, absent_terms=known.absent,
            rare_names=known.rare_names,
        )  # fmt: skip
        answer = RunnableLambda(lambda _: generator.generate(request)).invoke(None, config={"callbacks": [cost]})
        ids = [c["chunk_id"] for c in chunks]
        by_id = {c["chunk_id"]: c for c in chunks}
        # short_answer, abstained and confidence are read when the generator's answer has them
        flag = getattr(answer, "abstained", None)
        return {
            "answer": answer.text,
            "short_answer": getattr(answer, "short_answer", None) or "",
            "cited": [
                {"source": by_id[c]["source"], "title": by_id[c]["title"]} for _, c in answer.cited if c in by_id
            ],
            "sources": {c["chunk_id"]: c["source"] for c in chunks},
            "handed": ids,
            "titles": {c["chunk_id"]: c["title"] for c in chunks},
            "hops_ids": [ids],
            "stop_reason": "single_shot",
            "route": "retrieve",
            "complexity": None,
            "abstained": abstained({"abstained": flag, "answer": answer.text}),
            "confidence": getattr(answer, "confidence", None),
            "thread_id": None,
            "latency_ms": (time.perf_counter() - started) * 1000,
        }

    def run_agentic(self, item: QAItem, mode: str, cost: CostCallback) -> dict:
        started = time.perf_counter()
        thread_id = f"eval-{uuid.uuid4().hex[:12]}-{item.id}"  # a fresh thread: no earlier turns
        result = self.app.ask(item.question, thread_id=thread_id, context=self.contexts[mode], callbacks=[cost])
        latency = (time.perf_counter() - started) * 1000
        values = self.app.graph.get_state({"configurable": {"thread_id": result["thread_id"]}}).values
        plan, handed = generation_plan(values)
        # the result's own flag; without one (older code), a caveat answer or a stated absence
        flagged = result.get("abstained") is not None
        return {
            "answer": result["answer"],
            "short_answer": result.get("short_answer") or "",
            "cited": [{"source": c["source"], "title": c["title"]} for c in result.get("citations", [])],
            "sources": {c["chunk_id"]: c["source"] for c in handed},
            "handed": [c["chunk_id"] for c in handed],
            "titles": {c["chunk_id"]: c["title"] for c in handed},
            "hops_ids": [hop["chunk_ids"] for hop in result["trace"]],
            "stop_reason": result["stop_reason"],
            "route": result["route"],
            "complexity": result.get("complexity"),
            "abstained": abstained(result) if flagged else (plan == "caveat" or abstained(result)),
            "thread_id": result["thread_id"],
            "confidence": result.get("confidence"),
            "latency_ms": latency,
        }

    def score(self, item: QAItem, mode: str, run: dict, cost: CostCallback) -> dict:
        """The record of one question in one mode (a line of ``questions.jsonl``)."""
        gold = self.gold_ids(item)
        scored = answer_fields(item, run, self.pgdocs)
        handed = [{"chunk_id": cid, "title": run["titles"].get(cid, "")} for cid in run["handed"]]
        if self.pgdocs:  # retrieval scored per page
            run = self._pages(run)
            handed = [{**h, "page": page} for h, page in zip(handed, run["handed"], strict=True)]
        input_tokens, output_tokens = cost.tokens()
        return {
            "id": item.id,
            "mode": mode,
            "type": item.type,
            "question": item.question,
            "answers": item.answers,
            "answerable": item.answerable,
            "answer": run["answer"],
            **scored,
            "abstained": run["abstained"],
            "support_recall": support_recall(run["handed"], gold),
            "all_found": float(gold <= set(run["handed"])) if gold else None,
            "hop_recall": [support_recall(ids, gold) for ids in run["hops_ids"]],
            "hop_contribution": hop_contributions(run["hops_ids"], gold) if gold else [None] * len(run["hops_ids"]),
            "handed": handed,
            "gold_titles": sorted({title for title, _ in item.supporting}),
            "hops": len(run["hops_ids"]),
            "stop_reason": run["stop_reason"],
            "route": run["route"],
            "complexity": run["complexity"],
            "latency_ms": round(run["latency_ms"], 2),
            "llm_calls": cost.calls,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "thread_id": run["thread_id"],
            "confidence": run["confidence"],
        }

    def run(self, progress: bool = True) -> tuple[list[dict], bool]:
        """Ask every question not yet answered in ``out``, appending each result.

        Returns:
            (every record for this run's questions, whether the run completed — ``False`` after
            Ctrl-C, whose partial results are kept).
        """
        done = self.done()
        todo = [(item, mode) for item in self.items for mode in self.config.modes if (item.id, mode) not in done]
        completed = True
        with (self.out / "questions.jsonl").open("a") as sink, tqdm(
            total=len(self.items) * len(self.config.modes), initial=len(done & self._keys()),
            desc=self.path.stem, unit="q", disable=not progress,
        ) as bar:  # fmt: skip
            try:
                for item, mode in todo:
                    cost = CostCallback()
                    run = self.run_standard(item, cost) if mode == "standard" else self.run_agentic(item, mode, cost)
                    sink.write(json.dumps(self.score(item, mode, run, cost), ensure_ascii=False) + "\n")
                    sink.flush()
                    bar.update()
            except KeyboardInterrupt:
                completed = False
        ids = {item.id for item in self.items}
        records = [
            r for r in map(json.loads, (self.out / "questions.jsonl").read_text().splitlines()) if r["id"] in ids
        ]
        return records, completed

    def _keys(self) -> set[tuple[str, str]]:
        return {(item.id, mode) for item in self.items for mode in self.config.modes}

    def close(self) -> None:
        self.app.close()
