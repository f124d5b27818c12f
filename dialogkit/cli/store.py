"""``dialogkit store purge BOTFILE [--store URL]``: delete what the bot's retention and session
timeout say is over, and print how much went (docs/cli.md, docs/stores.md).

This module is imported whenever ``dialogkit`` starts, so it imports the runtime only inside the
commands: ``dialogkit validate`` never pays for the store or the bot.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from dialogkit.bot import Bot

__all__ = ["STORE_URL_HELP", "open_bot", "purge_command", "store_app"]

STORE_URL_HELP = "sqlite:///path (default: ./.dialogkit/sessions.db), memory:// or redis://host:port/db."

store_app = typer.Typer(name="store", no_args_is_help=True, add_completion=False,
                        help="Look after the session store: purge what retention says is over.")


@store_app.command("purge")
def purge(
    bot_file: Annotated[Path, typer.Argument(help="The bot file (YAML): its retention and session_timeout.")],
    store: Annotated[str | None, typer.Option("--store", help=STORE_URL_HELP)] = None,
) -> None:
    """Delete expired sessions, and history messages and persisted values older than bot.retention."""
    raise typer.Exit(purge_command(bot_file, store))


def purge_command(bot_file: Path, store: str | None, console: Console | None = None) -> int:
    """Purge the bot's store and print the counts; 1 when the bot or the store cannot be opened."""
    from dialogkit.cli.consoles import plain_console
    from dialogkit.errors import DialogkitError

    out = console or plain_console()
    bot = open_bot(bot_file, store, console)
    if bot is None:
        return 1
    with bot:
        try:
            counts = bot.purge()
        except DialogkitError as error:
            (console or plain_console(stderr=True)).print(f"error: {error}", markup=False, soft_wrap=True)
            return 1
        settings = bot.spec.bot
        kept = f"older than {settings.retention}" if settings.retention is not None else "kept: no bot.retention"
        out.print(f"purged {bot.store.url} for bot {settings.name!r}:", markup=False, soft_wrap=True)
        out.print(f"  sessions: {counts['sessions']} (idle over {settings.session_timeout})", markup=False)
        out.print(f"  messages: {counts['messages']} ({kept})", markup=False)
        out.print(f"  values:   {counts['values']} ({kept})", markup=False)
    return 0


def open_bot(bot_file: Path, store: str | None, console: Console | None = None) -> Bot | None:
    """The bot on the given store, or None after printing (to stderr) every reason it cannot open."""
    from dialogkit.bot import Bot
    from dialogkit.cli.consoles import plain_console
    from dialogkit.errors import DialogkitError, FlowError
    from dialogkit.logging import configure_logging

    errors = console or plain_console(stderr=True)
    configure_logging(level="error", force=True)        # a purge or an export prints its result, not events
    try:
        return Bot.from_file(bot_file, store=store)
    except FlowError as error:
        for problem in error.problems:
            errors.print(str(problem), markup=False, soft_wrap=True)
    except (DialogkitError, OSError) as error:
        errors.print(f"error: {error}", markup=False, soft_wrap=True)
    return None
