from pydantic import Field

from .base_model import BaseModel


class RollbackThread(BaseModel):
    rollback_thread: "RollbackThreadRollbackThread" = Field(alias="rollbackThread")


class RollbackThreadRollbackThread(BaseModel):
    rolled_back_runs: list["RollbackThreadRollbackThreadRolledBackRuns"] = Field(
        alias="rolledBackRuns"
    )


class RollbackThreadRollbackThreadRolledBackRuns(BaseModel):
    ordinal: int


RollbackThread.model_rebuild()
RollbackThreadRollbackThread.model_rebuild()
