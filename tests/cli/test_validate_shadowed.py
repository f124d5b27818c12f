"""The shadowed-flow check of ``dialogkit validate`` reads examples exactly as a user turn is read.

It scores intents without the cues (``shadowed_flows.intent_scores``), so that validating never
compiles the cue patterns; these tests hold it to what ``interpret`` gives on every shipped bot.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dialogkit.engine.shadowed_flows import intent_scores, shadowed_flows
from dialogkit.spec.loader import check_bot_file
from dialogkit.understanding.rules import RuleUnderstanding

ROOT = Path(__file__).resolve().parents[2]
BOTS = sorted([*ROOT.glob("flows/*.yaml"), *ROOT.glob("examples/*/*.yaml")])
BOTS = [path for path in BOTS if not path.name.startswith("test_")]
UTTERANCES = ["我上周买的手机屏幕碎了", "my phone arrived broken", "查看订单 123456 的状态", "明天下午三点",
              "随便", "还有别的吗", "不用了，谢谢", "what else do you have", "I want to book a flight to Beijing"]


@pytest.mark.parametrize("path", BOTS, ids=[p.stem for p in BOTS])
def test_scores_are_those_of_interpret(path: Path) -> None:
    spec = check_bot_file(path).spec
    assert spec is not None
    understanding = RuleUnderstanding(spec, clock=lambda: 1_780_000_000.0)
    texts = [e for flow in spec.flows.values() for e in flow.trigger.examples] + UTTERANCES
    for text in texts:
        assert intent_scores(understanding, text) == understanding.interpret(text, "auto").intents, text


@pytest.mark.parametrize("path", BOTS, ids=[p.stem for p in BOTS])
def test_no_shipped_bot_has_a_shadowed_flow(path: Path) -> None:
    spec = check_bot_file(path).spec
    assert spec is not None
    assert list(shadowed_flows(spec)) == []
