"""Thresholds of the staleness policy (SEMANTICS "Staleness signals")."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class StalenessPolicy(BaseModel):
    model_config = ConfigDict(frozen=True)

    max_off_provider_runs: int = Field(default=25, ge=0)
    max_chained_handoffs: int = Field(default=6, ge=1)
    max_delta_chain: int = Field(default=3, ge=1)
