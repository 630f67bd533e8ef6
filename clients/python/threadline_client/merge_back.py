from pydantic import Field

from .base_model import BaseModel


class MergeBack(BaseModel):
    merge_back: "MergeBackMergeBack" = Field(alias="mergeBack")


class MergeBackMergeBack(BaseModel):
    id: str


MergeBack.model_rebuild()
