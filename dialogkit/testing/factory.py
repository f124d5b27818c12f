"""The bots a test run builds: the real ``dialogkit.bot.Bot``, on the rules alone unless ``--llm`` asks.

Conversation tests are a regression suite: by default they run on the rules, which answer the
same way every time and need no server, even when the bot file has an ``llm:`` block and an API
key is set. ``--llm`` (``LLMOptions``) turns the bot's LLM on, from its ``llm:`` block (or the
defaults of one) with the server and model given on the command line written over it; the key is
the block's ``api_key`` or ``OPENAI_API_KEY``, never a command-line option, so it stays out of
shell histories and process lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dialogkit.actions.loading import load_bot_file
from dialogkit.bot import Bot
from dialogkit.errors import DialogkitError
from dialogkit.spec.schema import LLMSpec
from dialogkit.store import open_store
from dialogkit.testing.protocols import BotFactory, BotLike, Clock

__all__ = ["LLMOptions", "llm_bot_factory", "open_bot"]


@dataclass(frozen=True, slots=True)
class LLMOptions:
    """``--llm``: run the tests with the bot's LLM; a value given here replaces the bot file's."""

    base_url: str | None = None
    model: str | None = None

    def spec_for(self, written: LLMSpec | None) -> LLMSpec:
        """The bot file's ``llm:`` block (the defaults without one) with these options over it."""
        spec = written or LLMSpec()
        changes = {k: v for k, v in (("base_url", self.base_url), ("model", self.model)) if v is not None}
        return spec.model_copy(update=changes) if changes else spec


def open_bot(path: Path, store: str, actions: Mapping[str, Any], clock: Clock) -> BotLike:
    """The bot on the test's store, stubs and clock, answering by the rules alone (no ``llm:``)."""
    loaded = load_bot_file(path, actions=dict(actions))
    if loaded.spec.llm is not None:
        loaded = replace(loaded, spec=loaded.spec.model_copy(update={"llm": None}))
    return Bot(loaded, open_store(store), clock=clock)


def llm_bot_factory(options: LLMOptions) -> BotFactory:
    """A factory building bots with their LLM on; a bot left without one fails its test, saying why."""

    def open_llm_bot(path: Path, store: str, actions: Mapping[str, Any], clock: Clock) -> BotLike:
        loaded = load_bot_file(path, actions=dict(actions))
        bot = Bot(loaded, open_store(store), llm=options.spec_for(loaded.spec.llm), clock=clock)
        if bot.llm is None:
            bot.close()
            raise DialogkitError("--llm: the bot has no LLM: give its `llm:` block an `api_key`, or set "
                                 "OPENAI_API_KEY (any text for a local server)")
        return bot

    return open_llm_bot
