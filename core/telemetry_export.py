"""Where telemetry goes: OpenTelemetry SDK providers and exporters built from the standard
``OTEL_*`` settings (:class:`core.settings.Settings`), handed to :func:`core.telemetry.use`."""

from __future__ import annotations

import importlib
import sys
from typing import Any

from core import telemetry
from core.errors import ConfigurationError
from core.settings import Settings

EXPORTERS = ("otlp", "console", "none")
"""Values of ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER`` understood here."""


def configure_telemetry(settings: Settings) -> bool:
    """Switch :mod:`core.telemetry` on from the ``OTEL_*`` settings, unless it is on already.

    On when ``OTEL_TRACES_EXPORTER`` or ``OTEL_METRICS_EXPORTER`` names ``otlp`` or ``console``,
    or when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set (an unset exporter is then ``otlp``);
    ``OTEL_SDK_DISABLED=true`` keeps it off. Console exporters write to stderr (stdout carries
    answers and the MCP stdio protocol); OTLP is http/protobuf (the ``otel`` extra), its exporter
    reading ``OTEL_EXPORTER_OTLP_*`` itself. The providers become the global ones, so spans of other
    instrumentations (the MCP server's) join the same traces. ``OTEL_SERVICE_NAME`` names the
    service (default ``agentic-rag``). Spans are batched; the providers flush at exit.

    Returns:
        Whether telemetry is on.

    Raises:
        ConfigurationError: an exporter other than :data:`EXPORTERS`, or ``otlp`` without the
            ``otel`` extra installed.
    """
    if telemetry.active():
        return True
    default = "otlp" if settings.otel_exporter_otlp_endpoint else "none"
    chosen = {}
    for kind, value in (("TRACES", settings.otel_traces_exporter), ("METRICS", settings.otel_metrics_exporter)):
        chosen[kind] = "none" if settings.otel_sdk_disabled else (value or default).strip().lower()
        if chosen[kind] not in EXPORTERS:
            raise ConfigurationError(
                f"OTEL_{kind}_EXPORTER={value!r} is not supported here; use one of {', '.join(EXPORTERS)}"
            )
    if chosen == {"TRACES": "none", "METRICS": "none"}:
        return False
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    resource = Resource.create({"service.name": "agentic-rag"})
    tracer_provider = meter_provider = None
    if chosen["TRACES"] != "none":
        tracer_provider = TracerProvider(resource=resource)
        console = chosen["TRACES"] == "console"
        exporter = ConsoleSpanExporter(out=sys.stderr) if console else _otlp("trace_exporter", "OTLPSpanExporter")
        tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
        trace.set_tracer_provider(tracer_provider)
    if chosen["METRICS"] != "none":
        console = chosen["METRICS"] == "console"
        exporter = ConsoleMetricExporter(out=sys.stderr) if console else _otlp("metric_exporter", "OTLPMetricExporter")
        meter_provider = MeterProvider([PeriodicExportingMetricReader(exporter)], resource=resource)
        metrics.set_meter_provider(meter_provider)
    telemetry.use(tracer_provider, meter_provider, settings.otel_capture_content)
    return True


def _otlp(module: str, name: str) -> Any:
    """The OTLP http/protobuf exporter class ``name`` of ``module``, built with its defaults."""
    try:
        exporters = importlib.import_module(f"opentelemetry.exporter.otlp.proto.http.{module}")
    except ImportError:
        raise ConfigurationError(
            "the OTLP exporter needs the otel extra: pip install 'agentic-rag[otel]' "
            "(or set OTEL_TRACES_EXPORTER=console and OTEL_METRICS_EXPORTER=console)"
        ) from None
    return getattr(exporters, name)()
