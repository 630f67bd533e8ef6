from pydantic import Field

from .base_model import BaseModel


class ImportSession(BaseModel):
    import_session: "ImportSessionImportSession" = Field(alias="importSession")


class ImportSessionImportSession(BaseModel):
    thread: "ImportSessionImportSessionThread"
    imported_runs: int = Field(alias="importedRuns")
    skipped_runs: int = Field(alias="skippedRuns")


class ImportSessionImportSessionThread(BaseModel):
    id: str


ImportSession.model_rebuild()
ImportSessionImportSession.model_rebuild()
