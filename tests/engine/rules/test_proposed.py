"""The LLM's commands at the command level: a confirm, deny or cancel the model heard (already
checked against the user's words) decides a turn only where the words' own reading does not.

Each test puts the model's command on the turn as the LLM layer leaves it (``ctx.proposed``, made
by ``llm``) and asks ``rules.generate`` which rule decides."""

from __future__ import annotations

import pytest

from dialogkit.engine.commands import Cancel, Command, Confirm, Deny, KeepQuestion, SetSlots
from dialogkit.engine.rules import Seen, generate
from dialogkit.engine.rules.proposed import llm_answer, llm_cancel
from dialogkit.model.session import Session
from tests.engine.rules._bot import collecting, confirming, idle, pending_choice, seen

HELD = {"order_id": "12345", "product": "phone"}
LONG_YES = {"zh": ("好的，就这么办吧，麻烦你们了", "好的"), "en": ("sure, that is exactly what I need, thanks a lot", "sure")}
HELLO = {"zh": "你好", "en": "hello there"}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


def heard(session: Session, text: str, *commands: Command) -> Seen:
    """The turn ``text`` with ``commands`` proposed by the model."""
    turn = seen(session, text)
    turn.ctx.proposed.extend(commands)
    return turn


class TestAnswerAtTheConfirmation:
    @LANGS
    def test_a_yes_with_a_long_tail_confirms_by_the_model(self, lang: str) -> None:
        """The rules' yes allows little after it; the model heard one, and the words open with it."""
        text, yes = LONG_YES[lang]
        session = confirming(lang, "report_issue", HELD)
        assert [c.rule for c in generate(seen(session, text))] == ["not_understood"]
        assert generate(heard(session, text, Confirm(rule="llm", words=yes))) == [Confirm(rule="llm", words=yes)]

    @LANGS
    def test_a_models_deny_asks_what_to_change(self, lang: str) -> None:
        session = confirming(lang, "report_issue", HELD)
        assert generate(heard(session, HELLO[lang], Deny(rule="llm"))) == [Deny(rule="llm")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对"), ("en", "no")])
    def test_a_models_confirm_never_stands_against_a_no(self, lang: str, text: str) -> None:
        session = confirming(lang, "report_issue", HELD)
        assert llm_answer(heard(session, text, Confirm(rule="llm", words=text))) == []
        assert [c.rule for c in generate(heard(session, text, Confirm(rule="llm", words=text)))] == ["deny"]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "不对，是笔记本"), ("en", "no, the laptop")])
    def test_new_values_in_the_words_correct_before_the_models_answer(self, lang: str, text: str) -> None:
        made = generate(heard(confirming(lang, "report_issue", HELD), text, Deny(rule="llm")))
        assert [c.rule for c in made] == ["correction"] and isinstance(made[0], SetSlots)
        assert made[0].offer.values == {"product": "laptop"}

    @LANGS
    def test_the_models_last_word_is_its_answer(self, lang: str) -> None:
        text, yes = LONG_YES[lang]
        turn = heard(confirming(lang, "report_issue", HELD), text, Confirm(rule="llm", words=yes), Deny(rule="llm"))
        assert llm_answer(turn) == [Deny(rule="llm")]

    @LANGS
    def test_an_answer_while_collecting_is_not_taken(self, lang: str) -> None:
        turn = heard(collecting(lang, "report_issue", "order_id"), HELLO[lang], Confirm(rule="llm", words=None))
        assert [c.rule for c in generate(turn)] == ["slot_offer"]


class TestCancel:
    @LANGS
    def test_a_models_cancel_ends_the_task(self, lang: str) -> None:
        session = collecting(lang, "report_issue", "order_id")
        assert [c.rule for c in generate(seen(session, HELLO[lang]))] == ["slot_offer"]
        assert generate(heard(session, HELLO[lang], Cancel(rule="llm"))) == [Cancel(rule="llm")]

    @LANGS
    def test_with_no_task_there_is_nothing_to_cancel(self, lang: str) -> None:
        assert generate(heard(idle(lang), HELLO[lang], Cancel(rule="llm"))) == [Cancel(rule="llm")]

    @pytest.mark.parametrize(("lang", "text"), [("zh", "停止"), ("en", "stop")])
    def test_the_value_declared_for_the_question_asked_is_an_answer(self, lang: str, text: str) -> None:
        """"停止" to "暂停还是停止？" answers, whatever the model heard in it."""
        turn = heard(collecting(lang, "change_subscription", "change"), text, Cancel(rule="llm"))
        assert llm_cancel(turn) == []
        made = generate(turn)
        assert isinstance(made[0], SetSlots) and made[0].offer.values == {"change": "stop"}

    @LANGS
    def test_a_cancel_drops_the_bots_own_question(self, lang: str) -> None:
        """Small talk keeps "which one did you mean?" once; a cancel the model heard drops it."""
        session = idle(lang)
        pending_choice(session, "12345", "67890")
        assert isinstance(generate(seen(session, HELLO[lang]))[0], KeepQuestion)
        assert generate(heard(session, HELLO[lang], Cancel(rule="llm"))) == [Cancel(rule="llm")]
