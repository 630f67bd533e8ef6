"""The configured summarizer: an OpenAI-compatible chat-completions endpoint.

OpenAI, vLLM, llama.cpp's server, Ollama and LM Studio all speak it. One request per
handoff: the instructions as the system message, the material as JSON in the user
message. Each attempt is bounded as a whole by SUMMARIZER_TIMEOUT_S (connecting, sending,
reading the answer); timeouts, connection errors, 429 and 5xx answers are tried again,
SUMMARIZER_RETRIES times at most. Whatever goes wrong becomes a fallback reason, never an
error: the local summary stands in and the handoff records why. Identical requests made
while one is in flight share its answer.

The API key is sent as a bearer token only: no log line, fallback reason or error
message carries it (reasons name the kind of failure, never the URL or the headers).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

import httpx
from pydantic import SecretStr
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_fixed

from resolvers.handoffs.requests import SummaryRequest, SummaryResult, refusal

log = logging.getLogger("threadline.summarizer")
RETRY_WAIT_S = 0.2
# An answer may be this many bytes beyond what its budget allows (JSON, UTF-8): more is
# not a summary the handoff could hold, and is not read to the end.
BYTES_PER_TOKEN = 16
SLACK_BYTES = 16 * 1024


class _Transient(Exception):
    """An attempt that may succeed if made again; its message is the fallback reason."""


class _Refused(Exception):
    """An answer that will not get better by asking again."""


class ConfiguredSummarizer:
    def __init__(
        self,
        url: str,
        model: str,
        api_key: SecretStr | None,
        *,
        timeout_s: float,
        retries: int,
        name: str,
    ) -> None:
        self._endpoint = chat_completions_url(url)
        self._model = model
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._retries = retries
        self._name = name
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(timeout_s))
        self._in_flight: dict[str, asyncio.Task[SummaryResult]] = {}

    async def close(self) -> None:
        for task in list(self._in_flight.values()):
            task.cancel()
        await self._client.aclose()

    async def summarize(self, request: SummaryRequest) -> SummaryResult:
        """The summary of `request`, or why the local one stands in."""
        task = self._in_flight.get(request.key)
        if task is None:
            task = asyncio.create_task(self._summarize(request))
            self._in_flight[request.key] = task
            task.add_done_callback(self._forget)
        # Shielded: a request that gives up (its client went away) does not cancel the
        # call another request with the same material waits for.
        return await asyncio.shield(task)

    def _forget(self, done: asyncio.Task[SummaryResult]) -> None:
        for key, task in list(self._in_flight.items()):
            if task is done:
                del self._in_flight[key]

    async def _summarize(self, request: SummaryRequest) -> SummaryResult:
        began = time.monotonic()
        attempts = 0
        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception_type(_Transient),
                stop=stop_after_attempt(self._retries + 1),
                wait=wait_fixed(RETRY_WAIT_S),
                reraise=True,
            ):
                with attempt:
                    attempts += 1
                    text, model = await self._attempt(request)
        except (_Transient, _Refused) as failed:
            tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
            return self._fallback(request, f"{failed} ({tries})", began)
        reason = refusal(text, request.maxTokens)
        if reason is not None:
            return self._fallback(request, reason, began)
        return SummaryResult(
            key=request.key,
            text=text,
            createdBy=self._name,
            model=model or self._model,
            generationMs=_ms_since(began),
        )

    def _fallback(self, request: SummaryRequest, reason: str, began: float) -> SummaryResult:
        log.warning("configured summary of handoff %s fell back: %s", request.handoffId, reason)
        return SummaryResult(key=request.key, generationMs=_ms_since(began), fallbackReason=reason)

    async def _attempt(self, request: SummaryRequest) -> tuple[str | None, str | None]:
        headers = {"Accept": "application/json"}
        if self._api_key is not None and self._api_key.get_secret_value():
            headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
        cap = request.maxTokens * BYTES_PER_TOKEN + SLACK_BYTES
        try:
            async with asyncio.timeout(self._timeout_s):
                async with self._client.stream(
                    "POST", self._endpoint, json=self._body(request), headers=headers
                ) as response:
                    _check_status(response.status_code)
                    raw = await _read_at_most(response, cap)
        except (TimeoutError, httpx.TimeoutException) as error:
            raise _Transient(f"timeout: no answer within {self._timeout_s:g} s") from error
        except httpx.TransportError as error:
            raise _Transient(f"error: {type(error).__name__} reaching the summarizer") from error
        return _content(raw)

    def _body(self, request: SummaryRequest) -> dict[str, Any]:
        material = json.dumps(request.material.wire(), ensure_ascii=False, sort_keys=True)
        return {
            "model": self._model,
            "messages": [
                {"role": "system", "content": request.instructions},
                {"role": "user", "content": material},
            ],
            "max_tokens": request.maxTokens,
            "temperature": 0,
            "stream": False,
        }


def chat_completions_url(url: str) -> str:
    """The endpoint of a base URL (`…/v1`, as OpenAI clients take it) or of itself."""
    trimmed = url.rstrip("/")
    return trimmed if trimmed.endswith("/chat/completions") else f"{trimmed}/chat/completions"


def _check_status(status: int) -> None:
    if status == 429 or status >= 500:
        raise _Transient(f"error: HTTP {status} from the summarizer")
    if status >= 400:
        raise _Refused(f"error: HTTP {status} from the summarizer")


async def _read_at_most(response: httpx.Response, cap: int) -> bytes:
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body.extend(chunk)
        if len(body) > cap:
            raise _Refused(f"oversized: the answer is over {cap} bytes")
    return bytes(body)


def _content(raw: bytes) -> tuple[str | None, str | None]:
    """The message text and the model of a chat-completions answer."""
    try:
        answer = json.loads(raw)
        message = answer["choices"][0]["message"]
        text = message.get("content")
        model = answer.get("model")
    except (ValueError, LookupError, TypeError, AttributeError) as error:
        raise _Refused("malformed: not a chat-completions answer") from error
    if text is not None and not isinstance(text, str):
        raise _Refused("malformed: the message content is not text")
    return text, model if isinstance(model, str) else None


def _ms_since(began: float) -> float:
    return round((time.monotonic() - began) * 1000, 3)
