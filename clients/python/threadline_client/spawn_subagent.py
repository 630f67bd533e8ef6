from pydantic import Field

from .base_model import BaseModel


class SpawnSubagent(BaseModel):
    spawn_subagent: "SpawnSubagentSpawnSubagent" = Field(alias="spawnSubagent")


class SpawnSubagentSpawnSubagent(BaseModel):
    id: str
    incoming_transfers: list["SpawnSubagentSpawnSubagentIncomingTransfers"] = Field(
        alias="incomingTransfers"
    )


class SpawnSubagentSpawnSubagentIncomingTransfers(BaseModel):
    id: str


SpawnSubagent.model_rebuild()
SpawnSubagentSpawnSubagent.model_rebuild()
