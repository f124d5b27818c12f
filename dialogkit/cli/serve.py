"""``dialogkit serve BOTFILE``: the bot over HTTP (docs/serving.md).

Only typer is imported when the command line starts; FastAPI, uvicorn and the bot load when the
command runs, so ``dialogkit validate`` and the other commands never pay for them (and work
without the ``serve`` extra installed).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Annotated, Any

import typer

SERVE_EXTRA = ("fastapi", "uvicorn", "prometheus_client")
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def serve(
    bot_file: Annotated[Path, typer.Argument(help="The bot file (YAML).")],
    host: Annotated[str, typer.Option("--host", help="Address to listen on; 0.0.0.0 for every interface.")]
        = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port.")] = 8000,
    store: Annotated[str | None, typer.Option("--store", help="sqlite:///path, redis://host:port/db or memory://.")]
        = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Worker processes (over redis:// to scale out).")]
        = 1,
    token: Annotated[str | None, typer.Option("--token", help="Require 'Authorization: Bearer TOKEN' "
                                              "(default: $DIALOGKIT_TOKEN).")] = None,
    keys: Annotated[Path | None, typer.Option("--keys", help="API keys with scopes, one 'NAME sha256:DIGEST "
                                              "SCOPES' a line (also: $DIALOGKIT_API_KEYS).")] = None,
    reload: Annotated[bool, typer.Option("--reload", help="Reload the bot file when it changes; sessions are "
                                         "kept.")] = False,
    log_level: Annotated[str, typer.Option("--log-level", help="critical, error, warning, info or debug.")]
        = "info",
    max_turns_in_flight: Annotated[int | None, typer.Option(
        "--max-turns-in-flight", min=0, help="Turns one worker runs at once; more wait while the wait stays "
        "under 0.5 s, then 503 overloaded with "
        "Retry-After. 0: no limit (default: $DIALOGKIT_MAX_TURNS_IN_FLIGHT, else 64).")] = None,
    key_rate: Annotated[str | None, typer.Option("--key-rate", help="Requests per key: 100/s, 600/min or off "
                                                 "(default: $DIALOGKIT_KEY_RATE, else 100/s with keys).")] = None,
    key_burst: Annotated[int | None, typer.Option("--key-burst", min=1, help="Requests a key may send at once "
                                                  "(default: $DIALOGKIT_KEY_BURST, else 200).")] = None,
    session_rate: Annotated[str | None, typer.Option("--session-rate", help="Turns per session: 2/s, 30/min or "
                                                     "off (default: $DIALOGKIT_SESSION_RATE, else 2/s with keys).")]
        = None,
    session_burst: Annotated[int | None, typer.Option("--session-burst", min=1, help="Turns a session may send at "
                                                      "once (default: $DIALOGKIT_SESSION_BURST, else 10).")] = None,
    max_body: Annotated[int | None, typer.Option("--max-body", min=1, help="Largest request body in bytes; beyond, "
                                                 "413 (default: $DIALOGKIT_MAX_BODY, else 65536).")] = None,
    allow_origin: Annotated[list[str] | None, typer.Option("--allow-origin", help="Another site whose pages may "
                                                           "call the server (CORS, the widget); repeat for more "
                                                           "(also: $DIALOGKIT_WIDGET_ORIGINS).")] = None,
    otel: Annotated[bool, typer.Option("--otel", help="Export OpenTelemetry traces, set up by the OTEL_* "
                                       "variables (default: OTLP over HTTP to localhost:4318).")] = False,
) -> None:
    """Serve the bot over HTTP: JSON API, Rasa REST channel, /metrics, inspector page at /."""
    if log_level.lower() not in LOG_LEVELS:
        raise typer.BadParameter(", ".join(LOG_LEVELS), param_hint="--log-level")
    if not _traces_ready(otel):
        raise typer.Exit(1)
    limits = {"key_rate": key_rate, "key_burst": key_burst, "session_rate": session_rate,
              "session_burst": session_burst, "max_body": max_body, "allow_origins": " ".join(allow_origin or [])}
    raise typer.Exit(serve_command(bot_file, host, port, store, workers, token, reload, log_level.lower(), keys,
                                   max_turns_in_flight, limits=limits))


def serve_command(bot_file: Path, host: str, port: int, store: str | None, workers: int, token: str | None,
                  reload: bool, log_level: str, keys: Path | None = None,
                  max_turns_in_flight: int | None = None, *, limits: dict[str, Any] | None = None) -> int:
    """Check the options, then serve until stopped; 1 when the bot or the store cannot be used."""
    missing = [name for name in SERVE_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        typer.echo(f"dialogkit serve needs {', '.join(missing)}: pip install 'dialogkit[serve]'", err=True)
        return 1
    from dialogkit.errors import DialogkitError
    from dialogkit.service.server import TOKEN_ENV, ServeOptions, check_options, serve

    options = ServeOptions(bot_file=str(bot_file.resolve()), store=store, host=host, port=port, workers=workers,
                           token=token or os.environ.get(TOKEN_ENV) or None,
                           keys=str(keys.resolve()) if keys is not None else None, reload=reload, log_level=log_level,
                           max_turns_in_flight=max_turns_in_flight, **(limits or {}))
    try:
        warnings = check_options(options)
    except DialogkitError as error:
        return _cannot_serve(bot_file, error)
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    serve(options)
    return 0


def _traces_ready(otel: bool) -> bool:
    """With --otel, or OTEL_TRACES_EXPORTER set, each worker traces its turns (``tracing.
    configure_from_env``): ask for them in the environment the workers inherit, and check the
    extra is there before any worker starts."""
    if otel:
        os.environ.setdefault("OTEL_TRACES_EXPORTER", "otlp")
    if os.environ.get("OTEL_TRACES_EXPORTER", "none").strip() in ("", "none"):
        return True
    if importlib.util.find_spec("opentelemetry") is None or importlib.util.find_spec("opentelemetry.sdk") is None:
        typer.echo("traces need the otel extra: pip install 'dialogkit[otel]'", err=True)
        return False
    return True


def _cannot_serve(bot_file: Path, error: Exception) -> int:
    from dialogkit.cli.consoles import plain_console
    from dialogkit.cli.validate import print_problem
    from dialogkit.errors import FlowError

    console = plain_console(stderr=True)
    if isinstance(error, FlowError):
        for problem in error.problems:
            print_problem(console, problem)
    else:
        console.print(f"error: {error}", markup=False, soft_wrap=True)
    return 1
