"""The OpenAI-compatible client: one deadline per call, our own retries, usage accounting.

Built on the ``openai`` SDK so any compatible endpoint works (``base_url``), but the SDK's own
retries are switched off (``max_retries=0``): its backoff knows nothing of the bot's per-turn
deadline. Here timeouts, connection errors, 429 and 5xx are retried with exponential backoff
(honouring ``Retry-After``, capped) only while the deadline allows, and every failure surfaces
as one ``LLMError`` carrying the SDK's exception, which the bot turns into "use the rules".

The ``openai`` SDK is imported when the first client is built, not with this module: it costs
about a third of a second, and a rule-based bot (or ``dialogkit validate``) never needs it.

The API key is never logged, printed or put in a repr. See docs/llms.md.
"""

from __future__ import annotations

import email.utils
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from dialogkit.errors import LLMError
from dialogkit.model.session import Usage
from dialogkit.spec.schema import LLMSpec

__all__ = [
    "LLMClient",
    "LLMResult",
    "ToolCall",
]

log = structlog.get_logger(__name__)

DEFAULT_BACKOFF_S = 0.5
DEFAULT_MAX_BACKOFF_S = 8.0


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for; ``arguments`` is the raw JSON text."""

    name: str
    arguments: str


@dataclass(frozen=True)
class LLMResult:
    """One completion and what it cost."""

    content: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    tool_calls: list[ToolCall] = field(default_factory=list)
    attempts: int = 1


def _retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``Retry-After``), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return float(millis) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return None if parsed is None else max(parsed.timestamp() - time.time(), 0.0)


def _retryable(exc: BaseException) -> bool:
    import openai  # already loaded: a client exists, or nothing could have failed

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return False


def _describe(exc: BaseException) -> str:
    import openai  # already loaded: a client exists, or nothing could have failed

    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "could not connect"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    if isinstance(exc, ValueError):
        return f"unreadable response body ({type(exc).__name__})"
    return type(exc).__name__


class LLMClient:
    """A chat client for one ``LLMSpec``; build it with ``from_spec`` to get None without a key.

    ``backoff_s`` / ``max_backoff_s`` shape the retry delays (first wait, cap); tests pass small
    values to stay fast.
    """

    def __init__(
        self,
        spec: LLMSpec,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        backoff_s: float = DEFAULT_BACKOFF_S,
        max_backoff_s: float = DEFAULT_MAX_BACKOFF_S,
    ) -> None:
        key = api_key or spec.api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise LLMError("no API key: set llm.api_key or OPENAI_API_KEY (the bot stays rule-based)")
        import openai  # only now: a keyless spec stays rule-based without paying for the SDK

        self.spec = spec
        self.model = spec.model
        self.base_url = base_url or spec.base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.usage = Usage()
        self._sdk = openai.OpenAI(api_key=key, base_url=self.base_url, max_retries=0, timeout=spec.timeout_s)

    @classmethod
    def from_spec(cls, spec: LLMSpec | None, **kwargs: Any) -> LLMClient | None:
        """The client for ``spec``, or None when there is no spec or no key (rule-based bot)."""
        if spec is None:
            return None
        try:
            return cls(spec, **kwargs)
        except LLMError as exc:
            log.info("llm_disabled", reason=str(exc), model=spec.model)
            return None

    def __repr__(self) -> str:
        return f"LLMClient(model={self.model!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the pooled HTTP connections."""
        self._sdk.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def chat(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        response_format: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        deadline_s: float | None = None,
        temperature: float | None = None,
    ) -> LLMResult:
        """One completion within ``deadline_s`` (default ``spec.timeout_s``), retries included.

        Raises ``LLMError`` (with ``original``) when the deadline passes, the server keeps
        failing, answers a non-retryable error, or answers nothing usable.
        """
        started = time.monotonic()
        deadline = started + (deadline_s if deadline_s is not None else self.spec.timeout_s)
        request = self._request(messages, response_format, tools, temperature)
        attempt = 0
        while True:
            attempt += 1
            # _retry_wait never sleeps past the deadline, so some time is always left here.
            remaining = max(deadline - time.monotonic(), 0.001)
            try:
                completion = self._sdk.chat.completions.create(**request, timeout=remaining)
            except Exception as exc:  # a garbage body raises ValueError, not OpenAIError
                time.sleep(self._wait_or_give_up(exc, attempt, deadline))
                continue
            return self._result(completion, started, attempt)

    def _request(
        self,
        messages: Sequence[dict[str, Any]],
        response_format: dict[str, Any] | None,
        tools: list[dict[str, Any]] | None,
        temperature: float | None,
    ) -> dict[str, Any]:
        """The completion request's keyword arguments; optional keys only when given."""
        request: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": self.spec.temperature if temperature is None else temperature,
        }
        if response_format is not None:
            request["response_format"] = response_format
        if tools:
            request["tools"] = tools
        return request

    def _wait_or_give_up(self, exc: Exception, attempt: int, deadline: float) -> float:
        """Seconds to sleep before retrying after ``exc``; raises ``LLMError`` when retrying is over."""
        wait = self._retry_wait(exc, attempt, deadline)
        log.warning(
            "llm_call_failed", model=self.model, attempt=attempt,
            error=_describe(exc), retry_in=None if wait is None else round(wait, 3),
        )
        if wait is None:
            self.usage.failures += 1
            raise LLMError(f"LLM call failed after {attempt} attempt(s): {_describe(exc)}", original=exc) from exc
        return wait

    def _retry_wait(self, exc: BaseException, attempt: int, deadline: float) -> float | None:
        """Seconds to wait before the next attempt, or None when we must give up now."""
        if not _retryable(exc) or attempt > self.spec.max_retries:
            return None
        wait = min(self.backoff_s * 2.0 ** (attempt - 1), self.max_backoff_s)
        asked = _retry_after(exc)
        if asked is not None:
            wait = min(max(asked, 0.0), self.max_backoff_s)
        if time.monotonic() + wait >= deadline:
            return None
        return wait

    def _result(self, completion: Any, started: float, attempt: int) -> LLMResult:
        latency = time.monotonic() - started
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices:
            self.usage.failures += 1
            raise LLMError("the LLM answered without choices (not an OpenAI-compatible body?)")
        message = choices[0].message
        content = (message.content or "").strip()
        calls = [
            ToolCall(name=call.function.name, arguments=call.function.arguments or "")
            for call in (message.tool_calls or [])
            if getattr(call, "function", None) is not None
        ]
        usage = getattr(completion, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        self.usage.calls += 1
        self.usage.prompt_tokens += prompt_tokens
        self.usage.completion_tokens += completion_tokens
        if not content and not calls:
            self.usage.failures += 1
            raise LLMError("the LLM answered with empty content")
        log.debug(
            "llm_call", model=self.model, attempts=attempt, latency_s=round(latency, 3),
            prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        )
        return LLMResult(content, prompt_tokens, completion_tokens, latency, calls, attempt)
