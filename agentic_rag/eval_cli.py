"""``agentic-rag eval``: standard vs agentic RAG on a QA dataset (:mod:`evaluation`)."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Annotated, Optional

import typer

from agentic_rag.options import DataDir, Deciders, settings_from
from core.errors import ConfigurationError
from graph.context import RunContext


def evaluate(
    dataset: Annotated[
        Path, typer.Argument(help="HotpotQA/2Wiki/MuSiQue/pgdocs-qa .jsonl, or a SQuAD 2.0 *_queries.json.")
    ],
    modes: Annotated[
        str,
        typer.Option(
            help="Comma-separated: standard, agentic, agentic-query, agentic-adaptive, agentic-whole (not split)."
        ),
    ] = "standard,agentic",
    k: Annotated[int, typer.Option("--k", help="Chunks handed to the generator in every mode.")] = 5,
    limit: Annotated[Optional[int], typer.Option(help="Only the first N questions.")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Output folder (default eval-out/<dataset>).")] = None,
    dataset_format: Annotated[
        Optional[str], typer.Option("--format", help="hotpotqa | musique | squad | pgdocs (detected when omitted).")
    ] = None,
    corpus: Annotated[
        Optional[Path],
        typer.Option(
            help="pgdocs: the folder of documents to ingest (default /usr/share/doc/postgresql-doc-15/html, "
            "installed with apt-get when missing)."
        ),
    ] = None,
    exclude: Annotated[
        Optional[list[str]],
        typer.Option(
            "--exclude", help="pgdocs: leave out the corpus files matching this pattern ('_sources/*'); repeatable."
        ),
    ] = None,
    deciders: Deciders = None,
    max_retries: Annotated[int, typer.Option(help="Hops allowed after the first in agentic modes (0–3).")] = 2,
    data_dir: DataDir = None,
) -> None:
    """Compare standard (single-shot) and agentic RAG on a QA dataset: its paragraphs pooled into
    one corpus, or for pgdocs-qa a folder of documents (--corpus). Ctrl-C keeps the results so
    far; the same command continues where it stopped."""
    from agentic_rag.app import App
    from evaluation.datasets import FORMATS, detect_format
    from evaluation.pgdocs import ensure_corpus
    from evaluation.report import write_report
    from evaluation.runner import EvalConfig, EvalRun

    if not 1 <= k <= 50:
        raise ConfigurationError(f"--k {k} is out of range (1–50)")
    if dataset_format is not None and dataset_format not in FORMATS:
        raise ConfigurationError(f"unknown --format '{dataset_format}'; use {', '.join(FORMATS)}")
    fmt = dataset_format or detect_format(dataset)
    if corpus is not None and fmt != "pgdocs":
        raise ConfigurationError(f"--corpus is for pgdocs datasets; {dataset.name} ({fmt}) brings its own paragraphs")
    if exclude and fmt != "pgdocs":
        raise ConfigurationError(f"--exclude is for pgdocs datasets' corpus folders, not {dataset.name} ({fmt})")
    folder = ensure_corpus(corpus, partial(typer.echo, err=True)) if fmt == "pgdocs" else None
    config = EvalConfig(
        dataset=str(dataset.resolve()),
        format=fmt,
        modes=[m.strip() for m in modes.split(",") if m.strip()],
        k=k,
        deciders=deciders or "auto",
        max_retries=max_retries,
        limit=limit,
        corpus=str(folder) if folder else None,
        exclude=exclude or None,
    )
    RunContext(deciders=config.deciders, max_evidence=k, retrieve_k=k, max_retries=max_retries)  # validate early
    out = out or Path("eval-out") / dataset.stem
    settings = settings_from(data_dir, None)
    run = EvalRun(lambda name: App(settings.model_copy(update={"collection": name})), config, out)
    try:
        if folder:
            typer.echo(f"ingesting {folder} (unchanged files are skipped) …", err=True)
        chunks = run.build_corpus(progress=sys.stderr.isatty())
        typer.echo(f"corpus: {chunks} chunks; {len(run.items)} questions; results in {out}", err=True)
        records, completed = run.run(progress=sys.stderr.isatty())
        meta = {
            "dataset": dataset.name,
            "format": fmt,
            "k": k,
            "deciders": run.config.deciders,
            "chunks": run.app.services.store.count(),
            "questions": len(run.items),
            "completed": completed,
            **({"corpus": str(folder)} if folder else {}),
        }
        _, plots_note = write_report(records, meta, out)
    finally:
        run.close()
    typer.echo((out / "report.md").read_text())
    if plots_note:
        typer.echo(plots_note, err=True)
    if not completed:
        typer.echo(f"interrupted after {len(records)} results; run the same command to continue", err=True)
        raise typer.Exit(130)


def evaluate_docs(
    sets: Annotated[
        Optional[str], typer.Option(help="Comma-separated manuals (default: every one installed); see --list.")
    ] = None,
    loco: Annotated[
        bool, typer.Option(help="Leave-one-corpus-out: answer each manual with the reader fitted without it.")
    ] = False,
    folds: Annotated[
        Optional[Path],
        typer.Option(help="--loco: the fold models' folder (default: the shipped evaluation/reader_folds)."),
    ] = None,
    limit: Annotated[Optional[int], typer.Option(help="Only the first N questions of each set.")] = None,
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("eval-out/docqa"),
    list_sets: Annotated[bool, typer.Option("--list", help="List the manuals and whether each is installed.")] = False,
    deciders: Deciders = None,
    data_dir: DataDir = None,
) -> None:
    """Answer the doc-QA question sets over their manuals and report per manual and pooled:
    right, "trust it" share and precision, declines. Ctrl-C keeps the results so far."""
    from agentic_rag.app import App
    from evaluation.docqa import run_docsets
    from evaluation.docsets import DOCSETS, available

    if list_sets:
        found, skipped = available()
        for docset in found:
            typer.echo(f"{docset.name}: {docset.questions} over {docset.corpus}")
        for line in skipped:
            typer.echo(f"{line} — not run")
        return
    try:
        found, skipped = available(sets.split(",") if sets else None)
    except ValueError as exc:
        raise ConfigurationError(f"{exc}; the manuals: {', '.join(d.name for d in DOCSETS)}") from None
    for line in skipped:
        typer.echo(f"skipped {line}", err=True)
    if not found:
        raise ConfigurationError("no doc-QA set is installed; see agentic-rag eval-docs --list")
    settings = settings_from(data_dir, None)
    from evaluation.train_reader import FOLDS

    summary = run_docsets(
        found, lambda name: App(settings.model_copy(update={"collection": name})), out,
        (folds or FOLDS) if loco else None, limit, deciders or "rules",
    )  # fmt: skip
    from evaluation.docqa import markdown

    typer.echo(markdown(summary))
