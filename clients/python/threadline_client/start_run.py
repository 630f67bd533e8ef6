from pydantic import Field

from .base_model import BaseModel
from .fragments import Started


class StartRun(BaseModel):
    start_run: "StartRunStartRun" = Field(alias="startRun")


StartRunStartRun = Started
StartRun.model_rebuild()
