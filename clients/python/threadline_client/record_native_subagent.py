from pydantic import Field

from .base_model import BaseModel
from .fragments import (
    Opened,
    OpenedIncomingTransfers,  # noqa: F401
)


class RecordNativeSubagent(BaseModel):
    record_native_subagent: "RecordNativeSubagentRecordNativeSubagent" = Field(
        alias="recordNativeSubagent"
    )


class RecordNativeSubagentRecordNativeSubagent(Opened):
    provider_threads: list[
        "RecordNativeSubagentRecordNativeSubagentProviderThreads"
    ] = Field(alias="providerThreads")


class RecordNativeSubagentRecordNativeSubagentProviderThreads(BaseModel):
    id: str


RecordNativeSubagent.model_rebuild()
RecordNativeSubagentRecordNativeSubagent.model_rebuild()
