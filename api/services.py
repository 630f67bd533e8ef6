"""What every request shares, built once at start-up: the app's typed lifespan state."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from api.audit import Audit
from api.closed import ClosedWorkspaces
from api.commands.summarizer_client import ConfiguredSummarizer
from api.graphql.event_feed import EventFeeds
from api.http.rate_limits import RateLimits
from api.live_tokens import LiveTokens
from api.settings import Settings
from graph.store import Store
from resolvers.providers import ProviderRegistry


@dataclass
class SocketSlots:
    """Open websocket connections per token, bounded by a setting."""

    limit: int
    open: Counter[str] = field(default_factory=Counter)

    def take(self, holder: str) -> bool:
        if self.open[holder] >= self.limit:
            return False
        self.open[holder] += 1
        return True

    def give_back(self, holder: str) -> None:
        self.open[holder] -= 1
        if self.open[holder] <= 0:
            del self.open[holder]


@dataclass(frozen=True)
class Services:
    settings: Settings
    store: Store
    providers: ProviderRegistry
    tokens: LiveTokens
    feeds: EventFeeds
    sockets: SocketSlots
    audit: Audit
    rate_limits: RateLimits
    closed: ClosedWorkspaces  # those a restore holds closed, as this process knows them
    summarizer: ConfiguredSummarizer | None = None  # None: no SUMMARIZER_URL set
