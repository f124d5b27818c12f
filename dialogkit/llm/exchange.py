"""One LLM call as a sans-IO exchange: what to send, how long to wait, when to give up.

The sync client (``openai.OpenAI``) and the async one (``openai.AsyncOpenAI``) drive the same
generators. A step yields ``Send(request, timeout)`` or ``Sleep(seconds)`` and is sent back what
happened: the SDK's completion, or a ``Failure`` holding its exception. Retries, deadlines,
refusals and the negotiation of structured output are therefore written once; the two clients
differ only in how they wait (see ``LLMClient.run`` and ``LLMClient.arun``).

Only timeouts, connection errors, 429 and 5xx are retried, with back-off, while the deadline
allows. Any other answer means the server will not take this request: it is never sent again
unchanged, and it raises ``LLMRejected``, which says whether the server refused the request's
structured-output mode (a refusal: the caller may ask another way) and is logged once per process.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, TypeAlias, TypeVar

from dialogkit.errors import LLMError
from dialogkit.llm.bounds import MAX_REPLY_CHARS, MAX_TOOL_CALLS
from dialogkit.llm.once import log_once
from dialogkit.logging import get_logger
from dialogkit.model.session import Usage
from dialogkit.spec.schema import LLMSpec

__all__ = [
    "Endpoint",
    "Exchange",
    "Failure",
    "LLMRejected",
    "LLMResult",
    "Send",
    "Sleep",
    "Steps",
    "ToolCall",
    "chat_messages",
]

log = get_logger("dialogkit.llm.client")

T = TypeVar("T")

NOT_THE_REQUEST = frozenset({401, 403, 404})
"""4xx statuses no other way of asking would cure: a bad key, no access, a wrong URL or model."""
RETRIED_4XX = frozenset({408, 429})
"""4xx statuses that say "later", not "never": a request timeout and a rate limit."""


@dataclass(frozen=True)
class Send:
    """Send ``request`` (keyword arguments of ``chat.completions.create``) within ``timeout`` seconds."""

    request: dict[str, Any]
    timeout: float


@dataclass(frozen=True)
class Sleep:
    """Wait ``seconds`` before the next step."""

    seconds: float


@dataclass(frozen=True)
class Failure:
    """What a ``Send`` raised (the SDK's exception, or ``ValueError`` for a body that is not JSON)."""

    error: Exception


Action: TypeAlias = Send | Sleep
Steps: TypeAlias = Generator[Action, Any, T]
"""A sans-IO call: yields actions, is sent their outcome (completion, ``Failure`` or None), returns T."""


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for; ``arguments`` is the raw JSON text."""

    name: str
    arguments: str


@dataclass(frozen=True)
class LLMResult:
    """One completion and what it cost; ``mode`` is the structured-output mode it was asked in."""

    content: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    tool_calls: list[ToolCall] = field(default_factory=list)
    attempts: int = 1
    mode: str | None = None


class LLMRejected(LLMError):
    """The server will not take this request as it is, so it is not retried unchanged.

    ``refusal`` is True when the fault may be the structured-output mode the request asked for
    (any 4xx but 401/403/404, or a 5xx whose body names the request's ``response_format`` or
    ``tools``): asking another way may work.
    """

    def __init__(self, message: str, original: BaseException | None, *, status: int | None, refusal: bool) -> None:
        super().__init__(message, original=original)
        self.status = status
        self.refusal = refusal


@dataclass(frozen=True)
class Endpoint:
    """What every call of one client shares: its settings and the server it talks to."""

    spec: LLMSpec
    model: str
    server: str              # the base URL (OpenAI's when none is set): structured-output modes are kept per server
    backoff_s: float
    max_backoff_s: float


def chat_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` as every chat template takes them: one system message first, then user and
    assistant turns that alternate (consecutive ones of a role joined by a blank line).

    Local servers apply the model's own chat template, and many (Gemma, Llama 2, Mistral) fail on
    a second system message or two user messages in a row; OpenAI reads the merged form the same.
    """
    system = [str(m["content"]) for m in messages if m["role"] == "system" and m["content"]]
    merged: list[dict[str, Any]] = [{"role": "system", "content": "\n\n".join(system)}] if system else []
    for message in messages:
        if message["role"] == "system":
            continue
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1] = {**merged[-1], "content": f"{merged[-1]['content']}\n\n{message['content']}"}
        else:
            merged.append(dict(message))
    return merged


def _retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``Retry-After``), if any."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
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
        parsed = email.utils.parsedate_to_datetime(value)
        return None if parsed is None else max(parsed.timestamp() - time.time(), 0.0)


def _status(exc: BaseException) -> int | None:
    import openai  # already loaded: a client exists, or nothing could have failed

    return exc.status_code if isinstance(exc, openai.APIStatusError) else None


def _retryable(exc: BaseException, request: dict[str, Any]) -> bool:
    """Timeouts, connection errors, 408, 429 and 5xx, except a 5xx refusing the request's mode."""
    import openai  # already loaded: a client exists, or nothing could have failed

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    status = _status(exc)
    if status is None:
        return False
    return status in RETRIED_4XX or (status >= 500 and not _names_mode_key(exc, request))


def _names_mode_key(exc: BaseException, request: dict[str, Any]) -> bool:
    """Whether the error body names the request's ``response_format`` (or ``tools``): llama.cpp's
    Python server, for one, refuses an unknown ``response_format`` type with a 500 saying so."""
    key = "response_format" if "response_format" in request else "tools" if "tools" in request else None
    return key is not None and key in _body_text(exc)


def _body_text(exc: BaseException) -> str:
    response = getattr(exc, "response", None)
    try:
        text = response.text if response is not None else ""
    except Exception:  # a streamed or closed body: the SDK's message still says what went wrong
        text = ""
    return f"{text} {getattr(exc, 'message', '')} {getattr(exc, 'body', '')}"


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


class Exchange:
    """One call within one deadline: the requests it makes, retried as the server allows, and the
    usage of each completion charged to the client (``usage``) and the session (``charge``)."""

    def __init__(self, endpoint: Endpoint, usage: Usage, *, deadline_s: float | None = None,
                 charge: Usage | None = None) -> None:
        self.endpoint = endpoint
        self.spec = endpoint.spec
        self.usage = usage
        self.charge = charge
        self.started = time.monotonic()
        self.deadline = self.started + (deadline_s if deadline_s is not None else self.spec.timeout_s)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def request(self, messages: Sequence[dict[str, Any]], *, response_format: dict[str, Any] | None = None,
                tools: list[dict[str, Any]] | None = None, tool_choice: Any = None,
                temperature: float | None = None) -> dict[str, Any]:
        """The completion request's keyword arguments; optional keys only when given."""
        request: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": chat_messages(messages),
            "temperature": self.spec.temperature if temperature is None else temperature,
        }
        if self.spec.max_tokens is not None:
            request["max_tokens"] = self.spec.max_tokens
        if response_format is not None:
            request["response_format"] = response_format
        if tools:
            request["tools"] = tools
            if tool_choice is not None:
                request["tool_choice"] = tool_choice
        return request

    def complete(self, request: dict[str, Any], *, mode: str | None = None) -> Steps[LLMResult]:
        """Send ``request`` until it is answered, retrying what may pass later within the deadline.

        Raises ``LLMRejected`` when the server will not take it, ``LLMError`` when retrying is
        over (deadline, ``max_retries``) or the answer is unusable.
        """
        attempt = 0
        while True:
            attempt += 1
            # _retry_wait never sleeps past the deadline, so some time is always left here.
            answer = yield Send(request, max(self.remaining(), 0.001))
            if not isinstance(answer, Failure):
                return self._result(answer, attempt, mode)
            yield Sleep(self._wait_or_give_up(answer.error, request, attempt, mode))

    def _wait_or_give_up(self, exc: Exception, request: dict[str, Any], attempt: int, mode: str | None) -> float:
        """Seconds to sleep before retrying after ``exc``; raises when retrying is over or pointless."""
        if not _retryable(exc, request):
            raise self._not_retried(exc, attempt, mode) from exc
        wait = self._retry_wait(exc, attempt)
        log.warning("llm_call_failed", model=self.endpoint.model, attempt=attempt, error=_describe(exc),
                    retry_in=None if wait is None else round(wait, 3))
        if wait is None:
            self.usage.failures += 1
            raise LLMError(f"LLM call failed after {attempt} attempt(s): {_describe(exc)}", original=exc) from exc
        return wait

    def _not_retried(self, exc: Exception, attempt: int, mode: str | None) -> LLMError:
        """The error for an answer that retrying would not change, logged once per server, error and mode.

        A refusal (the mode may be at fault) is not counted as a failure: the caller asks another way.
        """
        status = _status(exc)
        refusal = status is not None and mode not in (None, "text") and status not in NOT_THE_REQUEST
        if not refusal:  # a refusal is the negotiation's to log: it may yet ask another way
            self.usage.failures += 1
            self.log_rejected(exc, mode, refusal=False)
        if status is None:
            return LLMError(f"LLM call failed after {attempt} attempt(s): {_describe(exc)}", original=exc)
        message = f"the server rejected the request: {_describe(exc)}" + (f" (mode {mode})" if mode else "")
        return LLMRejected(message, exc, status=status, refusal=refusal)

    def log_rejected(self, exc: BaseException | None, mode: str | None, *, refusal: bool) -> None:
        """Log a request the server would not take, once per process for each server, error and mode."""
        server, error = self.endpoint.server, _describe(exc) if exc is not None else "rejected"
        log_once(("rejected", server, error, mode), "llm_call_rejected", model=self.endpoint.model, server=server,
                 error=error, mode=mode, refusal=refusal)

    def _retry_wait(self, exc: BaseException, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None when we must give up now."""
        if attempt > self.spec.max_retries:
            return None
        wait = min(self.endpoint.backoff_s * 2.0 ** (attempt - 1), self.endpoint.max_backoff_s)
        asked = _retry_after(exc)
        if asked is not None:
            wait = min(max(asked, 0.0), self.endpoint.max_backoff_s)
        if time.monotonic() + wait >= self.deadline:
            return None
        return wait

    def _spend(self, prompt_tokens: int, completion_tokens: int) -> None:
        for usage in (self.usage, self.charge):
            if usage is not None:
                usage.calls += 1
                usage.prompt_tokens += prompt_tokens
                usage.completion_tokens += completion_tokens

    def _result(self, completion: Any, attempt: int, mode: str | None) -> LLMResult:
        latency = time.monotonic() - self.started
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices:
            self.usage.failures += 1
            raise LLMError("the LLM answered without choices (not an OpenAI-compatible body?)")
        content, calls = _bounded_answer(choices[0].message)
        usage = getattr(completion, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        self._spend(prompt_tokens, completion_tokens)
        if not content and not calls:
            self.usage.failures += 1
            raise LLMError("the LLM answered with empty content")
        if len(content) > MAX_REPLY_CHARS or sum(len(c.arguments) for c in calls) > MAX_REPLY_CHARS:
            self.usage.failures += 1
            raise LLMError(f"the LLM answer is longer than the {MAX_REPLY_CHARS} characters read")
        log.debug("llm_call", model=self.endpoint.model, attempts=attempt, latency_s=round(latency, 3), mode=mode,
                  prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        return LLMResult(content, prompt_tokens, completion_tokens, latency, calls, attempt, mode)


def _bounded_answer(message: Any) -> tuple[str, list[ToolCall]]:
    """The answer's text and its first ``MAX_TOOL_CALLS`` function calls (the rest never read)."""
    content = (message.content or "").strip()
    raw_calls = message.tool_calls or []
    calls = [
        ToolCall(name=call.function.name, arguments=call.function.arguments or "")
        for call in islice(raw_calls, MAX_TOOL_CALLS)
        if getattr(call, "function", None) is not None
    ]
    return content, calls
