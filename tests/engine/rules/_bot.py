"""A small bot for the rules' unit tests, and the turn a rule reads, built as the pipeline builds it.

The bot has what the rules ask about: a flow with a persisted order number and products with
labels, one whose question declares "停止" / "stop" as an answer and asks a yes/no question,
one whose order number is picked from a list, one that books a table by count and time (a seat
type that may be "any"), and an FAQ. A test puts the session in the state the rule reads (idle,
a task collecting with a slot asked, a confirmation, a pending clarification), then ``seen``
reads the words as a turn does (understanding, then the reference look-ahead).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from dialogkit.actions.registry import ActionContext
from dialogkit.engine.commands import Command, SetSlots
from dialogkit.engine.rules import Seen
from dialogkit.model.session import Candidate, PendingClarification, Session, Task
from tests.engine._parts import Parts, build, new_session

__all__ = ["ORDERS", "bot", "collecting", "confirming", "idle", "pending_choice", "said", "seen", "task", "values"]

BOT = r"""
bot:
  name: rulebook
  language: auto
  memory: {every_turn: [track_entities]}

entities:
  order_id: {pattern: '(?<!\d)\d{5,12}(?!\d)', kind: thing}
  product:
    kind: thing
    values:
      phone: {aliases: [手机, phone], label: {zh: 手机, en: phone}}
      laptop: {aliases: [笔记本, 电脑, laptop, computer], label: {zh: 笔记本电脑, en: laptop}}
      tablet: {aliases: [平板, tablet], label: {zh: 平板电脑, en: tablet computer}}
  change:
    values:
      pause: {aliases: [暂停, pause], label: {zh: 暂停, en: pause}}
      stop: {aliases: [停止, stop], label: {zh: 停止, en: stop}}
  seat:
    any: any_seat
    values:
      window: {aliases: [靠窗, window], label: {zh: 靠窗, en: window}}
      booth: {aliases: [卡座, booth], label: {zh: 卡座, en: booth}}
      any_seat: {aliases: [任意座位, any seat], label: {zh: 任意座位, en: any seat}}

flows:
  report_issue:
    description: 报告订单问题 / Report a problem with an order
    trigger:
      examples: [我的手机屏幕碎了, 我要报修, my phone arrived broken, I want to report an issue]
      keywords: [报修, 碎了, 坏了, broken, report an issue]
    slots:
      - name: order_id
        entity: order_id
        label: {zh: 订单号, en: order number}
        ask: {zh: "请提供您的订单号。", en: "What is your order number?"}
        persist: user
      - name: product
        entity: product
        label: {zh: 商品, en: product}
        ask: {zh: "是哪件商品？", en: "Which product is it?"}
    confirm:
      ask: {zh: "将为订单 {order_id}（{product}）报修，确认吗？", en: "A repair for order {order_id} ({product}). Shall I go ahead?"}
    execute: {action: create_ticket}

  check_status:
    description: 查询订单状态 / Check an order's status
    trigger:
      examples: [查看订单状态, 我的订单到哪了, 订单现在怎么样, where is my order, check my order status, how is my order doing]
      keywords: [状态, 到哪, 物流, status, where is my order, track]
    slots:
      - name: order_id
        entity: order_id
        label: {zh: 订单号, en: order number}
        ask: {zh: "请提供订单号。", en: "Which order number?"}
    execute: {action: order_status}

  change_subscription:
    description: 变更订阅 / Change a subscription
    trigger:
      examples: [我想改一下订阅, 变更我的订阅, change my subscription]
      keywords: [订阅, subscription]
    slots:
      - name: change
        entity: change
        label: {zh: 变更, en: change}
        ask: {zh: "暂停还是停止？", en: "Pause it or stop it?"}
      - name: send_card
        entity: yes_no
        label: {zh: 补寄卡片, en: new card}
        ask: {zh: "需要为您补寄一张新卡吗？", en: "Shall we send you a new card?"}
    confirm:
      ask: {zh: "将{change}您的订阅，确认吗？", en: "I'll {change} your subscription. Shall I go ahead?"}
    execute: {action: change_subscription}

  return_order:
    description: 退货 / Return an order
    trigger:
      examples: [我要退货, 帮我办理退货, I want to return an order]
      keywords: [退货, return an order]
    slots:
      - name: order_id
        entity: order_id
        label: {zh: 订单号, en: order number}
        choices: {action: recent_orders}
        ask: {zh: "要退哪个订单？", en: "Which order would you like to return?"}
      - name: details
        label: {zh: 说明, en: details}
        ask: {zh: "请说明退货原因。", en: "Why are you returning it?"}
    execute: {action: create_return}

  book_table:
    description: 预订座位 / Book a table
    trigger:
      examples: [我想订个位子, 帮我订一张桌子, book a table, I'd like to reserve a table]
      keywords: [订位, 订桌, book a table, reserve a table]
    slots:
      - name: party_size
        entity: integer
        label: {zh: 人数, en: party size}
        ask: {zh: "几位？", en: "How many people?"}
      - name: time
        entity: time
        label: {zh: 时间, en: time}
        ask: {zh: "几点到？", en: "What time?"}
      - name: seat
        entity: seat
        label: {zh: 座位, en: seat}
        ask: {zh: "靠窗还是卡座？", en: "Window or booth?"}
    confirm:
      ask: {zh: "{time} {party_size} 位，确认吗？", en: "{party_size} at {time}. Shall I go ahead?"}
    execute: {action: book_table}

faq:
  opening_hours:
    examples: [营业时间是什么, 你们几点开门, what are your opening hours, when are you open]
    keywords: [营业时间, 几点开门, opening hours, business hours]
    answer: {zh: "每天 9:00–21:00。", en: "9:00–21:00 every day."}
"""

ORDERS = ("12345", "67890", "24680")
"""The user's recent orders, as ``recent_orders`` lists them."""


def _recent_orders(ctx: ActionContext) -> list[dict[str, Any]]:
    return [{"value": number, "label": {"zh": f"订单{number}", "en": f"order {number}"}} for number in ORDERS]


@cache
def bot() -> Parts:
    """The bot's parts (built once: a rule reads them, never writes them)."""
    return build(BOT, actions={"create_ticket": {"ticket_id": "T-1"}, "order_status": {"status": "shipped"},
                               "change_subscription": {}, "recent_orders": _recent_orders,
                               "create_return": {"rma": "R-1"}, "book_table": {}})


def idle(language: str) -> Session:
    """A session with no task."""
    return new_session(language)


def collecting(language: str, flow: str, asked: str, slots: Mapping[str, Any] | None = None) -> Session:
    """A session whose task of ``flow`` has asked for slot ``asked``, ``slots`` already filled."""
    session = new_session(language)
    bot().task(session, flow, "PARAM_COLLECT", slots, pending_slot=asked)
    return session


def confirming(language: str, flow: str, slots: Mapping[str, Any]) -> Session:
    """A session whose task of ``flow`` holds ``slots`` and asks the user to confirm them."""
    session = new_session(language)
    bot().task(session, flow, "CONFIRMATION", slots)
    return session


def pending_choice(session: Session, *orders: str, kept: int = 0) -> PendingClarification:
    """The bot has asked which of ``orders`` the user meant ("您指的是哪一个：12345 还是 67890？")."""
    pending = PendingClarification(
        kind="reference", candidates=[Candidate(value=o, type="order_id", label=o) for o in orders],
        original_text="它现在怎么样？" if session.language == "zh" else "how is it doing?", expression="它",
        language=session.language, turn=session.turn, kept=kept)
    session.pending = pending
    return pending


def said(session: Session, text: str) -> None:
    """An earlier user turn that named things: entity memory tracks them."""
    bot().mentioned(session, text)


def seen(session: Session, text: str) -> Seen:
    """The turn ``text`` as a rule reads it: understood, its references looked ahead, the task bound."""
    parts = bot()
    with parts.turn(session, text) as ctx:
        parts.lookahead.run(ctx)
        ctx.task = session.task
        ctx.flow = parts.flows[ctx.task.flow] if ctx.task is not None else None
    return Seen(ctx, parts.policy.bot)


def values(made: Sequence[Command]) -> dict[str, Any]:
    """The values of the one ``SetSlots`` command a rule made."""
    assert len(made) == 1 and isinstance(made[0], SetSlots), made
    return dict(made[0].offer.values)


def task(session: Session) -> Task:
    """The session's active task (a test that set one up reads it back)."""
    assert session.task is not None
    return session.task
