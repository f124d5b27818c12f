"""The slot offer of a turn, and the steps that adjust it, moved out of the processor.

The offer is what the words give the task's slots (``engine.slots.offer_slots``). The steps
below narrow it in the order the in-task rules (``engine.rules.in_task``) call them: each is
credited in ``reply.explain`` for what it put in or took out. None of them writes the session;
they run before the processor applies anything.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dialogkit.actions.registry import ActionContext
from dialogkit.engine import choices as choice_lists
from dialogkit.engine.explaining import offer_step
from dialogkit.engine.rules.base import Bot
from dialogkit.engine.rules.shapes import NUMERIC, asked_yes_no, is_bare, said_alone
from dialogkit.engine.slots import SlotOffer, offer_slots, validate_slot
from dialogkit.engine.turn import TurnContext
from dialogkit.engine.value_flows import REQUEST, negation_before, said_as_wish
from dialogkit.engine.yes_no_slots import echo_answer
from dialogkit.errors import ActionError
from dialogkit.lexicon import alternation, word_pattern
from dialogkit.lexicon import words as lexicon_words
from dialogkit.logging import get_logger
from dialogkit.model.interpretation import Mention
from dialogkit.model.session import Session, Task
from dialogkit.spec.schema import FlowSpec, SlotSpec
from dialogkit.understanding.bare_hours import bare_hour
from dialogkit.understanding.cues import leading_answer, reply_answer
from dialogkit.understanding.language import fold
from dialogkit.understanding.value_heads import names_by_value
from dialogkit.understanding.value_questions import sets_nothing

__all__ = ["any_answer", "choice_by_name", "choose", "either_value", "first_before_fallback",
           "keep_filled_slots", "keep_to_asked_slot", "label_answer", "named_no_preference", "open_wish", "open_wishes",
           "options_of", "rule_message", "slot_offer", "waiting_offer", "yes_no_reply"]

log = get_logger("dialogkit.policy")
_EITHER = word_pattern("either_words")
_FALLBACK = word_pattern("fallback_words")
_ASKED_FOR = re.compile(rf"(?:{REQUEST.pattern})\s*(?:(?:{alternation(lexicon_words('noun_determiners'))})\s+)?$",
                        re.IGNORECASE)
_NO_WORDS = frozenset(w.lower() for w in lexicon_words("no_words"))
_SENTENCE_ENDS = (".", "?", "!", ";", "。", "？", "！", "；")
_WANT_COUNT = re.compile("^(" + ("|".join(lexicon_words("want_count_patterns")) or "(?!)") + ")")
"""A yes/no answer that opens with wanting a count ("要一个吧": yes, one of them)."""


def slot_offer(bot: Bot, ctx: TurnContext, *, free_text: bool = True) -> SlotOffer:
    """The values the turn offers the bound task's slots, before any step below adjusts them."""
    assert ctx.task is not None and ctx.flow is not None
    pending = ctx.task.pending_slot if free_text else None
    # A correction names a value of the task even where another type claimed its words first
    # ("no, make it damaged": an issue type to the rules, a return reason to this task).
    # So does a "no" to the confirmation ("no, the reason is damaged").
    cues = ctx.interp.cues
    correcting = "correction" in cues or ("no" in cues and ctx.task.state == "CONFIRMATION")
    offer = offer_slots(
        bot.layouts[ctx.flow.name], ctx.interp, filled=ctx.task.slots, pending_slot=pending,
        extra_mentions=[*ctx.bound_mentions, *asked_hour(bot, ctx)],
        read_every_type=correcting,
    )
    drop_asked_about(ctx, offer)
    either_value(bot, ctx, offer)
    first_before_fallback(ctx, offer)
    return offer


def first_before_fallback(ctx: TurnContext, offer: SlotOffer) -> None:
    """"川菜，没有的话粤菜也行" / "caribbean in the east; if there is none, indian": the value
    after the fallback words is wanted only if the first cannot be had, so the first is the wish,
    not one of two to choose from."""
    text = ctx.interp.text
    for name, mentions in list(offer.conflicts.items()):
        marker = _FALLBACK.search(text, min(m.end for m in mentions))
        if marker is None or name in offer.values:
            continue
        wished = {str(m.value): m for m in mentions if m.end <= marker.start()}
        if len(wished) == 1:
            mention = next(iter(wished.values()))
            del offer.conflicts[name]
            offer.values[name] = mention.value
            offer.surfaces[name] = mention.text


def either_value(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """"川菜还是粤菜都行" / "either chinese or indian is fine", "I don't care, chinese or indian":
    two values of a slot with no preference between them, in one sentence, are the slot's ``any``
    value (its type declaring one), not a question of which one is meant."""
    assert ctx.flow is not None
    text = ctx.interp.text
    for name, mentions in list(offer.conflicts.items()):
        no_preference = bot.texts.spec.any_value(ctx.flow.spec.slot(name))
        if no_preference is None or name in offer.values:
            continue
        start, end = min(m.start for m in mentions), max(m.end for m in mentions)
        begin = max((text.rfind(stop, 0, start) for stop in _SENTENCE_ENDS), default=-1) + 1
        ends = [i for stop in _SENTENCE_ENDS if (i := text.find(stop, end)) >= 0]
        if _EITHER.search(text, begin, min(ends, default=len(text))):
            del offer.conflicts[name]
            offer.values[name] = no_preference
            offer.surfaces[name] = text[begin:min(ends, default=len(text))].strip()


def drop_asked_about(ctx: TurnContext, offer: SlotOffer) -> None:
    """"有会议室吗？" / "does it have wifi?" ask about a value, "没健身房也行" / "除了X" waive one,
    "不想要川菜" / "not interested in british" refuse one: those values fill nothing, unless the
    thing looked for is named after them ("有川菜的餐馆吗"). A no alone before a value ("不，川菜" /
    "no, british") answers or corrects, and refuses nothing."""
    assert ctx.flow is not None
    text, sought = ctx.interp.text, tuple(ctx.flow.spec.trigger.keywords)
    for name in [n for n in offer.values if n not in offer.labelled]:
        surface = offer.surfaces.get(name, "")
        start = text.find(surface) if surface else -1
        if start < 0:
            continue
        refused = _refused(text, start)
        if not refused and not sets_nothing(text, start, start + len(surface)):
            continue
        after = text[start + len(surface):].lower()
        if refused or not any(word.lower() in after for word in sought):
            del offer.values[name]
            offer.surfaces.pop(name, None)


def _refused(text: str, start: int) -> bool:
    """A negation before the value at ``start``: not a bare no ("no, british" answers), nor the
    "not" of fallback words ("if not, chinese": a fallback is still wished)."""
    negation = negation_before(text, start)
    if negation is None or negation.lower().strip(" ,，") in _NO_WORDS:
        return False
    return _FALLBACK.search(text, max(0, start - len(negation) - 12), start) is None


def asked_hour(bot: Bot, ctx: TurnContext) -> list[Mention]:
    """"7" to "几点开始？" / "what time?": a bare number answering a time question is its hour."""
    assert ctx.task is not None and ctx.flow is not None
    asked = ctx.flow.spec.slot(ctx.task.pending_slot) if ctx.task.pending_slot else None
    if asked is None or asked.entity != "time" or any(m.type == "time" for m in ctx.interp.mentions):
        return []
    hour = bare_hour(ctx.interp.text, ctx.interp.read_as(("integer",)))
    return [hour] if hour is not None else []


@offer_step("any_answer")

def any_answer(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """"随便" / "I don't care" to a question fills the asked slot with its type's ``any`` value, and
    so does an answer that gives nothing ("没有" / "I don't know"), where a value is wanted; said
    about a slot by name ("价格无所谓" / "I don't care about the price"), that slot instead."""
    task = ctx.task
    if named_any(bot, ctx, offer):
        return
    if task is None or not task.pending_slot or ctx.flow is None:
        return
    if "any" not in ctx.interp.cues:
        if not offer.values:
            _given_nothing(bot, ctx, offer)
        return
    slot = ctx.flow.spec.slot(task.pending_slot)
    no_preference = bot.texts.spec.any_value(slot)
    if task.pending_slot in offer.values:
        if offer.values[task.pending_slot] == no_preference:
            return                                  # "任意" / "any": the answer is the no-preference
        slot = _other_open_slot(bot, ctx, offer)    # "I don't care, but I'd like cuban food", food asked
        no_preference = bot.texts.spec.any_value(slot)
    if slot is not None and no_preference is not None:
        offer.values[slot.name] = no_preference
        offer.surfaces[slot.name] = ctx.interp.text


def _given_nothing(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """"没有" / "I don't know" to a question whose slot takes an ``any`` value: no preference to give."""
    assert ctx.task is not None and ctx.flow is not None
    slot = ctx.flow.spec.slot(ctx.task.pending_slot or "")
    no_preference = bot.texts.spec.any_value(slot)
    if slot is not None and no_preference is not None and ctx.interp.declines:
        offer.values[slot.name] = no_preference
        offer.surfaces[slot.name] = ctx.interp.text


def _other_open_slot(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> SlotSpec | None:
    """The no-preference of an answer that gives the asked slot a value is about something else:
    the one other slot the task still needs that takes an ``any`` value (None when several do,
    as nobody can tell which is meant)."""
    assert ctx.task is not None and ctx.flow is not None
    held = ctx.task.slots
    open_slots = [s for s in ctx.flow.spec.slots if s.required and s.name not in offer.values
                  and held.get(s.name) is None and bot.texts.spec.any_value(s) is not None]
    return open_slots[0] if len(open_slots) == 1 else None


@offer_step("any_answer")

def named_no_preference(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> list[str]:
    """"我想租房，租金无所谓" / "a studio, I don't care about the rent": said in the words that start
    a flow, the slot named takes its ``any`` value too. The slots named are returned."""
    return named_any(bot, ctx, offer)


@offer_step("open_wish")

def open_wish(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """"I don't care. What's their number?" starting a flow with no question asked: the
    no-preference is about the one wish the session still leaves open (``open_wishes``). With
    several open, which one is meant is unknown, and none is filled."""
    if "any" not in ctx.interp.cues or ctx.flow is None:
        return
    open_slots = open_wishes(bot, ctx.flow.spec, ctx.session, offer.values)
    if open_slots and (no_preference := bot.texts.spec.any_value(open_slots[0])) is not None:
        offer.values[open_slots[0].name] = no_preference
        offer.surfaces[open_slots[0].name] = ctx.interp.text


def open_wishes(bot: Bot, flow: FlowSpec, session: Session, offered: Mapping[str, Any]) -> list[SlotSpec]:
    """The flow's wishes kept for the session (``persist: session``) that take an ``any`` value
    and hold none yet, neither for the session nor in a task under way: what a search has not
    been told."""
    held = session.session_slots
    return [s for s in flow.slots if s.persist == "session" and s.name not in offered and s.name not in held
            and bot.texts.spec.any_value(s) is not None
            and all(task.slots.get(s.name) is None for task in session.stack)]


def named_any(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> list[str]:
    """The active task's slots the words say there is no preference for; each whose type declares
    ``any`` takes that value, unless the same words give it a value of its own."""
    flow = ctx.flow
    if flow is None:
        return []
    said = bot.named_any.slots_in(ctx.interp.text)
    named = [slot for name in said if (slot := flow.spec.slot(name)) is not None]
    for slot in named:
        no_preference = bot.texts.spec.any_value(slot)
        if no_preference is not None and slot.name not in offer.values:
            offer.values[slot.name] = no_preference
            offer.surfaces[slot.name] = ctx.interp.text
    return [slot.name for slot in named]


@offer_step("yes_no_reply")

def yes_no_reply(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """Asked a yes/no question, "yes, please send me a new one" / "要的，麻烦寄一张新卡给我" is a
    yes: a reply to that question may say more after its answer than a confirmation's yes may
    (with a number, "yes, we need 2" / "要一个吧", though never with "but" or a doubt), and so is an
    answer that echoes the question ("很急" / "not urgent" to "紧急吗？" / "Is it urgent?")."""
    task, flow, slot = ctx.task, ctx.flow, asked_yes_no(ctx.task, ctx.flow)
    if task is None or flow is None or slot is None or slot.name in offer.values:
        return
    said = _WANT_COUNT.sub(r"\1，", fold(ctx.interp.text), count=1)    # "要一个吧": yes, one of them
    answer = leading_answer(said, tail_cjk=12, tail_words=10, tail_digits=True)
    value = answer.value if answer is not None and not answer.correction else echo_answer(
        [bot.texts.ask(flow.spec, slot, language, task.slots) for language in bot.texts.languages], ctx.interp.text)
    if value is not None:
        offer.values[slot.name] = value
        offer.surfaces[slot.name] = ctx.interp.text


@offer_step("label_answer")

def label_answer(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> bool:
    """An answer that is exactly a value's label ("平板电脑", or a quick reply the bot offered) names
    that value, even where the label holds another value's alias ("电脑"); True when it does."""
    task, flow = ctx.task, ctx.flow
    if task is None or flow is None or not task.pending_slot:
        return False
    slot = flow.spec.slot(task.pending_slot)
    entity = bot.texts.spec.entities.get(slot.entity) if slot is not None and slot.entity else None
    if slot is None or entity is None or not entity.values:
        return False
    value = bot.texts.value_labelled(slot.entity, said_alone(ctx.interp.text)) if slot.entity else None
    if value is None:
        return False
    offer.values[slot.name] = value
    offer.surfaces[slot.name] = ctx.interp.text
    offer.conflicts.pop(slot.name, None)
    return True


@offer_step("keep_to_asked_slot")

def keep_to_asked_slot(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """A bare number ("12345" after "请提供订单号") is an answer to the asked slot: when it does
    not fit that slot it never silently lands in a number slot of the task instead.

    A plain number is the weakest evidence there is (ids, amounts and counts are all digits);
    a value of any other kind ("耳机", "下午三点"), a correction cue, or the label said before it
    ("数量是1" / "the quantity is 1" while the medicine is asked) says which slot is meant.
    """
    task, flow = ctx.task, ctx.flow
    if task is None or flow is None or not task.pending_slot or "correction" in ctx.interp.cues:
        return
    asked = flow.spec.slot(task.pending_slot)
    kinds = {m.type for m in ctx.interp.mentions}
    if asked is None or asked.entity in NUMERIC or not kinds or not kinds <= NUMERIC or not is_bare(ctx.interp):
        return
    for name in [n for n in offer.values if n != task.pending_slot and n not in offer.labelled]:
        del offer.values[name]
        offer.surfaces.pop(name, None)
    for name in [n for n in offer.conflicts if n != task.pending_slot]:
        del offer.conflicts[name]


@offer_step("keep_filled_slots")

def keep_filled_slots(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """A filled slot changes only when the user corrects it ("不对，是耳机" / "actually it's
    67890"), names it ("the attendee is Supervisor Li") or chooses by the value ("the italian
    one", "川菜那家"): a value that merely appears in
    another answer ("the weather is nice today" while the cabin is asked) never silently
    replaces what the user said before; a new wish said instead of an answer does
    (``_new_wishes``)."""
    task, flow = ctx.task, ctx.flow
    if task is None or flow is None or ctx.interp.cues & {"correction", "no"}:
        return
    if task.state != "CONFIRMATION" and not task.pending_slot:
        return         # after "what would you like to change?" any value is a change
    changed = [n for n, v in offer.values.items() if n != task.pending_slot
               and task.slots.get(n) is not None and str(task.slots[n]) != str(v)]
    if not changed:
        return         # most answers change no filled slot: nothing to keep
    if task.state == "CONFIRMATION":
        if is_bare(ctx.interp):
            return     # "67890" in answer to the confirmation is the new value
    elif is_bare(ctx.interp) and not any(n == task.pending_slot for n in offer.values):
        return         # "老城" / "indian, please" alone, to another question: that slot's new value
    text = ctx.interp.text.lower()
    sought = tuple(flow.spec.trigger.keywords)     # "an italian restaurant": the thing looked for
    wishes = _new_wishes(bot, ctx, offer, changed)
    for name in changed:
        slot = flow.spec.slot(name)
        named = name in wishes or name in offer.labelled or names_by_value(
            text, offer.surfaces.get(name, ""), sought) or (
            slot is not None and any(bot.texts.slot_label(slot, lang).lower() in text for lang in bot.texts.languages))
        if not named:
            del offer.values[name]
            offer.surfaces.pop(name, None)


def _asked_for(text: str, surface: str) -> bool:
    """Whether the value said as ``surface`` is what a request word asks for, right before it
    ("looking for the east part", "我要东区"): a wish of its own beside an answer."""
    start = text.find(surface) if surface else -1
    return start > 0 and _ASKED_FOR.search(text, max(0, start - 30), start) is not None


def _new_wishes(bot: Bot, ctx: TurnContext, offer: SlotOffer, changed: list[str]) -> set[str]:
    """The changed slots the words state anew: with no answer to the question asked, "那就川菜吧" /
    "european, then", "有没有粤菜？" / "do you have korean?" while the area is asked replace the
    food said before. A number is no wish (it may count or order anything: "yes, we need 2"), and
    an answer to the question asked makes the other values part of it ("the order for the laptop
    is 67890")."""
    assert ctx.task is not None and ctx.flow is not None
    pending = ctx.task.pending_slot
    text = ctx.interp.text
    if pending is not None and pending in offer.values:     # "I'm looking for the east, serving austrian"
        return {name for name in changed if _asked_for(text, offer.surfaces.get(name, ""))}
    if pending is None or pending in offer.conflicts:
        return set()
    wished = said_as_wish(text, bot.slot_label_spans(ctx.interp))
    if not (wished or ((answer := reply_answer(fold(text))) is not None and not answer.value)):
        return set()
    return {name for name in changed
            if (slot := ctx.flow.spec.slot(name)) is not None and slot.entity not in NUMERIC}


def options_of(bot: Bot, ctx: TurnContext, slot: SlotSpec) -> list[choice_lists.Choice] | None:
    """The slot's options from its action; None when it fails (the question is then free-form)."""
    task = ctx.task or ctx.session.task
    if slot.choices is None or task is None:
        return None
    action_ctx = ActionContext(slots=dict(task.slots), session_id=ctx.session.id,
                               user_id=ctx.session.user_id or "", flow=task.flow, language=ctx.language,
                               session=ctx.session)
    try:
        return choice_lists.parse_choices(bot.actions.run(slot.choices.action, action_ctx))
    except ActionError as exc:
        log.warning("choices_failed", action=slot.choices.action, session_id=ctx.session.id, error=str(exc))
        return None


@offer_step("choose")

def choose(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> str | None:
    """An answer to a question with choices: the choice it names fills the slot; a value outside
    them is refused: the message that names it (the question, asked again, lists the choices)."""
    task, flow = ctx.task, ctx.flow
    pending = task.pending_slot if task is not None else None
    slot = flow.spec.slot(pending) if flow is not None and pending else None
    if slot is None or slot.choices is None or ctx.interp.cues & {"any", "cancel"}:
        return None
    options = options_of(bot, ctx, slot)
    if not options:
        return None
    picked = choice_lists.pick(options, ctx.interp.text, offer.values.get(slot.name))
    if picked is not None:
        offer.values[slot.name] = picked.value
        offer.surfaces.setdefault(slot.name, ctx.interp.text)
        return None
    if slot.name not in offer.values:
        return None
    refused = offer.surfaces.get(slot.name, str(offer.values[slot.name]))
    return choice_lists.outside(refused, ctx.language)


@offer_step("choice_by_name")

def choice_by_name(bot: Bot, ctx: TurnContext, offer: SlotOffer) -> None:
    """"不对，订单号是第二个" / "no, the order number is the last one": a correction that names a
    slot with choices, and no value for it, picks from that slot's options (by ordinal, label
    or value), listed to the user or not; the asked free-text slot then does not take the text."""
    task, flow = ctx.task, ctx.flow
    if "correction" not in ctx.interp.cues or task is None or flow is None:
        return
    text = ctx.interp.text.lower()
    referred = {m.text for m in ctx.bound_mentions}     # a value a reference brought may be replaced
    for slot in flow.spec.slots:
        if slot.choices is None or slot.name == task.pending_slot:
            continue
        if slot.name in offer.values and offer.surfaces.get(slot.name) not in referred:
            continue
        labels = (bot.texts.slot_label(slot, lang) for lang in bot.texts.languages)
        if not any(label and label.lower() in text for label in labels):
            continue
        options = options_of(bot, ctx, slot)
        picked = choice_lists.pick(options, ctx.interp.text) if options else None
        if picked is None:
            continue
        if task.pending_slot is not None and offer.surfaces.get(task.pending_slot) == ctx.interp.text.strip():
            offer.values.pop(task.pending_slot, None)
            offer.surfaces.pop(task.pending_slot, None)
        offer.values[slot.name] = picked.value
        offer.surfaces[slot.name] = ctx.interp.text
        return


def rule_message(bot: Bot, ctx: TurnContext) -> str | None:
    """An answer that is no value of the slot's type may still break one of its rules: say which.

    "1234" for an order number never becomes an ``order_id`` (the type wants 5-12 digits), but
    the user should hear the rule's message ("订单号应为5到12位数字。" / "An order number has 5 to
    12 digits."), not a bare re-ask.
    """
    assert ctx.task is not None and ctx.flow is not None
    slot = ctx.flow.spec.slot(ctx.task.pending_slot) if ctx.task.pending_slot else None
    answer = ctx.interp.text.strip()
    value_like = any(ch.isdigit() for ch in answer) or (answer.isascii() and " " not in answer)
    if slot is None or not slot.validate_ or not value_like or len(answer) > 40 or ctx.interp.intents:
        return None
    return validate_slot(slot, answer, ctx.language, bot.actions.validate)


def waiting_offer(bot: Bot, ctx: TurnContext) -> tuple[Task, SlotOffer] | None:
    """The nearest waiting task (below the active one) the words give values to, with those values:
    only slots it has not filled, and no question between two values."""
    for task in reversed(ctx.session.stack[:-1]):
        layout = bot.layouts.get(task.flow)
        if layout is None:
            continue
        offer = offer_slots(layout, ctx.interp, filled=task.slots, pending_slot=None,
                            extra_mentions=ctx.bound_mentions)
        values = {n: v for n, v in offer.values.items() if task.slots.get(n) is None and n not in offer.conflicts}
        if values:
            kept = SlotOffer()
            kept.values.update(values)
            kept.surfaces.update({n: offer.surfaces[n] for n in values if n in offer.surfaces})
            return task, kept
    return None
