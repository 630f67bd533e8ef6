"""GraphQL input types, and what each becomes in the graph's model."""

from __future__ import annotations

import strawberry
from pydantic import ValidationError
from strawberry.scalars import JSON

from api.graphql.enums import RunItemKind
from graph import models
from graph.errors import invalid


@strawberry.input
class RunItemInput:
    kind: RunItemKind
    text: str
    key: str | None = None
    path: str | None = None
    attributes: JSON | None = None

    def model(self) -> models.RunItem:
        return models.RunItem(
            kind=models.RunItemKind(self.kind),
            text=self.text,
            key=self.key,
            path=self.path,
            attributes=_attributes(self.attributes),
        )


@strawberry.input
class FileDiffStatInput:
    path: str
    additions: int
    deletions: int
    change_kind: str

    def model(self) -> models.FileDiffStat:
        # Checked here, not on the model: a graph written before the rule still reads.
        if self.additions < 0 or self.deletions < 0:
            raise invalid(
                f"diffSummary of {self.path!r}: additions and deletions are counts of lines, "
                f"never negative (got additions {self.additions}, deletions {self.deletions})."
            )
        return models.FileDiffStat(
            path=self.path,
            additions=self.additions,
            deletions=self.deletions,
            changeKind=self.change_kind,
        )


@strawberry.input
class CheckpointInput:
    diff_summary: list[FileDiffStatInput]
    ref: str | None = None


@strawberry.input
class ContextUsageInput:
    context_tokens: int
    context_window_tokens: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None

    def model(self) -> models.UsageReport:
        try:
            return models.UsageReport(
                contextTokens=self.context_tokens,
                contextWindowTokens=self.context_window_tokens,
                inputTokens=self.input_tokens,
                outputTokens=self.output_tokens,
            )
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()
            )
            raise invalid(f"usage: {problems}.") from error


@strawberry.input
class SourcePointInput:
    run_id: strawberry.ID | None = None
    checkpoint_id: strawberry.ID | None = None
    latest_stable: bool | None = None
    item_index: int | None = strawberry.field(
        default=None,
        description="With runId: fork at this item of the run (0-based, inclusive; -1: "
        "the run's input only).",
    )


def _attributes(value: object) -> dict[str, object] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise invalid("Run item attributes must be a JSON object.")
    return value
