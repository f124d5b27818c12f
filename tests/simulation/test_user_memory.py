"""What the simulated user remembers taking back, so the invariants judge against what was meant."""

from __future__ import annotations

from dialogkit.simulation.observation import Snapshot
from dialogkit.simulation.user_memory import UserMemory, value_key
from tests.simulation._records import record, remember, reply, said, utterance

MEETING_SLOTS = {"date": "2027-01-01", "time": "08:00", "room": "A101"}


def test_forgetting_after_a_resumed_task_takes_back_nothing_the_resumed_task_had() -> None:
    booked = record(utterance("A101", "answer", "en", slot="room", fills={"room": said("A101", entity="room")}),
                    reply("Shall I?", state="CONFIRMATION", flow="schedule_meeting", slots=MEETING_SLOTS, language="en"))
    asked = record(utterance("ask him", "trigger", "en", flow="ask_colleague"),
                   reply("Whom?", state="PARAM_COLLECT", flow="ask_colleague", language="en"),
                   before=booked.after, index=1, stack=("schedule_meeting", "ask_colleague"))
    resumed = record(utterance("progress", "answer", "en", slot="topic"),
                     reply("Done. Back to: Shall I?", state="CONFIRMATION", flow="schedule_meeting",
                           slots=MEETING_SLOTS, language="en"), before=asked.after, index=2)
    forget = record(utterance("forget what I just said", "forget", "en"), reply(
        "OK. Shall I?", state="CONFIRMATION", flow="schedule_meeting", slots=MEETING_SLOTS, language="en"),
        before=resumed.after, index=3)
    memory = remember(UserMemory("en"), booked, asked, resumed, forget)
    assert memory.taken_back == []


def test_forgetting_takes_back_what_the_last_turn_put_in() -> None:
    start = record(utterance("我的包裹没收到", "trigger", flow="report_issue"),
                   reply("?", state="PARAM_COLLECT", flow="report_issue", slots={"issue_type": "missing"}))
    answer = record(utterance("手机", "answer", slot="product", fills={"product": said("手机", "phone", "product")}),
                    reply("?", state="PARAM_COLLECT", flow="report_issue",
                          slots={"issue_type": "missing", "product": "phone"}), before=start.after, index=1)
    forget = record(utterance("忘记刚才说的", "forget"), reply("?", state="PARAM_COLLECT", flow="report_issue",
                                                            slots={"issue_type": "missing"}),
                    before=answer.after, index=2)
    memory = remember(UserMemory("zh"), start, answer, forget)
    assert [(t.slot, t.value, t.reason) for t in memory.taken_back] == [("product", "phone", "forgotten")]


def test_a_trigger_example_or_a_reference_that_brings_a_value_back_says_it_again() -> None:
    before = Snapshot("PARAM_COLLECT", "transfer", {"amount": 100}, ("transfer",))
    fix = record(utterance("actually 1", "correct", "en", slot="amount", fills={"amount": said("1", 1, "number")}),
                 reply("?", state="PARAM_COLLECT", flow="transfer", slots={"amount": 100}, language="en"),
                 before=before)
    memory = remember(UserMemory("en"), fix)
    assert [t.value for t in memory.taken_back] == [100]
    again = record(utterance("transfer 100 dollars to Mary", "trigger", "en", flow="transfer"),
                   reply("?", state="CONFIRMATION", flow="transfer", slots={"amount": 100}, language="en"),
                   before=fix.after, index=1)
    assert value_key(100) in memory.keys_said(again)
    pointed = record(utterance("那个", "refer", reference="demonstrative"),
                     reply("?", state="PARAM_COLLECT", flow="transfer", slots={"amount": 100, "payee": "Mary Jones"}),
                     before=fix.after, index=1)
    assert value_key("Mary Jones") in memory.keys_said(pointed)


def test_a_second_forget_takes_back_nothing() -> None:
    booked = record(utterance("B202", "answer", "en", slot="room", fills={"room": said("B202", entity="room")}),
                    reply("?", state="CONFIRMATION", flow="schedule_meeting", slots={**MEETING_SLOTS, "room": "B202"}))
    before = booked.after
    changed = record(utterance("创建会议，会议室是一号会议室", "trigger_with_values", flow="schedule_meeting",
                               fills={"room": said("一号会议室", "A101", "room")}),
                     reply("?", state="CONFIRMATION", flow="schedule_meeting", slots=MEETING_SLOTS), before=before,
                     index=1)
    undo = record(utterance("忘记刚才说的", "forget"), reply("?", state="CONFIRMATION", flow="schedule_meeting",
                                                          slots={**MEETING_SLOTS, "room": "B202"}),
                  before=changed.after, index=2)
    again = record(utterance("忘记刚才说的", "forget"), reply("没有需要忘记的内容。", state="CONFIRMATION",
                                                           flow="schedule_meeting", slots={**MEETING_SLOTS, "room": "B202"}),
                   before=undo.after, index=3)
    memory = remember(UserMemory("zh"), booked, changed, undo, again)
    assert [(t.value, t.reason) for t in memory.taken_back] == [("A101", "forgotten")]


def test_an_ordinal_after_a_list_the_user_named_says_that_lists_values_again() -> None:
    """"我有两个订单号 67890 和 12345" then "订单号是第一个": the first is 67890 (the list named last),
    though the option list shown before holds another value first, so 67890 is said again."""
    listed = record(utterance("我有两个订单号 67890 和 12345", "two_candidates", entity="order_id",
                              mentions=(said("67890", entity="order_id"), said("12345", entity="order_id"))),
                    reply("?", state="PARAM_COLLECT", flow="return_order", slots={"order_id": "12345"}))
    memory = remember(UserMemory("zh"), listed)
    first = said("第一个", "12345", "order_id", form="ordinal")
    picked = record(utterance("订单号是第一个", "several", fills={"order_id": first}),
                    reply("?", state="CONFIRMATION", flow="return_order", slots={"order_id": "67890"}),
                    before=listed.after, index=1)
    assert value_key("67890") in memory.keys_said(picked)
