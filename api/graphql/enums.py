"""The graph's enums, registered with Strawberry once: the contract's enums are the models'."""

from __future__ import annotations

import strawberry

from graph import models

# The graph's enums are the contract's: registered with Strawberry once, used as they are.
Actor = models.Actor
ThreadRelationship = models.ThreadRelationship
RunStatus = models.RunStatus
ProviderThreadStatus = models.ProviderThreadStatus
HistoryMode = models.HistoryMode
TransferType = models.TransferType
TransferStatus = models.TransferStatus
ResolutionStrategy = models.ResolutionStrategy
HandoffStrategy = models.HandoffStrategy
HandoffKind = models.HandoffKind
HandoffStatus = models.HandoffStatus
StartStrategy = models.StartStrategy
ProviderAction = models.ProviderAction
InjectionMode = models.InjectionMode
RunItemKind = models.RunItemKind
StalenessSignal = models.StalenessSignal
LineageDirection = models.LineageDirection
SummarySource = models.SummarySource
ContextWindowSource = models.ContextWindowSource
SessionFormat = models.SessionFormat
for _enum in (
    Actor,
    ThreadRelationship,
    RunStatus,
    ProviderThreadStatus,
    HistoryMode,
    TransferType,
    TransferStatus,
    ResolutionStrategy,
    HandoffStrategy,
    HandoffKind,
    HandoffStatus,
    StartStrategy,
    ProviderAction,
    InjectionMode,
    RunItemKind,
    StalenessSignal,
    LineageDirection,
    SummarySource,
    ContextWindowSource,
    SessionFormat,
):
    strawberry.enum(_enum)
