"""Which source writes each summary a command builds (docs/MODEL.md, "Summary sources").

The source is asked per call, else set per entering provider in the providers file, else
the service's default (LOCAL unless configured). A handoff that covers no run carries
only the caller's own words (a task, subagent results) and is always LOCAL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from graph.errors import invalid
from graph.models import SummarySource
from graph.thread_state import ThreadState
from resolvers.handoffs.planning import PlannedHandoff
from resolvers.handoffs.requests import SummaryRequest, request_for
from resolvers.providers import ProviderCapabilities

URL_SETTING = "THREADLINE_SUMMARIZER_URL"
MODEL_SETTING = "THREADLINE_SUMMARIZER_MODEL"


class SummaryPolicy(BaseModel):
    """The service's summary settings, as decisions read them (no URL, no key)."""

    model_config = ConfigDict(frozen=True)

    default: SummarySource = SummarySource.LOCAL
    endpoint: bool = False  # a configured summarizer URL is set
    model: str | None = None
    name: str = "configured"  # createdByProvider of what the configured summarizer writes


class Assignment(BaseModel):
    """Who writes one planned handoff: the local summary, or a request to someone else."""

    model_config = ConfigDict(frozen=True)

    source: SummarySource
    request: SummaryRequest | None = None  # None: the local summary is the text

    @property
    def configured(self) -> bool:
        return self.request is not None and self.source is SummarySource.CONFIGURED


LOCAL = Assignment(source=SummarySource.LOCAL)


def chosen(
    asked: SummarySource | None, entering: ProviderCapabilities, policy: SummaryPolicy
) -> SummarySource:
    """The call's source, else the entering provider's, else the service's default."""
    return asked or entering.summary_source or policy.default


def require_available(source: SummarySource, policy: SummaryPolicy) -> None:
    """CONFIGURED needs a summarizer to call: refuse before anything is written."""
    if source is not SummarySource.CONFIGURED:
        return
    if not policy.endpoint:
        raise invalid(
            "summarySource CONFIGURED needs a configured summarizer, and none is set: set "
            f"{URL_SETTING} (an OpenAI-compatible base URL such as http://localhost:11434/v1) "
            f"and {MODEL_SETTING}, or ask for another summarySource."
        )
    if not policy.model:
        raise invalid(
            f"summarySource CONFIGURED needs {MODEL_SETTING}: the model the configured "
            "summarizer should use."
        )


def assign(
    plans: Sequence[PlannedHandoff],
    source: SummarySource,
    entering: ProviderCapabilities,
    states: Mapping[str, ThreadState],
    policy: SummaryPolicy,
) -> list[Assignment]:
    """Who writes each of `plans`; `states` hold the provider threads their runs ran on."""
    return [_assignment(plan, source, entering, states, policy) for plan in plans]


def _assignment(
    plan: PlannedHandoff,
    source: SummarySource,
    entering: ProviderCapabilities,
    states: Mapping[str, ThreadState],
    policy: SummaryPolicy,
) -> Assignment:
    material = plan.material
    if source is SummarySource.LOCAL or material is None or not material.summarisable:
        return LOCAL
    writer = {
        SummarySource.LEAVING_PROVIDER: leaving_provider(plan, entering, states),
        SummarySource.ENTERING_PROVIDER: entering.kind,
        SummarySource.CONFIGURED: policy.name,
    }[source]
    model = policy.model if source is SummarySource.CONFIGURED else None
    allowed = plan.allowedTokens if plan.allowedTokens is not None else entering.max_handoff_tokens
    request = request_for("", source, writer, entering.kind, material, allowed, model)
    return Assignment(source=source, request=request)


def leaving_provider(
    plan: PlannedHandoff, entering: ProviderCapabilities, states: Mapping[str, ThreadState]
) -> str:
    """The provider of the latest run the handoff covers: the one the context leaves."""
    runs = plan.material.runs if plan.material else []
    last = max(runs, key=lambda run: run.ordinal, default=None)
    for state in states.values():
        pt = state.provider_thread(last.providerThreadId if last else None)
        if pt is not None:
            return pt.provider
    return entering.kind
