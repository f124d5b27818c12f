"""``rules.generate``: the first rule that decides, in the order of ``RULES``, makes the turn's
commands, where a later rule would have read the same words too."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dialogkit.engine.commands import Cancel, Choose, Command, Forget, SetSlots, StartFlow
from dialogkit.engine.faq import FaqIndex
from dialogkit.engine.rules import _GATES, RULES, Seen, _asked, generate
from dialogkit.engine.rules.in_task import deny
from dialogkit.engine.rules.starting import intent
from dialogkit.model.session import Session
from tests.engine.rules._bot import collecting, confirming, idle, pending_choice, said, seen, values

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


@pytest.mark.parametrize(("lang", "text", "cancelled", "rest"), [
    ("zh", "那算了，帮我订一张桌子", "那算了", "帮我订一张桌子"),
    ("en", "never mind, book a table instead", "never mind", "book a table instead"),
])
def test_a_cancel_that_names_a_flow_cancels_then_starts_it(lang: str, text: str, cancelled: str, rest: str) -> None:
    """The intent rule reads "订一张桌子" too; the cancel stands before it."""
    assert intent(seen(idle(lang), text)) == [StartFlow(rule="intent", words=text, flow="book_table")]
    turn = seen(idle(lang), text)
    made = generate(turn)
    assert made == [Cancel(rule="cancel", words=cancelled), StartFlow(rule="instead", words=rest, flow="book_table")]
    assert turn.emitted == made


@pytest.mark.parametrize(("lang", "text"), [("zh", "不对，是笔记本"), ("en", "no, the laptop")])
def test_new_values_at_the_confirmation_correct_before_the_no_denies(lang: str, text: str) -> None:
    session = confirming(lang, "report_issue", {"order_id": "12345", "product": "phone"})
    assert [c.rule for c in deny(seen(session, text))] == ["deny"]
    made = generate(seen(session, text))
    assert [c.rule for c in made] == ["correction"] and values(made) == {"product": "laptop"}


@pytest.mark.parametrize(("lang", "text", "words"), [("zh", "算了", "算了"), ("en", "never mind", "never mind")])
def test_a_cancel_inside_a_task_is_no_answer(lang: str, text: str, words: str) -> None:
    assert generate(seen(collecting(lang, "change_subscription", "change"), text)) == [
        Cancel(rule="cancel", words=words)]


@pytest.mark.parametrize(("lang", "text"), [("zh", "停止"), ("en", "stop")])
def test_the_declared_answer_passes_the_cancel_rule_to_the_slot_values(lang: str, text: str) -> None:
    made = generate(seen(collecting(lang, "change_subscription", "change"), text))
    assert [(type(c), c.rule) for c in made] == [(SetSlots, "slot_offer")] and values(made) == {"change": "stop"}


@pytest.mark.parametrize(("lang", "text"), [("zh", "忘记时间"), ("en", "forget the time")])
def test_forgetting_a_slot_comes_before_reading_its_label_as_an_answer(lang: str, text: str) -> None:
    made = generate(seen(collecting(lang, "book_table", "time", {"time": "19:00"}), text))
    assert made == [Forget(rule="forget_value", words=text, slots=("time",))]


@pytest.mark.parametrize(("lang", "text"), [("zh", "第二个呢？"), ("en", "and the second one?")])
def test_the_bots_own_question_is_answered_before_a_follow_up(lang: str, text: str) -> None:
    session = idle(lang)
    said(session, {"zh": "我有两个订单 12345 和 67890", "en": "I have two orders 12345 and 67890"}[lang])
    session.last_flow = "check_status"
    assert [(type(c), getattr(c, "flow", None)) for c in generate(seen(session, text))] == [
        (StartFlow, "check_status")]      # without the question, the words repeat the status check
    pending_choice(session, "12345", "67890")
    made = generate(seen(session, text))
    assert [(type(c), c.rule) for c in made] == [(Choose, "clarification_answer")]


@pytest.mark.parametrize(("lang", "text"), [("zh", "它现在怎么样？"), ("en", "how is it doing?")])
def test_a_request_through_an_ambiguous_reference_starts_its_flow(lang: str, text: str) -> None:
    """The clarification is asked as the flow starts (its memory action), not instead of it."""
    session = idle(lang)
    said(session, {"zh": "我有两个订单 12345 和 67890", "en": "I have two orders 12345 and 67890"}[lang])
    assert generate(seen(session, text)) == [StartFlow(rule="intent", words=text, flow="check_status")]


@LANGS
def test_a_task_left_in_execution_is_decided_by_no_rule(lang: str) -> None:
    session = collecting(lang, "report_issue", "product", {"order_id": "12345", "product": "phone"})
    assert session.task is not None
    session.task.state = "EXECUTION"
    assert generate(seen(session, {"zh": "好的", "en": "yes"}[lang])) == []


@pytest.mark.parametrize(("lang", "text"), [("zh", "帮助：营业时间"), ("en", "help: opening hours")])
def test_the_faq_is_searched_once_a_turn(lang: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Help asked with an FAQ's words: the aside finds the FAQ, so the FAQ rule answers; both read
    one search of the index."""
    searched: list[str] = []
    match = FaqIndex.match

    def counted(index: FaqIndex, said: str) -> tuple[str, float] | None:
        searched.append(said)
        return match(index, said)

    turn = seen(collecting(lang, "report_issue", "product", {"order_id": "12345"}), text)
    monkeypatch.setattr(FaqIndex, "match", counted)
    assert [(c.rule, getattr(c, "entry", None)) for c in generate(turn)] == [("faq", "opening_hours")]
    assert searched == [text]


TURNS = {
    "zh": ["你好", "好的", "不对", "不对，是笔记本", "算了", "忘掉我刚才说的", "你能做什么？", "订单号是12345", "我的手机屏幕碎了",
           "停止", ""],
    "en": ["hello", "yes", "no", "no, the laptop", "never mind", "forget what I just said", "what can you do?",
           "the order number is 12345", "my phone arrived broken", "stop", ""],
}


def _every_rule(turn: Seen) -> list[Command]:
    """The commands of the first rule of the turn's state that decides, every rule asked in order."""
    for rule in RULES:
        if turn.ctx.session.state in rule.states and (made := rule.run(turn)):
            return list(made)
    return []


@LANGS
def test_a_rule_left_unasked_could_not_have_decided(lang: str) -> None:
    """The generator does not ask a rule that needs a cue the turn lacks (a cancel, a yes, a
    greeting...), nor the LLM's rules when the model said nothing: such a rule, asked, makes
    nothing, and every turn decides as if each rule were asked in order."""
    states: list[Callable[[], Session]] = [
        lambda: idle(lang), lambda: collecting(lang, "report_issue", "order_id"),
        lambda: collecting(lang, "change_subscription", "change"),
        lambda: confirming(lang, "report_issue", {"order_id": "12345", "product": "phone"}),
        lambda: _asking(idle(lang)), lambda: _asking(collecting(lang, "report_issue", "product"))]
    for session in states:
        for text in [*TURNS[lang], *ASKING_TURNS[lang]]:
            assert generate(seen(session(), text)) == _every_rule(seen(session(), text)), text
            turn = seen(session(), text)
            silent = [rule for rule in RULES if turn.ctx.session.state in rule.states
                      and rule.silent(_GATES.intersection(turn.cues), bool(turn.ctx.proposed),
                                      turn.ctx.session.pending is not None, not turn.ctx.text.strip())]
            assert [rule.name for rule in silent if rule.run(seen(session(), text))] == [], text


ASKING_TURNS = {"zh": ["第二个", "67890", "   "], "en": ["the second one", "67890", "   "]}


def _asking(session: Session) -> Session:
    pending_choice(session, "12345", "67890")
    return session


def _asked_names(session: Session, text: str) -> list[str]:
    turn = seen(session, text)
    asked = _asked(session.state, _GATES.intersection(turn.cues), bool(turn.ctx.proposed),
                   session.pending is not None, not turn.ctx.text.strip())
    return [rule.name for rule in RULES if rule.run in asked]


@pytest.mark.parametrize(("lang", "text"), [("zh", "第二个"), ("en", "the second one")])
def test_the_answer_to_the_bots_question_is_looked_for_only_while_it_is_pending(lang: str, text: str) -> None:
    """Nor is a turn with words read as an empty one: most turns skip both rules unasked."""
    asked = _asked_names(idle(lang), text)
    assert "clarification_answer" not in asked and "empty_input" not in asked
    assert _asked_names(_asking(idle(lang)), text)[0] == "clarification_answer"
    assert _asked_names(_asking(idle(lang)), " ")[:2] == ["empty_input", "clarification_answer"]
