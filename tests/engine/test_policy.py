"""``Policy`` on its own: one turn's context in, the triggers it fired and what it says out.

Each test puts the session in the state it is about (a task on the stack, its slots, its
re-asks) instead of talking the bot there, then runs one turn through ``Policy.respond``.
"""

from __future__ import annotations

from typing import Any

import pytest

from dialogkit.model.session import PersistedValue
from dialogkit.text.phrases import phrase
from tests.engine._parts import STUBS, T0, Parts, Recorder, build, new_session

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
FULL = {"order_id": "12345", "product": "phone", "issue_type": "damaged"}
ASK_ORDER = {"zh": "请提供您的订单号。", "en": "What is your order number?"}
ASK_PRODUCT = {"zh": "是哪件商品？", "en": "Which product is it?"}
CONFIRM = {"zh": "将为订单 {}（手机，损坏）创建工单，确认吗？", "en": "I'll open a ticket for order {} (phone, damaged). Shall I go ahead?"}
CREATED = {"zh": "已创建工单 {}。", "en": "Ticket {} has been created."}
YES = {"zh": "确认", "en": "yes"}
NO = {"zh": "不对", "en": "no"}
CANCEL = {"zh": "取消", "en": "cancel"}
NOTHING = {"zh": "随便", "en": "whatever you like"}          # fills no slot, and is no value of any type
CHAT = {"zh": "随便聊聊吧", "en": "tell me a joke"}             # no intent, no cue, no mention

# A bot that hands failed questions to an agent and has an action without on_error.
DESK = r"""
bot: {name: desk, handoff: agent, max_reprompts: 1}
entities:
  order_id: {pattern: '(?<!\d)\d{5,12}(?!\d)'}
flows:
  refund:
    description: 申请退款 / Request a refund
    trigger: {keywords: [退款, refund]}
    slots:
      - {name: order_id, entity: order_id, ask: {zh: 哪个订单？, en: Which order?}}
    execute: {action: refund}
  agent:
    description: 转人工 / Talk to an agent
    trigger: {keywords: [人工, agent]}
    slots:
      - {name: contact, ask: {zh: 怎么联系您？, en: How can we reach you?}}
"""


@pytest.fixture
def parts() -> Parts:
    return build()


def with_actions(**actions: Any) -> Parts:
    """The support bot with some of its actions replaced."""
    return build(actions={**STUBS, **actions})


class TestIdle:
    @LANGS
    def test_unknown_input_is_not_understood_and_gets_the_help(self, parts: Parts, lang: str) -> None:
        """Input that asks for nothing gets "not understood" and the list of what the bot can do."""
        ctx = parts.respond(new_session(lang), CHAT[lang])
        assert ctx.say == [phrase("not_understood", lang), parts.texts.help(lang)]
        assert ctx.transitions == [] and ctx.session.state == "IDLE"

    @LANGS
    def test_asking_for_help_gets_the_help_alone(self, parts: Parts, lang: str) -> None:
        """"帮助" / "help" is understood: no apology before the help."""
        ctx = parts.respond(new_session(lang), {"zh": "帮助", "en": "help"}[lang])
        assert ctx.say == [parts.texts.help(lang)]

    @LANGS
    def test_a_greeting_is_returned_before_the_help(self, parts: Parts, lang: str) -> None:
        """"你好" / "hello" is greeted back."""
        ctx = parts.respond(new_session(lang), {"zh": "你好", "en": "hello"}[lang])
        assert ctx.say == [phrase("greeting", lang), parts.texts.help(lang)]

    @LANGS
    def test_a_mention_without_a_request_is_noted(self, parts: Parts, lang: str) -> None:
        """Facts offered with no request are acknowledged, each as written, then the help."""
        text = {"zh": "我有两个订单 12345 和 67890", "en": "I have two orders, 12345 and 67890"}[lang]
        ctx = parts.respond(new_session(lang), text)
        items = {"zh": "12345、67890", "en": "12345, 67890"}[lang]
        assert ctx.say == [phrase("noted", lang, items=items), parts.texts.help(lang)]
        assert ctx.session.stack == []

    @LANGS
    def test_cancel_with_nothing_running_says_so(self, parts: Parts, lang: str) -> None:
        """A cancel in IDLE has nothing to cancel."""
        ctx = parts.respond(new_session(lang), CANCEL[lang])
        assert ctx.say == [phrase("nothing_to_cancel", lang)] and ctx.transitions == []

    @LANGS
    def test_empty_input_asks_for_a_message_and_repeats_the_question(self, parts: Parts, lang: str) -> None:
        """An empty turn inside a task asks for input, then the pending question again."""
        session = new_session(lang)
        parts.task(session, "report_issue", "PARAM_COLLECT", pending_slot="order_id")
        ctx = parts.respond(session, "   ")
        assert ctx.say == [phrase("empty_input", lang), ASK_ORDER[lang]]


class TestStart:
    @LANGS
    def test_every_slot_in_one_utterance_goes_straight_to_confirmation(self, parts: Parts, lang: str) -> None:
        """The slots the request names are filled at once; with none missing, the bot confirms."""
        text = {"zh": "我的手机碎了，订单号 12345", "en": "my phone arrived broken, order 12345"}[lang]
        ctx = parts.respond(new_session(lang), text)
        assert ctx.transitions == ["start_task", "collect", "request_confirmation"]
        assert ctx.session.task is not None and ctx.session.task.slots == FULL
        assert ctx.say == [CONFIRM[lang].format("12345")]
        assert ctx.options == parts.texts.yes_no(lang)

    @LANGS
    def test_the_first_missing_slot_is_asked(self, parts: Parts, lang: str) -> None:
        """A request without its order number starts the task and asks for the number."""
        ctx = parts.respond(new_session(lang), {"zh": "我的手机碎了", "en": "my phone arrived broken"}[lang])
        task = ctx.session.task
        assert task is not None and task.state == "PARAM_COLLECT" and task.pending_slot == "order_id"
        assert task.slots == {"product": "phone", "issue_type": "damaged"}
        assert ctx.say == [ASK_ORDER[lang]]

    @LANGS
    def test_a_persisted_value_is_prefilled_and_announced(self, lang: str) -> None:
        """A remembered order number fills the slot, and the bot says it used it."""
        status = Recorder({"status": "shipped"})
        parts = with_actions(order_status=status)
        session = new_session(lang)
        session.session_slots["order_id"] = PersistedValue(value="12345", at=T0)
        ctx = parts.respond(session, {"zh": "查看订单状态", "en": "check my order status"}[lang])
        label = {"zh": "订单号", "en": "order number"}[lang]
        assert ctx.say[0] == phrase("prefilled", lang, slots=label)
        assert [c.slots for c in status.calls] == [{"order_id": "12345"}]
        assert ctx.transitions == ["start_task", "collect", "execute", "complete"]

    @LANGS
    def test_a_value_in_the_request_beats_the_persisted_one(self, lang: str) -> None:
        """What the user says now wins over what was remembered, and nothing is announced as prefilled."""
        status = Recorder({"status": "shipped"})
        parts = with_actions(order_status=status)
        session = new_session(lang)
        session.session_slots["order_id"] = PersistedValue(value="12345", at=T0)
        text = {"zh": "查看订单 67890 的状态", "en": "check the status of order 67890"}[lang]
        ctx = parts.respond(session, text)
        assert [c.slots for c in status.calls] == [{"order_id": "67890"}]
        assert phrase("prefilled", lang, slots={"zh": "订单号", "en": "order number"}[lang]) not in ctx.say

    @LANGS
    def test_two_values_for_one_slot_are_asked_about(self, parts: Parts, lang: str) -> None:
        """Two order numbers for one order slot: the bot asks which, then takes the answer."""
        session = new_session(lang)
        text = {"zh": "订单 12345 和 67890 的手机碎了", "en": "orders 12345 and 67890: my phone arrived broken"}[lang]
        ctx = parts.respond(session, text)
        assert ctx.clarification is not None and ctx.clarification.kind == "slot_value"
        assert [c.value for c in ctx.clarification.candidates] == ["12345", "67890"]
        assert ctx.options == ["12345", "67890"]
        ctx = parts.respond(session, "67890")
        assert session.pending is None and session.task is not None
        assert session.task.slots["order_id"] == "67890"
        assert ctx.say == [CONFIRM[lang].format("67890")]


class TestStartsOffer:
    @pytest.mark.parametrize(("lang", "text"), [("zh", "我的手机屏幕碎了"), ("en", "my phone arrived broken")])
    def test_a_flow_started_by_words_makes_no_empty_offer_it_throws_away(self, parts: Parts, lang: str, text: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
        """The words' offer is the start's; an empty one is made only for values a finished task hands on."""
        from dialogkit.engine import task_lifecycle

        made: list[object] = []
        monkeypatch.setattr(task_lifecycle, "SlotOffer", lambda: made.append(1))
        ctx = parts.respond(new_session(lang), text)
        assert ctx.task is not None and ctx.task.flow == "report_issue" and ctx.task.slots.get("product") == "phone"
        assert made == []


class TestReasking:
    @LANGS
    def test_a_value_breaking_a_rule_is_refused_with_its_message(self, parts: Parts, lang: str) -> None:
        """"1234" is no order number: the rule's message, then the question again."""
        session = new_session(lang)
        task = parts.task(session, "report_issue", "PARAM_COLLECT", pending_slot="order_id")
        ctx = parts.respond(session, "1234")
        rule = {"zh": "订单号应为5到12位数字。", "en": "An order number has 5 to 12 digits."}[lang]
        assert ctx.say == [rule, ASK_ORDER[lang]]
        assert task.reprompts == 1 and "order_id" not in task.slots

    @LANGS
    def test_failed_answers_are_re_asked_up_to_the_limit_then_the_task_is_given_up(self, parts: Parts,
                                                                                  lang: str) -> None:
        """max_reprompts is 2: two failed answers re-ask, the third cancels the task with an apology."""
        session = new_session(lang)
        task = parts.task(session, "report_issue", "PARAM_COLLECT", pending_slot="order_id")
        for count in (1, 2):
            ctx = parts.respond(session, NOTHING[lang])
            assert ctx.say == [ASK_ORDER[lang]] and task.reprompts == count
        ctx = parts.respond(session, NOTHING[lang])
        label = parts.texts.task_label("report_issue", lang)
        assert ctx.say == [phrase("give_up", lang, error=phrase("give_up_default", lang), task=label)]
        assert ctx.transitions == ["cancel"] and ctx.ended_by == "cancel"
        assert session.state == "IDLE"

    @LANGS
    def test_a_filled_slot_resets_the_count(self, parts: Parts, lang: str) -> None:
        """An answer that fills the asked slot starts the next question's count afresh."""
        session = new_session(lang)
        task = parts.task(session, "report_issue", "PARAM_COLLECT", pending_slot="order_id")
        task.reprompts = 2
        ctx = parts.respond(session, "12345")
        assert task.reprompts == 0 and task.slots == {"order_id": "12345"}
        assert ctx.say == [ASK_PRODUCT[lang]]

    @LANGS
    def test_a_handoff_flow_takes_over_when_a_question_gives_up(self, lang: str) -> None:
        """With bot.handoff set, giving up starts that flow instead of apologising."""
        parts = build(DESK, actions={"refund": {"ok": True}})
        session = new_session(lang)
        task = parts.task(session, "refund", "PARAM_COLLECT", pending_slot="order_id")
        task.reprompts = 1
        ctx = parts.respond(session, NOTHING[lang])
        assert ctx.transitions == ["cancel", "start_task", "collect"]
        assert [t.flow for t in session.stack] == ["agent"]
        assert ctx.say == [phrase("give_up_default", lang), {"zh": "怎么联系您？", "en": "How can we reach you?"}[lang]]


# A bakery: a cake asked first, then how many (a plain integer).
BAKERY = r"""
bot: {name: bakery}
entities:
  cake:
    values:
      cheesecake: {aliases: [芝士蛋糕, cheesecake]}
      tiramisu: {aliases: [提拉米苏, tiramisu]}
flows:
  order:
    description: 订蛋糕 / Order a cake
    trigger: {keywords: [订蛋糕, order a cake]}
    slots:
      - {name: cake, entity: cake, label: {zh: 蛋糕, en: cake}, ask: {zh: 要哪种蛋糕？, en: Which cake?}}
      - {name: count, entity: integer, label: {zh: 数量, en: quantity}, ask: {zh: 要几个？, en: How many?}}
"""


class TestNumberForAnotherSlot:
    @pytest.mark.parametrize(("text", "lang"), [("数量是2", "zh"), ("the quantity is 2", "en")])
    def test_a_number_after_its_label_fills_that_slot_while_another_is_asked(self, text: str, lang: str) -> None:
        """The label says which slot the number is for; the asked question stays open."""
        parts = build(BAKERY, actions={})
        session = new_session(lang)
        task = parts.task(session, "order", "PARAM_COLLECT", pending_slot="cake")
        ctx = parts.respond(session, text)
        assert task.slots == {"count": 2}
        assert ctx.say == [{"zh": "要哪种蛋糕？", "en": "Which cake?"}[lang]]

    @LANGS
    def test_a_bare_number_is_no_answer_to_another_question(self, lang: str) -> None:
        parts = build(BAKERY, actions={})
        session = new_session(lang)
        task = parts.task(session, "order", "PARAM_COLLECT", pending_slot="cake")
        parts.respond(session, "2")
        assert task.slots == {}


class TestCancel:
    @LANGS
    def test_cancel_ends_the_only_task(self, parts: Parts, lang: str) -> None:
        """Cancelling the one task says so and leaves the bot idle."""
        session = new_session(lang)
        parts.task(session, "report_issue", "PARAM_COLLECT", {"product": "phone"}, pending_slot="order_id")
        ctx = parts.respond(session, CANCEL[lang])
        assert ctx.transitions == ["cancel"] and session.stack == []
        assert ctx.say == [phrase("cancelled", lang, task=parts.texts.task_label("report_issue", lang))]

    @LANGS
    def test_cancel_resumes_the_suspended_task_at_its_question(self, parts: Parts, lang: str) -> None:
        """Cancelling a digression returns to the task it interrupted, asking that task's question."""
        session = new_session(lang)
        report = parts.task(session, "report_issue", "PARAM_COLLECT", {"order_id": "12345"}, pending_slot="product")
        parts.task(session, "check_status", "PARAM_COLLECT", pending_slot="order_id")
        ctx = parts.respond(session, CANCEL[lang])
        texts = parts.texts
        assert ctx.say == [
            phrase("cancelled", lang, task=texts.task_label("check_status", lang)),
            phrase("resume", lang, task=texts.task_label("report_issue", lang)),
            ASK_PRODUCT[lang],
        ]
        assert session.stack == [report] and report.slots == {"order_id": "12345"}


class TestDispatch:
    def test_each_kind_of_command_has_its_step(self) -> None:
        """A kind looked up in the table, an in-task kind, or a reply with what the bot can do."""
        from dialogkit.engine import commands
        from dialogkit.engine.policy import _IN_TASK, _STEPS

        kinds = {c for c in vars(commands).values()
                 if isinstance(c, type) and issubclass(c, commands.Command) and c is not commands.Command}
        replies = {commands.Greet, commands.Note, commands.Help, commands.NotUnderstood}
        assert kinds == set(_STEPS) | _IN_TASK | replies
        assert not set(_STEPS) & (replies - _IN_TASK)

    @pytest.mark.parametrize(("lang", "text"), [("zh", "算了，帮我查一下订单状态"), ("en", "never mind, check my order status")])
    def test_a_cancel_naming_another_flow_ends_the_task_and_starts_that_flow(self, parts: Parts, lang: str,
                                                                             text: str) -> None:
        session = new_session(lang)
        parts.task(session, "report_issue", "PARAM_COLLECT", {"product": "phone"}, pending_slot="order_id")
        ctx = parts.respond(session, text)
        assert ctx.transitions[0] == "cancel" and [t.flow for t in session.stack] == ["check_status"]


class TestConfirmation:
    @LANGS
    def test_yes_runs_the_action_and_says_its_outcome(self, lang: str) -> None:
        """"确认" / "yes" fires confirm, runs the action with the task's slots, and completes the task."""
        ticket = Recorder({"ticket_id": "T-42"})
        parts = with_actions(create_ticket=ticket)
        session = new_session(lang)
        parts.task(session, "report_issue", "CONFIRMATION", FULL)
        ctx = parts.respond(session, YES[lang])
        assert ctx.transitions == ["confirm", "complete"]
        assert [c.slots for c in ticket.calls] == [FULL] and ticket.calls[0].language == lang
        assert ctx.say == [CREATED[lang].format("T-42")]
        assert ctx.said == {"zh": "已创建工单 T-42。", "en": "Ticket T-42 has been created."}
        assert session.stack == [] and session.last_flow == "report_issue" and ctx.ended_by == "complete"

    @LANGS
    def test_no_asks_what_to_change(self, lang: str) -> None:
        """"不对" / "no" goes back to collecting and asks what to change; nothing runs."""
        ticket = Recorder()
        parts = with_actions(create_ticket=ticket)
        session = new_session(lang)
        task = parts.task(session, "report_issue", "CONFIRMATION", FULL)
        ctx = parts.respond(session, NO[lang])
        assert ctx.transitions == ["deny"] and task.state == "PARAM_COLLECT"
        assert ctx.say == [phrase("ask_what_to_change", lang)] and ticket.calls == []

    @LANGS
    def test_a_correction_replaces_the_value_and_confirms_again(self, lang: str) -> None:
        """"不对，订单号是 67890": the new value replaces the old (kept as history) and the bot re-confirms."""
        ticket = Recorder()
        parts = with_actions(create_ticket=ticket)
        session = new_session(lang)
        task = parts.task(session, "report_issue", "CONFIRMATION", FULL)
        text = {"zh": "不对，订单号是 67890", "en": "no, the order number is 67890"}[lang]
        ctx = parts.respond(session, text)
        assert ctx.transitions == ["provide_param"] and task.state == "CONFIRMATION"
        assert task.slots["order_id"] == "67890"
        assert [c.value for c in task.slot_history["order_id"]] == ["12345"]
        assert ctx.say == [CONFIRM[lang].format("67890")] and ticket.calls == []

    @LANGS
    def test_an_unclear_answer_repeats_the_confirmation(self, parts: Parts, lang: str) -> None:
        """Neither yes nor no nor a value: the confirmation is asked again and counted as a re-ask."""
        session = new_session(lang)
        task = parts.task(session, "report_issue", "CONFIRMATION", FULL)
        ctx = parts.respond(session, NOTHING[lang])
        assert ctx.transitions == [] and task.reprompts == 1
        assert ctx.say == [CONFIRM[lang].format("12345")]


class TestExecution:
    @LANGS
    def test_the_action_runs_once_per_task_even_when_the_turn_repeats(self, lang: str) -> None:
        """The same task confirmed twice (a retried turn) runs its action once and says the same outcome."""
        ticket = Recorder({"ticket_id": "T-42"})
        parts = with_actions(create_ticket=ticket)
        session = new_session(lang)
        task = parts.task(session, "report_issue", "CONFIRMATION", FULL)
        first = parts.respond(session, YES[lang])
        task.state = "CONFIRMATION"
        session.stack.append(task)
        again = parts.respond(session, YES[lang])
        assert len(ticket.calls) == 1
        assert ticket.calls[0].idempotency_key == f"{session.id}:{task.id}"
        assert again.say == first.say == [CREATED[lang].format("T-42")]
        assert again.action_runs == []

    @LANGS
    def test_a_task_left_in_execution_finishes_from_its_record(self, lang: str) -> None:
        """A turn that finds the task still executing (a crash) completes it from the recorded run."""
        ticket = Recorder()
        parts = with_actions(create_ticket=ticket)
        session = new_session(lang)
        task = parts.task(session, "report_issue", "EXECUTION", FULL)
        session.executed[f"{session.id}:{task.id}"] = {"result": {"ticket_id": "T-7"}, "error": None, "at": T0}
        ctx = parts.respond(session, {"zh": "你好", "en": "hello"}[lang])
        assert ticket.calls == [] and ctx.transitions == ["complete"]
        assert ctx.say == [CREATED[lang].format("T-7")]

    @LANGS
    def test_a_task_left_in_execution_without_a_record_runs_now(self, lang: str) -> None:
        """No record of a run: the action runs once, now."""
        ticket = Recorder({"ticket_id": "T-8"})
        parts = with_actions(create_ticket=ticket)
        session = new_session(lang)
        parts.task(session, "report_issue", "EXECUTION", FULL)
        ctx = parts.respond(session, {"zh": "你好", "en": "hello"}[lang])
        assert len(ticket.calls) == 1 and ctx.say == [CREATED[lang].format("T-8")]

    @LANGS
    def test_a_failed_action_says_on_error(self, lang: str) -> None:
        """An action that raises fails the task; the flow's on_error says why."""
        parts = with_actions(create_ticket=Recorder(error=ValueError("backend down")))
        session = new_session(lang)
        task = parts.task(session, "report_issue", "CONFIRMATION", FULL)
        ctx = parts.respond(session, YES[lang])
        on_error = {"zh": "抱歉，工单创建失败：backend down", "en": "Sorry, the ticket could not be created: backend down"}
        assert ctx.say == [on_error[lang]]
        assert ctx.transitions == ["confirm", "fail"] and ctx.ended_by == "fail"
        assert [run.error for run in ctx.action_runs] == ["backend down"]
        assert session.executed[f"{session.id}:{task.id}"]["error"] == "backend down"

    @LANGS
    def test_a_failed_action_without_on_error_says_it_failed(self, lang: str) -> None:
        """Without on_error the framework's own phrase carries the error."""
        parts = build(DESK, actions={"refund": Recorder(error=ValueError("backend down"))})
        session = new_session(lang)
        parts.task(session, "refund", "PARAM_COLLECT", pending_slot="order_id")
        ctx = parts.respond(session, "12345")
        assert ctx.say == [phrase("action_failed", lang, error="backend down")]
        assert ctx.transitions == ["provide_param", "execute", "fail"]

    def test_the_records_of_runs_are_capped_oldest_first(self, parts: Parts) -> None:
        """A session keeps the last 32 run records, so its row does not grow forever."""
        session = new_session("en")
        session.executed = {f"old-{i}": {"result": {}, "error": None, "at": T0} for i in range(32)}
        task = parts.task(session, "report_issue", "CONFIRMATION", FULL)
        parts.respond(session, "yes")
        assert len(session.executed) == 32
        assert "old-0" not in session.executed and f"{session.id}:{task.id}" in session.executed
