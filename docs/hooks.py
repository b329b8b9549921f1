"""MkDocs hooks: the parts of the docs site made from the code and the result files at build time.

A page asks for a generated part with a marker on a line of its own, ``<!-- generated: NAME -->``:

- ``graph``: the graph as a Mermaid diagram, drawn by LangGraph from the compiled graph
  (:func:`graph.builder.build_graph`), so the picture cannot drift from the edges.
- ``settings`` / ``run-settings``: every process setting (:class:`core.settings.Settings`: its
  environment variable, default and docstring) and every run setting
  (:class:`graph.context.RunContext`), read from the code.
- ``docqa``: the doc-QA benchmark (``agentic-rag eval-docs``) from ``bench/results/docqa.json``,
  else the last local run's ``eval-out/docqa/summary.json``, else a note saying how to make it.
- ``reader``: the shipped reader's leave-one-manual-out scores (``deciders/reader_model.json``).
- ``cli-latency``: ``bench/results/cli_latency.json`` (``bench/cli_latency.py``).
- ``ingest``: ``bench/results/ingest_rate.json`` (``bench/ingest_rate.py``), one row per source.
- ``scale``: ``bench/results/scale.json`` (``bench/scale.py``), one row per collection size.
- ``summary``: the short performance and quality table the README also carries (with the ingest
  rates of ``bench/results/ingest_rate.json``).
- ``cli``: every command's ``--help``, from the Typer app (:data:`agentic_rag.cli.app`).

An unknown marker fails the build. Run as a script, ``python docs/hooks.py`` rewrites the README's
table between ``<!-- results:start -->`` and ``<!-- results:end -->`` from the same files.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import MISSING, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)
README_BLOCK = re.compile(r"(<!-- results:start -->\n).*?(<!-- results:end -->)", re.S)
DOCQA_FILES = (ROOT / "bench/results/docqa.json", ROOT / "eval-out/docqa/summary.json")
"""Where the doc-QA figures are read from, first found wins: the committed record, then a local run."""

FACTORY_DEFAULTS = {
    "data_dir": "`$XDG_DATA_HOME/agentic-rag`, else `~/.local/share/agentic-rag`",
    "models_dir": "`models/` in the default data folder",
}
"""Defaults computed at run time, shown as what they resolve to on any machine."""
UNDOCUMENTED = {
    "openai_api_key": "Key of the OpenAI API (or a compatible server); with no chat model set, the LLM "
    "deciders use `gpt-4o-mini`.",
    "openai_base_url": "An OpenAI-compatible server instead of OpenAI's: Ollama, vLLM, a llama.cpp server.",
}
"""Settings fields without a docstring of their own."""


def _attribute_docs(path: Path, class_name: str) -> dict[str, str]:
    """The docstring under each annotated attribute of ``class_name`` in ``path`` (attribute
    docstrings, PEP 257), read with ``ast``: the runtime does not keep them."""
    tree = ast.parse(path.read_text())
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == class_name)
    docs = {}
    for item, after in zip(cls.body, cls.body[1:], strict=False):
        if (
            isinstance(item, ast.AnnAssign)
            and isinstance(item.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[item.target.id] = " ".join(after.value.value.split())
    return docs


def _markdown(doc: str) -> str:
    """A reST docstring as Markdown table text: ````x```` → `` `x` ``, ``:mod:`x``` → `` `x` ``, no pipes."""
    doc = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", doc)
    return doc.replace("``", "`").replace("|", "\\|")


def _code(value: object) -> str:
    if value is None:
        return "unset"
    return f"`{json.dumps(value) if isinstance(value, (list, dict, bool)) else value}`"


def settings_table() -> str:
    """Every :class:`core.settings.Settings` field: environment variable(s), default, meaning."""
    from pydantic import AliasChoices

    from core.settings import Settings

    docs = _attribute_docs(ROOT / "core/settings.py", "Settings") | UNDOCUMENTED
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias
        names = alias.choices if isinstance(alias, AliasChoices) else [alias] if alias else []
        names = [str(n) for n in names] or [f"AGENTIC_RAG_{name.upper()}"]
        if info.default_factory is not None:
            if name not in FACTORY_DEFAULTS:
                raise ValueError(f"docs/hooks.py: say what Settings.{name}'s computed default is (FACTORY_DEFAULTS)")
            default = FACTORY_DEFAULTS[name]
        else:
            default = _code(info.default)
        if name not in docs:
            raise ValueError(f"docs/hooks.py: Settings.{name} has no docstring to show")
        rows.append(f"| {', '.join(f'`{n}`' for n in names)} | {default} | {_markdown(docs[name])} |")
    return "\n".join(rows)


def run_settings_table() -> str:
    """Every :class:`graph.context.RunContext` field: name, default, meaning."""
    from graph.context import RunContext

    docs = _attribute_docs(ROOT / "graph/context.py", "RunContext")
    rows = ["| run setting | default | meaning |", "|---|---|---|"]
    for item in fields(RunContext):
        default = None if item.default is MISSING else item.default
        rows.append(f"| `{item.name}` | {_code(default)} | {_markdown(docs.get(item.name, ''))} |")
    return "\n".join(rows)


def graph_diagram() -> str:
    """The compiled graph as a Mermaid flowchart (LangGraph's own drawing of its edges)."""
    from graph.builder import NODES, build_graph

    graph = build_graph({name: (lambda state, runtime: {}) for name in NODES})
    mermaid = graph.get_graph().draw_mermaid()
    mermaid = "\n".join(
        line for line in mermaid.splitlines() if not line.startswith(("---", "config:", "  flowchart:", "    curve:"))
    )
    return f"```mermaid\n{mermaid.strip()}\n```"


def _ratio(value: object) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _docqa() -> tuple[dict | None, Path | None]:
    for path in DOCQA_FILES:
        if path.is_file():
            return json.loads(path.read_text()), path
    return None, None


def docqa_table() -> str:
    """The doc-QA benchmark per manual and pooled, or how to make it."""
    summary, path = _docqa()
    if summary is None:
        return (
            '!!! note "Not measured in this build"\n'
            "    No doc-QA result file was found (`bench/results/docqa.json` or `eval-out/docqa/summary.json`).\n"
            "    Run `agentic-rag eval-docs --loco eval-out/reader/folds` (see [Evaluation](evaluation.md)) and\n"
            "    copy `eval-out/docqa/summary.json` to `bench/results/docqa.json` to record it; this table is\n"
            "    made from that file."
        )
    kind = "leave-one-corpus-out" if summary.get("loco") else "shipped reader"
    rows = [
        f"From `{path.relative_to(ROOT)}` ({kind}).",
        "",
        '| manual | answerable | right | "trust it" share | right when trusted | unanswerable | declined '
        "| wrongly declined |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, values in [*summary.get("manuals", {}).items(), ("**pooled**", summary.get("pooled", {}))]:
        keys = (
            "answerable",
            "right",
            "trusted_share",
            "trusted_precision",
            "unanswerable",
            "declined",
            "false_decline",
        )
        rows.append(f"| {name} | " + " | ".join(_ratio(values.get(k)) for k in keys) + " |")
    return "\n".join(rows)


def _reader_manifest() -> dict:
    return json.loads((ROOT / "deciders/reader_model.json").read_text())


def reader_table() -> str:
    """The shipped reader's held-out scores, one row per manual, from its manifest."""
    model = _reader_manifest()
    manifest = model.get("manifest", {})
    scores = manifest.get("held_out_scores", {})
    trust = model.get("trust_from")
    rows = [
        f"From `deciders/reader_model.json` (fitted at commit `{manifest.get('commit', '?')}` on "
        f"{manifest.get('questions', '?')} questions; {manifest.get('method', '')}). "
        + (
            f'"trust it" from a calibrated confidence of {trust}.'
            if trust is not None and trust <= 1
            else 'No confidence reached 0.90 precision on held-out manuals, so no answer is marked "trust it".'
        ),
        "",
        '| set held out | answerable | right | "trust it" share | right when trusted | unanswerable | declined '
        "| wrongly declined |",
        "|---|---|---|---|---|---|---|---|",
    ]
    keys = ("answerable", "right", "trusted_share", "trusted_precision", "unanswerable", "declined_unanswerable",
            "false_decline")  # fmt: skip
    for name, values in scores.items():
        rows.append(f"| {name} | " + " | ".join(_ratio(values.get(k)) for k in keys) + " |")
    return "\n".join(rows)


def _pooled_reader() -> dict:
    """The reader's held-out scores pooled over the manuals (the sets with a fold model in
    ``evaluation/reader_folds``, not the Wikipedia sets), weighted by question counts."""
    manuals = {p.stem.removeprefix("without-") for p in (ROOT / "evaluation/reader_folds").glob("without-*.json")}
    held_out = _reader_manifest().get("manifest", {}).get("held_out_scores", {})
    scores = [s for name, s in held_out.items() if name in manuals]
    answerable = sum(s.get("answerable") or 0 for s in scores)
    unanswerable = sum(s.get("unanswerable") or 0 for s in scores)

    def weighted(key: str, by: str, total: int) -> float | None:
        return sum((s.get(key) or 0) * (s.get(by) or 0) for s in scores) / total if total else None

    return {
        "manuals": len(scores),
        "answerable": answerable,
        "right": weighted("right", "answerable", answerable),
        "trusted_share": weighted("trusted_share", "answerable", answerable),
        "trusted_precision": (
            sum((s.get("trusted_precision") or 0) * (s.get("trusted_share") or 0) * s["answerable"] for s in scores)
            / trusted
            if (trusted := sum((s.get("trusted_share") or 0) * (s.get("answerable") or 0) for s in scores))
            else None
        ),
        "declined": weighted("declined_unanswerable", "unanswerable", unanswerable),
        "false_decline": weighted("false_decline", "answerable", answerable),
    }


def _latency() -> dict:
    path = ROOT / "bench/results/cli_latency.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def cli_latency_table() -> str:
    """``bench/results/cli_latency.json`` as a table."""
    data = _latency()
    if not data:
        return "No `bench/results/cli_latency.json`: run `.venv/bin/python bench/cli_latency.py`."
    rows = [
        f"From `bench/results/cli_latency.json`: commit `{data.get('commit')}`, {data.get('date', '')[:10]}, "
        f"{data.get('cpus')} cores, load average {data.get('loadavg_before', ['?'])[0]} before; median of "
        f"{data.get('runs')} runs.",
        "",
        "| case | wall s | CPU s | warm service CPU s |",
        "|---|---|---|---|",
    ]
    for name, case in data.get("results", {}).items():
        served = case.get("service_cpu_median_s", "–")
        rows.append(f"| {name} | {case['median_s']} | {case.get('cpu_median_s', '–')} | {served} |")
    if data.get("question"):
        rows += ["", f'`ask` asked "{data["question"]}" of the collection `{data.get("collection")}`.']
    return "\n".join(rows)


def _scale() -> dict:
    path = ROOT / "bench/results/scale.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def scale_table() -> str:
    """``bench/results/scale.json`` as a table, one row per collection size."""
    data = _scale()
    rows = [
        f"From `bench/results/scale.json`: {data.get('cpus')} cores, {data.get('questions')} HotpotQA questions "
        "a size; load: the 1-minute load average as the size started and ended.\n",
        "| chunks | ingest chunks/s (added, s) | data folder GB | peak MB app + server | single shot p50 / p95 ms "
        "| agentic p50 / p95 ms | all supporting found single / agentic | dense top-50 recall | load | commit |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in data.get("sizes", []):
        rows.append(
            f"| {r['chunks']:,} | {r['chunks_per_s']:,} ({r['added']:,}, {r['ingest_s']:,.0f}) | "
            f"{r['data_folder_mb'] / 1000:.2f} | {r['peak_app_rss_mb']:,} + {r['peak_server_pss_mb']:,} | "
            f"{r['single_p50_ms']:.0f} / {r['single_p95_ms']:.0f} | "
            f"{r['agentic_p50_ms']:.0f} / {r['agentic_p95_ms']:.0f} | {r['single_found']:.3f} / "
            f"{r['agentic_found']:.3f} | {r['dense_recall_at_50'] or 'exact'} | "
            f"{r['loadavg_start'][0]:.1f}–{r['loadavg_end'][0]:.1f} | `{r['commit']}` |"
        )
    return "\n".join(rows) if data else "No `bench/results/scale.json`: run `.venv/bin/python bench/scale.py`."


def ingest_table() -> str:
    """``bench/results/ingest_rate.json`` as a table, one row per source."""
    path = ROOT / "bench/results/ingest_rate.json"
    data = json.loads(path.read_text()) if path.is_file() else {}
    rows = [
        f"From `bench/results/ingest_rate.json` ({data.get('date', '')[:10]}, commit `{data.get('commit')}`, "
        f"{data.get('cpus')} cores), medians of {data.get('runs')} runs, each an ingest then the model alone.\n",
        "| source | files | chunks | ingest chunks/s | model alone chunks/s | ratio | CPU-time ratio | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in data.get("sources", {}).items():
        rows.append(
            f"| `{name}` | {r['files']:,} | {r['chunks']:,} | {r['ingest_chunks_per_s']:,} | "
            f"{r['embedding_only_chunks_per_s']:,} | {r['ratio']:.2f} | {r['cpu_ratio']:.2f} | "
            f"{r['loadavg_before'][0]:.1f}–{r['loadavg_after'][0]:.1f} |"
        )
    missing = "No `bench/results/ingest_rate.json`: run `.venv/bin/python bench/ingest_rate.py`."
    return "\n".join(rows) if data else missing


def ingest_rows() -> list[str]:
    """The README's ingest rows: each source of ``bench/results/ingest_rate.json`` (``bench/ingest_rate.py``)."""
    path = ROOT / "bench/results/ingest_rate.json"
    data = json.loads(path.read_text()) if path.is_file() else {}
    rows = []
    for name, r in data.get("sources", {}).items():
        load = f"{r['loadavg_before'][0]:.1f}–{r['loadavg_after'][0]:.1f}"
        when = f"{data['date'][:10]}, load {load} on {data['cpus']} cores"
        rows.append(
            f"| ingest `{name}` ({r['chunks']:,} chunks): chunks/s, share of the embedding model's rate "
            f"(of its CPU time) | {r['ingest_chunks_per_s']:,}, {r['ratio']:.2f} ({r['cpu_ratio']:.2f}) | "
            f"`bench/results/ingest_rate.json` ({when}) |"
        )
    return rows


def summary_table() -> str:
    """The README's short table: start-up, the reader held out, and the doc-QA benchmark."""
    rows = ["| what | measured | source |", "|---|---|---|"]
    results = _latency().get("results", {})
    asks = {
        "--help": "`agentic-rag --help`",
        "ask (cold)": "`agentic-rag ask`, no service running (it starts one)",
        "ask (warm)": "`agentic-rag ask` answered by the warm service",
    }
    for key, label in asks.items():
        if key in results:
            when = f"{_latency().get('date', '')[:10]}, load {_latency().get('loadavg_before', ['?'])[0]} on 2 cores"
            cpu, served = results[key].get("cpu_median_s"), results[key].get("service_cpu_median_s")
            measured = f"{results[key]['median_s']} s" + (f" ({cpu} s CPU" if cpu is not None else "")
            measured += (f", {served} s in the service)" if served is not None else ")") if cpu is not None else ""
            rows.append(f"| {label} | {measured} | `bench/results/cli_latency.json` ({when}) |")
    rows += ingest_rows()
    reader = _pooled_reader()
    if reader["answerable"]:
        source = f"`deciders/reader_model.json`, {reader['manuals']} manuals, each held out of the fit"
        rows.append(f"| answerable questions answered right | {reader['right']:.2f} | {source} |")
        rows.append(f"| unanswerable questions declined | {reader['declined']:.2f} | {source} |")
        rows.append(f"| answerable questions wrongly declined | {reader['false_decline']:.2f} | {source} |")
        precision = f" ({reader['trusted_precision']:.2f} of them right)" if reader["trusted_precision"] else ""
        rows.append(
            f'| answers shown as "trust it" by its fold model | {reader["trusted_share"]:.2f}{precision} | {source} |'
        )
    sizes, source = _scale().get("sizes", []), "`bench/results/scale.json`"
    for r in [r for r in sizes if r["chunks"] == 100_000 and r is not sizes[-1]] + sizes[-1:]:
        load = f"({r['date'][:10]}, load {r['loadavg_start'][0]:.1f} on {_scale().get('cpus')} cores)"
        ms = f"{r['single_p95_ms']:.0f} / {r['agentic_p95_ms']:.0f} ms"
        rows.append(f"| {r['chunks']:,} chunks: single-shot / agentic p95 | {ms} | {source} {load} |")
    if sizes:
        built = f"{sum(r['ingest_s'] for r in sizes) / 60:.0f} min, {sizes[-1]['data_folder_mb'] / 1000:.1f} GB"
        rows.append(f"| {sizes[-1]['chunks']:,} chunks: built in, data folder | {built} | {source} |")
    summary, path = _docqa()
    if summary and summary.get("pooled"):
        pooled = summary["pooled"]
        rows.append(
            f"| doc-QA benchmark, pooled: right / declined | {_ratio(pooled.get('right'))} / "
            f"{_ratio(pooled.get('declined'))} | `{path.relative_to(ROOT)}` (`agentic-rag eval-docs`) |"
        )
    else:
        rows.append("| doc-QA benchmark (`agentic-rag eval-docs`) | not recorded yet | `bench/results/docqa.json` |")
    return "\n".join(rows)


def cli_reference() -> str:
    """Every command of the Typer app with the help ``agentic-rag COMMAND --help`` prints, one
    section each, subcommands after their group. (mkdocs-click does not apply: Typer 0.29 ships
    its own click, whose commands the plugin's ``click.Option`` checks do not recognise.)"""
    import typer

    from agentic_rag.cli import app

    sections: list[str] = []

    def document(command, name: str, parent=None, depth: int = 2) -> None:
        ctx = command.make_context(name, [], parent=parent, resilient_parsing=True, max_content_width=100,
                                   terminal_width=100)  # fmt: skip
        sections.append(f"{'#' * depth} `{ctx.command_path}`\n\n```text\n{command.get_help(ctx).rstrip()}\n```")
        if hasattr(command, "list_commands"):
            for sub in command.list_commands(ctx):
                document(command.get_command(ctx, sub), sub, ctx, min(depth + 1, 4))

    document(typer.main.get_command(app), "agentic-rag")
    return "\n\n".join(sections)


GENERATORS = {
    "graph": graph_diagram,
    "settings": settings_table,
    "run-settings": run_settings_table,
    "docqa": docqa_table,
    "reader": reader_table,
    "cli-latency": cli_latency_table,
    "ingest": ingest_table,
    "scale": scale_table,
    "summary": summary_table,
    "cli": cli_reference,
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replace each ``<!-- generated: NAME -->`` line with its generated Markdown."""

    def generated(match: re.Match) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(f"{page.file.src_path}: unknown generated part {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(generated, markdown)


def write_readme(path: Path = ROOT / "README.md") -> bool:
    """Rewrite the README's results table from the result files; whether it changed."""
    text = path.read_text()
    if not README_BLOCK.search(text):
        raise SystemExit(f"{path}: no <!-- results:start --> … <!-- results:end --> block")
    new = README_BLOCK.sub(lambda m: f"{m.group(1)}{summary_table()}\n{m.group(2)}", text)
    path.write_text(new)
    return new != text


if __name__ == "__main__":
    print("README.md results table " + ("updated" if write_readme() else "unchanged"))
