from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import (
    HandoffKind,
    HandoffStrategy,
    ProviderAction,
    ResolutionStrategy,
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
    provider_thread: "StartedProviderThread" = Field(alias="providerThread")
    handoffs: list["StartedHandoffs"]
    consumed_transfers: list["StartedConsumedTransfers"] = Field(
        alias="consumedTransfers"
    )


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


class StartedConsumedTransfers(BaseModel):
    id: str
    type_: TransferType = Field(alias="type")
    resolution_strategy: Optional[ResolutionStrategy] = Field(
        alias="resolutionStrategy"
    )


Opened.model_rebuild()
Started.model_rebuild()
