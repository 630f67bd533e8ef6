from typing import Optional

from pydantic import Field

from .base_model import BaseModel


class CreateThread(BaseModel):
    create_thread: "CreateThreadCreateThread" = Field(alias="createThread")


class CreateThreadCreateThread(BaseModel):
    id: str
    title: Optional[str]


CreateThread.model_rebuild()
