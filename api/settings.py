"""Service settings, read from THREADLINE_* environment variables."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from api import host_names
from graph.models import SummarySource
from graph.runtime.local_neo4j import LocalNeo4j, Ports
from resolvers.handoffs.budget import MIN_RESERVE_TOKENS, ContextPolicy
from resolvers.handoffs.sources import SummaryPolicy
from resolvers.start.staleness import StalenessPolicy


class LogFormat(StrEnum):
    """How `threadline serve` writes its log lines (api/process/logs.py)."""

    auto = "auto"  # JSON unless stderr is a terminal
    json = "json"
    text = "text"


def default_home() -> Path:
    """`.threadline` in the checkout this code runs from, whatever the working folder: an
    agent launches `threadline mcp` from its own project, and a relative folder would start
    a second, empty Neo4j there. Installed as a package (no checkout): the working folder's."""
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file():
        return checkout / ".threadline"
    return Path(".threadline")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="THREADLINE_", extra="ignore")

    neo4j_uri: str | None = Field(
        default=None, description="Bolt URI; unset = start the managed local Neo4j"
    )
    neo4j_browser_url: str | None = Field(
        default=None,
        description="Neo4j Browser of a configured Neo4j, for the front door; the managed "
        "Neo4j's is known",
    )
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str = "neo4j"
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = Field(
        default=1, ge=1, le=64, description="API processes on the port (one per core)"
    )
    keep_alive_s: int = Field(
        default=30,
        ge=1,
        description="an idle HTTP connection is kept this long; longer than clients' own pools",
    )
    access_log: bool = Field(
        default=False, description="one uvicorn line per request (a few % of CPU under load)"
    )
    log_format: LogFormat = Field(
        default=LogFormat.auto, description="json | text; auto: JSON unless stderr is a terminal"
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    home: Path = Field(
        default_factory=default_home,
        description="managed Neo4j and local state; unset: .threadline of the checkout",
    )
    tokens_file: Path | None = Field(
        default=None, description="re-read when it changes (within a second) or on SIGHUP"
    )
    audit_log: Path | None = Field(
        default=None, description="JSON lines of refusals and token changes; unset = stderr"
    )
    # Who may reach the service through a browser (docs/SECURITY.md, api/http/hosts.py):
    # host names it answers to besides loopback's and HOST's, and origins of pages beside
    # its own. Comma-separated in the environment.
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="host names, each at any port; others get 421"
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="origins (scheme://host[:port]); others get 403"
    )
    # Requests per token (per workspace when open), per API process: `burst` at once and
    # `rps` sustained (docs/OPERATIONS.md, "Rate limits"); 0 = no limit.
    rate_limit_rps: float = Field(default=50.0, ge=0)
    rate_limit_burst: int = Field(default=200, ge=1)
    rate_limit_hold_s: float = Field(
        default=1.0, ge=0, description="an HTTP 429 is answered after this pause (0: at once)"
    )
    providers_file: Path | None = None
    graphiql: bool = True
    production: bool = Field(default=False, description="no GraphiQL, no introspection")
    # Staleness thresholds (SEMANTICS "Staleness signals").
    # Defaults are the policy's own (resolvers/start/staleness.py), written there once.
    max_off_provider_runs: int = StalenessPolicy().max_off_provider_runs
    max_chained_handoffs: int = StalenessPolicy().max_chained_handoffs
    max_delta_chain: int = StalenessPolicy().max_delta_chain
    # Kept free in a native thread's window for the model's own work (at least this, at
    # least a quarter of the window).
    min_reserve_tokens: int = Field(default=MIN_RESERVE_TOKENS, ge=0)
    # Request limits.
    max_query_depth: int = 15
    max_query_tokens: int = 5000
    max_aliases: int = 30
    max_query_cost: int = Field(default=1_000_000, description="see api/graphql/cost.py")
    max_page_size: int = 200
    max_text_chars: int = 100_000
    max_name_chars: int = 500
    max_list_items: int = 1000
    max_body_bytes: int = 5 * 1024 * 1024
    max_json_depth: int = Field(default=64, description="nesting of request JSON and variables")
    # Subscriptions (graphql-transport-ws).
    max_subscriptions_per_connection: int = 20
    max_connections_per_token: int = 20
    subscription_poll_s: float = Field(default=0.5, description="one Neo4j poll per interval")
    db_timeout_s: float = 5.0
    warm_up_family: bool = Field(
        default=True,
        description="keep a small family in a hidden workspace, so Neo4j plans on a graph "
        "that is not empty (api/commands/warm_up.py)",
    )
    # Who writes handoff summaries (docs/SUMMARIES.md): the default source, and the
    # OpenAI-compatible chat-completions endpoint CONFIGURED calls.
    default_summary_source: SummarySource = SummarySource.LOCAL
    summarizer_url: str | None = Field(
        default=None, description="base URL, e.g. http://localhost:11434/v1"
    )
    summarizer_model: str | None = None
    summarizer_api_key: SecretStr | None = None  # sent as a bearer token, never logged
    summarizer_timeout_s: float = Field(default=30.0, gt=0, description="per attempt")
    summarizer_retries: int = Field(default=1, ge=0, le=5)
    summarizer_name: str = Field(default="configured", description="its createdByProvider")
    # Ports of the managed local Neo4j (and of the test one). Unset: the defaults, or
    # free ports when those are taken; set: that port, and a clear stop when it is taken.
    neo4j_bolt_port: int | None = Field(default=None, ge=1, le=65535)
    neo4j_http_port: int | None = Field(default=None, ge=1, le=65535)
    test_neo4j_bolt_port: int | None = Field(default=None, ge=1, le=65535)
    test_neo4j_http_port: int | None = Field(default=None, ge=1, le=65535)

    @field_validator("allowed_hosts", "allowed_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return [part for part in (p.strip() for p in value.split(",")) if part]
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _host_names(cls, value: list[str]) -> list[str]:
        return [host_names.host_name(name) for name in value]

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        return [host_names.origin(text) for text in value]

    def local_neo4j(self) -> LocalNeo4j:
        return LocalNeo4j(
            self.home / "neo4j" / "default",
            bolt_port=self.neo4j_bolt_port,
            http_port=self.neo4j_http_port,
        )

    def summary_policy(self) -> SummaryPolicy:
        return SummaryPolicy(
            default=self.default_summary_source,
            endpoint=bool(self.summarizer_url),
            model=self.summarizer_model,
            name=self.summarizer_name,
        )

    def context_policy(self) -> ContextPolicy:
        return ContextPolicy(min_reserve_tokens=self.min_reserve_tokens)

    def staleness_policy(self) -> StalenessPolicy:
        return StalenessPolicy(
            max_off_provider_runs=self.max_off_provider_runs,
            max_chained_handoffs=self.max_chained_handoffs,
            max_delta_chain=self.max_delta_chain,
        )


def test_neo4j(
    home: Path, bolt_port: int | None = None, http_port: int | None = None, worker: int = 0
) -> LocalNeo4j:
    """The throwaway server the test suite starts: own ports, auth off. A parallel run
    (pytest-xdist) gives each worker after the first a server of its own (`test-2`, ...),
    since every test empties the graph; the chosen ports are the first worker's."""
    first = worker == 0
    return LocalNeo4j(
        home / "neo4j" / ("test" if first else f"test-{worker + 1}"),
        bolt_port=bolt_port if first else None,
        http_port=http_port if first else None,
        auth_enabled=False,
        throwaway=True,
        kept_plans=True,
        default_ports=Ports(7688 + 10 * worker, 7475 + 10 * worker),
        port_settings=("THREADLINE_TEST_NEO4J_BOLT_PORT", "THREADLINE_TEST_NEO4J_HTTP_PORT"),
    )


def test_neo4j_servers(home: Path) -> list[LocalNeo4j]:
    """Every test server a run may have started under `home`, the first worker's first."""
    found = (f.name.removeprefix("test-") for f in (home / "neo4j").glob("test-*"))
    numbers = sorted(int(n) for n in found if n.isdigit())
    return [test_neo4j(home), *(test_neo4j(home, worker=n - 1) for n in numbers)]
