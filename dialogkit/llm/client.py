"""The OpenAI-compatible client: one deadline per call, our own retries, usage accounting.

Built on the ``openai`` SDK so any compatible endpoint works (``base_url``), but the SDK's own
retries are switched off (``max_retries=0``): its backoff knows nothing of the bot's per-turn
deadline. What to send, what to retry and how to step down to a structured-output mode the
server takes is decided once, by the sans-IO steps of ``exchange`` and ``structured``; this
client only performs them, either with ``openai.OpenAI`` (``run``, ``chat``) or with
``openai.AsyncOpenAI`` (``arun``, ``achat``). Every failure surfaces as one ``LLMError`` carrying
the SDK's exception, which the bot turns into "use the rules".

The ``openai`` SDK is imported when the first client is built, not with this module: it costs
about a third of a second, and a rule-based bot (or ``dialogkit validate``) never needs it. The
async SDK client is made on first async use, for the event loop it runs in.

The API key is never logged, printed or put in a repr. See docs/llms.md.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from typing import Any, TypeVar

from dialogkit import tracing
from dialogkit.errors import LLMError
from dialogkit.llm.exchange import Endpoint, Exchange, Failure, LLMRejected, LLMResult, Send, Sleep, Steps, ToolCall
from dialogkit.llm.structured import negotiated_mode
from dialogkit.logging import get_logger
from dialogkit.model.session import Usage
from dialogkit.spec.schema import LLMSpec

__all__ = [
    "OPENAI_URL",
    "LLMClient",
    "LLMRejected",
    "LLMResult",
    "ToolCall",
]

log = get_logger(__name__)

T = TypeVar("T")

DEFAULT_BACKOFF_S = 0.5
DEFAULT_MAX_BACKOFF_S = 8.0
OPENAI_URL = "https://api.openai.com/v1"
"""The server a client without a base URL talks to (the key its negotiated mode is kept under)."""


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
        self.endpoint = Endpoint(spec, spec.model, (self.base_url or OPENAI_URL).rstrip("/"), backoff_s, max_backoff_s)
        self._sdk = openai.OpenAI(api_key=key, base_url=self.base_url, max_retries=0, timeout=spec.timeout_s)
        self._async_sdk: Any = None
        self._async_loop: asyncio.AbstractEventLoop | None = None

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

    @property
    def mode(self) -> str | None:
        """The structured-output mode this client's server is asked in (None until ``auto`` has asked)."""
        return negotiated_mode(self.endpoint.server, self.spec.structured_output)

    def close(self) -> None:
        """Close the pooled HTTP connections of the sync SDK client (``aclose`` closes the async one)."""
        self._sdk.close()

    async def aclose(self) -> None:
        """Close both SDK clients' connections; call it from the event loop the async calls ran in."""
        self._sdk.close()
        if self._async_sdk is not None:
            sdk, self._async_sdk, self._async_loop = self._async_sdk, None, None
            await sdk.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------------ performing steps

    def exchange(self, deadline_s: float | None = None, *, charge: Usage | None = None) -> Exchange:
        """A new call within ``deadline_s`` (default ``spec.timeout_s``), its usage also charged to ``charge``."""
        return Exchange(self.endpoint, self.usage, deadline_s=deadline_s, charge=charge)

    def run(self, steps: Steps[T]) -> T:
        """Perform ``steps`` with the sync SDK, blocking; their result, or what they raised."""
        outcome: Any = None
        try:
            while True:
                action = steps.send(outcome)
                if isinstance(action, Sleep):
                    time.sleep(action.seconds)
                    outcome = None
                else:
                    outcome = self._send(action)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        finally:
            steps.close()

    async def arun(self, steps: Steps[T]) -> T:
        """Perform ``steps`` with the async SDK; the same steps, results and errors as ``run``."""
        outcome: Any = None
        try:
            while True:
                action = steps.send(outcome)
                if isinstance(action, Sleep):
                    await asyncio.sleep(action.seconds)
                    outcome = None
                else:
                    outcome = await self._asend(action)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        finally:
            steps.close()

    def _send(self, action: Send) -> Any:
        with tracing.span(tracing.LLM_CALL) as span:
            try:
                outcome = self._sdk.chat.completions.create(**action.request, timeout=action.timeout)
            except Exception as exc:  # a garbage body raises ValueError, not OpenAIError
                outcome = Failure(exc)
            tracing.describe_llm(span, action.request, outcome)
            return outcome

    async def _asend(self, action: Send) -> Any:
        with tracing.span(tracing.LLM_CALL) as span:
            try:
                outcome = await self._async_client().chat.completions.create(**action.request, timeout=action.timeout)
            except Exception as exc:  # a garbage body raises ValueError, not OpenAIError
                outcome = Failure(exc)
            tracing.describe_llm(span, action.request, outcome)
            return outcome

    def _async_client(self) -> Any:
        """The ``AsyncOpenAI`` client of the running event loop (its connections belong to that loop)."""
        loop = asyncio.get_running_loop()
        if self._async_sdk is None or self._async_loop is not loop:
            import openai

            self._async_sdk = openai.AsyncOpenAI(api_key=self._sdk.api_key, base_url=self.base_url, max_retries=0,
                                                 timeout=self.spec.timeout_s)
            self._async_loop = loop
        return self._async_sdk

    # ------------------------------------------------------------------------ one completion

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
        failing, answers a non-retryable error (``LLMRejected``), or answers nothing usable.
        """
        exchange = self.exchange(deadline_s)
        request = exchange.request(messages, response_format=response_format, tools=tools, temperature=temperature)
        return self.run(exchange.complete(request))

    async def achat(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        response_format: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        deadline_s: float | None = None,
        temperature: float | None = None,
    ) -> LLMResult:
        """``chat`` through the async SDK."""
        exchange = self.exchange(deadline_s)
        request = exchange.request(messages, response_format=response_format, tools=tools, temperature=temperature)
        return await self.arun(exchange.complete(request))
