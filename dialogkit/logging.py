"""structlog configuration and the PII redaction every event goes through.

Phone numbers and e-mail addresses are masked in every event here; values of ``sensitive: true``
slots are masked by the turn before they reach a log call (``strings.redaction.mask_values``).
Both use the one ``MASK``, so a hidden value looks the same in a log as in an LLM prompt.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

from dialogkit.strings.redaction import mask_deep, mask_pii

_EXTRAS_STRUCTLOG_NEED_NOT = ("rich", "greenlet")
"""Optional imports of structlog that dialogkit never uses: rich (with pygments, about a hundred
modules and 4-5 MB per process) draws the console renderer's pretty tracebacks, and dialogkit
logs messages, never tracebacks; greenlet serves structlog's deprecated ``threadlocal`` module."""


@contextmanager
def _extras_hidden() -> Iterator[None]:
    """Import structlog as if its optional extras were absent, unless the process already has them.

    A ``None`` entry in ``sys.modules`` makes an optional ``import`` fail as if the package were
    missing; the entries go at once, so the application (and dialogkit's CLI) can still import them.
    """
    hidden = [name for name in _EXTRAS_STRUCTLOG_NEED_NOT if name not in sys.modules]
    if "structlog" in sys.modules:
        hidden = []
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


with _extras_hidden():
    import structlog


def get_logger(name: str) -> Any:
    """structlog's logger, from the one place that imports structlog (see ``_extras_hidden``)."""
    return structlog.get_logger(name)


def redact_pii(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog processor: mask phones and e-mails in every field of the event."""
    for key, value in list(event_dict.items()):
        if key != "event":
            event_dict[key] = mask_deep(value, mask_pii)
    return event_dict


_configured = False


def configure_logging(*, level: str = "WARNING", json: bool | None = None, force: bool = False) -> None:
    """Console rendering in a terminal, JSON lines otherwise; idempotent unless ``force``."""
    global _configured
    if _configured and not force:
        return
    if json is None:
        json = not sys.stderr.isatty()
    renderer: Any = structlog.processors.JSONRenderer(ensure_ascii=False) if json else structlog.dev.ConsoleRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            redact_pii,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    _configured = True


def configure_unless_configured() -> None:
    """dialogkit's defaults, unless the application has configured structlog its own way."""
    if not structlog.is_configured():
        configure_logging()


def enabled_for(level: int) -> bool:
    """Whether the configured structlog wrapper would emit ``level``.

    Lets hot paths skip building an event nobody will see; unknown wrapper classes count as enabled.
    """
    wrapper = structlog.get_config()["wrapper_class"]
    check = getattr(wrapper, "is_enabled_for", None)
    if check is None:
        return True
    try:
        return bool(check(None, level))
    except Exception:  # a wrapper whose check needs a real instance: assume it logs
        return True
