"""``slots`` on its own: what one interpretation offers a flow's slots, the validation rules, and
which required slots are still missing."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dialogkit.engine.slots import SlotLayout, SlotOffer, missing_required, offer_slots, validate_slot
from dialogkit.model.interpretation import Interpretation, Mention, WordsRead, YesNo
from dialogkit.spec.schema import FlowSpec, SlotSpec
from dialogkit.text.phrases import phrase
from tests.engine._parts import Parts, build

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])

# Two slots of one type (cities), a number, a free-text slot and an optional free-text one.
TRAVEL = """
bot: {name: travel}
entities:
  city:
    kind: place
    values:
      北京: {aliases: [北京, Beijing], label: {zh: 北京, en: Beijing}}
      上海: {aliases: [上海, Shanghai], label: {zh: 上海, en: Shanghai}}
flows:
  book:
    description: 订票 / Book a ticket
    trigger: {keywords: [订票, ticket]}
    slots:
      - {name: origin, entity: city, label: {zh: 出发地, en: origin}}
      - {name: destination, entity: city, label: {zh: 目的地, en: destination}}
      - {name: passengers, entity: integer}
      - {name: traveller, label: {zh: 乘客姓名, en: traveller name}}
      - {name: note, required: false, label: {zh: 备注, en: note}}
"""


@pytest.fixture(scope="module")
def support() -> Parts:
    return build()


@pytest.fixture(scope="module")
def travel() -> Parts:
    return build(TRAVEL, actions={})


def offer(parts: Parts, flow: str, text: str, lang: str, *, filled: dict[str, Any] | None = None,
          pending: str | None = None) -> SlotOffer:
    """What ``text``, understood by the bot's rules, offers ``flow``."""
    return offer_slots(SlotLayout.of(parts.spec.flows[flow]), parts.understanding.interpret(text, lang),
                       filled=filled or {}, pending_slot=pending)


def order(value: str, start: int = 0) -> Mention:
    return Mention(type="order_id", value=value, text=value, start=start, end=start + len(value), kind="thing")


def never_read(types: object) -> list[Mention]:
    raise AssertionError("the turn must not be read as a type")


class TestOfferSlots:
    @LANGS
    def test_each_mention_fills_the_slot_of_its_type_as_written(self, support: Parts, lang: str) -> None:
        """Values are canonical; the surfaces keep the words the user wrote."""
        text = {"zh": "订单 12345 的手机碎了", "en": "order 12345: my phone is broken"}[lang]
        got = offer(support, "report_issue", text, lang)
        assert got.values == {"order_id": "12345", "product": "phone", "issue_type": "damaged"}
        assert got.surfaces["product"] == {"zh": "手机", "en": "phone"}[lang]
        assert got.conflicts == {} and not got.empty

    @LANGS
    def test_two_values_for_a_one_slot_type_are_a_conflict(self, support: Parts, lang: str) -> None:
        """Two order numbers for one order slot: nothing is filled, both are offered as a question."""
        got = offer(support, "report_issue", {"zh": "订单 12345 和 67890", "en": "orders 12345 and 67890"}[lang], lang)
        assert got.values == {}
        assert [m.value for m in got.conflicts["order_id"]] == ["12345", "67890"]
        assert not got.empty

    @LANGS
    def test_a_correction_takes_the_last_value(self, support: Parts, lang: str) -> None:
        """"不是 12345，是 67890" / "not 12345 but 67890" is no conflict: the last value wins."""
        got = offer(support, "report_issue", {"zh": "不是 12345，是 67890", "en": "not 12345 but 67890"}[lang], lang)
        assert got.values == {"order_id": "67890"} and got.conflicts == {}

    @LANGS
    def test_slots_sharing_a_type_take_values_in_order_of_mention(self, travel: Parts, lang: str) -> None:
        """From Beijing to Shanghai: the first city is the origin, the second the destination."""
        got = offer(travel, "book", {"zh": "从北京到上海", "en": "from Beijing to Shanghai"}[lang], lang)
        assert got.values == {"origin": "北京", "destination": "上海"}

    @LANGS
    def test_an_unfilled_slot_of_a_shared_type_comes_first(self, travel: Parts, lang: str) -> None:
        """With the origin known, the one city named is the destination."""
        got = offer(travel, "book", {"zh": "上海", "en": "Shanghai"}[lang], lang, filled={"origin": "北京"},
                    pending="destination")
        assert got.values == {"destination": "上海"}

    def test_the_asked_typed_slot_is_looked_for_again_when_the_turn_names_none(self) -> None:
        """Asked for an order number, an answer with no order mention is searched for that type alone."""
        asked: list[set[str]] = []

        def read_as(types: set[str]) -> list[Mention]:
            asked.append(set(types))
            return [order("55555")]

        layout = SlotLayout.of(build().spec.flows["report_issue"])
        got = offer_slots(layout, Interpretation(text="号码是 55555", language="zh", reader=read_as), filled={},
                          pending_slot="order_id")
        assert asked == [{"order_id"}] and got.values == {"order_id": "55555"}

    def test_a_referent_fills_a_slot_only_when_the_turn_names_no_value_of_its_type(self) -> None:
        """"actually it's 67890" corrects to 67890, not to whatever "it" pointed at."""
        layout = SlotLayout.of(build().spec.flows["check_status"])
        named = Interpretation(text="actually it's 67890", language="en", mentions=[order("67890", 14)],
                               reader=never_read)
        alone = Interpretation(text="how is it", language="en", reader=never_read)
        referent = [order("12345", 7)]
        assert offer_slots(layout, named, filled={}, pending_slot=None,
                           extra_mentions=referent).values == {"order_id": "67890"}
        assert offer_slots(layout, alone, filled={}, pending_slot=None,
                           extra_mentions=referent).values == {"order_id": "12345"}

    @LANGS
    def test_a_free_text_slot_is_offered_by_its_label(self, travel: Parts, lang: str) -> None:
        """"备注：靠窗" / "note: window seat" fills the optional note without being asked."""
        text = {"zh": "备注：靠窗", "en": "note: window seat"}[lang]
        assert offer(travel, "book", text, lang).values == {"note": {"zh": "靠窗", "en": "window seat"}[lang]}

    @LANGS
    def test_the_asked_free_text_slot_takes_the_whole_answer(self, travel: Parts, lang: str) -> None:
        """Asked for a name, the answer is the name."""
        text = {"zh": "李雷", "en": "Joe Brown"}[lang]
        assert offer(travel, "book", text, lang, pending="traveller").values == {"traveller": text}

    @LANGS
    def test_an_answer_that_fills_a_typed_slot_is_not_also_the_asked_free_text(self, travel: Parts,
                                                                                lang: str) -> None:
        """Asked for a name, "从北京到上海" is a route, not a name."""
        got = offer(travel, "book", {"zh": "从北京到上海", "en": "from Beijing to Shanghai"}[lang], lang,
                    pending="traveller")
        assert "traveller" not in got.values

    @LANGS
    def test_an_answer_with_nothing_for_the_flow_is_an_empty_offer(self, support: Parts, lang: str) -> None:
        """Nothing offered: the policy re-asks."""
        assert offer(support, "report_issue", {"zh": "随便", "en": "whatever you like"}[lang], lang).empty


class TestCounts:
    @pytest.mark.parametrize(("text", "lang"), [("我有两个城市 北京 和 上海", "zh"), ("I have two cities, Beijing and Shanghai", "en")])
    def test_a_number_counting_the_values_named_after_it_fills_no_slot(self, travel: Parts, text: str,
                                                                       lang: str) -> None:
        got = offer(travel, "book", text, lang, pending="passengers")
        assert "passengers" not in got.values
        assert (got.values["origin"], got.values["destination"]) == ("北京", "上海")

    @LANGS
    def test_a_number_that_counts_nothing_named_still_fills_its_slot(self, travel: Parts, lang: str) -> None:
        got = offer(travel, "book", {"zh": "两个人，北京到上海", "en": "3 people from Beijing to Shanghai"}[lang], lang)
        assert got.values["passengers"] == {"zh": 2, "en": 3}[lang]


# A card whose pattern takes any lone number, a limit (a number), and a yes/no question.
CARDS = r"""
bot: {name: cards}
entities:
  card: {pattern: '(?:尾号|ending in)\s*(\d+)|^\s*(\d+)\s*$', kind: thing}
flows:
  card:
    description: 办卡 / Cards
    trigger: {keywords: [办卡, card]}
    slots:
      - {name: card_last4, entity: card}
      - {name: new_limit, entity: number}
      - {name: send_replacement, entity: yes_no, label: {zh: 补寄新卡, en: replacement card}}
"""


@pytest.fixture(scope="module")
def cards() -> Parts:
    return build(CARDS, actions={})


class TestBareAnswer:
    @pytest.mark.parametrize(("text", "lang"), [("5000", "zh"), ("5000", "en"), ("五千", "zh"), ("five thousand", "en")])
    def test_a_bare_value_of_the_asked_type_is_the_asked_slots(self, cards: Parts, text: str, lang: str) -> None:
        """Asked for the limit, "5000" is the limit, though the card pattern reads any lone number."""
        got = offer(cards, "card", text, lang, filled={"card_last4": "1234"}, pending="new_limit")
        assert got.values == {"new_limit": 5000}

    @LANGS
    def test_asked_for_the_card_the_same_number_is_the_card(self, cards: Parts, lang: str) -> None:
        assert offer(cards, "card", "5678", lang, pending="card_last4").values == {"card_last4": "5678"}

    @LANGS
    def test_more_than_the_value_is_read_as_usual(self, cards: Parts, lang: str) -> None:
        text = {"zh": "尾号1234，额度5000", "en": "ending in 1234, limit 5000"}[lang]
        got = offer(cards, "card", text, lang, pending="new_limit")
        assert got.values == {"card_last4": "1234", "new_limit": 5000}


class TestYesNoSlots:
    @pytest.mark.parametrize(("text", "lang", "value"), [("需要", "zh", True), ("不需要", "zh", False),
                                                         ("yes", "en", True), ("no", "en", False)])
    def test_a_yes_or_no_fills_the_asked_yes_no_slot(self, cards: Parts, text: str, lang: str, value: bool) -> None:
        assert offer(cards, "card", text, lang, pending="send_replacement").values == {"send_replacement": value}

    @pytest.mark.parametrize(("text", "lang"), [("确认", "zh"), ("不", "zh"), ("yes", "en"), ("no", "en")])
    def test_a_yes_or_no_to_another_question_is_no_value(self, cards: Parts, text: str, lang: str) -> None:
        """At the confirmation (nothing asked) or asked for the limit, "确认" / "no" answers that."""
        assert offer(cards, "card", text, lang).empty
        assert "send_replacement" not in offer(cards, "card", text, lang, pending="new_limit").values

    @pytest.mark.parametrize(("text", "lang"), [("不，不用补寄", "zh"), ("no, no replacement", "en")])
    def test_an_answer_naming_the_slot_fills_it_unasked(self, cards: Parts, text: str, lang: str) -> None:
        assert offer(cards, "card", text, lang).values == {"send_replacement": False}


# Two integers told apart by their units, a yes/no slot, a phone and free text.
HOTEL = """
bot: {name: hotel}
entities:
  booking: {pattern: '(?<![A-Za-z0-9])((?:H)?\\d{10,12})(?![A-Za-z0-9])', kind: thing}
flows:
  book:
    description: 订房 / Book a room
    trigger: {keywords: [订房, book a room]}
    slots:
      - {name: nights, entity: integer, label: {zh: 入住晚数, en: nights}, ask: {zh: 住几晚？, en: How many nights?}}
      - {name: guests, entity: integer, label: {zh: 人数, en: guests}, ask: {zh: 几位入住？, en: How many guests?}}
      - {name: breakfast, entity: yes_no, label: {zh: 早餐, en: breakfast}}
      - {name: booking_no, entity: booking, label: {zh: 订单号, en: booking number}}
      - {name: phone, entity: phone, label: {zh: 联系电话, en: contact phone}}
      - {name: guest_name, label: {zh: 姓名, en: name}}
"""


@pytest.fixture(scope="module")
def hotel() -> Parts:
    return build(HOTEL, actions={})


class TestUnits:
    @pytest.mark.parametrize(("text", "lang"), [("住两晚，三个人", "zh"), ("三个人，住两晚", "zh"),
                                                ("for 3 guests, 2 nights", "en"), ("2 nights for 3 people", "en")])
    def test_a_number_goes_to_the_slot_its_unit_names(self, hotel: Parts, text: str, lang: str) -> None:
        assert offer(hotel, "book", text, lang).values == {"nights": 2, "guests": 3}

    @pytest.mark.parametrize(("text", "lang"), [("住两晚，两个人", "zh"), ("2 nights, 2 guests", "en")])
    def test_the_same_number_twice_fills_both(self, hotel: Parts, text: str, lang: str) -> None:
        assert offer(hotel, "book", text, lang).values == {"nights": 2, "guests": 2}

    def test_a_measure_word_no_slot_counts_fills_nothing(self, hotel: Parts) -> None:
        """"一间" counts rooms, which this flow does not ask for."""
        assert offer(hotel, "book", "订一间，住两晚", "zh").values == {"nights": 2}

    @LANGS
    def test_numbers_without_units_still_go_in_order(self, hotel: Parts, lang: str) -> None:
        assert offer(hotel, "book", {"zh": "2，3", "en": "2, 3"}[lang], lang).values == {"nights": 2, "guests": 3}


class TestLabelledValues:
    @pytest.mark.parametrize(("text", "lang"), [("订单H1234567890，联系电话13812345678", "zh"),
                                                ("booking H1234567890, contact phone 13812345678", "en")])
    def test_a_value_after_a_slots_label_is_that_slots(self, hotel: Parts, text: str, lang: str) -> None:
        """The booking pattern takes eleven digits too; after "联系电话" / "contact phone" they are a phone."""
        got = offer(hotel, "book", text, lang)
        assert (got.values["booking_no"], got.values["phone"]) == ("H1234567890", "13812345678")

    @pytest.mark.parametrize(("text", "lang", "name"), [("张伟，联系电话13812345678", "zh", "张伟"),
                                                        ("Jane Smith, contact phone 13812345678", "en", "Jane Smith")])
    def test_the_free_text_asked_is_the_rest_of_the_answer(self, hotel: Parts, text: str, lang: str,
                                                           name: str) -> None:
        got = offer(hotel, "book", text, lang, pending="guest_name")
        assert got.values == {"phone": "13812345678", "guest_name": name}


class Asked:
    """The turn's reading of its words, recording the patterns the steps ask it for."""

    def __init__(self, words: WordsRead) -> None:
        self.words = words
        self.asked: list[re.Pattern[str]] = []

    def matches(self, pattern: re.Pattern[str]) -> tuple[re.Match[str], ...]:
        self.asked.append(pattern)
        return self.words.matches(pattern)

    def leading_answer(self) -> YesNo | None:
        return self.words.leading_answer()


class TestLabelsAreRead:
    @pytest.mark.parametrize(("text", "lang"), [("订单H1234567890，联系电话13812345678，不要早餐", "zh"),
                                                ("booking H1234567890, contact phone 13812345678, no breakfast", "en")])
    def test_the_labels_are_the_turns_reading(self, hotel: Parts, text: str, lang: str) -> None:
        """Labels, "label:" before free text and the words naming a yes/no slot are asked of the
        turn's reading (``Interpretation.matches``, each found once a turn), not read again here."""
        layout = SlotLayout.of(hotel.spec.flows["book"])
        interp = hotel.understanding.interpret(text, lang)
        assert interp.words is not None
        interp.words = asked = Asked(interp.words)
        got = offer_slots(layout, interp, filled={}, pending_slot="guest_name")
        assert got.values == {"booking_no": "H1234567890", "phone": "13812345678", "breakfast": False}
        wanted = {p for _, p in (*layout.labels, *layout.free_text)} | set(layout.answer_names.values())
        assert wanted <= set(asked.asked)


class TestTwoLabelledValuesOfOneType:
    @pytest.mark.parametrize(("text", "lang"), [("入住晚数是1，人数是4", "zh"), ("nights: 1, guests: 4", "en")])
    def test_each_goes_to_the_slot_its_label_names(self, hotel: Parts, text: str, lang: str) -> None:
        """The other number is no second answer for either slot: its own label claims it."""
        got = offer(hotel, "book", text, lang, pending="guests", filled={"nights": 2})
        assert got.values == {"nights": 1, "guests": 4}

    @pytest.mark.parametrize(("text", "lang"), [("人数是3", "zh"), ("guests: 3", "en")])
    def test_one_labelled_value_is_not_the_asked_slots(self, hotel: Parts, text: str, lang: str) -> None:
        assert offer(hotel, "book", text, lang, pending="nights").values == {"guests": 3}


class TestFreeTextWithNumbers:
    @pytest.mark.parametrize(("text", "lang"), [("王小二", "zh"), ("李十一", "zh"), ("Agent 47", "en"),
                                                ("Jane Doe 2", "en")])
    def test_a_number_inside_the_answer_is_part_of_it(self, hotel: Parts, text: str, lang: str) -> None:
        assert offer(hotel, "book", text, lang, pending="guest_name").values == {"guest_name": text}

    @pytest.mark.parametrize(("text", "lang"), [("我们三个人", "zh"), ("帮助", "zh"), ("help", "en")])
    def test_a_count_or_a_request_for_help_is_no_name(self, hotel: Parts, text: str, lang: str) -> None:
        assert "guest_name" not in offer(hotel, "book", text, lang, pending="guest_name").values


class TestNamedAnswers:
    @pytest.mark.parametrize(("text", "lang", "value"), [("不要早餐", "zh", False), ("早餐不要了", "zh", False),
                                                         ("要早餐", "zh", True), ("no breakfast", "en", False),
                                                         ("with breakfast please", "en", True)])
    def test_a_yes_no_slot_named_with_its_answer(self, hotel: Parts, text: str, lang: str, value: bool) -> None:
        assert offer(hotel, "book", text, lang, pending="nights").values == {"breakfast": value}


# A repair desk: free text, a time, a yes/no slot; a fee paid in a ``number`` slot beside an id, while
# another flow counts in integers (so a whole number is read as an integer first).
REPAIR = """
bot: {name: repair}
entities:
  ticket: {pattern: '(?<![\\d.])(\\d{6,10})(?![\\d.])', kind: thing}
flows:
  report:
    description: 报修 / Report a fault
    trigger: {keywords: [报修, repair]}
    slots:
      - {name: address, label: {zh: 地址, en: address}}
      - {name: since, entity: time, label: {zh: 开始时间, en: start time}}
      - {name: rush, entity: yes_no, label: {zh: 加急, en: rush}}
  pay:
    description: 缴费 / Pay a fee
    trigger: {keywords: [缴费, pay a fee]}
    slots:
      - {name: ticket, entity: ticket, label: {zh: 工单号, en: ticket number}}
      - {name: fee, entity: number, label: {zh: 金额, en: amount}}
  visit:
    description: 预约上门 / Book a visit
    trigger: {keywords: [上门, visit]}
    slots:
      - {name: visits, entity: integer, label: {zh: 次数, en: visits}}
"""


@pytest.fixture(scope="module")
def repair() -> Parts:
    return build(REPAIR, actions={})


class TestLabelledValueBesideFreeText:
    @pytest.mark.parametrize(("text", "lang", "time"), [("开始时间是上午八点", "zh", "08:00"),
                                                        ("the start time is 5:30pm", "en", "17:30")])
    def test_a_labelled_value_is_its_slots_not_the_free_text_asked(self, repair: Parts, text: str, lang: str,
                                                                   time: str) -> None:
        assert offer(repair, "report", text, lang, pending="address").values == {"since": time}

    @pytest.mark.parametrize(("text", "lang", "address"), [("建国路88号，开始时间是8点", "zh", "建国路88号"),
                                                           ("88 Jianguo Road, the start time is 8am", "en",
                                                            "88 Jianguo Road")])
    def test_the_free_text_is_the_rest(self, repair: Parts, text: str, lang: str, address: str) -> None:
        assert offer(repair, "report", text, lang, pending="address").values == {"address": address,
                                                                                 "since": "08:00"}


class TestWholeNumbersForANumberSlot:
    @pytest.mark.parametrize(("text", "lang"), [("我来缴费，交15元", "zh"), ("I want to pay a fee of 15 yuan", "en")])
    def test_an_amount_said_unasked_fills_the_number_slot(self, repair: Parts, text: str, lang: str) -> None:
        assert offer(repair, "pay", text, lang).values == {"fee": 15}

    @pytest.mark.parametrize(("text", "lang"), [("工单号是20481234，金额是200", "zh"),
                                                ("the ticket number is 20481234, the amount is 200", "en")])
    def test_two_labelled_numbers_each_go_to_their_slot(self, repair: Parts, text: str, lang: str) -> None:
        assert offer(repair, "pay", text, lang, pending="ticket").values == {"ticket": "20481234", "fee": 200}


class TestStatedYesNo:
    @pytest.mark.parametrize(("text", "lang", "value"), [("加急：否", "zh", False), ("rush: no", "en", False),
                                                         ("不加急", "zh", False), ("it's not a rush", "en", False),
                                                         ("要加急，明天就要用", "zh", True),
                                                         ("it's a rush, the pipe burst", "en", True)])
    def test_answered_while_another_slot_is_asked(self, repair: Parts, text: str, lang: str, value: bool) -> None:
        assert offer(repair, "report", text, lang, pending="since").values == {"rush": value}

    @pytest.mark.parametrize(("text", "lang", "address"), [("建国路88号，不加急", "zh", "建国路88号"),
                                                           ("88 Jianguo Road, rush: no", "en", "88 Jianguo Road")])
    def test_its_clause_is_no_part_of_the_free_text_asked(self, repair: Parts, text: str, lang: str,
                                                          address: str) -> None:
        assert offer(repair, "report", text, lang, pending="address").values == {"address": address, "rush": False}


class TestListedValues:
    @pytest.mark.parametrize(("text", "lang"), [("H1234567890和H2234567890都改到明天", "zh"),
                                                ("change H1234567890 and H2234567890 to tomorrow", "en")])
    def test_two_values_listed_are_a_question_though_the_words_correct(self, hotel: Parts, text: str,
                                                                         lang: str) -> None:
        got = offer(hotel, "book", text, lang)
        assert [m.value for m in got.conflicts["booking_no"]] == ["H1234567890", "H2234567890"]


def slot(**spec: Any) -> SlotSpec:
    return SlotSpec.model_validate({"name": "value", **spec})


def no_validator(action: str, value: Any) -> str | None:
    raise AssertionError("no validator action was named")


class TestValidateSlot:
    @LANGS
    def test_a_value_breaking_a_pattern_gets_the_rules_message(self, support: Parts, lang: str) -> None:
        """The order number's rule speaks the turn's language."""
        order_slot = support.spec.flows["report_issue"].slot("order_id")
        assert order_slot is not None
        message = {"zh": "订单号应为5到12位数字。", "en": "An order number has 5 to 12 digits."}[lang]
        assert validate_slot(order_slot, "1234", lang, no_validator) == message
        assert validate_slot(order_slot, "12345", lang, no_validator) is None

    @pytest.mark.parametrize(("value", "valid"), [(1, True), ("9", True), (0, False), (10, False), ("two", False)])
    def test_min_and_max_bound_a_number(self, value: Any, valid: bool) -> None:
        """A value outside the range, or no number at all, fails."""
        rule = slot(validate=[{"min": 1, "max": 9, "error": {"zh": "1到9。", "en": "1 to 9."}}])
        assert (validate_slot(rule, value, "en", no_validator) is None) is valid

    @pytest.mark.parametrize(("value", "valid"), [("李雷", True), ("Li", True), ("李", False), ("Lorem ipsum", False)])
    def test_min_and_max_length_bound_the_text(self, value: str, valid: bool) -> None:
        """Length counts characters, Chinese or Latin alike."""
        rule = slot(validate=[{"min_length": 2, "max_length": 10}])
        assert (validate_slot(rule, value, "zh", no_validator) is None) is valid

    @pytest.mark.parametrize(("value", "valid"), [("A101", True), ("B202", True), ("C303", False)])
    def test_one_of_lists_the_allowed_values(self, value: str, valid: bool) -> None:
        """Only a listed value passes."""
        rule = slot(validate=[{"one_of": ["A101", "B202"]}])
        assert (validate_slot(rule, value, "en", no_validator) is None) is valid

    @LANGS
    def test_a_rule_without_a_message_says_the_value_is_invalid(self, lang: str) -> None:
        """A failing rule with no error of its own gets the framework's phrase."""
        rule = slot(validate=[{"pattern": r"^\d+$"}])
        assert validate_slot(rule, "abc", lang, no_validator) == phrase("invalid_value", lang)

    @LANGS
    def test_a_validator_action_gives_its_own_message(self, lang: str) -> None:
        """The action is called with its name and the value; its message is the refusal, None a pass."""
        calls: list[tuple[str, Any]] = []

        def validator(action: str, value: Any) -> str | None:
            calls.append((action, value))
            return None if value == "ok" else {"zh": "不行。", "en": "No good."}[lang]

        rule = slot(validate=[{"action": "check_value"}])
        assert validate_slot(rule, "bad", lang, validator) == {"zh": "不行。", "en": "No good."}[lang]
        assert validate_slot(rule, "ok", lang, validator) is None
        assert calls == [("check_value", "bad"), ("check_value", "ok")]

    def test_the_first_failing_rule_speaks(self) -> None:
        """Rules are checked in order; the first one that fails gives the message."""
        rules = slot(validate=[{"min_length": 1, "error": "first"}, {"pattern": "^A", "error": "second"},
                               {"max_length": 2, "error": "third"}])
        assert validate_slot(rules, "BBBB", "en", no_validator) == "second"


class TestMissingRequired:
    def test_required_empty_slots_in_declaration_order(self, travel: Parts) -> None:
        """The next question asks the first; optional slots are never missing."""
        flow: FlowSpec = travel.spec.flows["book"]
        assert [s.name for s in missing_required(flow, {"destination": "上海"})] == ["origin", "passengers",
                                                                                   "traveller"]

    def test_a_slot_holding_none_is_missing(self, travel: Parts) -> None:
        """An emptied slot counts as empty."""
        flow = travel.spec.flows["book"]
        slots = {"origin": None, "destination": "上海", "passengers": 2, "traveller": "李雷"}
        assert [s.name for s in missing_required(flow, slots)] == ["origin"]

    def test_nothing_missing_when_every_required_slot_is_filled(self, travel: Parts) -> None:
        """All required slots filled: the task can confirm or run."""
        slots = {"origin": "北京", "destination": "上海", "passengers": 2, "traveller": "李雷"}
        assert missing_required(travel.spec.flows["book"], slots) == []


# A ride: two stations told apart by role words, a pickup spot the ride waits near, a fare.
RIDE = """
bot: {name: ride}
entities:
  station:
    kind: place
    values:
      west: {aliases: [西站, West Station], label: {zh: 西站, en: West Station}}
      east: {aliases: [东站, East Station], label: {zh: 东站, en: East Station}}
  spot:
    kind: place
    values:
      gate: {aliases: [南门, south gate], label: {zh: 南门, en: south gate}}
flows:
  ride:
    description: 叫车 / Call a car
    trigger: {keywords: [叫车, call a car]}
    slots:
      - {name: start, entity: station, role: [从, from]}
      - {name: end, entity: station, role: [到, to]}
      - {name: pickup, entity: spot, role: near}
      - {name: fare, entity: number, label: {zh: 车费, en: fare}}
"""


@pytest.fixture(scope="module")
def ride() -> Parts:
    return build(RIDE, actions={})


class TestLayoutOfTypes:
    def test_only_types_with_a_near_slot_or_role_words_look_beside_their_values(self, ride: Parts,
                                                                                 travel: Parts) -> None:
        """Worked out once per flow: a turn looks at the words beside a value only for these types."""
        layout = SlotLayout.of(ride.spec.flows["ride"])
        assert (layout.near_types, layout.role_types) == ({"spot"}, {"spot", "station"})   # near words are roles
        plain = SlotLayout.of(travel.spec.flows["book"])
        assert (plain.near_types, plain.role_types) == (frozenset(), frozenset())

    @pytest.mark.parametrize(("text", "lang"), [("从东站到西站", "zh"), ("from East Station to West Station", "en")])
    def test_role_words_still_place_values_of_their_type(self, ride: Parts, text: str, lang: str) -> None:
        assert offer(ride, "ride", text, lang).values == {"start": "east", "end": "west"}

    @pytest.mark.parametrize(("text", "lang"), [("车费15元还是20.5元", "zh"), ("a fare of 15 or 20.5 yuan", "en")])
    def test_whole_and_decimal_numbers_are_one_number_slots_in_text_order(self, ride: Parts, text: str,
                                                                           lang: str) -> None:
        """A whole number is read as an integer first; with no integer slot it is the number slot's."""
        assert [m.value for m in offer(ride, "ride", text, lang).conflicts["fare"]] == [15, 20.5]
