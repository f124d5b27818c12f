"""Each invariant on hand-made turns: one that keeps the behaviour and one that breaks it, in
Chinese and in English."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dialogkit.model.reply import ActionRun
from dialogkit.simulation.invariants import INVARIANTS
from dialogkit.simulation.invariants.asked_slot import bare_answer_goes_to_asked_slot
from dialogkit.simulation.invariants.base import Finding
from dialogkit.simulation.invariants.clarification import ambiguous_reference_is_clarified
from dialogkit.simulation.invariants.forgetting import forget_asks_first_empty_slot
from dialogkit.simulation.invariants.language import reply_in_turn_language
from dialogkit.simulation.invariants.mentions import mention_starts_no_flow
from dialogkit.simulation.invariants.rejected_values import action_never_runs_with_taken_back_value
from dialogkit.simulation.invariants.sanity import turn_completes
from dialogkit.simulation.invariants.summary import summary_holds_no_taken_back_value
from dialogkit.simulation.observation import Snapshot
from dialogkit.simulation.user_memory import UserMemory
from dialogkit.simulation.utterances import Utterance
from tests.simulation._records import (
    BANK_CARD,
    CAR_RENTAL,
    MEETING,
    RESTAURANT,
    SUPPORT,
    TRANSFER,
    judge,
    record,
    remember,
    reply,
    said,
    utterance,
)

TASK = Snapshot("CONFIRMATION", "report_issue", {"order_id": "12345", "product": "phone", "issue_type": "damaged"},
                ("report_issue",))
SLOTS = {"order_id": "12345", "product": "phone", "issue_type": "damaged"}


def test_every_invariant_has_a_name_a_letter_and_says_what_it_checks() -> None:
    assert [i.letter for i in INVARIANTS] == list("abcdefghijklm")
    for invariant in INVARIANTS:
        doc = invariant.check.__doc__ or ""
        assert invariant.doc and invariant.title and ("docs/behaviours.md" in doc or "docs/bot-file.md" in doc)


# -- (a) taken-back values --------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "text", "yes"), [("zh", "不对，订单号是67890", "确认"),
                                                        ("en", "actually 67890", "yes")])
def test_an_action_with_the_corrected_away_value_is_a_violation(language: str, text: str, yes: str) -> None:
    fix = record(utterance(text, "correct", language, slot="order_id",
                           fills={"order_id": said("67890", entity="order_id")}),
                 reply("…", state="CONFIRMATION", flow="report_issue", slots={**SLOTS, "order_id": "67890"},
                       language=language), before=TASK)
    memory = remember(UserMemory(language), fix)
    confirmed = utterance(yes, "yes", language)
    good = reply("ok", slots={**SLOTS, "order_id": "67890"}, language=language,
                 actions=[ActionRun("create_ticket", {**SLOTS, "order_id": "67890"})])
    bad = reply("ok", slots=SLOTS, language=language, actions=[ActionRun("create_ticket", dict(SLOTS))])
    before = fix.after
    assert action_never_runs_with_taken_back_value(record(confirmed, good, before=before, index=1),
                                                   judge(memory=memory)) is None
    finding = action_never_runs_with_taken_back_value(record(confirmed, bad, before=before, index=1),
                                                      judge(memory=memory))
    assert finding is not None and finding.kind == "corrected"
    assert finding.expect == {"slots": {"order_id": "67890"}}


def test_a_no_at_the_confirmation_takes_back_what_it_showed_until_it_is_shown_again() -> None:
    memory = remember(UserMemory("en"), record(utterance("no", "no", "en"), reply(
        "OK, what would you like to change?", state="PARAM_COLLECT", flow="report_issue", slots=SLOTS,
        language="en"), before=TASK))
    ran = reply("done", slots=SLOTS, language="en", actions=[ActionRun("create_ticket", dict(SLOTS))])
    finding = action_never_runs_with_taken_back_value(record(utterance("yes", "yes", "en"), ran, index=1),
                                                      judge(memory=memory))
    assert finding is not None and finding.kind == "denied" and finding.expect == {"action": None}
    reconfirmed = record(utterance("ok", "yes", "en"), reply("Shall I?", state="CONFIRMATION",
                                                            flow="report_issue", slots=SLOTS), index=1)
    remember(memory, reconfirmed)
    assert action_never_runs_with_taken_back_value(record(utterance("yes", "yes", "en"), ran, index=2),
                                                   judge(memory=memory)) is None


@pytest.mark.parametrize(("language", "forget", "refer"), [("zh", "忘记刚才说的", "那个呢"),
                                                            ("en", "forget what I just said", "what about it")])
def test_a_reference_that_brings_a_forgotten_value_back_and_finishes_the_task_says_it_again(
        language: str, forget: str, refer: str) -> None:
    asking = Snapshot("PARAM_COLLECT", "report_issue", {"product": "phone", "issue_type": "damaged"},
                      ("report_issue",), (), "order_id")
    started = record(utterance("…", "trigger", language, flow="report_issue"), reply(
        "?", state="PARAM_COLLECT", flow="report_issue", slots=asking.slots, language=language))
    pointed = record(utterance(refer, "refer", language), reply(
        "?", state="CONFIRMATION", flow="report_issue", slots=SLOTS, language=language), before=asking, index=1)
    forgot = record(utterance(forget, "forget", language), reply(
        "?", state="PARAM_COLLECT", flow="report_issue", slots=asking.slots, language=language),
        before=pointed.after, index=2)
    memory = remember(UserMemory(language), started, pointed, forgot)
    assert [(t.value, t.reason) for t in memory.taken_back] == [("12345", "forgotten")]
    again = record(utterance(refer, "refer", language), reply(
        "ok", slots=SLOTS, language=language, actions=[ActionRun("create_ticket", dict(SLOTS))]),
        before=forgot.after, index=3)
    memory.take_back(again)
    assert action_never_runs_with_taken_back_value(again, judge(memory=memory)) is None


def test_saying_a_value_again_takes_it_back_no_longer() -> None:
    fix = record(utterance("actually 67890", "correct", "en", slot="order_id",
                           fills={"order_id": said("67890", entity="order_id")}),
                 reply("…", state="CONFIRMATION", flow="report_issue", slots={**SLOTS, "order_id": "67890"}),
                 before=TASK)
    back = record(utterance("actually 12345", "correct", "en", slot="order_id",
                            fills={"order_id": said("12345", entity="order_id")}),
                  reply("…", state="CONFIRMATION", flow="report_issue", slots=SLOTS), before=fix.after, index=1)
    memory = remember(UserMemory("en"), fix, back)
    assert [t.value for t in memory.taken_back] == ["67890"]


# -- (b) the asked slot first -------------------------------------------------------------------------

ASKING = Snapshot("PARAM_COLLECT", "transfer", {"payee": "John Smith"}, ("transfer",), (), "amount")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_valid_bare_answer_fills_the_asked_slot_and_nothing_else(language: str) -> None:
    answer = utterance("100", "answer", language, slot="amount", fills={"amount": said("100", 100, "number")})
    good = reply("?", state="PARAM_COLLECT", flow="transfer", slots={"payee": "John Smith", "amount": 100},
                 language=language)
    assert bare_answer_goes_to_asked_slot(record(answer, good, before=ASKING), judge(TRANSFER)) is None
    elsewhere = reply("?", state="PARAM_COLLECT", flow="transfer", slots={"payee": "John Smith", "currency": "CNY"},
                      language=language)
    finding = bare_answer_goes_to_asked_slot(record(answer, elsewhere, before=ASKING), judge(TRANSFER))
    assert finding is not None and finding.kind == "filled_another_slot"
    assert finding.expect == {"slots": {"currency": None}}


@pytest.mark.parametrize(("language", "message"), [("zh", "单笔转账不能超过5000。"),
                                                    ("en", "A single transfer cannot exceed 5000.")])
def test_an_invalid_bare_answer_gets_the_rule_message(language: str, message: str) -> None:
    answer = utterance("9000", "answer", language, slot="amount",
                       mentions=(said("9000", 9000, "number", valid=False),))
    refused = reply(f"{message} ?", state="PARAM_COLLECT", flow="transfer", slots={"payee": "John Smith"},
                    language=language)
    assert bare_answer_goes_to_asked_slot(record(answer, refused, before=ASKING), judge(TRANSFER)) is None
    silent = reply("?", state="PARAM_COLLECT", flow="transfer", slots={"payee": "John Smith"}, language=language)
    finding = bare_answer_goes_to_asked_slot(record(answer, silent, before=ASKING), judge(TRANSFER))
    assert finding is not None and finding.kind == "no_rule_message" and finding.expect == {"bot": message}
    taken = reply("?", state="PARAM_COLLECT", flow="transfer", slots={"payee": "John Smith", "amount": 9000})
    finding = bare_answer_goes_to_asked_slot(record(answer, taken, before=ASKING), judge(TRANSFER))
    assert finding is not None and finding.kind == "invalid_value_accepted"


CHECKING = Snapshot("PARAM_COLLECT", "check_status", {}, ("check_status",), (), "order_id")


@pytest.mark.parametrize(("language", "doubt"), [
    ("zh", "13812345678 看起来像手机号，不像订单号。"),
    ("en", "13812345678 looks like a phone number, not like the order number."),
])
def test_an_answer_shaped_like_a_phone_may_be_asked_about_before_it_is_taken(language: str, doubt: str) -> None:
    answer = utterance("13812345678", "answer", language, slot="order_id",
                       fills={"order_id": said("13812345678", "13812345678", "order_id")})
    asked = reply(f"{doubt} ?", state="PARAM_COLLECT", flow="check_status", language=language)
    assert bare_answer_goes_to_asked_slot(record(answer, asked, before=CHECKING), judge()) is None
    dropped = reply("?", state="PARAM_COLLECT", flow="check_status", language=language)
    finding = bare_answer_goes_to_asked_slot(record(answer, dropped, before=CHECKING), judge())
    assert finding is not None and finding.kind == "answer_not_taken"


def test_the_failure_that_hands_off_needs_no_rule_message() -> None:
    answer = utterance("9000", "answer", "en", slot="amount", mentions=(said("9000", 9000, "number", valid=False),))
    handed = reply("Leave a phone number.", state="PARAM_COLLECT", flow="agent", language="en")
    assert bare_answer_goes_to_asked_slot(record(answer, handed, before=ASKING), judge(TRANSFER)) is None


# -- (c) mentions ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "text", "canonical"), [("zh", "裂了", "damaged"), ("en", "cracked", "damaged")])
def test_a_mention_in_idle_starts_no_flow(language: str, text: str, canonical: str) -> None:
    mention = utterance(text, "bare_value", language, mentions=(said(text, canonical, "issue_type"),))
    noted = reply("noted", language=language)
    assert mention_starts_no_flow(record(mention, noted), judge()) is None
    started = reply("?", state="PARAM_COLLECT", flow="report_issue", slots={"issue_type": canonical},
                    language=language)
    finding = mention_starts_no_flow(record(mention, started), judge())
    assert finding is not None and finding.expect == {"state": "IDLE"}
    with_keyword = utterance(text, "bare_value", language, keyword_free=False)
    assert mention_starts_no_flow(record(with_keyword, started), judge()) is None


# -- (d) clarification ------------------------------------------------------------------------------------

def _two_people(language: str) -> UserMemory:
    first, second = said("张经理", entity="person"), said("李主管", entity="person")
    text = "我有两个同事 张经理 和 李主管" if language == "zh" else "I have colleague Manager Zhang and colleague Supervisor Li"
    named = record(utterance(text, "two_candidates", language, mentions=(first, second), entity="person"),
                   reply("noted", language=language))
    return remember(UserMemory(language), named)


@pytest.mark.parametrize(("language", "text"), [("zh", "问他项目进度"), ("en", "ask him about the project status")])
def test_a_pronoun_after_two_candidates_is_clarified(language: str, text: str) -> None:
    memory = _two_people(language)
    ask = utterance(text, "refer", language, reference="pronoun", entity="person", flow="ask_colleague")
    asked = reply("?", language=language, clarification=["张经理", "李主管"])
    assert ambiguous_reference_is_clarified(record(ask, asked, index=1), judge(MEETING, memory)) is None
    guessed = reply("?", state="PARAM_COLLECT", flow="ask_colleague", slots={"person": "张经理"}, language=language)
    finding = ambiguous_reference_is_clarified(record(ask, guessed, index=1), judge(MEETING, memory))
    assert finding is not None and finding.kind == "request_not_clarified"
    assert finding.expect == {"clarify": ["张经理", "李主管"]}


@pytest.mark.parametrize(("language", "small_talk"), [("zh", "天气真不错"), ("en", "the weather is lovely")])
def test_a_clarification_survives_one_unrelated_turn(language: str, small_talk: str) -> None:
    memory = _two_people(language)
    asked = record(utterance("问他项目进度", "refer", language, reference="pronoun", entity="person"),
                   reply("?", language=language, clarification=["张经理", "李主管"]), index=1)
    remember(memory, asked)
    chat = utterance(small_talk, "off_topic", language)
    again = reply("?", language=language, clarification=["张经理", "李主管"])
    assert ambiguous_reference_is_clarified(record(chat, again, index=2), judge(MEETING, memory)) is None
    dropped = reply("I can help with", language=language)
    finding = ambiguous_reference_is_clarified(record(chat, dropped, index=2), judge(MEETING, memory))
    assert finding is not None and finding.kind == "dropped_by_unrelated_turn"
    remember(memory, record(chat, again, index=2))
    second = ambiguous_reference_is_clarified(record(chat, dropped, index=3), judge(MEETING, memory))
    assert second is None                            # a second unrelated turn may drop it


# -- (e) language -------------------------------------------------------------------------------------------

def test_a_zh_reply_shows_zh_labels_and_holds_chinese() -> None:
    turn = utterance("手机", "bare_value", "zh")
    assert reply_in_turn_language(record(turn, reply("好的，已记下手机。")), judge()) is None
    finding = reply_in_turn_language(record(turn, reply("好的，已记下phone。")), judge())
    assert finding is not None and finding.kind == "other_language_label"
    missing = reply_in_turn_language(record(turn, reply("OK, noted: phone.")), judge())
    assert missing is not None and missing.kind == "no_chinese"


def test_a_label_the_bot_file_gives_in_the_language_is_that_languages() -> None:
    """"SUV" is the car-rental bot's zh label of its SUV class: a zh reply showing it is in zh."""
    turn = utterance("1", "answer", "zh", slot="passengers")
    shown = reply("要什么车型：经济型、SUV还是商务型？", state="PARAM_COLLECT", flow="rent_car")
    assert reply_in_turn_language(record(turn, shown), judge(CAR_RENTAL)) is None


def test_an_en_reply_shows_no_zh_label_where_an_en_one_exists() -> None:
    turn = utterance("what about it", "refer", "en")
    assert reply_in_turn_language(record(turn, reply("Do you mean phone or laptop?", language="en")), judge()) is None
    finding = reply_in_turn_language(record(turn, reply("Do you mean 手机 or 笔记本电脑?", language="en")), judge())
    assert finding is not None and finding.kind == "other_language_label"
    wrong = reply_in_turn_language(record(turn, reply("您指的是手机吗？", language="zh")), judge())
    assert wrong is not None and wrong.kind == "wrong_language"


def test_a_form_inside_a_label_of_the_turns_language_is_no_violation() -> None:
    turn = utterance("大会议室", "bare_value", "zh")
    assert reply_in_turn_language(record(turn, reply("好的，已记下一号会议室A101。")), judge(MEETING)) is None


# -- (f) forget -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "text", "question"), [("zh", "忘记刚才说的", "请提供您的订单号。"),
                                                             ("en", "forget what I just said", "What is your order number?")])
def test_forget_asks_for_the_first_empty_required_slot(language: str, text: str, question: str) -> None:
    forget = utterance(text, "forget", language)
    slots = {"product": "phone", "issue_type": "damaged"}
    good = reply(f"OK. {question}", state="PARAM_COLLECT", flow="report_issue", slots=slots, language=language)
    assert forget_asks_first_empty_slot(record(forget, good), judge()) is None
    wrong = reply("Which product is it?", state="PARAM_COLLECT", flow="report_issue", slots=slots, language=language)
    finding = forget_asks_first_empty_slot(record(forget, wrong), judge())
    assert finding is not None and finding.expect == {"bot": question}


# -- (g) sanity ---------------------------------------------------------------------------------------------

def test_a_turn_that_raises_or_reports_no_known_state_is_a_violation() -> None:
    hello = utterance("你好", "off_topic")
    assert turn_completes(record(hello, reply("您好")), judge()) is None
    raised = turn_completes(record(hello, None, error="Traceback ...\nKeyError: 'x'"), judge())
    assert raised is not None and raised.kind == "raised" and "KeyError" in raised.message
    odd = turn_completes(record(hello, reply("?", state="WAITING")), judge())
    assert odd is not None and odd.kind == "unknown_state"


# -- (h) summary ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "text", "kept", "stale"), [
    ("zh", "不对，商品是笔记本", "用户陈述：报告订单问题（商品 笔记本电脑）", "用户陈述：报告订单问题（商品 手机）"),
    ("en", "no, the product is laptop", "User stated: a problem (product laptop).", "User stated: a problem (product phone)."),
])
def test_the_summary_drops_a_corrected_value(language: str, text: str, kept: str, stale: str) -> None:
    fix = utterance(text, "correct", language, slot="product", fills={"product": said("笔记本", "laptop", "product")})
    kept_finding, stale_finding = _summaries_after_a_correction(
        SUPPORT, "report_issue", "我上周买的手机屏幕碎了", ("product", "phone", "laptop"), fix, kept, stale)
    assert kept_finding is None and stale_finding is not None and stale_finding.kind == "corrected"


def _summaries_after_a_correction(path: Path, flow: str, request: str, change: tuple[str, str, str], fix: Utterance,
                                  kept: str, stale: str) -> tuple[Finding | None, Finding | None]:
    """The summary invariant's findings on the turn correcting ``change`` (slot, old, new) after a
    request that held the old value: once with the summary ``kept``, once with ``stale``."""
    slot, old, new = change
    start = record(utterance(request, "trigger", "zh", flow=flow),
                   reply("?", state="PARAM_COLLECT", flow=flow, slots={slot: old}))
    memory = remember(UserMemory(fix.language), start)
    findings = []
    for summary in (kept, stale):
        turn = record(fix, reply("?", state="PARAM_COLLECT", flow=flow, slots={slot: new}, language=fix.language,
                                 summary=summary), before=start.after, index=1)
        if summary == kept:
            memory.take_back(turn)
        findings.append(summary_holds_no_taken_back_value(turn, judge(path, memory)))
    return findings[0], findings[1]



@pytest.mark.parametrize(("language", "kept", "stale"), [
    ("zh", "用户陈述：预订餐桌（人数 1，日期 2027-12-01）；已确认：已取消预订餐桌",
     "用户陈述：预订餐桌（人数 12，日期 2027-12-01）；已确认：已取消预订餐桌"),
    ("en", "User stated: Book a table (party size 1, date 2027-12-01). Confirmed: cancelled: Book a table.",
     "User stated: Book a table (party size 12, date 2027-12-01). Confirmed: cancelled: Book a table."),
])
def test_a_cancelled_tasks_values_are_read_past(language: str, kept: str, stale: str) -> None:
    """After a cancel the summary still shows the task's date, "2027-12-01", which holds the "12"
    corrected away from the party size: that is the date, not the party size shown."""
    size = said("12", 12, "integer")
    asked = record(utterance("12", "answer", language, slot="party_size", fills={"party_size": size}),
                   reply("?", state="PARAM_COLLECT", flow="book_table", slots={"party_size": 12}))
    fix = record(utterance("不对，人数是1", "correct", language, slot="party_size", fills={"party_size": said("1", 1)}),
                 reply("?", state="PARAM_COLLECT", flow="book_table", slots={"party_size": 1}), before=asked.after,
                 index=1)
    dated = record(utterance("2027年12月1日", "answer", language, slot="date"),
                   reply("?", state="PARAM_COLLECT", flow="book_table", slots={"party_size": 1, "date": "2027-12-01"}),
                   before=fix.after, index=2)
    memory = remember(UserMemory(language), asked, fix, dated)
    for summary, finds in ((kept, False), (stale, True)):
        cancel = record(utterance("算了", "cancel", language), reply("?", language=language, summary=summary),
                        before=dated.after, index=3)
        assert (summary_holds_no_taken_back_value(cancel, judge(RESTAURANT, memory)) is not None) is finds


@pytest.mark.parametrize(("language", "text", "kept", "stale"), [
    ("zh", "不对，原因是被偷", "用户陈述：挂失并冻结银行卡（原因 被盗）", "用户陈述：挂失并冻结银行卡（原因 遗失）"),
    ("en", "no, make it stolen", "User stated: Report a lost or stolen card and freeze it (reason stolen).",
     "User stated: Report a lost or stolen card and freeze it (reason lost)."),
])
def test_a_value_word_inside_a_task_description_is_no_value_shown(language: str, text: str, kept: str,
                                                                   stale: str) -> None:
    """"lost" in "Report a lost or stolen card" names the task, not the reason corrected away."""
    fix = utterance(text, "correct", language, slot="reason", fills={"reason": said("被偷", "stolen", "loss_reason")})
    kept_finding, stale_finding = _summaries_after_a_correction(
        BANK_CARD, "freeze_card", "我的卡丢了", ("reason", "lost", "stolen"), fix, kept, stale)
    assert kept_finding is None and stale_finding is not None and stale_finding.kind == "corrected"


@pytest.mark.parametrize(("language", "text", "kept", "stale"), [
    ("zh", "不对，金额是100", "用户陈述：转账（收款人 约翰，金额 100）；已确认：转账，已转账，流水号 R-1001",
     "用户陈述：转账（收款人 约翰，金额 1）"),
    ("en", "actually 100", "User stated: Send money (payee John Smith, amount 100). Confirmed: Done, reference R-1001.",
     "User stated: Send money (payee John Smith, amount 1)."),
])
def test_a_held_value_read_past_leaves_no_piece_of_another_code_behind(language: str, text: str, kept: str,
                                                                       stale: str) -> None:
    """"100" is read past as a word: inside "R-1001" it would leave a "1" that looks like the
    taken-back amount 1."""
    start = record(utterance("转1元给约翰", "trigger", "zh", flow="transfer"),
                   reply("?", state="PARAM_COLLECT", flow="transfer", slots={"payee": "John Smith", "amount": 1}))
    fix = utterance(text, "correct", language, slot="amount", fills={"amount": said("100", 100, "number")})
    memory = remember(UserMemory(language), start)
    slots = {"payee": "John Smith", "amount": 100}
    good = record(fix, reply("?", state="PARAM_COLLECT", flow="transfer", slots=slots, language=language,
                             summary=kept), before=start.after, index=1)
    memory.take_back(good)
    assert summary_holds_no_taken_back_value(good, judge(TRANSFER, memory)) is None
    bad = record(fix, reply("?", state="PARAM_COLLECT", flow="transfer", slots=slots, language=language,
                            summary=stale), before=start.after, index=1)
    finding = summary_holds_no_taken_back_value(bad, judge(TRANSFER, memory))
    assert finding is not None and finding.kind == "corrected"


INSURANCE = MEETING.parents[1] / "examples" / "insurance" / "insurance.yaml"


def _insurance_correction(flow: str, slots: dict[str, str], slot: str, new: str,
                          language: str) -> Callable[[str], Finding | None]:
    """A task of the insurance bot whose ``slot`` the user corrects to ``new``; the check of the
    summary shown after the correction."""
    start = record(utterance("我要报案", "trigger", "zh", flow=flow),
                   reply("?", state="PARAM_COLLECT", flow=flow, slots=slots))
    fix = utterance(f"no, make it {new}", "correct", language, slot=slot, fills={slot: said(new, new, slot)})
    memory = remember(UserMemory(language), start)
    after = {**slots, slot: new}

    def check(summary: str) -> Finding | None:
        turn = record(fix, reply("?", state="PARAM_COLLECT", flow=flow, slots=after, language=language,
                                 summary=summary), before=start.after, index=1)
        memory.take_back(turn)
        return summary_holds_no_taken_back_value(turn, judge(INSURANCE, memory=memory))

    return check


@pytest.mark.parametrize(("language", "kept", "stale"), [
    ("zh", "用户陈述：报案（币种 美元，日期 2027-02-11）", "用户陈述：报案（币种 元）"),
    ("en", "User stated: a claim (currency dollars, date 2027-02-11).", "User stated: a claim (currency yuan)."),
])
def test_a_taken_back_label_inside_a_label_or_value_still_held_is_no_violation(language: str, kept: str,
                                                                               stale: str) -> None:
    """"元" (CNY, corrected away) inside "美元" (USD), "11" inside the date the task holds."""
    check = _insurance_correction("file_claim", {"currency": "CNY", "incident_date": "2027-02-11"},
                                  "currency", "USD", language)
    assert check(kept) is None
    finding = check(stale)
    assert finding is not None and finding.kind == "corrected"


@pytest.mark.parametrize(("language", "kept"), [
    ("zh", "用户陈述：更新联系方式（联系电话 13000000000，联系方式偏好 短信）"),
    ("en", "User stated: update contact details (email aaa@example.com, preferred contact text message)."),
])
def test_a_taken_back_label_that_is_or_is_inside_a_slot_label_is_no_violation(language: str, kept: str) -> None:
    """"电话" (phone_call) inside the slot label "联系电话"; "email" (the value) is the slot label "email"."""
    taken = {"zh": "phone_call", "en": "email"}[language]
    check = _insurance_correction("update_contact", {"policy_no": "P00000000", "contact_method": taken},
                                  "contact_method", "sms", language)
    assert check(kept) is None


def test_a_taken_back_label_shown_outside_any_slot_label_is_found() -> None:
    check = _insurance_correction("update_contact", {"policy_no": "P00000000", "contact_method": "phone_call"},
                                  "contact_method", "sms", "zh")
    assert check("用户陈述：更新联系方式（联系方式偏好 电话）") is not None
