from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import (
    ContextWindowSource,
    HandoffKind,
    HandoffStrategy,
    InjectionMode,
    ProviderAction,
    ResolutionStrategy,
    RunItemKind,
    StalenessSignal,
    StartStrategy,
    TransferType,
)


class Opened(BaseModel):
    id: str
    incoming_transfers: list["OpenedIncomingTransfers"] = Field(
        alias="incomingTransfers"
    )


class OpenedIncomingTransfers(BaseModel):
    id: str


class Started(BaseModel):
    run: "StartedRun"
    strategy: StartStrategy
    provider_action: ProviderAction = Field(alias="providerAction")
    staleness_signals: list[StalenessSignal] = Field(alias="stalenessSignals")
    context_text: Optional[str] = Field(alias="contextText")
    injection_mode: InjectionMode = Field(alias="injectionMode")
    explanation: list[str]
    provider_thread: "StartedProviderThread" = Field(alias="providerThread")
    handoffs: list["StartedHandoffs"]
    consumed_transfers: list["StartedConsumedTransfers"] = Field(
        alias="consumedTransfers"
    )
    budget: "StartedBudget"


class StartedRun(BaseModel):
    id: str
    ordinal: int


class StartedProviderThread(BaseModel):
    id: str
    native_ref: Optional[str] = Field(alias="nativeRef")


class StartedHandoffs(BaseModel):
    id: str
    kind: HandoffKind
    strategy: HandoffStrategy
    token_estimate: int = Field(alias="tokenEstimate")
    omitted: list["StartedHandoffsOmitted"]
    quality: "StartedHandoffsQuality"


class StartedHandoffsOmitted(BaseModel):
    run_ordinal: int = Field(alias="runOrdinal")
    index: int
    kind: RunItemKind
    key: Optional[str]
    path: Optional[str]
    token_estimate: int = Field(alias="tokenEstimate")


class StartedHandoffsQuality(BaseModel):
    score: float
    facets: list["StartedHandoffsQualityFacets"]


class StartedHandoffsQualityFacets(BaseModel):
    kind: RunItemKind
    kept: int
    total: int
    missing: list[str]


class StartedConsumedTransfers(BaseModel):
    id: str
    type_: TransferType = Field(alias="type")
    resolution_strategy: Optional[ResolutionStrategy] = Field(
        alias="resolutionStrategy"
    )


class StartedBudget(BaseModel):
    window_tokens: int = Field(alias="windowTokens")
    window_source: ContextWindowSource = Field(alias="windowSource")
    used_tokens: int = Field(alias="usedTokens")
    reserve_tokens: int = Field(alias="reserveTokens")
    cap_tokens: int = Field(alias="capTokens")
    budget_tokens: int = Field(alias="budgetTokens")


Opened.model_rebuild()
Started.model_rebuild()
