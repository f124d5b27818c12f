"""Which languages the simulated users speak to a bot: those asked for, narrowed to the bot's own
when its file fixes one (``language: zh`` or ``language: en``). Such a bot is written for users
of that language; a Chinese turn sent to an English bot tests nothing its users do, and its
English replies would be reported as a language violation.
"""

from __future__ import annotations

from dialogkit.errors import DialogkitError
from dialogkit.lexicon import auto_languages
from dialogkit.simulation.vocabulary import LANGUAGES


class UnspokenLanguage(DialogkitError):
    """The languages asked for leave none the bot speaks (``--lang zh`` for a ``language: en`` bot)."""


def spoken_languages(bot_language: str, requested: tuple[str, ...]) -> tuple[str, ...]:
    """The languages of ``requested`` that users of a bot whose file says ``language: bot_language``
    speak: those ``auto`` picks between (zh, en) for ``auto``, else the bot's one."""
    if bot_language not in LANGUAGES:
        return tuple(lang for lang in requested if lang in auto_languages()) or requested
    if bot_language in requested:
        return (bot_language,)
    asked = " and ".join(requested) or "no language"
    raise UnspokenLanguage(f"the bot file says language: {bot_language}, so its users speak {bot_language} "
                           f"only; the simulation was asked for {asked} (use --lang {bot_language} or both)")
