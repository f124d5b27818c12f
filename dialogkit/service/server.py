"""``dialogkit serve``: uvicorn running the app in one or several worker processes.

Every worker builds its own bot from the same options, which reach it through one environment
variable (uvicorn starts workers as fresh processes that import the app by name). The options
are checked once, in the parent, before any worker starts: a bot file with problems or a store
that does not answer is reported once, plainly, rather than as a traceback per worker.

SIGTERM and Ctrl-C stop gracefully: uvicorn stops accepting connections and waits for the
requests in flight, each of which waits for its turn to be saved; then the app closes its bot.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dialogkit.errors import DialogkitError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from dialogkit.service.rates import Limits

__all__ = ["OPTIONS_ENV", "ServeOptions", "app_from_environment", "check_options", "serve"]

OPTIONS_ENV = "DIALOGKIT_SERVE_OPTIONS"
TOKEN_ENV = "DIALOGKIT_TOKEN"
MAX_BODY_ENV = "DIALOGKIT_MAX_BODY"
GRACEFUL_S = 30          # how long a stopping worker waits for the requests in flight
APP = "dialogkit.service.server:app_from_environment"


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """The command line's options, as every worker reads them."""

    bot_file: str
    store: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    token: str | None = None
    keys: str | None = None              # the keys file (docs/serving.md, "Keys and scopes")
    reload: bool = False
    log_level: str = "info"
    max_turns_in_flight: int | None = None   # per worker; None: $DIALOGKIT_MAX_TURNS_IN_FLIGHT or the default
    key_rate: str | None = None          # rate limits (docs/serving.md, "Rate limits"); None: the environment's
    key_burst: int | None = None
    session_rate: str | None = None
    session_burst: int | None = None
    max_body: int | None = None          # bytes; None: $DIALOGKIT_MAX_BODY or 64 KiB
    allow_origins: str = ""              # --allow-origin, added to $DIALOGKIT_WIDGET_ORIGINS

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls) -> ServeOptions:
        raw = os.environ.get(OPTIONS_ENV)
        if not raw:
            raise DialogkitError(f"{OPTIONS_ENV} is not set: start the server with 'dialogkit serve BOTFILE'")
        return cls(**json.loads(raw))


def check_options(options: ServeOptions) -> list[str]:
    """Warnings about ``options``; raises ``FlowError`` / ``DialogkitError`` when they cannot work.

    Loads the bot file (every problem at once) and opens the store once, so a typing mistake is
    reported before any worker starts.
    """
    from dialogkit.actions.loading import load_bot_file
    from dialogkit.service.keys import KEYS_ENV, load_keys
    from dialogkit.store import open_store

    keys = load_keys(options.keys, env=os.environ, token=options.token)
    turns_in_flight(options)
    widget_origins(options)
    rate_limits(options, keys=not keys.open)
    max_body(options)
    load_bot_file(options.bot_file)
    store = open_store(options.store)
    url = store.url
    store.close()
    warnings: list[str] = []
    if options.workers > 1 and url.startswith("memory:"):
        raise DialogkitError("--workers above 1 needs a shared store (redis:// or sqlite:///): with memory:// "
                             "each worker would keep sessions of its own")
    if options.workers > 1 and url.startswith("sqlite:"):
        warnings.append(f"{options.workers} workers share one SQLite file: turns stay correct, but every commit "
                        "waits for the file's write lock; use a redis:// store to scale out")
    if keys.open and options.host not in ("127.0.0.1", "localhost", "::1"):
        warnings.append(f"listening on {options.host} without a token or keys: anyone who can reach it can read "
                        f"every session; set --keys FILE, {KEYS_ENV}, --token or {TOKEN_ENV}")
    return warnings


def app_from_environment() -> FastAPI:
    """The app of one worker: uvicorn's factory, built from ``DIALOGKIT_SERVE_OPTIONS``."""
    from dialogkit.bot import Bot
    from dialogkit.logging import configure_logging
    from dialogkit.service.app import create_app
    from dialogkit.service.keys import load_keys
    from dialogkit.service.state import ServiceSettings
    from dialogkit.tracing import configure_from_env as configure_traces

    options = ServeOptions.from_env()
    configure_logging(level=options.log_level, force=True)
    configure_traces()                 # only with --otel or OTEL_TRACES_EXPORTER (docs/serving.md, "Traces")
    keys = load_keys(options.keys, env=os.environ, token=None).keys
    bot = Bot.from_file(options.bot_file, store=options.store)
    settings = ServiceSettings(token=options.token, keys=keys, reload=options.reload, close_bot=True,
                               freeze_gc=True, max_turns_in_flight=turns_in_flight(options),
                               widget_origins=widget_origins(options), max_body=max_body(options),
                               limits=rate_limits(options, keys=bool(keys or options.token)))
    return create_app(bot, settings)


def turns_in_flight(options: ServeOptions) -> int:
    """The limit of turns in flight per worker: the option's, else the environment's or the default;
    ``DialogkitError`` when the environment's is not a whole number."""
    from dialogkit.service.admission import max_turns_from_env

    if options.max_turns_in_flight is not None:
        return options.max_turns_in_flight
    try:
        return max_turns_from_env()
    except ValueError as error:
        raise DialogkitError(str(error)) from None


def serve(options: ServeOptions) -> None:
    """Run the server until SIGTERM or Ctrl-C (the options already checked)."""
    import uvicorn

    from dialogkit.service.listeners import reuse_port_works

    os.environ[OPTIONS_ENV] = options.to_env()
    made = _metrics_dir(options.workers)
    settings: dict[str, Any] = {
        "factory": True, "host": options.host, "port": options.port, "log_level": _uvicorn_level(options.log_level),
        "access_log": options.log_level == "debug", "timeout_graceful_shutdown": GRACEFUL_S, "lifespan": "on",
        "http": _http_protocol()}
    try:
        if options.workers > 1 and reuse_port_works():
            _run_workers(uvicorn.Config(APP, workers=options.workers, **settings))
        else:
            uvicorn.run(APP, workers=options.workers if options.workers > 1 else None, **settings)
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


def _run_workers(config: Any) -> None:
    """uvicorn's supervisor of worker processes, each listening on a socket of its own
    (``listeners``); what ``uvicorn.run`` does with workers, but for the socket."""
    import logging

    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    from dialogkit.service.listeners import WorkerSocket

    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    log = logging.getLogger("uvicorn.error")
    try:
        sock = WorkerSocket.bound(family, (config.host, config.port))
    except OSError as error:
        log.error(error)
        sys.exit(STARTUP_FAILURE)
    host = f"[{config.host}]" if family == socket.AF_INET6 else config.host
    log.info("Uvicorn running on http://%s:%d with %d workers, one socket each (Press CTRL+C to quit)",
             host, sock.getsockname()[1], config.workers)
    try:
        Multiprocess(config, sockets=[sock]).run()
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


def _http_protocol() -> Any:
    """uvicorn's httptools protocol with a response's writes sent together (``http_writes``);
    uvicorn's own choice where httptools is not installed."""
    try:
        from dialogkit.service.http_writes import HttpToolsBatched
    except ImportError:
        return "auto"
    return HttpToolsBatched


def widget_origins(options: ServeOptions | None = None) -> tuple[str, ...]:
    """The other sites whose pages may open the widget's WebSocket and call the API (CORS):
    ``DIALOGKIT_WIDGET_ORIGINS`` and ``--allow-origin``."""
    from dialogkit.service.widget import ORIGINS_ENV, parse_origins

    given = options.allow_origins if options is not None else ""
    return parse_origins(f"{os.environ.get(ORIGINS_ENV, '')} {given}")


def rate_limits(options: ServeOptions, *, keys: bool) -> Limits:
    """The rate limits of the options, else of the environment, else the defaults (on for a server
    with keys); ``LimitsError`` names the option or variable that cannot be read."""
    from dialogkit.service.rates import limits_from

    given = {"key_rate": options.key_rate, "key_burst": options.key_burst, "session_rate": options.session_rate,
             "session_burst": options.session_burst}
    return limits_from(given, os.environ, keys=keys)


def max_body(options: ServeOptions, env: Mapping[str, str] | None = None) -> int:
    """The body limit in bytes: ``--max-body``, else ``DIALOGKIT_MAX_BODY``, else 64 KiB."""
    from dialogkit.service.guard import MAX_BODY_BYTES

    if options.max_body is not None:
        return options.max_body
    raw = (os.environ if env is None else env).get(MAX_BODY_ENV, "").strip()
    if not raw:
        return MAX_BODY_BYTES
    if not raw.isdigit() or int(raw) < 1:
        raise DialogkitError(f"{MAX_BODY_ENV} must be a whole number of bytes, not {raw!r}")
    return int(raw)


def _metrics_dir(workers: int) -> Path | None:
    """With several workers, the directory where each one writes its metrics; the one made here
    (to delete at the end), or None when there is one worker or the caller chose the directory."""
    from dialogkit.service.metrics import MULTIPROC_ENV

    given = os.environ.get(MULTIPROC_ENV)
    if given:
        Path(given).mkdir(parents=True, exist_ok=True)
        for kind in ("counter", "histogram", "gauge", "summary"):   # a previous run's figures would add in
            for stale in Path(given).glob(f"{kind}_*.db"):
                stale.unlink(missing_ok=True)
        return None
    if workers <= 1:
        return None
    made = Path(tempfile.mkdtemp(prefix="dialogkit-metrics-"))
    os.environ[MULTIPROC_ENV] = str(made)
    return made


def _uvicorn_level(level: str) -> str:
    level = level.lower()
    return level if level in ("critical", "error", "warning", "info", "debug", "trace") else "info"
