from pydantic import Field

from .base_model import BaseModel


class CompleteSubagent(BaseModel):
    complete_subagent: "CompleteSubagentCompleteSubagent" = Field(
        alias="completeSubagent"
    )


class CompleteSubagentCompleteSubagent(BaseModel):
    id: str


CompleteSubagent.model_rebuild()
