"""The documentation corpus of a pgdocs-qa benchmark: a folder of pages ingested as they are
(``ingest.pipeline``: unchanged files are skipped on a rerun), one collection per folder.

The default corpus is the PostgreSQL 15 manual of the Debian package ``postgresql-doc-15``
(``/usr/share/doc/postgresql-doc-15/html``, 1,169 HTML pages); when it is missing it is
installed with apt-get.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable

from core.errors import ConfigurationError

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")
"""Where ``postgresql-doc-15`` puts the PostgreSQL 15 manual."""
PACKAGE = "postgresql-doc-15"


def corpus_collection(folder: Path) -> str:
    """The collection of a corpus folder, named after it: ``docs_<parent>_<folder>_<8 hex of
    sha256 of the resolved path>`` (letters, digits and ``_``, at most 38 characters), e.g.
    ``docs_postgresql_doc_15_html_1a2b3c4d``."""
    resolved = folder.resolve()
    stem = re.sub(r"[^a-z0-9]+", "_", f"{resolved.parent.name}_{resolved.name}".lower()).strip("_")[:23]
    return f"docs_{stem}_{hashlib.sha256(str(resolved).encode()).hexdigest()[:8]}"


def _apt_get(*args: str) -> list[str]:
    root = os.geteuid() == 0 if hasattr(os, "geteuid") else False
    prefix = [] if root or not shutil.which("sudo") else ["sudo", "-n"]
    return [*prefix, "apt-get", *args]


def install_default_corpus(say: Callable[[str], None]) -> None:
    """``apt-get install -y postgresql-doc-15``, after ``apt-get update`` when the first try
    fails (a fresh image has no package lists); ``sudo -n`` is used when not root.

    Raises:
        ConfigurationError: apt-get is missing, fails, or the manual is still missing after it.
    """
    if not shutil.which("apt-get"):
        raise ConfigurationError(f"{DEFAULT_CORPUS} is missing and there is no apt-get to install {PACKAGE}")
    install = _apt_get("install", "-y", PACKAGE)
    say(f"{DEFAULT_CORPUS} is missing: installing the PostgreSQL 15 manual ({' '.join(install)})")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    done = subprocess.run(install, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        say(f"{' '.join(install)} failed; running apt-get update first")
        update = subprocess.run(_apt_get("update"), capture_output=True, text=True, env=env)
        done = update if update.returncode != 0 else subprocess.run(install, capture_output=True, text=True, env=env)
    if done.returncode != 0 or not DEFAULT_CORPUS.is_dir():
        detail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ConfigurationError(
            f"could not install {PACKAGE} ({detail[0]}); install it with: apt-get install -y {PACKAGE}, "
            "or give another folder with --corpus"
        )
    say(f"installed {PACKAGE}: {DEFAULT_CORPUS}")


def ensure_corpus(folder: Path | None, say: Callable[[str], None]) -> Path:
    """The corpus folder to ingest, installing the default manual when it is the one missing.

    Args:
        folder: the ``--corpus`` folder; ``None`` means :data:`DEFAULT_CORPUS`.
        say: prints a progress line (the install is announced before it starts).

    Returns:
        The folder, resolved.

    Raises:
        ConfigurationError: another folder that does not exist or is not a folder, or the
            default manual could not be installed.
    """
    folder = folder or DEFAULT_CORPUS
    if not folder.exists() and folder.absolute() == DEFAULT_CORPUS:
        install_default_corpus(say)
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise ConfigurationError(f"--corpus {folder} {what}; give the folder of documents the benchmark's pages are in")
    return folder.resolve()
