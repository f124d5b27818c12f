"""``dialogkit user export|forget BOTFILE USER_ID [--store URL]``: a user's data, out or gone.

``export`` writes one JSON document (docs/stores.md describes it) to stdout, or with ``-o FILE``
to a file written atomically (readable by its owner only), never over an existing one unless
``--force``. ``forget`` deletes everything stored about the user; it asks first on a terminal,
and without a terminal it refuses unless ``--yes``, so a script never deletes by accident.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from dialogkit.cli.store import STORE_URL_HELP, open_bot

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["export_command", "forget_command", "user_app", "write_new_file"]

user_app = typer.Typer(name="user", no_args_is_help=True, add_completion=False,
                       help="A user's data: export everything stored about them, or forget it.")

BotFile = Annotated[Path, typer.Argument(help="The bot file (YAML).")]
UserId = Annotated[str, typer.Argument(help="The user id (the session id for sessions started without one).")]
StoreUrl = Annotated[str | None, typer.Option("--store", help=STORE_URL_HELP)]


@user_app.command("export")
def export(
    bot_file: BotFile, user_id: UserId, store: StoreUrl = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing -o file.")] = False,
) -> None:
    """Print (or write) everything stored about a user as one JSON document."""
    raise typer.Exit(export_command(bot_file, user_id, store, output, force))


@user_app.command("forget")
def forget(
    bot_file: BotFile, user_id: UserId, store: StoreUrl = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask; needed without a terminal.")] = False,
) -> None:
    """Delete everything stored about a user: sessions, history, persisted values."""
    raise typer.Exit(forget_command(bot_file, user_id, store, yes))


def export_command(bot_file: Path, user_id: str, store: str | None, output: Path | None = None,
                   force: bool = False, console: Console | None = None) -> int:
    """0 when the document was printed or written; 1 when the bot, the store or the file failed."""
    from dialogkit.cli.consoles import plain_console
    from dialogkit.errors import DialogkitError

    errors = console or plain_console(stderr=True)
    if output is not None and output.exists() and not force:
        errors.print(f"error: {output} exists; pass --force to replace it", markup=False, soft_wrap=True)
        return 1
    bot = open_bot(bot_file, store, console)
    if bot is None:
        return 1
    with bot:
        try:
            text = json.dumps(bot.export_user(user_id), ensure_ascii=False, indent=2) + "\n"
        except DialogkitError as error:
            errors.print(f"error: {error}", markup=False, soft_wrap=True)
            return 1
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        write_new_file(output, text.encode("utf-8"), replace=force)
    except OSError as error:
        errors.print(f"error: cannot write {output}: {error}", markup=False, soft_wrap=True)
        return 1
    errors.print(f"wrote {output}", markup=False, soft_wrap=True)
    return 0


def write_new_file(path: Path, data: bytes, *, replace: bool) -> None:
    """Write ``data`` to ``path`` all at once: a reader sees no file or the whole file.

    The bytes go to a private temporary file beside ``path`` first; it is then renamed over
    ``path`` (``replace``) or linked to it, which fails if ``path`` appeared in the meantime.
    """
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temp, path)
        else:
            _link_new(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def _link_new(temp: str, path: Path) -> None:
    """``path`` names ``temp``'s file, unless ``path`` exists (FileExistsError)."""
    try:
        os.link(temp, path)
    except FileExistsError:
        raise
    except OSError:                       # a filesystem without hard links: check, then rename
        if path.exists():
            raise FileExistsError(f"{path} exists") from None
        os.replace(temp, path)


def forget_command(bot_file: Path, user_id: str, store: str | None, yes: bool = False,
                   console: Console | None = None, confirm: Callable[[str], bool] | None = None) -> int:
    """0 when the user's data was deleted; 1 when refused, declined or failed.

    ``confirm`` asks the question (default: on the terminal, or refuse when there is none).
    """
    from dialogkit.cli.consoles import plain_console
    from dialogkit.errors import DialogkitError

    out = console or plain_console()
    errors = console or plain_console(stderr=True)
    ask = confirm or _ask_on_terminal(errors)
    bot = open_bot(bot_file, store, console)
    if bot is None:
        return 1
    with bot:
        try:
            sessions = len(bot.store.sessions_of(user_id))
            question = (f"Delete everything stored about user {user_id!r} for bot {bot.spec.bot.name!r} "
                        f"in {bot.store.url} ({sessions} session{'s' if sessions != 1 else ''}, "
                        f"their history and persisted values)?")
            if not yes and not ask(question):
                return 1
            counts = bot.forget_user(user_id)
        except DialogkitError as error:
            errors.print(f"error: {error}", markup=False, soft_wrap=True)
            return 1
    out.print(f"forgot user {user_id!r}: deleted {counts['sessions']} sessions, {counts['messages']} messages, "
              f"{counts['values']} persisted values", markup=False, soft_wrap=True)
    return 0


def _ask_on_terminal(console: Console) -> Callable[[str], bool]:
    def ask(question: str) -> bool:
        if not sys.stdin.isatty():
            console.print("refused: forgetting a user deletes their data for good; without a terminal "
                          "to confirm on, pass --yes", markup=False, soft_wrap=True)
            return False
        if typer.confirm(question, default=False):
            return True
        console.print("nothing deleted", markup=False)
        return False

    return ask
