"""What a search asks the full-text index (resolvers/search.py builds it) and the texts it
finds (graph/repo.py reads them)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from graph.models import Node, RunItemKind


class FieldQueries(BaseModel):
    """One search's full-text queries (resolvers/search.py), one a field: Lucene ranks a
    query over one field far faster than one over the three (it can skip the texts that
    cannot make the best ones), and a node holds only one of the fields, so the best
    answers of the three rank as one query over the three fields would. None: that field
    is not searched."""

    model_config = ConfigDict(frozen=True)

    titles: str | None = None
    inputs: str | None = None
    texts: str | None = None


class SearchText(Node):
    """A text full-text search matched: a thread's title (`runOrdinal`, `index`, `kind`
    None), a run's input (`index` -1, `USER_GOAL`) or an item's text."""

    threadId: str
    runOrdinal: int | None = None
    index: int | None = None
    kind: RunItemKind | None = None
    text: str
    score: float
