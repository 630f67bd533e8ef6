from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import RunStatus


class CompleteRun(BaseModel):
    complete_run: "CompleteRunCompleteRun" = Field(alias="completeRun")


class CompleteRunCompleteRun(BaseModel):
    id: str
    status: RunStatus
    provider_thread: Optional["CompleteRunCompleteRunProviderThread"] = Field(
        alias="providerThread"
    )


class CompleteRunCompleteRunProviderThread(BaseModel):
    context_usage: Optional["CompleteRunCompleteRunProviderThreadContextUsage"] = Field(
        alias="contextUsage"
    )


class CompleteRunCompleteRunProviderThreadContextUsage(BaseModel):
    context_tokens: int = Field(alias="contextTokens")


CompleteRun.model_rebuild()
CompleteRunCompleteRun.model_rebuild()
CompleteRunCompleteRunProviderThread.model_rebuild()
