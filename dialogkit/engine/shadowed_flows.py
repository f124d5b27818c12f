"""Flows no user can reach: every trigger example of the flow scores higher for another flow.

A static check of ``dialogkit validate`` (a warning): it reads each example with the bot's own
rule understanding, exactly as a user turn would be read, so what it reports is what would
happen. It runs once per validation, never on a turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from dialogkit.spec.schema import BotFile
from dialogkit.spec.yaml_source import YamlPath
from dialogkit.understanding.rules import RuleUnderstanding

Found = tuple[YamlPath, str, str]


def _winner(understanding: RuleUnderstanding, flow: str, example: str) -> str | None:
    """The other flow that scores higher than ``flow`` on its own example, if any."""
    scores = {s.flow: s.score for s in understanding.interpret(example, "auto").intents}
    own = scores.get(flow, 0.0)
    rivals = [(score, name) for name, score in scores.items() if name != flow and score > own]
    return max(rivals)[1] if rivals else None


def shadowed_flows(spec: BotFile) -> Iterator[Found]:
    """A warning for each flow whose trigger examples all match another flow better."""
    understanding = RuleUnderstanding(spec)
    for name, flow in spec.flows.items():
        examples = flow.trigger.examples
        if not examples:
            continue
        winners = [_winner(understanding, name, example) for example in examples]
        if any(w is None for w in winners):
            continue
        other = Counter(w for w in winners if w is not None).most_common(1)[0][0]
        yield (("flows", name, "trigger", "examples"),
               f"flow '{name}' is shadowed: each of its trigger examples matches flow '{other}' better, "
               "so no user reaches it",
               f"give '{name}' examples and keywords of its own, or merge it into '{other}'")
