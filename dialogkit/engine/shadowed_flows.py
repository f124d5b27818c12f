"""Flows no user can reach: every trigger example of the flow scores higher for another flow.

A static check of ``dialogkit validate`` (a warning): it reads each example with the bot's own
rule understanding, exactly as a user turn would be read, so what it reports is what would
happen. It runs once per validation, never on a turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from dialogkit.model.interpretation import IntentScore
from dialogkit.spec.schema import BotFile
from dialogkit.spec.yaml_source import YamlPath
from dialogkit.understanding.language import fold
from dialogkit.understanding.rules import RuleUnderstanding

Found = tuple[YamlPath, str, str]


def intent_scores(understanding: RuleUnderstanding, text: str) -> list[IntentScore]:
    """The intents ``understanding.interpret(text, ...)`` gives, without its cues and language:
    the check needs only these, and the cue patterns it skips are compiled on first use."""
    folded = fold(text)
    entities = understanding.entities
    mentions = entities.resolve_overlaps(entities.find(text, folded, understanding.tracked_types, understanding.now()))
    return understanding.intents.score(folded, mentions)


def _winner(understanding: RuleUnderstanding, flow: str, example: str) -> str | None:
    """The flow chosen for ``flow``'s own example when it is another one (scores are sorted best
    first, ties in declaration order: a copied trigger loses to the flow declared before it)."""
    scores = intent_scores(understanding, example)
    if not scores or scores[0].flow == flow:
        return None
    return scores[0].flow


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
