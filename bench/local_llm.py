"""Speed of the local models on this machine: server start, prompt reading and writing speed.

For each installed local model: start its llama.cpp server (:class:`providers.local_llm.LocalServer`),
then send the same grading-sized request (five ~1,000-character passages, a JSON schema reply)
``--repeat`` times with a different first line each time (no prompt-cache reuse). Prints the
start time and the median prompt tokens/s, written tokens/s and seconds per request, from the
server's own ``timings``.

    .venv/bin/python bench/local_llm.py [--repeat 3] [--models qwen2.5-coder-0.5b,qwen2.5-coder-1.5b]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import urllib.request

from core.settings import Settings
from providers.local_llm import MODELS, LocalServer, resolve_model

PASSAGE = (
    "Major League Soccer (MLS) is a men's professional soccer league, sanctioned by U.S. Soccer, that "
    "represents the sport's highest level in both the United States and Canada. The league comprises 22 "
    "teams, 19 in the U.S. and 3 in Canada. The regular season runs from March to October, with each team "
    "playing 34 games; the team with the best record is awarded the Supporters' Shield. "
)
SCHEMA = {
    "type": "object",
    "properties": {"relevant": {"type": "array", "items": {"type": "integer"}}, "sufficient": {"type": "boolean"}},
    "required": ["relevant", "sufficient"],
}


def request(url: str, run: int) -> dict:
    passages = "\n\n".join(f"[{i}] title: Passage {i}\n{PASSAGE * 3}" for i in range(1, 6))
    body = {
        "messages": [
            {"role": "system", "content": f"Run {run}. You grade search results. Reply with JSON."},
            {"role": "user", "content": f"Passages:\n{passages}\n\nQuestion: Which league has 22 teams?"},
        ],
        "max_tokens": 60,
        "temperature": 0,
        "response_format": {"type": "json_schema", "json_schema": {"name": "grades", "schema": SCHEMA}},
    }
    req = urllib.request.Request(
        f"{url}/chat/completions", json.dumps(body).encode(), {"content-type": "application/json"}
    )
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as reply:
        timings = json.load(reply)["timings"]
    return {**timings, "seconds": time.perf_counter() - start}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    settings = Settings()
    print("| model | server start (s) | prompt tokens/s | written tokens/s | s per grading request |")
    print("|---|---|---|---|---|")
    for name in args.models.split(","):
        start = time.perf_counter()
        server = LocalServer(resolve_model(name, settings.models_dir), threads=settings.local_threads)
        started = time.perf_counter() - start
        try:
            runs = [request(server.url, run) for run in range(args.repeat)]
        finally:
            server.close()
        prompt, written, seconds = (
            statistics.median(r[key] for r in runs) for key in ("prompt_per_second", "predicted_per_second", "seconds")
        )
        print(f"| {name} | {started:.1f} | {prompt:.0f} | {written:.1f} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
