from pydantic import Field

from .base_model import BaseModel


class RecordNativeSubagent(BaseModel):
    record_native_subagent: "RecordNativeSubagentRecordNativeSubagent" = Field(
        alias="recordNativeSubagent"
    )


class RecordNativeSubagentRecordNativeSubagent(BaseModel):
    id: str
    incoming_transfers: list[
        "RecordNativeSubagentRecordNativeSubagentIncomingTransfers"
    ] = Field(alias="incomingTransfers")
    provider_threads: list[
        "RecordNativeSubagentRecordNativeSubagentProviderThreads"
    ] = Field(alias="providerThreads")


class RecordNativeSubagentRecordNativeSubagentIncomingTransfers(BaseModel):
    id: str


class RecordNativeSubagentRecordNativeSubagentProviderThreads(BaseModel):
    id: str


RecordNativeSubagent.model_rebuild()
RecordNativeSubagentRecordNativeSubagent.model_rebuild()
