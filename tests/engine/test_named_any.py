"""No preference, said in every common form (docs/behaviours.md, item 17).

- "I don't care about the rent" / "租金无所谓" names its slot: that slot takes its type's ``any``
  value, whichever question is pending, and the slot asked stays empty.
- "I don't care about it" / "it doesn't matter to me" / "无所谓，你帮我挑" leave the thing asked open:
  the asked slot takes ``any``, and the "it" points back at nothing to ask about.
- "any" before a word ("is there any cheap flat", "任意一套") determines it: no value, though the
  bot spells its no-preference value "any".

The bot is a flat-hunting desk: tests/engine/bots/flat_finder.yaml.
"""

from __future__ import annotations

import pytest

from dialogkit import Bot
from dialogkit.engine.named_any import NamedAny
from dialogkit.model.reply import Reply
from dialogkit.text.labels import Texts

START = {"zh": "我想租房", "en": "find me a flat"}
ASKED_DISTRICT = {"zh": "想住哪个区域？", "en": "Which district?"}


@pytest.fixture(scope="module")
def bot(flat_finder: Bot) -> Bot:
    return flat_finder


@pytest.fixture(scope="module")
def finder(bot: Bot) -> NamedAny:
    return NamedAny(bot.spec, Texts(bot.spec))


_sessions = iter(range(10_000))


def talk(bot: Bot, *turns: str) -> Reply:
    session = f"s{next(_sessions)}"
    reply = None
    for text in turns:
        reply = bot.handle(session, text)
    assert reply is not None
    return reply


class TestTheSlotNamed:
    @pytest.mark.parametrize(("text", "slots"), [
        ("I don't care about the rent", ["rent"]),
        ("i do not really mind which layout", ["layout"]),
        ("The layout doesn't matter to me", ["layout"]),
        ("no particular preference on the rent, thanks", ["rent"]),
        ("I'm not fussy about the district", ["district"]),
        ("any rent is fine", ["rent"]),
        ("I don't have a preference for the neighbourhood", ["district"]),    # the any value's noun
        ("租金无所谓", ["rent"]),
        ("户型我都可以", ["layout"]),
        ("我不在乎租金", ["rent"]),
        ("什么户型都行", ["layout"]),
        ("对区域没要求", ["district"]),
        ("片区随便", ["district"]),                                          # the any value's noun
    ])
    def test_by_label_name_or_type_noun(self, finder: NamedAny, text: str, slots: list[str]) -> None:
        assert finder.slots_in(text) == slots

    @pytest.mark.parametrize("text", ["I don't care", "无所谓", "the rent is too high", "租金太贵了", "any questions?",
                                      "does the layout matter?", "我关心租金", "I care about the rent"])
    def test_no_slot_named_or_no_preference_said(self, finder: NamedAny, text: str) -> None:
        assert finder.slots_in(text) == []

    @pytest.mark.parametrize(("language", "text", "slots"), [
        ("zh", "租金无所谓", {"rent": "any_rent"}),
        ("zh", "什么户型都可以", {"layout": "any"}),
        ("en", "I don't care about the rent", {"rent": "any_rent"}),
        ("en", "the layout really doesn't matter", {"layout": "any"}),
    ])
    def test_fills_that_slot_while_another_is_asked(self, bot: Bot, language: str, text: str,
                                                    slots: dict[str, str]) -> None:
        reply = talk(bot, START[language], text)
        assert reply.slots == slots
        assert reply.text == ASKED_DISTRICT[language]       # the district asked is still open

    @pytest.mark.parametrize(("language", "text"), [("zh", "任何租金都行"), ("en", "any rent is fine")])
    def test_an_any_value_of_another_slot_leaves_the_asked_one_open(self, bot: Bot, language: str,
                                                                    text: str) -> None:
        reply = talk(bot, START[language], text)
        assert "district" not in reply.slots and len(reply.slots) == 1

    @pytest.mark.parametrize(("language", "text"), [("zh", "看房日无所谓"), ("en", "I don't care about the viewing day")])
    def test_a_slot_without_an_any_value_named_fills_nothing_else(self, bot: Bot, language: str, text: str) -> None:
        """The viewing day has no any value: the words are about it, not about the district asked."""
        assert talk(bot, START[language], text).slots == {}


class TestTheThingAsked:
    @pytest.mark.parametrize(("language", "text"), [
        ("zh", "无所谓，你帮我挑一套"), ("zh", "都行吧，便宜点就好"),
        ("en", "I don't care about it"), ("en", "it doesn't matter to me"), ("en", "I have no preference"),
        ("en", "no, I don't care. Just pick one"), ("en", "I don't have a preference, but make it cheap"),
    ])
    def test_any_form_fills_the_asked_slot(self, bot: Bot, language: str, text: str) -> None:
        reply = talk(bot, START[language], text)
        assert reply.slots.get("district") == "anywhere"

    @pytest.mark.parametrize(("language", "start", "answer"), [
        ("zh", "我想租房，便宜的开间", "它无所谓"),
        ("en", "find me a cheap studio", "it doesn't matter"),
    ])
    def test_its_pronoun_is_the_thing_asked(self, bot: Bot, language: str, start: str, answer: str) -> None:
        """Two values said before ("cheap", "studio") are no candidates to ask between."""
        reply = talk(bot, start, answer)
        assert reply.clarification is None
        assert reply.slots == {"layout": "studio", "rent": "low", "district": "anywhere"}


    @pytest.mark.parametrize(("language", "start", "answer"), [
        ("zh", "我想租房，便宜的开间", "它所在的区域我无所谓"),
        ("en", "find me a cheap studio", "I don't care about the district it is in"),
    ])
    def test_its_pronoun_beside_a_slot_named_is_the_thing_looked_for(self, bot: Bot, language: str, start: str,
                                                                      answer: str) -> None:
        """Two values said before ("cheap", "studio") are no candidates: "it" is the flat."""
        reply = talk(bot, start, answer)
        assert reply.clarification is None
        assert reply.slots == {"layout": "studio", "rent": "low", "district": "anywhere"}


class TestAnyBeforeAWord:
    @pytest.mark.parametrize(("language", "text"), [
        ("zh", "帮我在老城找任意一套便宜的房子"), ("en", "is there any cheap flat in the old town?"),
    ])
    def test_determines_it_and_is_no_value(self, bot: Bot, language: str, text: str) -> None:
        reply = talk(bot, text)
        assert reply.slots == {"district": "old_town", "rent": "low"}

    @pytest.mark.parametrize(("language", "text"), [("zh", "任意"), ("en", "any")])
    def test_said_alone_it_is_the_answer(self, bot: Bot, language: str, text: str) -> None:
        reply = talk(bot, "find me a flat in the old town", text)
        assert reply.slots == {"district": "old_town", "layout": "any"}


class TestSaidWhenAFlowStarts:
    @pytest.mark.parametrize(("language", "text"), [
        ("zh", "我想租房，要开间，租金无所谓"),
        ("en", "find me a flat, a studio, I don't care about the rent"),
    ])
    def test_the_request_that_starts_the_flow_fills_the_slot_named(self, bot: Bot, language: str, text: str) -> None:
        reply = talk(bot, text)
        assert reply.slots == {"layout": "studio", "rent": "any_rent"}
        assert reply.text == ASKED_DISTRICT[language]


class TestMoreForms:
    @pytest.mark.parametrize(("text", "slots"), [
        ("Don't care about the rent, just find me a studio", ["rent"]),          # no "I"
        ("I don't have a set rent", ["rent"]),
        ("no specific district", ["district"]),
        ("区域没有特别的要求", ["district"]),
        ("没有特定的户型", ["layout"]),
        ("No. I dont have a preferred rent", ["rent"]),
        ("我没有心仪的户型", ["layout"]),
    ])
    def test_named(self, finder: NamedAny, text: str, slots: list[str]) -> None:
        assert finder.slots_in(text) == slots

    @pytest.mark.parametrize(("language", "text"), [
        ("en", "Don't care."), ("en", "no specific one"), ("en", "No particular, thanks"),
        ("zh", "没有特别的要求"), ("zh", "没什么偏好"),
    ])
    def test_the_asked_slot(self, bot: Bot, language: str, text: str) -> None:
        assert talk(bot, START[language], text).slots.get("district") == "anywhere"

    @pytest.mark.parametrize("text", ["I don't have the key", "没有特别的事"])
    def test_not_a_preference(self, bot: Bot, text: str) -> None:
        assert "district" not in talk(bot, START["en"], text).slots


class TestBesideAnAnswer:
    """"无所谓，不过要老城" answers the district asked: the no-preference is about something else."""

    @pytest.mark.parametrize(("language", "start", "answer"), [
        ("zh", "我想租房，便宜的", "无所谓，不过要老城"),
        ("en", "find me a cheap flat", "I don't care, but it should be in the old town"),
    ])
    def test_it_is_the_one_other_open_slot(self, bot: Bot, language: str, start: str, answer: str) -> None:
        """Rent is held and the viewing day takes no any value: the layout is the one left."""
        reply = talk(bot, start, answer)
        assert reply.slots == {"rent": "low", "district": "old_town", "layout": "any"}

    @pytest.mark.parametrize(("language", "start", "answer"), [
        ("zh", "我想租房", "无所谓，不过要老城"),
        ("en", "find me a flat", "I don't care, but it should be in the old town"),
    ])
    def test_with_two_open_it_fills_neither(self, bot: Bot, language: str, start: str, answer: str) -> None:
        assert talk(bot, start, answer).slots == {"district": "old_town"}


class TestAfterAnAnswerToAnotherSlot:
    """"要开间。随便吧" to the district asked: the layout is answered, and the later sentence or
    clause that leaves the choice open is about the question asked."""

    @pytest.mark.parametrize(("language", "answer"), [
        ("zh", "要开间。随便吧"), ("zh", "开间就好，其余无所谓"),
        ("en", "A studio would be great. Any is fine."), ("en", "I'd like a studio but I don't mind"),
    ])
    def test_the_asked_slot_takes_it(self, bot: Bot, language: str, answer: str) -> None:
        assert talk(bot, START[language], answer).slots == {"layout": "studio", "district": "anywhere"}

    @pytest.mark.parametrize(("language", "answer"), [("zh", "要开间。你们有什么推荐吗？"),
                                                     ("en", "A studio would be great. Anything else to know?")])
    def test_a_later_question_is_no_answer(self, bot: Bot, language: str, answer: str) -> None:
        assert talk(bot, START[language], answer).slots == {"layout": "studio"}


class TestAnAnswerThatGivesNothing:
    """"没有" / "No." / "不知道" / "I don't know" to a question whose slot takes an ``any`` value: the
    user has no preference to give, so the slot takes it; a slot without one is asked again."""

    @pytest.mark.parametrize(("language", "text"), [
        ("zh", "没有"), ("zh", "没有。"), ("zh", "不知道"), ("zh", "我也不清楚"),
        ("en", "No."), ("en", "nope"), ("en", "No I do not"), ("en", "I don't know"), ("en", "I don't have one"),
        ("en", "no, I don't have that preference"), ("en", "No. I dont have a preferred one"), ("zh", "没有心仪的"),
    ])
    def test_fills_the_asked_slot(self, bot: Bot, language: str, text: str) -> None:
        assert talk(bot, START[language], text).slots == {"district": "anywhere"}

    @pytest.mark.parametrize(("language", "text"), [("zh", "没有，要老城"), ("en", "no, the old town")])
    def test_a_value_said_with_it_is_the_answer(self, bot: Bot, language: str, text: str) -> None:
        assert talk(bot, START[language], text).slots == {"district": "old_town"}

    @pytest.mark.parametrize(("language", "start", "text", "asked"), [
        ("zh", "我想租房，老城的便宜开间", "不知道", "哪天看房？"),
        ("en", "find me a cheap studio in the old town", "I don't know", "Which day would you like to view?"),
    ])
    def test_a_slot_with_no_any_value_is_asked_again(self, bot: Bot, language: str, start: str, text: str,
                                                     asked: str) -> None:
        reply = talk(bot, start, text)
        assert "viewing_day" not in reply.slots and asked in reply.text

    @pytest.mark.parametrize("text", ["没有", "No."])
    def test_with_no_question_pending_it_fills_nothing(self, bot: Bot, text: str) -> None:
        assert talk(bot, text).slots == {}


class TestSeveralSlotsNamed:
    """"I don't care about the rent or the district" / "租金和区域都无所谓": each slot in the list."""

    @pytest.mark.parametrize(("text", "slots"), [
        ("I don't care about the rent or the district", ["rent", "district"]),
        ("i do not care about the layout and rent", ["layout", "rent"]),
        ("the rent or the layout doesn't matter", ["rent", "layout"]),
        ("租金和区域都无所谓", ["rent", "district"]),
        ("我不在乎租金和户型", ["rent", "layout"]),
    ])
    def test_each_name_in_the_list(self, finder: NamedAny, text: str, slots: list[str]) -> None:
        assert finder.slots_in(text) == slots

    @pytest.mark.parametrize("text", ["I care about the rent and I don't care about the district",
                                      "租金要便宜，区域无所谓"])
    def test_a_name_outside_the_list_is_not_in_it(self, finder: NamedAny, text: str) -> None:
        assert finder.slots_in(text) == ["district"]

    @pytest.mark.parametrize(("language", "text"), [("zh", "户型和租金都无所谓"),
                                                    ("en", "I do not care about the layout or the rent")])
    def test_both_take_their_any_value(self, bot: Bot, language: str, text: str) -> None:
        reply = talk(bot, START[language], text)
        assert reply.slots == {"layout": "any", "rent": "any_rent"}


class TestAnythingInTheSlot:
    @pytest.mark.parametrize(("text", "slots"), [
        ("Anything in the district would be fine", ["district"]),
        ("anything for the rent is ok", ["rent"]),
        ("区域上什么都行", ["district"]),
        ("户型方面哪种都可以", ["layout"]),
    ])
    def test_names_its_slot(self, finder: NamedAny, text: str, slots: list[str]) -> None:
        assert finder.slots_in(text) == slots


class TestNoPreferenceIsNoReferent:
    """"它" / "it" never points back at a no-preference ("任何片区" / "any district"): it names no
    thing. Nor at a value the user replaced ("换成两居吧" / "how about a two bedroom instead?"): the
    value held is meant; nor at a value of a slot left open ("老城或者河畔都行")."""

    @pytest.mark.parametrize(("language", "turns", "slots"), [
        ("zh", ["我想租房，要开间", "区域无所谓", "它的租金要便宜"], {"layout": "studio", "district": "anywhere", "rent": "low"}),
        ("en", ["find me a studio flat", "the district doesn't matter", "cheap rent for it"],
         {"layout": "studio", "district": "anywhere", "rent": "low"}),
    ])
    def test_it_is_the_value_said_before(self, bot: Bot, language: str, turns: list[str], slots: dict[str, str]) -> None:
        reply = talk(bot, *turns)
        assert reply.clarification is None and reply.slots == slots

    @pytest.mark.parametrize(("language", "turns"), [
        ("zh", ["我想租房，任何片区", "就它吧"]), ("zh", ["我想租房，任何片区", "就那个吧"]),
        ("en", ["find me a flat, any district", "no, that does it"]),
    ])
    def test_that_binds_no_no_preference(self, bot: Bot, language: str, turns: list[str]) -> None:
        reply = talk(bot, *turns)
        assert all("anywhere" not in e.did and "any district" not in e.did and "不限区域" not in e.did
                   for e in reply.explain if e.rule == "reference")

    @pytest.mark.parametrize(("language", "turns"), [
        ("zh", ["我想租房，要开间，任何片区", "换成两居吧", "那个可以"]),
        ("en", ["find me a studio flat, any district", "how about a two bedroom instead?", "that will work"]),
    ])
    def test_nor_a_value_replaced(self, bot: Bot, language: str, turns: list[str]) -> None:
        reply = talk(bot, *turns)
        bound = [e.did for e in reply.explain if e.rule == "reference"]
        assert reply.slots["layout"] == "two_bed"
        assert all("anywhere" not in did and "studio" not in did for did in bound)

    @pytest.mark.parametrize(("language", "turns"), [
        ("zh", ["我想租房，要开间", "老城或者河畔都行", "它的租金要便宜"]),
        ("en", ["find me a studio flat", "either the old town or riverside is fine", "cheap rent for it"]),
    ])
    def test_nor_a_value_of_a_slot_with_no_preference(self, bot: Bot, language: str, turns: list[str]) -> None:
        """"老城或者河畔都行" leaves the district open: neither district is what "它" / "it" means."""
        reply = talk(bot, *turns)
        bound = [e.did for e in reply.explain if e.rule == "reference"]
        assert reply.slots.get("district") == "anywhere" and reply.clarification is None
        assert all("old_town" not in did and "riverside" not in did for did in bound)
