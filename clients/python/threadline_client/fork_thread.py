from pydantic import Field

from .base_model import BaseModel


class ForkThread(BaseModel):
    fork_thread: "ForkThreadForkThread" = Field(alias="forkThread")


class ForkThreadForkThread(BaseModel):
    id: str
    incoming_transfers: list["ForkThreadForkThreadIncomingTransfers"] = Field(
        alias="incomingTransfers"
    )


class ForkThreadForkThreadIncomingTransfers(BaseModel):
    id: str


ForkThread.model_rebuild()
ForkThreadForkThread.model_rebuild()
