from pydantic import Field

from .base_model import BaseModel
from .fragments import Opened


class ForkThread(BaseModel):
    fork_thread: "ForkThreadForkThread" = Field(alias="forkThread")


ForkThreadForkThread = Opened
ForkThread.model_rebuild()
