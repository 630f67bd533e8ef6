from typing import Any, Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import RunItemKind


class CheckpointInput(BaseModel):
    diff_summary: list["FileDiffStatInput"] = Field(alias="diffSummary")
    ref: Optional[str] = None


class ContextUsageInput(BaseModel):
    context_tokens: int = Field(alias="contextTokens")
    context_window_tokens: Optional[int] = Field(
        alias="contextWindowTokens", default=None
    )
    input_tokens: Optional[int] = Field(alias="inputTokens", default=None)
    output_tokens: Optional[int] = Field(alias="outputTokens", default=None)


class FileDiffStatInput(BaseModel):
    path: str
    additions: int
    deletions: int
    change_kind: str = Field(alias="changeKind")


class RunItemInput(BaseModel):
    kind: RunItemKind
    text: str
    key: Optional[str] = None
    path: Optional[str] = None
    attributes: Optional[Any] = None


class SourcePointInput(BaseModel):
    run_id: Optional[str] = Field(alias="runId", default=None)
    checkpoint_id: Optional[str] = Field(alias="checkpointId", default=None)
    latest_stable: Optional[bool] = Field(alias="latestStable", default=None)
    item_index: Optional[int] = Field(alias="itemIndex", default=None)
    "With runId: fork at this item of the run (0-based, inclusive; -1: the run's input only)."


CheckpointInput.model_rebuild()
