"""Rules that start a flow from idle: its trigger's words, a follow-up on a new referent, or
values only that flow takes."""

from __future__ import annotations

from collections.abc import Sequence

from dialogkit.engine import value_flows
from dialogkit.engine.commands import Command, StartFlow
from dialogkit.engine.rules import slot_offers
from dialogkit.engine.rules.base import Seen

__all__ = ["flow_of_values", "follow_up", "intent", "no_preference"]


def intent(seen: Seen) -> Sequence[Command]:
    """"我要报修" / "I want to report an issue": the flow whose trigger the words match best."""
    flow = seen.intent()
    return [StartFlow(rule="intent", words=seen.ctx.interp.text.strip(), flow=flow)] if flow else []


def follow_up(seen: Seen) -> Sequence[Command]:
    """"第二个呢？" / "and the other one?" after a task: the same task again, on the new referent."""
    ctx = seen.ctx
    last, resolution = ctx.session.last_flow, ctx.resolution
    if last is None or last not in seen.bot.flows or resolution is None or not resolution.bindings:
        return []
    if ctx.interp.declared_mentions:
        return []      # "我有两个订单号 67890 和 第一个" tells values: a mention starts no flow
    types = {s.entity for s in seen.bot.flows[last].spec.slots if s.entity}
    if not any(b.entity.type in types for b in resolution.bindings):
        return []
    return [StartFlow(rule="follow_up", words=ctx.interp.text.strip(), flow=last)]


def flow_of_values(seen: Seen) -> Sequence[Command]:
    """"明天晚上8点6个人有位子吗？": no trigger's words, but values only the booking flow takes; "Indian
    please." / "川菜吧" after a search: values its flow takes, that flow again."""
    interp = seen.ctx.interp
    if not interp.mentions:
        return []       # no value said (most turns that get here): no flow of values
    specs = {name: flow.spec for name, flow in seen.bot.flows.items()}
    resolution = seen.ctx.resolution
    # A turn pointing back ("67890 and the first one") is no new wish: follow_up reads references.
    last = None if resolution is not None and resolution.bindings else seen.ctx.session.last_flow
    labels = seen.bot.slot_label_spans(interp)
    # "any international ones in that price range?": a value said, and one pointed back at (a
    # thing pointed back at, "他家", is what is asked about, no wish).
    said = [*interp.mentions, *(m for m in seen.ctx.bound_mentions if m.kind not in value_flows.NAMED)]
    flow = value_flows.flow_of_values(specs, said, interp.text, labels) or value_flows.last_flow_of_values(
        specs, last, interp.mentions, interp.text, resolution.text if resolution is not None else None, labels)
    return [StartFlow(rule="flow_of_values", words=interp.text.strip(), flow=flow)] if flow else []



def no_preference(seen: Seen) -> Sequence[Command]:
    """"I don't care." / "无所谓。" or "the area doesn't matter" / "区域无所谓" after a search answered,
    with no question pending: the last task's flow again. A slot named takes its ``any`` value
    (``slot_offers.named_no_preference``); said of nothing, the one wish the session leaves open
    does (``slot_offers.open_wish``), and with several open nothing is done."""
    ctx = seen.ctx
    last = ctx.session.last_flow
    flow = seen.bot.flows.get(last) if last is not None else None
    if flow is None:
        return []
    named = any(flow.spec.slot(name) is not None for name in seen.bot.named_any.slots_in(ctx.interp.text))
    if not named and ("any" not in ctx.interp.cues or ctx.interp.mentions
                      or not slot_offers.open_wishes(seen.bot, flow.spec, ctx.session, {})):
        return []
    return [StartFlow(rule="no_preference", words=ctx.interp.text.strip(), flow=flow.name)]
