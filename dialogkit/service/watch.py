"""``dialogkit serve --reload``: reload the bot file when it changes, keeping every session.

One ``stat`` a second; only when the modification time or the size moved are the bytes read and
hashed, and only different bytes reload, so saving the file unchanged does nothing. The reload
runs in a thread (it reads and compiles the file) while turns go on with the bot as it was; a
turn already running keeps the parts it started with (docs/lifecycle.md). A file with problems
is logged, problem by problem, and the running bot goes on.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from dialogkit.errors import DialogkitError, FlowError
from dialogkit.logging import get_logger
from dialogkit.spec.watch import FileWatch

if TYPE_CHECKING:
    from dialogkit.bot import Bot

__all__ = ["FileWatch", "watch_bot_file"]

log = get_logger("dialogkit.service")


def reload_now(bot: Bot) -> bool:
    """Reload ``bot`` from its file; False (and the problems logged) when the file does not load."""
    try:
        changed = bot.reload()
    except FlowError as exc:
        for problem in exc.problems:
            log.warning("reload_problem", problem=str(problem))
        log.warning("reload_failed", path=str(bot.path), reason="the bot file has problems; the previous "
                                                                "version keeps running")
        return False
    except DialogkitError as exc:
        log.warning("reload_failed", path=str(bot.path), reason=str(exc))
        return False
    return changed


async def watch_bot_file(bot: Bot, interval_s: float = 1.0) -> None:
    """Reload ``bot`` whenever its file changes, until cancelled."""
    if bot.path is None:
        return
    watch = FileWatch(Path(bot.path))
    while True:
        await asyncio.sleep(interval_s)
        changed = await asyncio.to_thread(watch.changed)
        if changed:
            await asyncio.to_thread(reload_now, bot)
