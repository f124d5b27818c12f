"""What the simulator says to a bot comes from the bot file alone: aliases and labels by language,
strings its patterns match, values that break each rule, and the fixed phrases of every bot."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dialogkit.simulation.catalog import Catalog
from dialogkit.simulation.moves import MOVES, Scene, draw_move, move_table
from dialogkit.simulation.observation import Snapshot, turn_language
from dialogkit.simulation.stubs import action_stubs
from dialogkit.simulation.user_memory import UserMemory, value_key
from dialogkit.simulation.values import SlotValues, passes
from dialogkit.strings.cjk import has_cjk
from tests.simulation._records import BANK_CARD, MEETING, SUPPORT, TRANSFER, catalog, spec


def prepared(path: object = SUPPORT) -> tuple[Catalog, SlotValues]:
    cat = catalog(path)  # type: ignore[arg-type]
    values = SlotValues(cat)
    values.prepare(("zh", "en"))
    return cat, values


def test_values_are_sorted_by_language_and_labels_that_are_no_alias_are_marked() -> None:
    product = catalog().entities["product"]
    tablet = product.value("tablet")
    assert tablet is not None
    assert "平板" in tablet.said["zh"] and "iPad" in tablet.said["en"]
    assert tablet.labels_only == frozenset({"平板电脑"})       # shown by the bot, not declared as input
    assert tablet.shown == {"zh": "平板电脑", "en": "tablet"}


def test_trigger_examples_are_split_by_language_and_keywords_are_found_anywhere() -> None:
    cat = catalog()
    assert "我的包裹没收到" in cat.flows["report_issue"].examples["zh"]
    assert "my order never arrived" in cat.flows["report_issue"].examples["en"]
    assert cat.has_keyword("my screen is BROKEN") and not cat.has_keyword("手机")


def test_small_talk_holds_no_alias_keyword_or_date_of_the_bot() -> None:
    for path in (SUPPORT, MEETING, TRANSFER):
        cat = catalog(path)
        for lang in ("zh", "en"):
            phrases = cat.off_topic(lang)
            assert phrases
            for text in phrases:
                assert not cat.has_alias(text) and not cat.has_keyword(text)
                assert not any(word in text for word in ("今天", "明天", "today", "tomorrow"))
                assert turn_language(text, "zh" if lang == "en" else "en") == lang


def test_a_pattern_read_in_context_is_counted_on_only_there() -> None:
    """The simulator expects the bot to read a value only where the bot file's pattern finds it:
    "尾号1234" and "1234" alone, not the 1202 of "no, make it 1202" (a limit to this bot)."""
    cards = catalog(BANK_CARD)
    assert cards.reads("card", "尾号1234", "1234") and cards.reads("card", "1234", "1234")
    assert cards.reads("card", "the card ending in 1202", "1202")
    assert not cards.reads("card", "no, make it 1202", "1202")
    assert not cards.reads("card", "我有两个卡号后四位 0000 和 1202", "1202")
    assert cards.reads("loss_reason", "no, make it stolen", "stolen")     # no pattern: read anywhere


def test_values_named_in_text_are_found_by_alias() -> None:
    assert catalog().values_in("我上周买的手机屏幕碎了") == {"phone", "damaged"}


def test_pattern_values_match_the_pattern_and_invalid_ones_break_a_rule() -> None:
    cat, values = prepared(SUPPORT)
    order = cat.flows["report_issue"].slot("order_id")
    assert order is not None
    source = values.source(order, "zh", True)
    assert source is not None and source.pool is not None
    assert values.source(order, "zh", False) is None     # the rule repeats the entity's pattern: none can break it

    @settings(max_examples=30, database=None, deadline=None)
    @given(values.draw_pools())
    def check(pools: dict) -> None:  # type: ignore[type-arg]
        for value in pools[source.pool]:
            assert re.fullmatch(r"\d{5,12}", value.text) and value.canonical == value.text and value.valid

    check()


def test_number_rules_give_values_inside_and_just_outside_their_bounds() -> None:
    cat, values = prepared(TRANSFER)
    amount = cat.flows["transfer"].slot("amount")
    assert amount is not None
    valid, invalid = values.source(amount, "en", True), values.source(amount, "en", False)
    assert valid is not None and invalid is not None and valid.pool and invalid.pool

    @settings(max_examples=30, database=None, deadline=None)
    @given(values.draw_pools())
    def check(pools: dict) -> None:  # type: ignore[type-arg]
        assert all(1 <= v.canonical <= 5000 for v in pools[valid.pool])
        assert all(not passes(amount, v.canonical) and not v.valid for v in pools[invalid.pool])

    check()


def test_one_of_rules_split_listed_values() -> None:
    cat, values = prepared(TRANSFER)
    currency = cat.flows["transfer"].slot("currency")
    assert currency is not None
    good, bad = values.source(currency, "zh", True), values.source(currency, "zh", False)
    assert good is not None and bad is not None
    assert {v.canonical for v in good.listed} == {"CNY", "USD"}
    assert {v.canonical for v in bad.listed} == {"EUR"} and "欧元" in {v.text for v in bad.listed}


def test_dates_and_times_are_written_in_the_turns_language() -> None:
    cat, values = prepared(MEETING)
    date = cat.flows["schedule_meeting"].slot("date")
    assert date is not None
    zh, en = values.source(date, "zh"), values.source(date, "en")
    assert zh is not None and en is not None and zh.pool != en.pool

    @settings(max_examples=20, database=None, deadline=None)
    @given(values.draw_pools())
    def check(pools: dict) -> None:  # type: ignore[type-arg]
        assert all(has_cjk(v.text) for v in pools[zh.pool])
        assert all(not has_cjk(v.text) and re.fullmatch(r"\d{4}-\d\d-\d\d", v.canonical) for v in pools[en.pool])

    check()


def test_stubs_return_a_value_for_every_placeholder_beyond_the_slots() -> None:
    assert action_stubs(spec(SUPPORT)) == {"create_ticket": {"ticket_id": "T-1001"},
                                           "order_status": {"status": "S-1001"},
                                           "create_return": {"rma_number": "R-1001"}}
    assert action_stubs(spec(TRANSFER))["call_back"] == {}


def test_every_move_draws_a_turn_in_its_language() -> None:
    cat, values = prepared(SUPPORT)
    table = move_table(("zh", "en"), "zh")
    assert {m.name for m, _ in table} == {m.name for m in MOVES}
    task = Snapshot("PARAM_COLLECT", "report_issue", {"product": "phone"}, ("report_issue",), (), "order_id")

    @settings(max_examples=200, database=None, deadline=None)
    @given(st.data(), st.sampled_from([Snapshot(), task]))
    def check(data: st.DataObject, before: Snapshot) -> None:
        pools = data.draw(values.draw_pools())
        turn = draw_move(data, Scene(cat, values, pools, before, UserMemory("zh")), table)
        assert turn.text and turn.language in ("zh", "en")
        if turn.language == "zh" and turn.move not in ("answer", "bare_value", "yes", "no", "cancel"):
            assert has_cjk(turn.text)
        if turn.move == "correct":
            assert value_key(turn.fills["product"].canonical) != "phone"
        if turn.move in ("answer",) and before is task:
            assert turn.slot == "order_id"

    check()


def test_the_turns_language_follows_the_documented_rule() -> None:
    assert turn_language("我的包裹没收到", "en") == "zh"
    assert turn_language("no, make it 67890", "zh") == "en"
    assert turn_language("yes", "zh") == "zh" and turn_language("12345", "en") == "en"
    assert turn_language("actually room B202", "zh") == "zh"          # an id is no word
    assert turn_language("我的邮箱是 alice@example.com", "en") == "zh"
    assert turn_language("my email is 张伟@例子.中国", "zh") == "en"    # an address is in no language


def test_an_address_after_chinese_without_a_space_leaves_the_chinese() -> None:
    assert turn_language("我要更新联系电话，邮箱是aaa@example.com", "en") == "zh"
