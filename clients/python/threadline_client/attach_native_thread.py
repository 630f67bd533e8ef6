from pydantic import Field

from .base_model import BaseModel
from .enums import ProviderThreadStatus


class AttachNativeThread(BaseModel):
    attach_native_thread: "AttachNativeThreadAttachNativeThread" = Field(
        alias="attachNativeThread"
    )


class AttachNativeThreadAttachNativeThread(BaseModel):
    id: str
    status: ProviderThreadStatus


AttachNativeThread.model_rebuild()
