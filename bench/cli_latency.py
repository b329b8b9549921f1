"""CLI latency: wall time of ``agentic-rag --help``, ``--version``, two usage errors and (with
``--collection``) a cold and a warm ``ask``, each the median of N runs in a fresh process.

Every run is a subprocess of the installed console script (``agentic-rag`` beside this Python),
timed from start to exit; its CPU time (user + system, from the children's resource usage) is
recorded too, as wall time on a shared machine also counts other jobs' load. A cold ``ask`` finds
no warm service running (``agentic-rag server stop`` before each, untimed): it starts the service,
which loads the app and the embedded PostgreSQL (its CPU time is recorded apart, from ``/proc``). A
warm ``ask`` is answered by the running service, after one untimed ``ask``. The service is stopped
at the end. The table is printed and written, with the load average before and after and the
commit, to bench/results/cli_latency.json (``--out``).

    .venv/bin/python bench/cli_latency.py [--runs 5] [--collection NAME [--question TEXT] [--data-dir DIR]]

An older checkout is timed with the same script: ``PYTHONPATH=<checkout> python bench/cli_latency.py``
(its missing ``--version`` is reported as a warning).

``import agentic_rag.cli`` should import no LangGraph, LangSmith, MCP, model or database code
(tests/test_cli.py checks it); this script says what that buys a user.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "bench" / "results" / "cli_latency.json"
DEFAULT_QUESTION = "What does VACUUM do?"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, CPU seconds, the finished process) of one run of ``command``."""
    cpu, started = children_cpu(), time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - started, children_cpu() - cpu, proc


def service_cpu(data_dir: Path | None) -> float | None:
    """CPU seconds (user + system) the data folder's warm service has used so far, from
    ``/proc``; ``None`` when none runs (or not on Linux)."""
    from agentic_rag.client import ServiceFiles, data_folder, running_pid

    pid = running_pid(ServiceFiles(data_folder(data_dir, os.environ)))
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(
    command: list[str],
    runs: int,
    expect: int = 0,
    warmup: int = 0,
    strict: bool = False,
    before: list[str] = (),
    service: Path | None | bool = False,
) -> dict:
    """Median wall and CPU time of ``runs`` runs after ``warmup`` untimed ones, each after the
    untimed command ``before`` when given; with ``service`` (a data folder, ``None`` for the
    default one), the median CPU time its warm service spent on each run too (a cold run: its
    start-up). A run that exits with another code than ``expect`` is reported (an older checkout
    has no ``--version``).

    Raises:
        SystemExit: such a run, when ``strict`` (an ``ask`` that failed has no latency worth a row).
    """
    results, served = [], []
    for _ in range(warmup + runs):
        if before:
            subprocess.run(before, capture_output=True, stdin=subprocess.DEVNULL, check=True)
        used = service_cpu(service) if service is not False else None
        results.append(timed(command))
        if service is not False and (after := service_cpu(service)) is not None:
            served.append(after - (used or 0.0))
    results, served = results[warmup:], served[warmup:]
    codes = sorted({proc.returncode for _, _, proc in results})
    if codes != [expect]:
        tail = "\n".join(results[-1][2].stderr.strip().splitlines()[-5:])
        message = f"{' '.join(command)}: exit code {codes}, expected {expect}\n{tail}"
        if strict:
            sys.exit(message)
        print(f"warning: {message}", file=sys.stderr)
    walls, cpus = [wall for wall, _, _ in results], [cpu for _, cpu, _ in results]
    return {
        "command": " ".join(["agentic-rag" if part.endswith("/agentic-rag") else part for part in command]),
        "exit_codes": codes,
        "median_s": round(statistics.median(walls), 3),
        "cpu_median_s": round(statistics.median(cpus), 3),
        "runs_s": [round(w, 3) for w in walls],
        **({"service_cpu_median_s": round(statistics.median(served), 3)} if served else {}),
    }


def code_root() -> Path:
    """The checkout whose ``agentic_rag`` the runs import (this one, or ``PYTHONPATH``'s)."""
    spec = importlib.util.find_spec("agentic_rag")
    return Path(spec.origin).parents[1] if spec and spec.origin else ROOT


def git(*args: str) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=code_root(), capture_output=True, text=True, check=True)
        return proc.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--collection", help="time `ask QUESTION --collection NAME` too (cold and warm)")
    parser.add_argument("--question", default=DEFAULT_QUESTION)
    parser.add_argument("--data-dir", type=Path, help="passed to ask (default: the app's)")
    parser.add_argument("--executable", type=Path, default=Path(sys.executable).parent / "agentic-rag")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    exe = str(args.executable)
    load_before = os.getloadavg()
    cases = {
        "--help": measure([exe, "--help"], args.runs),
        "--version": measure([exe, "--version"], args.runs),
        "unknown option": measure([exe, "--no-such-option"], args.runs, expect=2),
        # a subcommand's arguments are checked by Typer's pydantic coercion: pydantic is imported then
        "missing argument": measure([exe, "ask"], args.runs, expect=2),
        "import agentic_rag.cli": measure([sys.executable, "-c", "import agentic_rag.cli"], args.runs),
    }
    if args.collection:
        ask = [exe, "ask", args.question, "--collection", args.collection]
        folder = ["--data-dir", str(args.data_dir)] if args.data_dir else []
        stop = [exe, "server", "stop", *folder]
        cases["ask (cold)"] = measure([*ask, *folder], args.runs, strict=True, before=stop, service=args.data_dir)
        cases["ask (warm)"] = measure([*ask, *folder], args.runs, warmup=1, strict=True, service=args.data_dir)
        subprocess.run(stop, capture_output=True, check=True)
    load_after = os.getloadavg()
    print(f"{'command':<24} {'median s':>9} {'CPU s':>7} {'service':>7}  runs (s)")
    for name, case in cases.items():
        runs = " ".join(f"{w:.2f}" for w in case["runs_s"])
        served = f"{case['service_cpu_median_s']:>7.3f}" if "service_cpu_median_s" in case else " " * 7
        print(f"{name:<24} {case['median_s']:>9.3f} {case['cpu_median_s']:>7.3f} {served}  {runs}")
    print(f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} CPUs)")
    result = {
        "code": str(code_root()),
        "commit": git("rev-parse", "--short", "HEAD"),
        "work_tree_changed": bool(git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "runs": args.runs,
        "collection": args.collection,
        "question": args.question if args.collection else None,
        "server_idle_s": os.environ.get("AGENTIC_RAG_SERVER_IDLE_S"),  # 0: no warm service, cold = warm
        "results": cases,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
