"""What operators see: log lines, the tracing switch, and the dashboard with its Prometheus
and compose profile (parsed here: no Docker engine runs the profile in the tests)."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import format_trace_id
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from api.http.metrics import Metrics
from api.process import telemetry
from api.process.logs import RequestIdFilter, logging_config
from api.settings import LogFormat

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
DASHBOARD: dict[str, Any] = json.loads((DEPLOY / "grafana" / "threadline.json").read_text())
SERIES = re.compile(r"\bthreadline_\w+")


def logged(fmt: LogFormat, request: str | None) -> str:
    """stderr of a process whose logging is `threadline serve`'s, which logs one line."""
    code = f"""
import logging.config
from api.process.logs import logging_config, request_id
from api.settings import LogFormat
logging.config.dictConfig(logging_config(LogFormat({fmt.value!r})))
request_id.set({request!r})
logging.getLogger("threadline.test").warning("stored %s", "it", extra={{"workspace": "w1"}})
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stderr


def test_a_json_log_line_names_its_request_and_keeps_the_extras() -> None:
    (line,) = logged(LogFormat.json, "req-1").splitlines()
    entry = json.loads(line)
    assert list(entry)[:5] == ["time", "level", "logger", "message", "request_id"]
    assert entry["level"] == "WARNING" and entry["logger"] == "threadline.test"
    assert entry["message"] == "stored it" and entry["request_id"] == "req-1"
    assert entry["workspace"] == "w1" and entry["time"].endswith("+00:00")
    assert json.loads(logged(LogFormat.json, None))["request_id"] is None


def test_a_text_log_line_is_for_a_person() -> None:
    (line,) = logged(LogFormat.text, "req-2").splitlines()
    assert line.startswith("WARNING:") and "stored it" in line and "req-2" in line


def test_access_lines_go_to_stderr_in_either_format() -> None:
    code = """
import logging.config, sys
from api.process.logs import logging_config
from api.settings import LogFormat
logging.config.dictConfig(logging_config(LogFormat(sys.argv[1])))
logging.getLogger("uvicorn.access").info(
    '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", "/readyz", "1.1", 200
)
"""
    for fmt in (LogFormat.text, LogFormat.json):
        done = subprocess.run(
            [sys.executable, "-c", code, fmt.value], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 0 and done.stdout == "", (fmt, done)
        assert "/readyz" in done.stderr, (fmt, done.stderr)


def test_a_line_written_inside_a_span_names_its_trace() -> None:
    record = logging.LogRecord("threadline.test", logging.INFO, __file__, 1, "hi", None, None)
    tracer = TracerProvider().get_tracer("test")
    with tracer.start_as_current_span("request") as span:
        RequestIdFilter().filter(record)
    assert record.__dict__["trace_id"] == format_trace_id(span.get_span_context().trace_id)
    outside = logging.LogRecord("threadline.test", logging.INFO, __file__, 1, "hi", None, None)
    RequestIdFilter().filter(outside)
    assert not hasattr(outside, "trace_id")


def test_traces_are_exported_only_with_an_endpoint() -> None:
    assert telemetry.from_environment({}) is None
    assert telemetry.from_environment({telemetry.ENDPOINT: ""}) is None
    found = telemetry.from_environment({telemetry.ENDPOINT: "http://127.0.0.1:4318"})
    assert found is not None
    try:
        assert found.provider.resource.attributes["service.name"] == "threadline"
    finally:
        found.close()


def exported_series() -> set[str]:
    """Every series name /metrics exports, each label set used once."""
    metrics = Metrics()
    metrics.operations.labels("createThread", "mutation", "ok").inc()
    metrics.latency.labels("createThread", "mutation").observe(0.01)
    text = generate_latest(metrics.registry).decode()
    return {
        sample.name for family in text_string_to_metric_families(text) for sample in family.samples
    }


def test_the_dashboard_charts_only_series_the_service_exports() -> None:
    exprs = [target["expr"] for panel in DASHBOARD["panels"] for target in panel["targets"]]
    used = {name for expr in exprs for name in SERIES.findall(expr)}
    assert used and used <= exported_series(), used - exported_series()
    charted = {
        name.removesuffix("_bucket").removesuffix("_sum").removesuffix("_count") for name in used
    }
    assert charted == {
        "threadline_graphql_operations_total",
        "threadline_graphql_operation_seconds",
        "threadline_bolt_round_trips_total",
    }
    ids = [panel["id"] for panel in DASHBOARD["panels"]]
    assert len(ids) == len(set(ids))


def test_grafana_is_provisioned_with_the_datasource_and_dashboard_it_names() -> None:
    provisioning = DEPLOY / "grafana" / "provisioning"
    sources = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text())
    [source] = sources["datasources"]
    [choice] = [v for v in DASHBOARD["templating"]["list"] if v["type"] == "datasource"]
    assert choice["current"]["value"] == source["uid"]
    assert source["url"] == "http://prometheus:9090" and "prometheus" in COMPOSE["services"]
    providers = yaml.safe_load((provisioning / "dashboards" / "threadline.yml").read_text())
    [provider] = providers["providers"]
    grafana = COMPOSE["services"]["grafana"]
    targets = {volume.split(":")[1] for volume in grafana["volumes"]}
    dashboard = PurePosixPath(provider["options"]["path"]) / "threadline.json"
    assert str(dashboard) in targets
    assert "/etc/grafana/provisioning" in targets


def test_prometheus_scrapes_the_api_with_the_token_compose_gives_it() -> None:
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    [job] = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    [static] = job["static_configs"]
    assert static["targets"] == ["api:8000"]
    prometheus = COMPOSE["services"]["prometheus"]
    [secret] = prometheus["secrets"]
    assert job["authorization"]["credentials_file"] == f"/run/secrets/{secret}"
    assert secret in COMPOSE["secrets"]


def test_the_observability_profile_holds_prometheus_and_grafana_only() -> None:
    profiled = {
        name
        for name, service in COMPOSE["services"].items()
        if "observability" in service.get("profiles", [])
    }
    assert profiled == {"prometheus", "grafana"}
    for name in profiled:
        for volume in COMPOSE["services"][name]["volumes"]:
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (ROOT / source).exists(), f"{name}: {source} is missing"


def test_a_broken_connection_is_logged_once_by_the_service_not_again_by_the_driver() -> None:
    """The driver logs each defunct connection at ERROR on `neo4j.io`; the request it
    broke is answered UNAVAILABLE and logged at WARNING by the service (api/graphql/errors.py)."""
    for fmt in (LogFormat.text, LogFormat.json):
        loggers = logging_config(fmt)["loggers"]
        assert loggers["neo4j.io"]["level"] == "CRITICAL"
        assert loggers["neo4j"]["level"] == "WARNING"  # the driver's other errors still show
