"""A question about what is around a thing is a question about that thing.

"故宫周边有什么餐馆？" / "what restaurants are near the Forbidden City?" names a restaurant's
trigger word, but it asks what the sight's surroundings hold: the flow that finds sights answers
it, with the sight named. The thing is a value of a place type only one flow takes, a trigger
word of that flow ("酒店周边", "near the hotel"), or, when the words name none, the thing the last
task was about ("周边有哪些酒店呢？" after a sight was found).

It must be a question: "故宫附近帮我叫辆出租车" asks for a taxi. A search around the thing stays
a search: "故宫附近评分4.5以上的餐馆" gives a restaurant's wishes, and the trigger's words decide
as before.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from dialogkit.engine.commands import Command, StartFlow
from dialogkit.engine.rules.base import Seen
from dialogkit.lexicon import word_pattern
from dialogkit.model.interpretation import Interpretation, Mention
from dialogkit.spec.compiler import CompiledFlow
from dialogkit.understanding.cues import is_question
from dialogkit.understanding.value_questions import is_no_value

__all__ = ["around_a_thing", "thing_flow"]

PLACE = "place"


_NEAR_AFTER = word_pattern("near_after")      # said after the thing: 故宫周边
_NEAR_BEFORE = word_pattern("near_before")    # said before it: near the hotel


def around_a_thing(seen: Seen) -> Sequence[Command]:
    """"故宫周边有什么餐馆？" / "what restaurants are near the Forbidden City?": the flow of the thing
    whose surroundings are asked, when the turn requests another flow and gives it no wish."""
    flow = thing_flow(seen)
    return [StartFlow(rule="around_a_thing", words=seen.ctx.interp.text.strip(), flow=flow)] if flow else []


def thing_flow(seen: Seen) -> str | None:
    """The flow of the thing whose surroundings the turn asks about, when the words request
    another flow and give it no wish; else None. Inside a task, the task keeps a turn about its
    own kind of thing (``in_task.digression``)."""
    sought = seen.intent()
    if sought is None:
        return None     # no other flow requested: nothing to redirect (the near words not looked for)
    text = seen.ctx.interp.text
    near = _near(seen.ctx.interp)
    if near is None or not is_question(text):
        return None     # "故宫附近帮我叫辆出租车" asks for a taxi, not what is around the sight
    mentions = seen.ctx.interp.mentions
    owners = _owners(seen)
    side = text[:near[0]] if near[2] else text[near[1]:]
    on_side = [m for m in mentions if (m.end <= near[0] if near[2] else m.start >= near[1])]
    resolution = seen.ctx.resolution
    bound = [b.entity.type for b in resolution.bindings] if resolution is not None else []
    if any(t not in owners for t in bound):
        return None     # "它周边" bound to a value, not a thing: no thing's surroundings
    thing = _thing(on_side, owners, near[2])
    flow = owners.get(thing.type) if thing is not None else owners[bound[-1]] if bound else None
    flow = flow or _keyword_flow(seen.bot.flows, side, near[2])
    if flow is None and not on_side:
        flow = _last_thing_flow(seen.ctx.session.last_flow, seen.bot.flows, owners)
    if flow is None or flow == sought or _wishes(seen.bot.flows[sought], mentions, thing, owners):
        return None
    return flow


def _near(interp: Interpretation) -> tuple[int, int, bool] | None:
    """The first near word: its span, and whether it follows the thing (True) or precedes it.
    The lexicon's words are found with the turn's reading, once a turn."""
    found = [(said[0].start(), said[0].end(), after) for pattern, after in ((_NEAR_AFTER, True), (_NEAR_BEFORE, False))
             if (said := interp.matches(pattern))]
    return min(found) if found else None


def _owners(seen: Seen) -> dict[str, str]:
    """Each declared place type one flow alone takes -> that flow: the flow of such things. A near
    slot takes a place to look around, not a thing the flow finds: the hotel search's "near which
    sight" leaves the sights to the sight search."""
    spec = seen.bot.texts.spec
    places = tuple(name for name in spec.entities if spec.entity_kind(name) == PLACE)
    flows = tuple((name, frozenset(s.entity for s in f.spec.slots if s.entity and not s.is_near))
                  for name, f in seen.bot.flows.items())
    return dict(_owners_of(flows, places))


@functools.cache
def _owners_of(flows: tuple[tuple[str, frozenset[str | None]], ...], places: tuple[str, ...]
               ) -> tuple[tuple[str, str], ...]:
    owners = []
    for place in places:
        taking = [name for name, types in flows if place in types]
        if len(taking) == 1:
            owners.append((place, taking[0]))
    return tuple(owners)


def _thing(on_side: list[Mention], owners: Mapping[str, str], after: bool) -> Mention | None:
    """The place value nearest the near word, on the thing's side of it."""
    places = [m for m in on_side if not m.builtin and m.type in owners]
    if not places:
        return None
    return places[-1] if after else places[0]


def _keyword_flow(flows: Mapping[str, CompiledFlow], side: str, after: bool) -> str | None:
    """The flow whose trigger keyword stands nearest the near word on the thing's side ("酒店周边")."""
    lowered = side.lower()
    hits = [(lowered.rfind(k.lower()) if after else lowered.find(k.lower()), name)
            for name, f in flows.items() for k in f.spec.trigger.keywords if k.lower() in lowered]
    if not hits:
        return None
    return (max(hits) if after else min(hits))[1]


def _last_thing_flow(last: str | None, flows: Mapping[str, CompiledFlow], owners: Mapping[str, str]) -> str | None:
    """The last task's flow, when it is the flow of a kind of thing (it alone takes a place type)."""
    return last if last is not None and last in flows and last in owners.values() else None


def _wishes(sought: CompiledFlow, mentions: Sequence[Mention], thing: Mention | None,
            owners: Mapping[str, str]) -> bool:
    """Whether the turn gives the flow sought a value besides the thing, or names a second thing:
    a search around it, or a route between two ("从故宫到金鸭餐厅，附近的地铁站")."""
    types = {s.entity for s in sought.spec.slots if s.entity} | set(owners)
    return any(m.type in types for m in mentions if m is not thing and not is_no_value(m.text))
