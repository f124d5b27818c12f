"""The moves a simulated user makes, each drawn by hypothesis from what the bot file offers.

A move is applicable in some situations only (an answer needs a question, a correction a filled
slot); a turn draws a move and its language together from a weighted table, so that tasks also
get finished. Each move makes as few draws as it can — one for the move, one or two for what it
says — because hypothesis deletes a turn while shrinking only when the turn is a handful of
choices long.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from hypothesis import strategies as st

from dialogkit.simulation import list_moves, role_moves
from dialogkit.simulation import vocabulary as words
from dialogkit.simulation.catalog import Catalog, FlowInfo, SlotInfo, language_of, word_pattern
from dialogkit.simulation.observation import Snapshot
from dialogkit.simulation.scene_view import ASKING, pick
from dialogkit.simulation.user_memory import UserMemory, value_key
from dialogkit.simulation.utterances import Move, Reference, Utterance
from dialogkit.simulation.values import YES_NO, PoolKey, Said, SlotValues

IN_TASK = ("TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION")


@dataclass(frozen=True, slots=True)
class Scene:
    """Where the conversation stands when the next move is drawn, and in which language."""

    catalog: Catalog
    values: SlotValues
    pools: dict[PoolKey, tuple[Said, ...]]
    before: Snapshot
    memory: UserMemory
    language: str = "en"

    def said_for(self, slot: SlotInfo, valid: bool = True) -> tuple[Said, ...]:
        source = self.values.source(slot, self.language, valid)
        if source is None:
            return ()
        return source.listed + (self.pools.get(source.pool, ()) if source.pool else ())

    def named_for(self, slot: SlotInfo) -> tuple[Said, ...]:
        """``said_for`` without the ordinals."""
        source = self.values.source(slot, self.language)
        if source is None:
            return ()
        return source.named + (self.pools.get(source.pool, ()) if source.pool else ())

    def active(self) -> FlowInfo | None:
        return self.catalog.flows.get(self.before.flow) if self.before.flow else None

    def asked(self) -> SlotInfo | None:
        flow = self.active()
        if flow is None or self.before.asked is None or self.before.pending:
            return None
        return flow.slot(self.before.asked)


Make = Callable[[st.DataObject, Scene], Utterance]


@dataclass(frozen=True, slots=True)
class MoveKind:
    name: str
    weight: int
    applies: Callable[[Scene], bool] = field(repr=False)
    make: Make = field(repr=False)
    offered: Callable[[Catalog], bool] = field(default=lambda catalog: True, repr=False)
    """Whether the bot file gives the move anything to say. The functions stay out of the repr:
    hypothesis writes the drawn table's repr whenever a turn's first draw does not apply."""


def _utterance(scene: Scene, text: str, move: Move, *, flow: str | None = None, slot: str | None = None,
               fills: dict[str, Said] | None = None, mentions: tuple[Said, ...] = (),
               reference: Reference | None = None, entity: str | None = None, faq: str | None = None) -> Utterance:
    return Utterance(text, move, scene.language, flow=flow, faq=faq, slot=slot, fills=fills or {}, mentions=mentions,
                     reference=reference, entity=entity, keyword_free=not scene.catalog.has_keyword(text),
                     named=scene.catalog.values_in(text))


def _fillable(scene: Scene, flow: FlowInfo | None) -> list[SlotInfo]:
    return [s for s in (flow.entity_slots if flow else ()) if scene.said_for(s)]


# -- starting flows ---------------------------------------------------------------------------------

def _requests(scene: Scene, keywords: bool, flows: Sequence[FlowInfo] | None = None) -> list[tuple[FlowInfo, str]]:
    """(flow, text) for each trigger example in the scene's language (any, when it has none)."""
    out = []
    for flow in flows if flows is not None else scene.catalog.flows.values():
        texts = list(flow.examples[scene.language]) or [t for ex in flow.examples.values() for t in ex]
        if keywords:
            texts += [k for k in flow.keywords if language_of(k) == scene.language]
        out += [(flow, text) for text in texts]
    return out


def trigger(data: st.DataObject, scene: Scene) -> Utterance:
    """A flow's trigger example or keyword: a start in IDLE, a digression inside another task."""
    flow, text = pick(data, _requests(scene, keywords=True), "request")
    return _utterance(scene, text, "trigger", flow=flow.name)


def _with_label(scene: Scene, slot: SlotInfo, said: Said) -> str:
    """The value after its slot's label: "金额是100", "紧急：否"."""
    frame = words.NAMED_YES_NO[scene.language] if slot.entity == YES_NO else words.SEVERAL[scene.language][0]
    return frame.format(label=slot.label[scene.language], value=said.text)


def _labelled(scene: Scene, flow: FlowInfo, fills: dict[str, Said]) -> str:
    """Each value after its slot's label, in the flow's slot order."""
    joiner = words.SEVERAL[scene.language][1]
    return joiner.join(_with_label(scene, s, fills[s.name]) for s in flow.slots if s.name in fills)


def _label_values(scene: Scene, slot: SlotInfo) -> list[Said]:
    """The values a user names after the slot's label: by ordinal only for the slot whose options
    were just shown with its question, and only where the bot file's pattern for the type reads
    the value after the label ("the card ending is 0000" is no "尾号0000"); a slot's listed
    options are read from its list, not by the pattern."""
    return list(_label_values_of(scene, slot))


def _label_values_of(scene: Scene, slot: SlotInfo) -> Iterator[Said]:
    asked = scene.asked()
    shown = (asked.flow, asked.name) if asked is not None else None
    options = scene.said_for(slot) if (slot.flow, slot.name) == shown else _named(scene, slot)
    if scene.catalog.reads_anywhere(slot.entity):
        return iter(options)
    return (s for s in options if s.form in ("choice", "ordinal")
            or scene.catalog.reads(slot.entity, _with_label(scene, slot, s), s.canonical))


def _labellable(scene: Scene, flow: FlowInfo | None) -> list[SlotInfo]:
    """The slots a user can name a value of after its label: one such value tells (a catalogue's
    slot has thousands, each read back by the bot's understanding when listed)."""
    return [s for s in _fillable(scene, flow) if next(_label_values_of(scene, s), None) is not None]


def _combinations(slots: list[SlotInfo], sizes: Sequence[int]) -> list[tuple[SlotInfo, ...]]:
    return [combo for size in sizes for combo in itertools.combinations(slots, size)]


def _draw_fills(data: st.DataObject, scene: Scene, slots: tuple[SlotInfo, ...]) -> dict[str, Said]:
    """A value for each slot, to be said after its label."""
    return {slot.name: pick(data, _label_values(scene, slot), slot.name) for slot in slots}


def _unsaid(scene: Scene, flow: FlowInfo, request: str) -> list[SlotInfo]:
    """The flow's slots whose type the request does not read already: "I want a cheap restaurant in
    the north" followed by "the area is any" would give the area twice."""
    read = scene.catalog.request_types.get(request, frozenset())
    return [s for s in _labellable(scene, flow) if s.entity not in read]


def trigger_with_values(data: st.DataObject, scene: Scene) -> Utterance:
    """A trigger example with one or two of the flow's slot values, named, in the same utterance."""
    flows = [f for f in scene.catalog.flows.values() if _fillable(scene, f)]
    requests = [(f, text) for f, text in _requests(scene, keywords=False, flows=flows) if _unsaid(scene, f, text)]
    flow, request = pick(data, requests, "request")
    fills = _draw_fills(data, scene, pick(data, _combinations(_unsaid(scene, flow, request), (1, 2)), "slots"))
    text = words.WITH_VALUES[scene.language].format(request=request, values=_labelled(scene, flow, fills))
    return _utterance(scene, text, "trigger_with_values", flow=flow.name, fills=fills)


# -- inside a task ----------------------------------------------------------------------------------

def answer(data: st.DataObject, scene: Scene) -> Utterance:
    """A bare value for the slot just asked: valid, or one its rules refuse."""
    slot = scene.asked()
    assert slot is not None
    said = pick(data, scene.said_for(slot, True) + scene.said_for(slot, False), slot.name)
    if said.valid:
        return _utterance(scene, said.text, "answer", slot=slot.name, fills={slot.name: said})
    return _utterance(scene, said.text, "answer", slot=slot.name, mentions=(said,))


def can_answer(scene: Scene) -> bool:
    slot = scene.asked()
    return slot is not None and bool(scene.said_for(slot, True) or scene.said_for(slot, False))


def cooperate(data: st.DataObject, scene: Scene) -> Utterance:
    """What a willing user does next: yes at a confirmation, else a valid answer to the question."""
    if scene.before.state == "CONFIRMATION":
        return yes(data, scene)
    slot = scene.asked()
    assert slot is not None
    said = pick(data, scene.said_for(slot), slot.name)
    return _utterance(scene, said.text, "answer", slot=slot.name, fills={slot.name: said})


def can_cooperate(scene: Scene) -> bool:
    slot = scene.asked()
    return scene.before.state == "CONFIRMATION" or (slot is not None and bool(scene.said_for(slot)))


def several(data: st.DataObject, scene: Scene) -> Utterance:
    """Two of the active task's slots, each named with its label, in one utterance."""
    flow = scene.active()
    assert flow is not None
    fills = _draw_fills(data, scene, pick(data, _combinations(_labellable(scene, flow), (2,)), "slots"))
    return _utterance(scene, _labelled(scene, flow, fills), "several", fills=fills)


def _corrections(scene: Scene) -> list[tuple[SlotInfo, str]]:
    """(filled slot, correction phrasing): phrasings without the slot's label only when no other
    slot of the flow shares its type, so the value alone says which slot it corrects. A yes/no
    slot has none: "no, make it no" and "不对，紧急是否" say nothing a user says."""
    flow = scene.active()
    out = []
    for slot in _fillable(scene, flow):
        if scene.before.slots.get(slot.name) is None or flow is None or slot.entity == YES_NO:
            continue
        alone = sum(1 for s in flow.slots if s.entity == slot.entity) == 1
        out += [(slot, f) for f in words.CORRECTIONS[scene.language]
                if (alone or "{label}" in f) and next(_correction_candidates(scene, slot, f), None) is not None]
    return out


def _correction_values(scene: Scene, slot: SlotInfo, frame: str) -> list[Said]:
    return list(_correction_candidates(scene, slot, frame))


def _correction_candidates(scene: Scene, slot: SlotInfo, frame: str) -> Iterator[Said]:
    """The values a correction in ``frame`` can change the slot to: another value than it holds,
    which the bot reads said that way (a pattern that reads a value only in context, "尾号1234",
    finds none in "no, make it 1202"). An ordinal picks from a slot's options only where the
    correction names the slot ("订单号是第二个"): "no, make it the first one" points at no list
    the user was shown. The listed values that fit the frame are sorted out once per run; the
    conversation's pool and the value the slot holds change from turn to turn."""
    current = value_key(scene.before.slots[slot.name]).lower()      # "r00000" changes nothing of "R00000"
    source = scene.values.source(slot, scene.language)
    if source is None:
        return iter(())
    others = _other_types(scene, slot)
    labelled = "{label}" in frame
    anywhere = scene.catalog.reads_anywhere(slot.entity)
    memo = (slot.flow, slot.name, scene.language, str(labelled), "" if anywhere else frame)   # frames read alike
    if memo not in scene.values.memo:
        listed = source.listed if labelled else source.named
        scene.values.memo[memo] = tuple((s, value_key(s.canonical).lower())
                                        for s in _correcting(scene, slot, frame, others, listed))
    pool = scene.pools.get(source.pool, ()) if source.pool is not None else ()
    pooled = (s for s in _correcting(scene, slot, frame, others, pool) if value_key(s.canonical).lower() != current)
    return itertools.chain((s for s, key in scene.values.memo[memo] if key != current), pooled)


def _correcting(scene: Scene, slot: SlotInfo, frame: str, others: set[str | None],
                values: Sequence[Said]) -> Iterator[Said]:
    """The ``values`` that, said in ``frame``, say which slot they correct and are read there."""
    if "{label}" in frame and scene.catalog.reads_anywhere(slot.entity):
        return iter(values)
    return (s for s in values if _corrects(scene, slot, frame, others, s))


def _corrects(scene: Scene, slot: SlotInfo, frame: str, others: set[str | None], said: Said) -> bool:
    """Whether ``said`` in ``frame`` says which slot it corrects (the task's ``others`` types do
    not list it) and is read there."""
    return (("{label}" in frame or others.isdisjoint(scene.catalog.types_of(said.text)))
            and (scene.catalog.reads_anywhere(slot.entity)
                 or scene.catalog.reads(slot.entity, frame.format(label=slot.label[scene.language], value=said.text),
                                        said.canonical)))


def _other_types(scene: Scene, slot: SlotInfo) -> set[str | None]:
    """The types of the task's other slots: a value one of them takes too ("any" is a value of
    every type with an ``any`` value) does not say, without the label, which slot it corrects."""
    flow = scene.active()
    return {s.entity for s in (flow.slots if flow is not None else ()) if s.name != slot.name}


def correct(data: st.DataObject, scene: Scene) -> Utterance:
    """A correction of a filled slot to another value, in one of the correction phrasings."""
    slot, frame = pick(data, _corrections(scene), "correction")
    said = pick(data, _correction_values(scene, slot, frame), slot.name)
    text = frame.format(label=slot.label[scene.language], value=said.text)
    return _utterance(scene, text, "correct", slot=slot.name, fills={slot.name: said})


def _flips(scene: Scene) -> list[tuple[SlotInfo, Said]]:
    """(filled slot, new value) pairs that turn another slot's ``ask_if`` on or off."""
    flow = scene.active()
    if flow is None or not any(s.condition is not None for s in flow.slots):
        return []
    now = scene.before.slots
    conditional = [s for s in flow.slots if s.condition is not None]
    slots = {slot.name: slot for slot, _ in _corrections(scene)}
    out = []
    for slot in slots.values():
        for said in scene.said_for(slot):
            changed = {**now, slot.name: said.canonical}
            if value_key(said.canonical) != value_key(now.get(slot.name)) and any(
                    flow.needed(c, changed) != flow.needed(c, now) for c in conditional):
                out.append((slot, said))
    return out


def flip_condition(data: st.DataObject, scene: Scene) -> Utterance:
    """A correction, naming the slot, to a value that makes a conditional slot needed or unneeded."""
    slot, said = pick(data, _flips(scene), "flip")
    frame = pick(data, [f for f in words.CORRECTIONS[scene.language] if "{label}" in f], "frame")
    text = frame.format(label=slot.label[scene.language], value=said.text)
    return _utterance(scene, text, "correct", slot=slot.name, fills={slot.name: said})


def _offerable(scene: Scene) -> list[SlotInfo]:
    """The active task's empty slots, other than the one asked, that it takes now (an optional
    slot too; not one whose ``ask_if`` is false), with a value a user names."""
    flow = scene.active()
    if flow is None or scene.before.state not in ASKING or scene.before.pending:
        return []
    held = scene.before.slots
    return [s for s in _labellable(scene, flow) if s.name != scene.before.asked and held.get(s.name) is None
            and flow.needed(s, held)]


def offer(data: st.DataObject, scene: Scene) -> Utterance:
    """A value for a slot of the active task that is not the one asked, named by its label
    ("紧急：否", "the area is north"), as a user says what they know before being asked."""
    flow = scene.active()
    assert flow is not None
    slot = pick(data, _offerable(scene), "slot")
    fills = _draw_fills(data, scene, (slot,))
    return _utterance(scene, _labelled(scene, flow, fills), "offer", slot=slot.name, fills=fills)


def faq(data: st.DataObject, scene: Scene) -> Utterance:
    """A question the bot's FAQ answers, asked in any state."""
    name, text = pick(data, _faq_questions(scene), "faq")
    return _utterance(scene, text, "faq", faq=name)


def _faq_questions(scene: Scene) -> list[tuple[str, str]]:
    return [(name, text) for name, phrases in scene.catalog.faq.items() for text in phrases[scene.language]]


def _phrase(table: words.Phrases, move: Move) -> Make:
    def make(data: st.DataObject, scene: Scene) -> Utterance:
        return _utterance(scene, pick(data, table[scene.language], move), move)

    make.__name__ = move
    return make


yes = _phrase(words.YES, "yes")
no = _phrase(words.NO, "no")
cancel = _phrase(words.CANCEL, "cancel")
forget = _phrase(words.FORGET, "forget")


def off_topic(data: st.DataObject, scene: Scene) -> Utterance:
    return _utterance(scene, pick(data, scene.catalog.off_topic(scene.language), "off_topic"), "off_topic")


# -- mentions and references --------------------------------------------------------------------------

def _mentionable(scene: Scene) -> list[SlotInfo]:
    """Slots with values a user names: "是" or "no" alone answers, it mentions nothing."""
    return [s for f in scene.catalog.flows.values() for s in _fillable(scene, f) if s.entity != YES_NO]


def _named(scene: Scene, slot: SlotInfo) -> tuple[Said, ...]:
    """The slot's values as things a user names: an ordinal ("第二个") only picks from a list the
    question shows, and names nothing on its own."""
    return scene.named_for(slot)


def bare_value(data: st.DataObject, scene: Scene) -> Utterance:
    """A value of any slot said on its own: a mention, unless it answers the question asked."""
    slot = pick(data, [s for s in _mentionable(scene) if _named(scene, s)], "slot")
    said = pick(data, _named(scene, slot), slot.name)
    return _utterance(scene, said.text, "bare_value", mentions=(said,), entity=slot.entity)


def _pairable(scene: Scene) -> list[SlotInfo]:
    entities = scene.catalog.entities
    return [s for s in _mentionable(scene) if s.entity in entities and entities[s.entity].kind in words.PRONOUNS
            and _pair_readable(scene, s)]


def _pair_readable(scene: Scene, slot: SlotInfo) -> bool:
    """Whether the bot reads both values of a pair named together (checked on one pair)."""
    named = _named(scene, slot)
    second = next((v for v in itertools.islice(named, 1, None)      # no copy of a catalogue's values
                   if value_key(v.canonical) != value_key(named[0].canonical)), None)
    if second is None:
        return False
    text = _pair_text(scene, slot, named[0], second)
    return all(scene.catalog.reads(slot.entity, text, v.canonical) for v in (named[0], second))


def _pair_text(scene: Scene, slot: SlotInfo, first: Said, second: Said) -> str:
    return words.TWO_CANDIDATES[scene.language].format(noun=slot.label[scene.language], first=first.text,
                                                       second=second.text)


def _candidate_pairs(scene: Scene, slot: SlotInfo) -> st.SearchStrategy[tuple[Said, Said]]:
    """Two different values of the slot, neither written inside the other. The strategy is made
    once per slot, language and pool: hypothesis hashes all of a catalogue's values to label a
    new one."""
    source = scene.values.source(slot, scene.language)
    pool = scene.pools.get(source.pool, ()) if source is not None and source.pool else ()
    key = (slot.flow, slot.name, scene.language)
    kept = scene.values.strategies.get(key)
    if kept is None or kept[0] is not pool:
        values = st.sampled_from(_named(scene, slot))
        pairs = st.tuples(values, values).filter(
            lambda pair: value_key(pair[0].canonical) != value_key(pair[1].canonical)
            and pair[0].text not in pair[1].text and pair[1].text not in pair[0].text)
        kept = scene.values.strategies[key] = (pool, pairs)
    return kept[1]


def two_candidates(data: st.DataObject, scene: Scene) -> Utterance:
    """Two values of one type named together ("我有两个订单号 A 和 B"): a pronoun after them is ambiguous."""
    slot = pick(data, _pairable(scene), "slot")
    first, second = data.draw(_candidate_pairs(scene, slot), label="candidates")
    text = _pair_text(scene, slot, first, second)
    return _utterance(scene, text, "two_candidates", mentions=(first, second), entity=slot.entity)


Pointing = tuple[Reference, str | None, str, str | None]
"""(reference, pronoun family, text, the flow whose trigger example the text is)."""


def _pronoun_requests(scene: Scene, family: str) -> list[Pointing]:
    """The bot's own trigger examples that hold a pronoun of ``family`` ("问他项目进度")."""
    pronouns = words.PRONOUN_WORDS[family][scene.language]
    return [("pronoun", family, text, flow.name) for flow, text in _requests(scene, keywords=False)
            if language_of(text) == scene.language and any(re.search(word_pattern(p), text, re.I) for p in pronouns)]


def _references(scene: Scene) -> list[Pointing]:
    """Every way of pointing back, in the scene's language: pronouns in small questions and in the
    bot's own requests, demonstratives, ordinals."""
    lang = scene.language
    out: list[Pointing] = []
    for family, questions in words.PRONOUNS.items():
        out += [("pronoun", family, question, None) for question in questions[lang]]
        out += _pronoun_requests(scene, family)
    out += [("demonstrative", None, text, None) for text in words.DEMONSTRATIVES[lang]]
    out += [("ordinal", None, text, None) for text in words.ORDINALS[lang]]
    return out


def refer(data: st.DataObject, scene: Scene) -> Utterance:
    """A pronoun, demonstrative or ordinal pointing back at what was named. A pronoun fits the
    kind of the two candidates just named, when there are any."""
    candidates = scene.memory.candidates
    kind = scene.catalog.entities[candidates.entity].kind if candidates is not None else None
    options = [o for o in _references(scene) if kind not in words.PRONOUNS or o[1] in (None, kind)]
    reference, family, text, flow = pick(data, options, "reference")
    return _utterance(scene, text, "refer", reference=reference, entity=family, flow=flow)


# -- the table ------------------------------------------------------------------------------------------

def _in_task(scene: Scene) -> bool:
    return scene.before.state in IN_TASK


MOVES: tuple[MoveKind, ...] = (
    MoveKind("cooperate", 6, can_cooperate, cooperate),
    MoveKind("trigger", 2, lambda s: bool(_requests(s, keywords=True)), trigger),
    MoveKind("answer", 2, can_answer, answer),
    MoveKind("trigger_with_values", 2, lambda s: any(_unsaid(s, f, t) for f, t in _requests(s, keywords=False)),
             trigger_with_values),
    MoveKind("correct", 2, lambda s: bool(_corrections(s)), correct),
    MoveKind("several", 1, lambda s: len(_labellable(s, s.active())) >= 2, several),
    MoveKind("yes", 1, _in_task, yes),
    MoveKind("no", 1, _in_task, no),
    MoveKind("cancel", 1, lambda s: True, cancel),
    MoveKind("two_candidates", 1, lambda s: bool(_pairable(s)), two_candidates),
    MoveKind("refer", 2, lambda s: True, refer),
    MoveKind("forget", 1, lambda s: bool(s.memory.turns), forget),
    MoveKind("off_topic", 1, lambda s: bool(s.catalog.off_topic(s.language)), off_topic),
    MoveKind("bare_value", 1, lambda s: bool(_mentionable(s)), bare_value),
    MoveKind("faq", 1, lambda s: bool(_faq_questions(s)), faq),
    MoveKind("flip_condition", 2, lambda s: bool(_flips(s)), flip_condition),
    MoveKind("offer", 2, lambda s: bool(_offerable(s)), offer),
    MoveKind("list_values", 2, list_moves.can_list, list_moves.list_values, list_moves.has_lists),
    MoveKind("add_value", 2, list_moves.can_add, list_moves.add_value, list_moves.has_lists),
    MoveKind("drop_value", 2, list_moves.can_drop, list_moves.drop_value, list_moves.has_lists),
    MoveKind("roles", 2, role_moves.can_say_roles, role_moves.roles, role_moves.has_roles),
)

Turn = tuple[MoveKind, str]


def move_table(languages: tuple[str, ...], primary: str, catalog: Catalog | None = None) -> tuple[Turn, ...]:
    """Every (move, language) pair, weighted: the conversation's language four times as often as
    the other one when both are simulated. With a bot's ``catalog``, only the moves its file offers
    anything to: a bot without list slots draws the conversations it drew before they existed."""
    spoken = [primary] * 4 + [lang for lang in languages if lang != primary]
    moves = [move for move in MOVES if catalog is None or move.offered(catalog)]
    return tuple((move, lang) for move in moves for _ in range(move.weight) for lang in spoken)


class _Applicable:
    """The filter of one table's draw: whether a (move, language) applies in the scene of the
    turn being drawn, each pair judged at most once a turn."""

    def __init__(self) -> None:
        self.scenes: dict[str, Scene] = {}
        self.applies: dict[tuple[str, str], bool] = {}

    def __call__(self, turn: Turn) -> bool:
        key = (turn[0].name, turn[1])
        if key not in self.applies:
            self.applies[key] = turn[0].applies(self.scenes[turn[1]])
        return self.applies[key]

    def __repr__(self) -> str:
        return "applicable"


_DRAWS: dict[int, tuple[tuple[Turn, ...], st.SearchStrategy[Turn], _Applicable]] = {}
"""id(table) -> (table, its strategy, its filter). A strategy made anew each turn was labelled
and validated anew by hypothesis, hashing every entry of the table: a third of the simulator's
own time. The entry holds its table, so the id names no other table while it is kept."""


def _table_draw(table: tuple[Turn, ...]) -> tuple[st.SearchStrategy[Turn], _Applicable]:
    kept = _DRAWS.get(id(table))
    if kept is None or kept[0] is not table:
        if len(_DRAWS) >= 64:
            _DRAWS.clear()
        judge = _Applicable()
        kept = _DRAWS[id(table)] = (table, st.sampled_from(table).filter(judge), judge)
    return kept[1], kept[2]


def draw_move(data: st.DataObject, scene: Scene, table: tuple[Turn, ...]) -> Utterance:
    """One applicable move in one language, drawn in a single choice.

    The draw is over the whole table, filtered, rather than over the moves that apply: a move
    keeps its index whatever the situation, so a conversation with a turn deleted by shrinking
    still makes the same later moves.
    """
    strategy, judge = _table_draw(table)
    judge.scenes = scenes = {lang: replace(scene, language=lang) for lang in {t[1] for t in table}}
    judge.applies = {}
    move, language = data.draw(strategy, label="move")
    return move.make(data, scenes[language])
