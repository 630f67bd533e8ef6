from pydantic import Field

from .base_model import BaseModel
from .fragments import Opened


class SpawnSubagent(BaseModel):
    spawn_subagent: "SpawnSubagentSpawnSubagent" = Field(alias="spawnSubagent")


SpawnSubagentSpawnSubagent = Opened
SpawnSubagent.model_rebuild()
