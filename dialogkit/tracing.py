"""OpenTelemetry traces of turns: a span per turn, and child spans for its parts.

    dialogkit.turn
      dialogkit.store.load          the session read (and locked)
      dialogkit.understanding       rules: language, flow scores, cues, entity types
      dialogkit.llm.call            each completion (model, tokens), understanding or rephrasing
      dialogkit.policy              look-ahead, the policy's triggers, every-turn memory
        dialogkit.action            each action run (name, flow, outcome)
      dialogkit.store.commit        the turn's one write

Tracing is off until asked for: ``enable()`` (an application with its own OpenTelemetry set-up),
or ``configure_from_env()`` when ``dialogkit serve --otel`` or ``OTEL_TRACES_EXPORTER`` says so.
Until then nothing imports opentelemetry (an import of about 60 ms), and every hook here is one
test of a module global returning a shared no-op: a turn allocates nothing for tracing.

Attributes name things, never say them: the bot, flows, states, triggers, cues, entity types,
action names, token counts. No user text, no slot value, no session or user id, no action error
message (an author's message may quote a value) goes into a span, so no sensitive value can.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialogkit.model.interpretation import Interpretation

__all__ = [
    "ACTION", "COMMIT", "LLM_CALL", "LOAD", "POLICY", "TURN", "UNDERSTANDING",
    "action", "atransaction", "aturn", "configure_from_env", "describe_llm", "describe_policy",
    "describe_turn", "describe_understanding", "disable", "enable", "enabled", "span", "transaction", "turn",
]

TURN = "dialogkit.turn"
LOAD = "dialogkit.store.load"
COMMIT = "dialogkit.store.commit"
UNDERSTANDING = "dialogkit.understanding"
POLICY = "dialogkit.policy"
ACTION = "dialogkit.action"
LLM_CALL = "dialogkit.llm.call"
EXPORTERS_ENV = "OTEL_TRACES_EXPORTER"
INSTALL = "tracing needs the otel extra: pip install 'dialogkit[otel]'"

_tracer: Any = None                  # an opentelemetry Tracer while tracing is on
_NOOP: nullcontext[None] = nullcontext()   # shared, reusable, sync and async: yields None


def enabled() -> bool:
    return _tracer is not None


def enable(provider: Any = None) -> None:
    """Trace turns with ``provider``'s tracer (default: the global provider an application set)."""
    global _tracer
    try:
        from opentelemetry import trace
    except ImportError as exc:
        raise RuntimeError(INSTALL) from exc
    source = provider if provider is not None else trace.get_tracer_provider()
    _tracer = source.get_tracer("dialogkit")


def disable() -> None:
    global _tracer
    _tracer = None


def configure_from_env(*, force: bool = False) -> bool:
    """When asked (``force``, or ``OTEL_TRACES_EXPORTER`` set and not ``none``), install an SDK
    tracer provider whose exporters, resource and sampler come from the standard ``OTEL_*``
    variables (``otlp``: OTLP over HTTP, to ``OTEL_EXPORTER_OTLP_ENDPOINT``; ``console``), and
    trace with it. Whether tracing is on."""
    names = [n.strip() for n in os.environ.get(EXPORTERS_ENV, "otlp" if force else "").split(",") if n.strip()]
    if not names or names == ["none"]:
        return False
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise RuntimeError(INSTALL) from exc
    resource = Resource.create()        # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": "dialogkit"}))
    provider = TracerProvider(resource=resource)
    for name in names:
        if name != "none":
            provider.add_span_processor(BatchSpanProcessor(_exporter(name)))
    trace.set_tracer_provider(provider)
    enable(provider)
    return True


def _exporter(name: str) -> Any:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter()
    if name != "otlp":
        raise RuntimeError(f"{EXPORTERS_ENV}={name} is not supported: use otlp, console or none")
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as exc:
        raise RuntimeError(INSTALL) from exc
    return OTLPSpanExporter()      # endpoint, headers, timeout: OTEL_EXPORTER_OTLP_* variables


# --------------------------------------------------------------------------- spans

def span(name: str) -> AbstractContextManager[Any]:
    """A child span of the current one (yielding it), or the shared no-op (yielding None).

    Exceptions end the span as an error named by the exception's type only: its message may quote
    a value."""
    if _tracer is None:
        return _NOOP
    return _spanning(name)


@contextmanager
def _spanning(name: str) -> Iterator[Any]:
    with _tracer.start_as_current_span(name, record_exception=False, set_status_on_exception=False) as current:
        try:
            yield current
        except BaseException as exc:
            _failed(current, exc)
            raise


def _failed(current: Any, exc: BaseException) -> None:
    from opentelemetry.trace import Status, StatusCode

    current.set_attribute("error.type", type(exc).__name__)
    current.set_status(Status(StatusCode.ERROR, type(exc).__name__))


def turn(bot: str) -> AbstractContextManager[Any]:
    """The span of one turn, a root unless the caller is traced (a web request, say)."""
    if _tracer is None:
        return _NOOP
    return _named(TURN, "dialogkit.bot", bot)


def aturn(bot: str) -> Any:
    """``turn`` for ``async with``."""
    if _tracer is None:
        return _NOOP
    return _async(_named(TURN, "dialogkit.bot", bot))


def action(name: str, flow: str) -> AbstractContextManager[Any]:
    """The span of one action run; its outcome is ``ok`` unless the action raised."""
    if _tracer is None:
        return _NOOP
    return _action(name, flow)


@contextmanager
def _action(name: str, flow: str) -> Iterator[Any]:
    with _spanning(ACTION) as current:
        current.set_attribute("dialogkit.action", name)
        if flow:
            current.set_attribute("dialogkit.flow", flow)
        try:
            yield current
        except BaseException:
            current.set_attribute("dialogkit.outcome", "error")
            raise
        current.set_attribute("dialogkit.outcome", "ok")


@contextmanager
def _named(name: str, key: str, value: str) -> Iterator[Any]:
    with _spanning(name) as current:
        current.set_attribute(key, value)
        yield current


@asynccontextmanager
async def _async(manager: AbstractContextManager[Any]) -> AsyncIterator[Any]:
    with manager as current:
        yield current


def transaction(manager: AbstractContextManager[Any]) -> AbstractContextManager[Any]:
    """The store's turn transaction, its entry (load and lock) and exit (commit) each a span."""
    if _tracer is None:
        return manager
    return _transaction(manager)


@contextmanager
def _transaction(manager: AbstractContextManager[Any]) -> Iterator[Any]:
    with span(LOAD):
        txn = manager.__enter__()
    try:
        yield txn
    except BaseException as exc:
        with span(COMMIT) as current:
            current.set_attribute("dialogkit.committed", False)
            if not manager.__exit__(type(exc), exc, exc.__traceback__):
                raise
    else:
        with span(COMMIT):
            manager.__exit__(None, None, None)


def atransaction(manager: Any) -> Any:
    """``transaction`` for an async store (``async with``)."""
    if _tracer is None:
        return manager
    return _atransaction(manager)


@asynccontextmanager
async def _atransaction(manager: Any) -> AsyncIterator[Any]:
    with span(LOAD):
        txn = await manager.__aenter__()
    try:
        yield txn
    except BaseException as exc:
        with span(COMMIT) as current:
            current.set_attribute("dialogkit.committed", False)
            if not await manager.__aexit__(type(exc), exc, exc.__traceback__):
                raise
    else:
        with span(COMMIT):
            await manager.__aexit__(None, None, None)


# --------------------------------------------------------------------------- attributes

def describe_turn(current: Any, ctx: Any) -> None:
    """Where the turn (an engine ``TurnContext``) left the session, and what it fired."""
    if current is None:
        return
    session = ctx.session
    current.set_attribute("dialogkit.turn", ctx.turn)
    current.set_attribute("dialogkit.language", ctx.language)
    current.set_attribute("dialogkit.state", session.state)
    flow = session.flow or (ctx.ended_task.flow if ctx.ended_task is not None else None)
    if flow:
        current.set_attribute("dialogkit.flow", flow)
    if ctx.transitions:
        current.set_attribute("dialogkit.trigger", ctx.transitions[-1])
        current.set_attribute("dialogkit.transitions", list(ctx.transitions))
    if ctx.action_runs:
        current.set_attribute("dialogkit.actions", [run.name for run in ctx.action_runs])
    current.set_attribute("dialogkit.clarification", ctx.clarification is not None)
    current.set_attribute("dialogkit.history_tokens", session.full_tokens)


def describe_understanding(current: Any, interp: Interpretation) -> None:
    """What the rules read, by name: the best flows, the cues, the entity types found."""
    if current is None:
        return
    current.set_attribute("dialogkit.language", interp.language)
    current.set_attribute("dialogkit.source", interp.source)
    if interp.intents:
        best = max(interp.intents, key=lambda intent: intent.score)
        current.set_attribute("dialogkit.intent", best.flow)
        current.set_attribute("dialogkit.intent_score", round(best.score, 3))
    if interp.cues:
        current.set_attribute("dialogkit.cues", sorted(interp.cues))
    if interp.mentions:
        current.set_attribute("dialogkit.entity_types", sorted({m.type for m in interp.mentions}))
    if interp.rejected:
        current.set_attribute("dialogkit.rejected_values", len(interp.rejected))


def describe_policy(current: Any, ctx: Any) -> None:
    """The triggers the policy fired and the memory actions that ran."""
    if current is None:
        return
    current.set_attribute("dialogkit.state", ctx.session.state)
    if ctx.session.flow:
        current.set_attribute("dialogkit.flow", ctx.session.flow)
    if ctx.transitions:
        current.set_attribute("dialogkit.transitions", list(ctx.transitions))
    if ctx.memory_run:
        current.set_attribute("dialogkit.memory_actions", list(ctx.memory_run))


def describe_llm(current: Any, request: dict[str, Any], completion: Any) -> None:
    """The model, the way JSON was asked for, and the tokens spent (never the messages)."""
    if current is None:
        return
    current.set_attribute("gen_ai.request.model", str(request.get("model", "")))
    response_format = request.get("response_format")
    if isinstance(response_format, dict):
        current.set_attribute("dialogkit.llm.response_format", str(response_format.get("type", "")))
    if request.get("tools"):
        current.set_attribute("dialogkit.llm.response_format", "tools")
    error = getattr(completion, "error", None)        # a Failure: what the call raised
    if isinstance(error, BaseException):
        current.set_attribute("error.type", type(error).__name__)
    usage = getattr(completion, "usage", None)
    if usage is not None:
        current.set_attribute("gen_ai.usage.input_tokens", int(getattr(usage, "prompt_tokens", 0) or 0))
        current.set_attribute("gen_ai.usage.output_tokens", int(getattr(usage, "completion_tokens", 0) or 0))
