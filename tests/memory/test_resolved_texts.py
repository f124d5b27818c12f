"""Resolved texts across the shipped and example bots, in both languages (docs/behaviours.md items 8-10, 21).

Each row runs the prior turns through the real bot (so its own understanding finds and tracks the
mentions), then resolves the last utterance with the bot's labels. ``resolved`` is the
self-contained text understanding reads again; ``shown`` is what the user sees: the referent
as the turn's language writes it, no type word or capital the user did not write, nothing
garbled (a capital only where the user wrote one: "It hasn't arrived" / "how is it now?"). A
row whose ``resolved`` is None expects both to be the utterance unchanged.
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

import pytest

from dialogkit import Bot
from dialogkit.actions.binding import action_references
from dialogkit.memory.references import Resolution, resolve
from dialogkit.spec.loader import check_bot_file
from tests.memory._builders import ROOT

SUPPORT = "flows/support_ticket.yaml"
MEETING = "flows/meeting.yaml"
TRANSFER = "tests/conversations/bots/transfer.yaml"
CLINIC = "examples/clinic/clinic.yaml"
FLIGHTS = "examples/flights/flights.yaml"
HR = "examples/hr_leave/hr_leave.yaml"
INSURANCE = "examples/insurance/insurance.yaml"


class Row(NamedTuple):
    bot: str
    prior: tuple[str, ...]
    text: str
    language: str
    resolved: str | None
    shown: str | None = None


ROWS = [
    # the support bot: identifiers, products with labels, counts, descriptions naming their own noun
    Row(SUPPORT, ("查看订单 12345 的状态",), "它现在怎么样？", "zh", "订单12345现在怎么样？", "12345现在怎么样？"),
    Row(SUPPORT, ("check order 12345",), "how is it now?", "en", "how is order 12345 now?", "how is 12345 now?"),
    Row(SUPPORT, ("check order 12345",), "It hasn't arrived", "en", "Order 12345 hasn't arrived", "12345 hasn't arrived"),
    Row(SUPPORT, ("查看订单 12345",), "那个订单还没到", "zh", "订单12345还没到"),
    Row(SUPPORT, ("I bought a phone and a laptop", "the laptop is fine"), "它坏了", "zh", "笔记本电脑坏了"),
    Row(SUPPORT, ("我买了手机和笔记本", "笔记本没问题"), "it broke", "en", "laptop broke"),
    Row(SUPPORT, ("订单12345",), "这个手机坏了", "zh", None),
    Row(SUPPORT, ("order 12345",), "this phone is broken", "en", None),
    Row(SUPPORT, ("我买了手机和笔记本",), "平板要两个，它们都要黑色的", "zh", None),
    Row(SUPPORT, ("I bought a phone and a laptop",), "a tablet, 2 of them", "en", None),
    Row(SUPPORT, ("我有两个订单 12345 和 67890",), "两个都没到", "zh", None),
    Row(SUPPORT, ("I have two orders 12345 and 67890",), "both of them never arrived", "en",
        "both of order 12345 and order 67890 never arrived", "both of 12345 and 67890 never arrived"),
    # the meeting bot: people with labels, and people with aliases only
    Row(MEETING, ("联系约翰",), "问他项目进度", "zh", "问约翰项目进度"),
    Row(MEETING, ("contact 约翰",), "ask him about the budget", "en", "ask John Smith about the budget"),
    Row(MEETING, ("contact Manager Zhang",), "问他预算", "zh", "问张经理预算"),
    Row(MEETING, ("联系张经理",), "ask him about the budget", "en", "ask Manager Zhang about the budget"),
    # the transfer bot: payees with aliases only
    Row(TRANSFER, ("send money to John",), "他的账户", "zh", "约翰的账户"),
    Row(TRANSFER, ("给约翰转账",), "send him 100 dollars", "en", "send John Smith 100 dollars"),
    # example bots no one here wrote
    Row(CLINIC, ("我想挂王医生的号",), "he is fine", "en", "Dr. Wang is fine"),
    Row(CLINIC, ("I'd like to see Dr. Wang",), "他明天有空吗", "zh", "王医生明天有空吗"),
    Row(CLINIC, ("取消预约A10023",), "它改到明天", "zh", "预约A10023改到明天", "A10023改到明天"),
    Row(CLINIC, ("cancel appointment A10023",), "move it to tomorrow", "en", "move appointment A10023 to tomorrow",
        "move A10023 to tomorrow"),
    Row(FLIGHTS, ("航班CA981的状态",), "它晚点了吗", "zh", "航班CA981晚点了吗", "CA981晚点了吗"),
    Row(FLIGHTS, ("status of flight CA981",), "is it delayed", "en", "is flight CA981 delayed", "is CA981 delayed"),
    Row(FLIGHTS, ("passenger Zhang Wei",), "他的座位", "zh", "张伟的座位"),
    Row(FLIGHTS, ("乘客张伟",), "his seat", "en", "Zhang Wei's seat"),
    Row(HR, ("撤销申请LV20002",), "它还在审批吗", "zh", "请假单LV20002还在审批吗", "LV20002还在审批吗"),
    Row(HR, ("withdraw LV20002",), "is it still pending", "en", "is request LV20002 still pending",
        "is LV20002 still pending"),
    Row(HR, ("approver Manager Zhang",), "他批了吗", "zh", "张经理批了吗"),
    Row(HR, ("审批人张经理",), "did he approve it", "en", "did Manager Zhang approve it"),
    Row(INSURANCE, ("理赔CL200468",), "它到哪一步了", "zh", "理赔CL200468到哪一步了", "CL200468到哪一步了"),
    Row(INSURANCE, ("claim CL200468",), "where is it now", "en", "where is claim CL200468 now", "where is CL200468 now"),
    Row(INSURANCE, ("保单P87654321",), "这个保单还有效吗", "zh", "保单P87654321还有效吗"),
    Row(INSURANCE, ("policy P87654321",), "is that policy still valid", "en", "is policy P87654321 still valid"),
]
_SESSIONS = itertools.count()


@functools.cache
def bot_of(relative: str) -> Bot:
    """One bot per file for the whole module, its actions stubbed; each row has a session of its own."""
    spec = check_bot_file(ROOT / relative).spec
    assert spec is not None
    stubs = {name: {} for name in action_references(spec)}
    return Bot.from_file(ROOT / relative, store="memory://", actions=stubs)


def resolution_of(row: Row) -> Resolution:
    bot = bot_of(row.bot)
    session_id = f"row-{next(_SESSIONS)}"
    for text in row.prior:
        bot.handle(session_id, text)
    session = bot.session(session_id).data
    assert session is not None
    mentions = bot.understanding.interpret(row.text, row.language).mentions
    return resolve(session, row.text, row.language, turn=session.turn + 1, mentions=mentions, texts=bot.texts)


def test_the_table_is_balanced() -> None:
    languages = [row.language for row in ROWS]
    assert languages.count("zh") == languages.count("en")
    assert {row.bot for row in ROWS} == {SUPPORT, MEETING, TRANSFER, CLINIC, FLIGHTS, HR, INSURANCE}


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.bot.split('/')[-1]}:{r.text}" for r in ROWS])
def test_resolved_text(row: Row) -> None:
    r = resolution_of(row)
    resolved = row.text if row.resolved is None else row.resolved
    shown = resolved if row.shown is None else row.shown
    assert (r.resolved_text, r.shown_text) == (resolved, shown)

