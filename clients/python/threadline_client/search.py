from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import RunItemKind


class Search(BaseModel):
    search: list["SearchSearch"]


class SearchSearch(BaseModel):
    thread: "SearchSearchThread"
    run_ordinal: Optional[int] = Field(alias="runOrdinal")
    index: Optional[int]
    kind: Optional[RunItemKind]
    snippet: str
    score: float


class SearchSearchThread(BaseModel):
    id: str
    title: Optional[str]


Search.model_rebuild()
SearchSearch.model_rebuild()
