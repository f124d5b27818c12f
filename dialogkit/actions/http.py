"""HTTP actions: an action the bot file declares as a call to a web service (``http_actions:``).

Dialogflow CX and Lex call a webhook; a team whose backend is not Python gets the same here. The
call is an ordinary action to the rest of the runtime, so the at-most-once machinery of
``engine.execution`` applies unchanged: every attempt of one run, and a run repeated after a
crash, carries the task's ``Idempotency-Key``, and ``idempotent`` in the file says whether the
service deduplicates by it (the ``@action(idempotent=...)`` of a Python action).

The body holds the slots in clear, sensitive ones too: the service needs them. So nothing here
logs a body, an answer or the URL (which may carry a token); log lines name the action, the
flow, the attempt and the status.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dialogkit.actions.registry import ActionContext, ActionOptions
from dialogkit.errors import ActionError
from dialogkit.lexicon import languages, lexicon
from dialogkit.logging import get_logger
from dialogkit.spec.schema import BotFile, HttpActionSpec

__all__ = ["HEADER", "HttpAction", "HttpSetupError", "failure_text", "http_actions", "is_unbuilt", "unbuilt"]

log = get_logger("dialogkit.actions")

HEADER = "Idempotency-Key"
RETRIED_STATUS = frozenset({408, 429})            # "later", not "never"; every 5xx is retried too
MAX_WAIT_S = 30.0                                 # the longest Retry-After honoured


class HttpSetupError(ActionError):
    """An HTTP action that cannot be built: an unset variable, a bad URL, httpx missing. ``env``
    names the variable at fault (None when none is), so the load can point at its key."""

    def __init__(self, message: str, *, env: str | None = None) -> None:
        super().__init__(message)
        self.env = env


def failure_text(kind: str, language: str) -> str:
    """What a failed call says (``unavailable``, ``refused``, ``invalid``) in ``language``, from
    its lexicon's ``http_failures``; a language whose lexicon lacks them says it in English."""
    said = language in languages() and lexicon(language).has("http_failures")
    return lexicon(language if said else "en").spellings("http_failures")[kind]


def _failure(kind: str, language: str, detail: str | None = None) -> ActionError:
    """The error a flow's ``on_error`` shows as ``{error}``: short, in the turn's language."""
    text = failure_text(kind, language)
    return ActionError(f"{text}: {detail}" if detail else text)


def _env(name: str, environ: Mapping[str, str], what: str) -> str:
    value = environ.get(name, "").strip()
    if not value:
        raise HttpSetupError(f"the environment variable {name} is not set ({what})", env=name)
    return value


@dataclass
class HttpAction:
    """One declared HTTP action, called like any action: a context in, the answer's values out.

    ``returns`` maps each flow that runs it to the keys its ``execute.returns`` promises; an
    answer lacking one is the flow's failure path, not a reply with a gap.
    """

    name: str
    spec: HttpActionSpec
    url: str
    headers: dict[str, str]
    returns: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.__name__ = f"http_{self.name}"
        self.__dialogkit_action__ = self.name
        self.__dialogkit_options__ = ActionOptions(idempotent=self.spec.idempotent)

    def __call__(self, ctx: ActionContext) -> Any:
        import httpx

        body = json.dumps(_body(self.name, ctx), ensure_ascii=False, default=str).encode("utf-8")
        headers = {**self.headers, "Content-Type": "application/json", HEADER: ctx.idempotency_key}
        with httpx.Client(timeout=self.spec.timeout_s, headers=headers, follow_redirects=False) as client:
            for attempt in range(1, self.spec.retries + 2):
                wait = self._attempt(client, body, ctx, attempt)
                if isinstance(wait, float):
                    time.sleep(wait)
                    continue
                return self._answer(wait, ctx)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _attempt(self, client: Any, body: bytes, ctx: ActionContext, attempt: int) -> Any:
        """The response to keep, or the seconds to wait before the next attempt."""
        import httpx

        last = attempt > self.spec.retries
        try:
            response = client.request(self.spec.method, self.url, content=body)
        except httpx.TransportError as exc:
            never_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
            self._log_attempt(ctx, attempt, error=type(exc).__name__)
            if last or not (never_sent or self.spec.idempotent):
                raise _failure("unavailable", ctx.language) from exc
            return self._backoff(attempt, None)
        status = response.status_code
        retryable = status in RETRIED_STATUS or status >= 500
        if retryable and (self.spec.idempotent or status == 429):
            self._log_attempt(ctx, attempt, status=status)
            if last:
                raise _failure("unavailable", ctx.language, f"HTTP {status}")
            return self._backoff(attempt, response.headers.get("Retry-After"))
        return response

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        wait = self.spec.backoff_s * 2.0 ** (attempt - 1)
        try:
            asked = float(retry_after) if retry_after is not None else None
        except ValueError:   # an HTTP date: keep the back-off
            asked = None
        return float(min(max(asked, 0.0), MAX_WAIT_S) if asked is not None else wait)

    def _log_attempt(self, ctx: ActionContext, attempt: int, *, status: int | None = None,
                     error: str | None = None) -> None:
        log.warning("http_action_attempt_failed", action=self.name, flow=ctx.flow, attempt=attempt,
                    attempts=self.spec.retries + 1, status=status, error=error, key=ctx.idempotency_key)

    def _answer(self, response: Any, ctx: ActionContext) -> Any:
        """The answer's values; a refusal or an answer breaking the flow's ``returns`` raises."""
        status = response.status_code
        data = _json(response)
        if not 200 <= status < 300:
            message = data.get("error") if isinstance(data, dict) else None
            log.warning("http_action_refused", action=self.name, flow=ctx.flow, status=status)
            if isinstance(message, str) and message.strip():
                raise ActionError(message.strip()[:200])   # the service's own words, as an action raising
            kind = "unavailable" if status in RETRIED_STATUS or status >= 500 else "refused"
            raise _failure(kind, ctx.language, f"HTTP {status}")
        if data is _INVALID:
            return self._invalid(ctx, status, "the body is not JSON")
        promised = self.returns.get(ctx.flow, [])
        if not promised:
            return data
        if not isinstance(data, dict):
            return self._invalid(ctx, status, "no JSON object" if data is None else
                                 f"a JSON {type(data).__name__} instead of an object")
        missing = [key for key in promised if key not in data]
        if missing:
            return self._invalid(ctx, status, f"no {', '.join(missing)} (promised by execute.returns)",
                                 keys=sorted(data))
        return data

    def _invalid(self, ctx: ActionContext, status: int, reason: str, *, keys: list[str] | None = None) -> Any:
        log.warning("http_action_invalid_answer", action=self.name, flow=ctx.flow, status=status, reason=reason,
                    keys=keys)
        raise _failure("invalid", ctx.language)


_INVALID = object()
_UNBUILT = "__dialogkit_unbuilt__"


def _json(response: Any) -> Any:
    """The answer as JSON: None for an empty body, ``_INVALID`` when it is not JSON."""
    if not response.content:
        return None
    try:
        return json.loads(response.content)
    except ValueError:
        return _INVALID


def _body(name: str, ctx: ActionContext) -> dict[str, Any]:
    """What the service receives: who asks, in which task, with which values."""
    body: dict[str, Any] = {
        "action": name, "flow": ctx.flow, "session_id": ctx.session_id, "user_id": ctx.user_id,
        "language": ctx.language, "idempotency_key": ctx.idempotency_key, "slots": dict(ctx.slots),
    }
    if ctx.value is not None:
        body["value"] = ctx.value          # a validator's candidate, or a handoff's summary
    return body


def unbuilt(error: HttpSetupError) -> Callable[[ActionContext], Any]:
    """A stand-in for an HTTP action that could not be built: it raises why, if it ever runs (the
    load reports the problem first, unless ``actions=`` replaces it)."""

    def cannot_run(ctx: ActionContext) -> Any:
        raise error

    setattr(cannot_run, _UNBUILT, True)
    return cannot_run


def is_unbuilt(func: object) -> bool:
    return bool(getattr(func, _UNBUILT, False))


def http_actions(spec: BotFile, environ: Mapping[str, str] | None = None
                 ) -> tuple[dict[str, HttpAction], dict[str, HttpSetupError]]:
    """The bot file's HTTP actions, read from ``environ`` (default: the process's), and those that
    cannot be built, with why."""
    env = os.environ if environ is None else environ
    built: dict[str, HttpAction] = {}
    failed: dict[str, HttpSetupError] = {}
    for name, declared in spec.http_actions.items():
        try:
            built[name] = _build(name, declared, spec, env)
        except HttpSetupError as exc:
            failed[name] = exc
    return built, failed


def _build(name: str, declared: HttpActionSpec, spec: BotFile, environ: Mapping[str, str]) -> HttpAction:
    url = _env(declared.url_env, environ, f"the URL of the http action '{name}'")
    if not url.lower().startswith(("http://", "https://")):
        raise HttpSetupError(f"the environment variable {declared.url_env} holds no http:// or https:// URL "
                             f"(the URL of the http action '{name}')", env=declared.url_env)
    headers = {header: _env(var, environ, f"the {header} header of the http action '{name}'")
               for header, var in declared.headers_env.items()}
    try:
        import httpx  # noqa: F401  # only checked here: the call imports it when it runs
    except ImportError:
        raise HttpSetupError("http actions need httpx: pip install 'dialogkit[http]'") from None
    returns = {flow_name: list(flow.execute.returns) for flow_name, flow in spec.flows.items()
               if flow.execute.action == name}
    return HttpAction(name, declared, url, headers, returns)
