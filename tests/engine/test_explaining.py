"""``reply.explain``: each turn names the steps that decided it, with the user's words they read.

The rule names are stable (``slot_offer``, ``correction``, ``confirm``, ``cancel``, ``faq``...):
a test, a log or a reader can hold on to them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.model.reply import Explanation, Reply
from tests.engine._parts import STUBS, SUPPORT
from tests.engine.rules._bot import BOT as RULES_BOT

TABLE = """
bot: {name: table}
entities:
  card_no: {pattern: '\\d{4}(?: \\d{4}){3}'}
flows:
  book:
    description: 订座 / Book a table
    trigger: {keywords: [订座, book a table]}
    slots:
      - name: people
        entity: number
        label: {zh: 人数, en: party size}
        ask: {zh: 几位？, en: For how many?}
        validate:
          - max: 12
            error: {zh: 最多12位。, en: At most 12 people.}
      - name: card
        entity: card_no
        label: {zh: 卡号, en: card}
        sensitive: true
        ask: {zh: 卡号？, en: Card number?}
    execute: {action: book}
"""


@pytest.fixture
def support() -> Iterator[Bot]:
    with Bot.from_file(SUPPORT, store="memory://", actions=STUBS) as bot:
        yield bot


def rules(reply: Reply) -> list[str]:
    return [record.rule for record in reply.explain]


def said(bot: Bot, *lines: str) -> Reply:
    reply = None
    for line in lines:
        reply = bot.handle("s", line)
    assert reply is not None
    return reply


@pytest.mark.parametrize(("text", "product", "issue"), [
    ("我的手机坏了", "手机", "坏了"),
    ("my laptop arrived broken", "laptop", "broken"),
])
def test_a_trigger_with_two_values_names_the_keyword_and_each_value_with_its_words(
        support: Bot, text: str, product: str, issue: str) -> None:
    reply = said(support, text)
    assert rules(reply) == ["intent_keyword", "slot_offer", "slot_offer"]
    started, first, second = reply.explain
    assert started.did.startswith("started report_issue") and started.words == issue
    assert first.did.startswith("set product = ") and first.words == product
    assert first.span is not None and text[first.span[0]:first.span[1]] == product
    assert second.did == "set issue_type = damaged" and second.words == issue


@pytest.mark.parametrize(("lines", "words"), [
    (["我的手机坏了", "12345", "不对，是耳机"], "耳机"),
    (["my phone arrived broken", "12345", "no, it was the headphones"], "headphones"),
])
def test_a_correction_names_the_correction_and_the_value_replaced(support: Bot, lines: list[str], words: str) -> None:
    reply = said(support, *lines)
    assert reply.explain == [Explanation("correction", "corrected product: phone → headphones", words,
                                         (lines[-1].index(words), lines[-1].index(words) + len(words)))]


@pytest.mark.parametrize(("lines", "cue", "rule", "did"), [
    (["我的手机坏了", "12345", "确认"], "确认", "confirm", "confirmed"),
    (["my phone arrived broken", "12345", "yes"], "yes", "confirm", "confirmed"),
    (["我的手机坏了", "取消"], "取消", "cancel", "cancelled report_issue"),
    (["my phone arrived broken", "cancel"], "cancel", "cancel", "cancelled report_issue"),
])
def test_a_yes_or_a_cancel_names_the_cue_words(support: Bot, lines: list[str], cue: str, rule: str, did: str) -> None:
    reply = said(support, *lines)
    assert reply.explain[0] == Explanation(rule, did, cue, (0, len(cue)))


@pytest.mark.parametrize("text", ["你们几点开门", "what are your opening hours"])
def test_an_faq_names_the_entry_answered(support: Bot, text: str) -> None:
    assert said(support, text).explain == [Explanation("faq", "answered FAQ opening_hours", text, (0, len(text)))]


@pytest.mark.parametrize(("lines", "pronoun"), [
    (["查看订单 12345 的状态", "它现在怎么样？"], "它"),
    (["check the status of order 12345", "how is it now?"], "it"),
])
def test_a_pronoun_names_the_thing_it_was_bound_to(support: Bot, lines: list[str], pronoun: str) -> None:
    reply = said(support, *lines)
    bound = [r for r in reply.explain if r.rule == "reference"]
    assert bound and bound[0].words == pronoun and bound[0].did.endswith("order_id 12345")
    assert bound[0].span == (lines[-1].index(pronoun), lines[-1].index(pronoun) + len(pronoun))


@pytest.mark.parametrize("lines", [
    ["订单 12345 和 67890 的状态", "它现在怎么样？"],
    ["orders 12345 and 67890", "how is it now?"],
])
def test_an_ambiguous_reference_names_the_question_asked(support: Bot, lines: list[str]) -> None:
    reply = said(support, *lines)
    assert rules(reply)[-1] == "clarify"
    assert "12345" in reply.explain[-1].did and "67890" in reply.explain[-1].did


@pytest.mark.parametrize(("lines", "message"), [
    (["订座", "20"], "最多12位。"),
    (["book a table", "20"], "At most 12 people."),
])
def test_a_value_a_rule_refuses_names_the_rule_and_its_message(tmp_path: Path, lines: list[str], message: str) -> None:
    path = tmp_path / "table.yaml"
    path.write_text(TABLE, encoding="utf-8")
    with Bot.from_file(path, store="memory://", actions={"book": {}}) as bot:
        reply = said(bot, *lines)
    assert reply.explain[0] == Explanation("slot_rule", f"refused people: {message}", "20", (0, 2))
    assert rules(reply)[1:] == ["reask"]


@pytest.mark.parametrize("lines", [["订座", "3", "4111 1111 1111 1111"], ["book a table", "3", "4111 1111 1111 1111"]])
def test_a_sensitive_value_is_never_written_in_the_explanation(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "table.yaml"
    path.write_text(TABLE, encoding="utf-8")
    with Bot.from_file(path, store="memory://", actions={"book": {}}) as bot:
        reply = said(bot, *lines)
    assert "set card = ***" in [r.did for r in reply.explain]
    assert not any("4111" in r.line() for r in reply.explain)


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Bot]:
    """The rules' test bot: its booking flow takes a party size and a time no other flow takes."""
    path = tmp_path / "rules_bot.yaml"
    path.write_text(RULES_BOT, encoding="utf-8")
    stubs = {name: (lambda ctx: {}) for name in {*re.findall(r"action: (\w+)", RULES_BOT), "recent_orders"}}
    with Bot.from_file(path, store="memory://", actions=stubs) as bot:
        yield bot


@pytest.mark.parametrize("text", ["晚上8点6个人有位子吗？", "is there room for 6 people at 8pm?"])
def test_a_flow_started_by_its_values_alone_is_explained_by_that_rule(tables: Bot, text: str) -> None:
    """No trigger word and no reference: the values only the booking flow takes, asked about, start
    it; the record names the rule that made the command, not a guess from the intents."""
    reply = said(tables, text)
    started = reply.explain[0]
    assert started.rule == "flow_of_values" and started.did.startswith("started book_table")
