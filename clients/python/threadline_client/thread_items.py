from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import RunItemKind


class ThreadItems(BaseModel):
    thread: Optional["ThreadItemsThread"]


class ThreadItemsThread(BaseModel):
    items: "ThreadItemsThreadItems"


class ThreadItemsThreadItems(BaseModel):
    edges: list["ThreadItemsThreadItemsEdges"]
    page_info: "ThreadItemsThreadItemsPageInfo" = Field(alias="pageInfo")


class ThreadItemsThreadItemsEdges(BaseModel):
    node: "ThreadItemsThreadItemsEdgesNode"


class ThreadItemsThreadItemsEdgesNode(BaseModel):
    run_ordinal: int = Field(alias="runOrdinal")
    index: int
    kind: RunItemKind
    text: str
    path: Optional[str]


class ThreadItemsThreadItemsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


ThreadItems.model_rebuild()
ThreadItemsThread.model_rebuild()
ThreadItemsThreadItems.model_rebuild()
ThreadItemsThreadItemsEdges.model_rebuild()
