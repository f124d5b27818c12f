"""Every shipped bot keeps its behaviours through simulated conversations (docs/testing.md).

Fifty conversations per bot file under flows/ and examples/, generated from the file alone and
checked after every turn; any violation fails the bot's test with the conversation that showed
it. ``dialogkit simulate BOTFILE --save DIR`` shrinks it and writes it as a conversation test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.simulation import Options, simulate
from dialogkit.simulation.report import describe_class

ROOT = Path(__file__).resolve().parents[2]
BOTS = sorted([*ROOT.glob("flows/*.yaml"), *(p for p in ROOT.glob("examples/*/*.yaml") if not p.name.startswith("test_"))])
CONVERSATIONS = 50


@pytest.mark.simulation
@pytest.mark.parametrize("bot", BOTS, ids=[p.relative_to(ROOT).as_posix() for p in BOTS])
def test_simulated_conversations_break_no_behaviour(bot: Path) -> None:
    result = simulate(bot, Options(conversations=CONVERSATIONS, seed=0, shrink=False))
    assert result.tally.done == CONVERSATIONS
    found = [line for record in result.tally.classes.values() for line in describe_class(record, result.tally.done)]
    assert not found, f"{bot.relative_to(ROOT)}: simulated conversations broke behaviours\n" + "\n".join(found)
