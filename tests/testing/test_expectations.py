"""Every `expect` key: a right expectation holds, a wrong one yields a mismatch (zh and en)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from dialogkit.model.reply import ActionRun, Reply
from dialogkit.testing.expectations import Observation, check, normalise, same


@dataclass
class Msg:
    role: str
    content: str
    tokens: int


@dataclass
class Ent:
    value: Any
    type: str


@dataclass
class View:
    summary: str = ""
    entities: list[Ent] = field(default_factory=list)


class StubBot:
    """Answers ``session`` and ``context`` from fixed data, as ``dialogkit.Bot`` would."""

    def __init__(self, view: View, messages: list[Msg]) -> None:
        self.view = view
        self.messages = messages

    def session(self, session_id: str) -> View:
        return self.view

    def context(self, session_id: str) -> list[Msg]:
        return self.messages


ZH = Reply(
    text="将为订单 123456（手机，损坏）创建工单，确认吗？", state="CONFIRMATION", flow="report_issue",
    slots={"order_id": "123456", "product": "phone", "issue_type": "damaged", "amount": 150},
    session_id="s", language="zh", clarification=None, resolved="订单12345还没到",
    actions=[ActionRun("create_ticket", {"order_id": "123456", "product": "phone"}, result={"ticket_id": "T-1"})],
    summary="用户反馈订单 123456 的手机屏幕碎了（用户陈述）", options=["确认", "取消"],
)
EN = Reply(
    text="Do you mean order 12345 or 67890?", state="PARAM_COLLECT", flow="report_issue",
    slots={"order_id": "67890", "amount": 150.0}, session_id="s", language="en",
    clarification=["12345", "67890"], resolved="my order 67890 never arrived", actions=[],
    summary="The user reports order 67890 never arrived", options=["12345", "67890"],
)
BOT = StubBot(View(entities=[Ent("12345", "order_id"), Ent("phone", "product"), Ent(67890, "order_id")]),
              [Msg("system", "你是客服", 10), Msg("user", "我的手机碎了", 12)])

# key -> [(reply, expectation that holds, expectation that does not)]
CASES: dict[str, list[tuple[Reply, Any, Any]]] = {
    "flow": [(ZH, "report_issue", "check_status"), (EN, "report_issue", None)],
    "state": [(ZH, "CONFIRMATION", "IDLE"), (EN, "PARAM_COLLECT", "CONFIRMATION")],
    "slots": [(ZH, {"product": "phone", "amount": "150", "note": None}, {"product": "laptop"}),
              (EN, {"order_id": 67890, "amount": 150}, {"order_id": None})],
    "bot": [(ZH, "创建工单", "已创建"), (EN, r"/order \d{5} or \d{5}/", "/^Ticket/")],
    "options": [(ZH, ["确认", "/^取/"], ["确认"]), (ZH, ["确", "消"], []), (EN, ["12345", "/^6/"], ["67890", "12345"])],
    "action": [(ZH, "create_ticket", "order_status"),
               (ZH, {"name": "create_ticket", "with": {"order_id": 123456}}, {"name": "create_ticket", "with": {"order_id": "1"}}),
               (EN, None, "create_ticket")],
    "clarify": [(EN, True, False), (ZH, False, True), (EN, ["67890", 12345], ["12345"])],
    "resolved": [(ZH, "12345", "67890"), (EN, "67890 never", "/^it /")],
    "summary": [(ZH, "手机屏幕碎了", "已确认"), (EN, "never arrived", "damaged")],
    "entities": [(ZH, ["12345", "phone"], ["laptop"]), (EN, [67890], ["12345", "99999"])],
    "max_context_tokens": [(ZH, 22, 21), (EN, 1000, 0)],
}


def params() -> list[Any]:
    out = []
    for key, cases in CASES.items():
        for n, (reply, right, wrong) in enumerate(cases):
            out.append(pytest.param(key, reply, right, wrong, id=f"{key}-{reply.language}-{n}"))
    return out


@pytest.mark.parametrize(("key", "reply", "right", "wrong"), params())
def test_right_expectation_holds(key: str, reply: Reply, right: Any, wrong: Any) -> None:
    """The expectation matching the reply gives no mismatch."""
    assert check({key: right}, Observation(reply, BOT, "s")) == []


@pytest.mark.parametrize(("key", "reply", "right", "wrong"), params())
def test_wrong_expectation_fails(key: str, reply: Reply, right: Any, wrong: Any) -> None:
    """A wrong expectation of every key is a mismatch that names the key and the wanted value."""
    mismatches = check({key: wrong}, Observation(reply, BOT, "s"))
    assert mismatches, f"{key}: {wrong!r} should not hold"
    assert all(m.key.split(".")[0] == key for m in mismatches)
    assert not any(m.unsupported for m in mismatches)


def test_every_expect_key_is_covered() -> None:
    """The table above exercises each ``expect:`` key a test file accepts (docs/testing.md)."""
    from dialogkit.testing.cases import EXPECT_KEYS

    assert set(CASES) == set(EXPECT_KEYS)


class TestMismatchDetail:
    def test_slot_mismatch_names_the_slot_and_both_values(self) -> None:
        (m,) = check({"slots": {"product": "laptop"}}, Observation(ZH, BOT, "s"))
        assert (m.key, m.expected, m.actual) == ("slots.product", "laptop", "phone")

    def test_unset_slot_is_said_so(self) -> None:
        (m,) = check({"slots": {"note": "易碎"}}, Observation(ZH, BOT, "s"))
        assert (m.key, m.actual, m.note) == ("slots.note", None, "the slot is unset")

    def test_action_with_other_inputs_shows_what_it_ran_with(self) -> None:
        want = {"name": "create_ticket", "with": {"product": "laptop"}}
        (m,) = check({"action": want}, Observation(ZH, BOT, "s"))
        assert m.note == "it ran with other inputs"
        assert m.actual[0]["inputs"] == {"order_id": "123456", "product": "phone"}

    def test_keys_are_checked_in_written_order(self) -> None:
        mismatches = check({"state": "IDLE", "flow": None, "bot": "hello"}, Observation(EN, BOT, "s"))
        assert [m.key for m in mismatches] == ["state", "flow", "bot"]


class TestUnsupported:
    """A bot without a feature gives a clear mismatch, never a crash."""

    class Bare:
        def handle(self, session_id: str, text: str, user_id: str | None = None) -> Any:
            raise AssertionError("not called")

        def close(self) -> None:
            pass

    @pytest.mark.parametrize(("key", "value", "reason"), [
        ("max_context_tokens", 100, "Bot.context() is missing"),
        ("entities", ["12345"], "Bot.session() is missing"),
        ("clarify", True, "the reply has no `clarification`"),
        ("resolved", "订单", "the reply has no `resolved`"),
    ])
    def test_missing_feature_reports_not_supported(self, key: str, value: Any, reason: str) -> None:
        reply = type("OldReply", (), {"text": "你好", "state": "IDLE", "flow": None, "slots": {}})()
        (m,) = check({key: value}, Observation(reply, self.Bare(), "s"))
        assert m.unsupported
        assert m.note == f"not supported by this bot: {reason}"

    def test_not_implemented_counts_as_unsupported(self) -> None:
        class Pending(StubBot):
            def context(self, session_id: str) -> list[Msg]:
                raise NotImplementedError("the context window lands next week")

        (m,) = check({"max_context_tokens": 10}, Observation(EN, Pending(View(), []), "s"))
        assert m.unsupported and "lands next week" in m.note


class TestNormalisation:
    @pytest.mark.parametrize(("expected", "actual"), [
        (150, 150), (150, "150"), ("150", 150.0), (1.5, "1.50"), (" phone ", "phone"), (True, "true"),
        ({"a": 1}, {"a": "1", "b": 2}), ("一百五十", "一百五十"),
    ])
    def test_equal_after_normalisation(self, expected: Any, actual: Any) -> None:
        assert same(expected, actual)

    @pytest.mark.parametrize(("expected", "actual"), [
        ("0123", 123), ("phone", "Phone"), (150, 151), ({"a": 1}, {"b": 1}), ("手机", "phone"),
    ])
    def test_different_after_normalisation(self, expected: Any, actual: Any) -> None:
        assert not same(expected, actual)

    def test_a_key_expected_null_matches_a_missing_key(self) -> None:
        """``with: {delivery_address: null}``: the action did not get the address."""
        assert same({"a": 1, "b": None}, {"a": 1}) and same({"b": None}, {"b": None})
        assert not same({"b": None}, {"b": "12 Baker Street"})

    def test_entity_like_objects_normalise_to_their_value(self) -> None:
        assert normalise(Ent("12345", "order_id")) == normalise(12345)
