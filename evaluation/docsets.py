"""The doc-QA benchmark's manuals: each question set with the folder of the manual it asks about.

Sets in ``../shared/data`` (beside the project, not in a user's clone) and the project's own
sets in ``evaluation/data/docqa`` share one record format (``../shared/data/docqa/README.md``):
``id``, ``question``, ``answers`` (lower-case aliases, empty when unanswerable), ``type``,
``gold_pages`` (paths relative to the corpus folder), ``evidence`` (verbatim sentences).

A set whose file or corpus folder is missing is skipped by :func:`available` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
OWN = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class DocSet:
    """One manual's question set."""

    name: str
    """Short name, used in reports and as the held-out fold's name."""
    questions: Path
    corpus: Path
    """The folder of pages ``gold_pages`` are relative to."""
    package: str
    """The Debian package that installs the corpus folder."""
    exclude: tuple[str, ...] = ()
    """gitignore-style patterns of files under the folder left out of the collection."""
    benchmark: bool = True
    """Run by default in the benchmark; ``False``: training data only (a set read question by question
    while rules were written, whose figures would not be a fair test)."""
    manual: str = ""
    """The manual it asks about, when another set asks about it too (one leave-one-out fold per
    manual); empty: ``name``."""

    @property
    def fold(self) -> str:
        """The leave-one-corpus-out fold the set belongs to: its manual."""
        return self.manual or self.name


DOCSETS: tuple[DocSet, ...] = (
    DocSet("postgresql", SHARED / "pgdocs_qa_dev.jsonl", Path("/usr/share/doc/postgresql-doc-15/html"),
           "postgresql-doc-15"),
    DocSet("postgresql-everyday", OWN / "pgdocs_everyday.jsonl", Path("/usr/share/doc/postgresql-doc-15/html"),
           "postgresql-doc-15", benchmark=False, manual="postgresql"),
    DocSet("django", SHARED / "docqa/django_qa.jsonl", Path("/usr/share/doc/python-django-doc/html"),
           "python-django-doc", ("_modules/*", "_sources/*")),
    DocSet("flask", SHARED / "docqa/flask_qa.jsonl", Path("/usr/share/doc/python-flask-doc/html"),
           "python-flask-doc", ("_sources/*",)),
    DocSet("debian-handbook", SHARED / "docqa/debian_handbook_qa.jsonl",
           Path("/usr/share/doc/debian-handbook/html/en-US"), "debian-handbook"),
    DocSet("bash", SHARED / "docqa/bash_qa.jsonl", Path("/usr/share/doc/bash"), "bash-doc"),
    DocSet("zsh", OWN / "docqa/zsh_qa.jsonl", Path("/usr/share/doc/zsh-common/html"), "zsh-doc"),
    DocSet("vim", OWN / "docqa/vim_qa.jsonl", Path("/usr/share/doc/vim/html"), "vim-doc"),
)  # fmt: skip
"""Every manual of the benchmark, in report order."""


def available(names: list[str] | None = None, training: bool = False) -> tuple[list[DocSet], list[str]]:
    """The sets (those in ``names``; else the benchmark's, or with ``training`` all) whose question
    file and corpus folder both exist.

    Returns:
        (the sets, one "name: reason" line per set left out).

    Raises:
        ValueError: ``names`` holds a name no set has.
    """
    known = {s.name: s for s in DOCSETS}
    unknown = sorted(set(names or ()) - set(known))
    if unknown:
        raise ValueError(f"unknown doc set(s) {', '.join(unknown)}; known: {', '.join(known)}")
    chosen = [known[n] for n in names] if names else [s for s in DOCSETS if training or s.benchmark]
    found, skipped = [], []
    for docset in chosen:
        if not docset.questions.is_file():
            skipped.append(f"{docset.name}: no question file {docset.questions}")
        elif not docset.corpus.is_dir():
            skipped.append(f"{docset.name}: no corpus folder {docset.corpus} (apt-get install {docset.package})")
        else:
            found.append(docset)
    return found, skipped
