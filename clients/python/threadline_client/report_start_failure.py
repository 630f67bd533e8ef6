from pydantic import Field

from .base_model import BaseModel
from .fragments import Started


class ReportStartFailure(BaseModel):
    report_start_failure: "ReportStartFailureReportStartFailure" = Field(
        alias="reportStartFailure"
    )


ReportStartFailureReportStartFailure = Started
ReportStartFailure.model_rebuild()
