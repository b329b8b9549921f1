"""Latency of the agentic loop with OpenTelemetry off and on (model-free deciders, HotpotQA dev).

Each question is asked once per mode, the modes interleaved question by question (their order
alternating), so that load from other jobs on the machine hits both alike. ``on`` traces into a
batch span processor and exports metrics, both through the console exporters writing to
/dev/null (the serialisation an exporter pays, without a collector). Prints p50 / p95 per mode
and the p50 overhead, and the mean CPU time per question (every thread of the process, so the
exporter's work counts; less sensitive than wall time to other jobs on the machine).

    .venv/bin/python bench/telemetry_overhead.py [--limit 60] [--modes off,on] [--data-dir DIR]

``--modes off`` runs without importing the telemetry module, so the same script times a checkout
from before it (``PYTHONPATH=<checkout> python bench/telemetry_overhead.py --modes off``).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from agentic_rag.app import App
from core.settings import Settings
from evaluation.metrics import percentile
from graph.context import RunContext

DEFAULT_DATASET = Path(__file__).resolve().parents[2] / "shared" / "data" / "hotpotqa_dev_200.jsonl"


def telemetry_on() -> tuple:
    """Telemetry into console exporters writing to /dev/null; returns the providers."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, PeriodicExportingMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    sink = open(os.devnull, "w")  # noqa: SIM115 — open for the whole run
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=sink)))
    meter_provider = MeterProvider([PeriodicExportingMetricReader(ConsoleMetricExporter(out=sink), 5000)])
    return tracer_provider, meter_provider


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--modes", default="off,on")
    parser.add_argument("--data-dir", type=Path, help="reuse a data folder (ingest skips unchanged data)")
    args = parser.parse_args()
    modes = args.modes.split(",")
    records = [json.loads(line) for line in args.dataset.read_text().splitlines() if line.strip()][: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        app = App(Settings(data_dir=args.data_dir or Path(tmp), collection="bench"))
        app.ingest([args.dataset])
        context = RunContext(deciders="rules")
        for record in records[:5]:  # warm-up: caches, the embedding model, the database
            app.ask(record["question"], context=context)
        providers = telemetry_on() if "on" in modes else None
        latencies: dict[str, list[float]] = {mode: [] for mode in modes}
        cpu_ms: dict[str, list[float]] = {mode: [] for mode in modes}  # all threads: the exporter's too
        for i, record in enumerate(records):
            for mode in modes if i % 2 == 0 else modes[::-1]:
                if providers:
                    from core import telemetry

                    telemetry.use(*providers) if mode == "on" else telemetry.use()
                started, cpu = time.perf_counter(), time.process_time()
                app.ask(record["question"], context=context)
                latencies[mode].append((time.perf_counter() - started) * 1000)
                cpu_ms[mode].append((time.process_time() - cpu) * 1000)
        app.close()
    p50 = {mode: percentile(values, 50) for mode, values in latencies.items()}
    for mode, values in latencies.items():
        cpu = sum(cpu_ms[mode]) / len(cpu_ms[mode])
        p95 = percentile(values, 95)
        print(f"{mode}: n={len(values)} p50 {p50[mode]:.1f} ms, p95 {p95:.1f} ms, CPU {cpu:.1f} ms/question")
    if {"off", "on"} <= set(p50):
        print(f"overhead at p50: {p50['on'] - p50['off']:+.1f} ms ({(p50['on'] / p50['off'] - 1) * 100:+.1f} %)")


if __name__ == "__main__":
    main()
