"""Users' sessions survive every release of a bot file, and ``Bot.reload`` (docs/lifecycle.md).

Conversations left mid-task with one version of a bot file continue, turn by turn, with the next
version: one test per kind of change, in Chinese and in English, on a shared SQLite store. Then
the shipped support bot with its flows and slots renamed, as the issue reported it, and reloading
a bot in place.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dialogkit import Bot
from dialogkit.actions.loading import parse_bot_text
from dialogkit.errors import DialogkitError, FlowError
from dialogkit.store import MemoryStore
from dialogkit.testing.logs import capture_turn_logs, events_named
from tests.engine._parts import STUBS, SUPPORT
from tests.engine.test_migration import ACTIONS, variant

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
RETURN = {"zh": "我要退货，订单号 12345", "en": "I want to return an item, order 12345"}
PHONE = {"zh": "手机", "en": "phone"}
YES = {"zh": "确认", "en": "yes"}
CANCEL = {"zh": "算了", "en": "never mind"}
LONG_ORDER = "12345678"

Bots = Callable[..., Bot]


@pytest.fixture
def bots(tmp_path: Path) -> Iterator[Bots]:
    """``bots(text)``: a bot of that bot file on the test's one SQLite store; all closed at the end."""
    made: list[Bot] = []
    url = f"sqlite:///{tmp_path / 'sessions.db'}"

    def make(text: str, *, name: str = "bot.yaml", actions: dict[str, Any] | None = None) -> Bot:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        bot = Bot.from_file(path, store=url, actions=actions or ACTIONS)
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.close()


def left_mid_task(bots: Bots, lang: str) -> None:
    """Two sessions of the original bot: "collect" asked for the product, "confirm" awaits a yes."""
    old = bots(variant(), name="old.yaml")
    assert old.handle("collect", RETURN[lang]).state == "PARAM_COLLECT"
    old.handle("confirm", RETURN[lang])
    assert old.handle("confirm", PHONE[lang]).state == "CONFIRMATION"


class TestARelease:
    @LANGS
    def test_a_renamed_flow_cancels_the_task_says_so_and_the_new_one_starts(self, bots: Bots, lang: str) -> None:
        left_mid_task(bots, lang)
        new = bots(variant("flow_renamed"))
        with capture_turn_logs() as logs:
            reply = new.handle("confirm", YES[lang])
            again = new.handle("confirm", YES[lang])
        gone = {"zh": "之前的「退货」已不再提供。", "en": 'The earlier "return an item" task is no longer available.'}
        assert reply.text.startswith(gone[lang]) and reply.state == "IDLE" and not reply.actions
        assert gone[lang] not in again.text
        [event] = events_named(logs, "session_migrated")               # one event, on the first turn only
        assert event["flows_dropped"] == ["return_item"] and event["session_id"] == "confirm"
        started = new.handle("collect", RETURN[lang])
        assert started.text.startswith(gone[lang]) and (started.state, started.flow) == ("PARAM_COLLECT", "send_back")

    @LANGS
    def test_a_removed_flow_cancels_the_task_and_the_others_still_work(self, bots: Bots, lang: str) -> None:
        left_mid_task(bots, lang)
        new = bots(variant("flow_removed"))
        reply = new.handle("collect", CANCEL[lang])
        assert reply.state == "IDLE" and {"zh": "之前的「退货」", "en": '"return an item"'}[lang] in reply.text
        track = new.handle("collect", {"zh": "我的快递到哪了，订单 12345", "en": "where is my parcel, order 12345"}[lang])
        assert track.text == {"zh": "订单 12345：shipped。", "en": "Order 12345: shipped."}[lang]

    @LANGS
    def test_the_task_resumed_after_a_removed_one_asks_in_its_first_wording(self, bots: Bots, lang: str) -> None:
        """The answer the removed task's question got is no failed answer of the task that resumes:
        its question is asked in its first wording, and its re-asks are all still to come."""
        asks = [{"zh": "请提供订单号。", "en": "Which order?"},
                {"zh": "订单号是5到12位数字，请再说一遍。", "en": "An order number has 5 to 12 digits: which order?"}]

        def two_wordings(*changes: str) -> str:
            bot = json.loads(variant(*changes))
            bot["flows"]["track"]["slots"][0]["ask"] = asks
            return json.dumps(bot, ensure_ascii=False)

        old = bots(two_wordings(), name="old.yaml")
        old.handle("s", {"zh": "我的快递到哪了", "en": "where is my parcel"}[lang])
        assert old.handle("s", RETURN[lang]).flow == "return_item"          # a digression: track waits
        new = bots(two_wordings("flow_removed"))
        reply = new.handle("s", PHONE[lang])                                  # the answer to "which product?"
        assert (reply.state, reply.flow) == ("PARAM_COLLECT", "track")
        assert reply.text.endswith(asks[0][lang]), reply.text
        again = new.handle("s", {"zh": "不知道", "en": "no idea"}[lang])
        assert (again.flow, again.text) == ("track", asks[1][lang])         # a failed answer of its own

    @LANGS
    def test_a_renamed_slot_is_asked_for_under_its_new_name(self, bots: Bots, lang: str) -> None:
        left_mid_task(bots, lang)
        new = bots(variant("slot_renamed"))
        reply = new.handle("confirm", YES[lang])
        assert (reply.state, reply.slots) == ("PARAM_COLLECT", {"product": "phone"}) and not reply.actions
        assert reply.text == {"zh": "请提供订单号。", "en": "What is your order number?"}[lang]
        confirm = new.handle("confirm", "12345")
        assert confirm.state == "CONFIRMATION" and confirm.slots == {"product": "phone", "order_number": "12345"}
        assert new.handle("confirm", YES[lang]).actions[0].inputs["order_number"] == "12345"

    @LANGS
    def test_a_removed_slot_is_dropped_and_the_confirmation_asked_again(self, bots: Bots, lang: str) -> None:
        left_mid_task(bots, lang)
        new = bots(variant("slot_removed"))
        reply = new.handle("confirm", YES[lang])
        assert reply.state == "CONFIRMATION" and not reply.actions        # the old "yes" runs nothing
        assert reply.text == {"zh": "为订单 12345 退货，确认吗？", "en": "Return order 12345. Shall I go ahead?"}[lang]
        done = new.handle("confirm", YES[lang])
        assert done.state == "IDLE" and done.actions[0].inputs == {"order_id": "12345"}
        asked = new.handle("collect", YES[lang])       # its question was about the removed slot
        assert asked.state == "CONFIRMATION" and asked.slots == {"order_id": "12345"} and not asked.actions

    @LANGS
    def test_a_slot_made_required_is_asked_before_the_confirmation(self, bots: Bots, lang: str) -> None:
        left_mid_task(bots, lang)
        new = bots(variant("slot_made_required"))
        reply = new.handle("confirm", YES[lang])
        assert reply.state == "PARAM_COLLECT" and not reply.actions
        assert reply.text == {"zh": "退货原因是什么？", "en": "Why are you returning it?"}[lang]
        assert new.handle("confirm", {"zh": "屏幕有划痕", "en": "the screen is scratched"}[lang]).state == "CONFIRMATION"

    @LANGS
    def test_a_value_the_new_rule_refuses_is_explained_and_asked_again(self, bots: Bots, lang: str) -> None:
        left_mid_task(bots, lang)
        new = bots(variant("stricter_rule"))
        with capture_turn_logs() as logs:
            reply = new.handle("collect", PHONE[lang])
        assert reply.text == {
            "zh": "之前提供的订单号已不再有效。订单号应为8到12位数字。请提供订单号。",
            "en": "The order number you gave earlier is no longer valid. An order number has 8 to 12 digits. "
                  "What is your order number?"}[lang]
        assert reply.slots == {"product": "phone"}
        [event] = events_named(logs, "session_migrated")
        assert event["values_refused"] == ["return_item.order_id"] and "12345" not in str(event)
        assert new.handle("collect", LONG_ORDER).state == "CONFIRMATION"

    @LANGS
    def test_the_inspection_api_reads_a_session_of_another_version(self, bots: Bots, lang: str) -> None:
        left_mid_task(bots, lang)
        new = bots(variant("flow_renamed"))
        view = new.session("confirm")
        assert (view.state, view.flow, view.stack) == ("IDLE", None, [])
        assert view.entities and view.summary                   # entity memory and the summary survive
        assert new.context("confirm") and new.stats("confirm")["messages"] >= 4
        assert new.export_context("confirm")

    @LANGS
    def test_a_session_is_stamped_with_the_version_that_saved_it(self, bots: Bots, lang: str) -> None:
        left_mid_task(bots, lang)
        new = bots(variant("slot_renamed"))
        old_version = bots(variant(), name="again.yaml").loaded.version
        data = new.session("collect").data
        assert data is not None and data.bot_version == old_version      # inspection saves nothing
        new.handle("collect", PHONE[lang])
        data = new.session("collect").data
        assert data is not None and data.bot_version == new.loaded.version


# ---- the shipped support bot, its flows and slots renamed (the issue's report) --------------------

RENAMES = {
    "report_issue": "file_ticket", "check_status": "track_order",
    "- name: order_id": "- name: order_number", "{order_id}": "{order_number}",
    "- name: product": "- name: item", "{product}": "{item}",
    "- name: issue_type": "- name: problem", "{issue_type}": "{problem}",
}
SUPPORT_TURNS = {
    "zh": {"collect": ["我上周买的手机屏幕碎了"], "confirm": ["我的笔记本坏了，订单号 12345"],
           "done": ["查看订单 67890 的状态"], "cancel": "算了", "new": "我的包裹没收到",
           "answers": ["24680", "平板", "确认"]},
    "en": {"collect": ["my phone arrived broken"], "confirm": ["my laptop is broken, order 12345"],
           "done": ["check the status of order 67890"], "cancel": "never mind", "new": "my order never arrived",
           "answers": ["24680", "tablet", "yes"]},
}


def renamed_support() -> str:
    text = SUPPORT.read_text(encoding="utf-8")
    for old, new in RENAMES.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


class TestTheIssue:
    @LANGS
    def test_sessions_of_todays_support_bot_continue_with_flows_and_slots_renamed(
            self, bots: Bots, lang: str) -> None:
        say = SUPPORT_TURNS[lang]
        old = bots(SUPPORT.read_text(encoding="utf-8"), name="support.yaml", actions=STUBS)
        for sid in ("collect", "confirm", "done"):
            for text in say[sid]:
                old.handle(sid, text)
        assert [old.session(s).state for s in ("collect", "confirm", "done")] == ["PARAM_COLLECT", "CONFIRMATION", "IDLE"]
        new = bots(renamed_support(), name="support_renamed.yaml", actions=STUBS)
        gone = {"zh": "之前的「报告订单问题并创建工单」已不再提供。",
                "en": 'The earlier "report a problem with an order and open a ticket" task is no longer available.'}
        for sid in ("collect", "confirm", "done"):
            new.session(sid), new.context(sid), new.stats(sid)        # inspection first: nothing raises
            cancelled = new.handle(sid, say["cancel"])
            assert cancelled.state == "IDLE" and cancelled.text
            assert cancelled.text.startswith(gone[lang]) == (sid != "done")
            started = new.handle(sid, say["new"])
            assert (started.state, started.flow) == ("PARAM_COLLECT", "file_ticket") and started.text
            replies = [new.handle(sid, text) for text in say["answers"]]
            assert all(r.text for r in replies)
            assert replies[-1].actions[0].name == "create_ticket" and replies[-1].state == "IDLE"
            assert replies[-1].actions[0].inputs["order_number"] == "24680"
        status = new.handle("done", {"zh": "查看订单 67890 的状态", "en": "check the status of order 67890"}[lang])
        assert status.flow is None and "67890" in status.text


# ---- Bot.reload ---------------------------------------------------------------------------------

class TestReload:
    @LANGS
    def test_a_changed_file_is_used_from_the_next_turn_and_sessions_are_kept(self, bots: Bots, lang: str,
                                                                              tmp_path: Path) -> None:
        bot = bots(variant())
        bot.handle("s", RETURN[lang])
        (tmp_path / "bot.yaml").write_text(variant("stricter_rule"), encoding="utf-8")
        assert bot.reload() is True
        reply = bot.handle("s", PHONE[lang])
        assert reply.text.startswith({"zh": "之前提供的订单号已不再有效。",
                                      "en": "The order number you gave earlier is no longer valid."}[lang])
        assert reply.slots == {"product": "phone"}           # the session came through the reload
        assert bot.handle("s", LONG_ORDER).state == "CONFIRMATION"

    def test_a_file_that_means_the_same_changes_nothing(self, bots: Bots, tmp_path: Path) -> None:
        bot = bots(variant())
        turns = bot.turns
        (tmp_path / "bot.yaml").write_text("# reformatted\n" + variant().replace("\n", "\n "), encoding="utf-8")
        assert bot.reload() is False and bot.turns is turns

    @LANGS
    def test_a_file_that_fails_to_load_keeps_the_old_bot(self, bots: Bots, lang: str, tmp_path: Path) -> None:
        bot = bots(variant())
        version, turns = bot.loaded.version, bot.turns
        (tmp_path / "bot.yaml").write_text(variant().replace('"ask"', '"asks"', 1), encoding="utf-8")
        with pytest.raises(FlowError) as caught:
            bot.reload()
        assert caught.value.problems and "asks" in str(caught.value)
        assert bot.loaded.version == version and bot.turns is turns
        assert bot.handle("s", RETURN[lang]).state == "PARAM_COLLECT"

    def test_a_part_that_fails_to_build_leaves_the_old_bot_whole(self, bots: Bots, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
        bot = bots(variant())
        before = dict(vars(bot))
        (tmp_path / "bot.yaml").write_text(variant("flow_renamed"), encoding="utf-8")

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("compiler down")

        monkeypatch.setattr("dialogkit.bot.compile_bot", broken)
        with pytest.raises(RuntimeError):
            bot.reload()
        assert vars(bot) == before
        assert bot.handle("s", RETURN["en"]).flow == "return_item"

    def test_the_actions_given_to_from_file_are_given_again(self, bots: Bots, tmp_path: Path) -> None:
        bot = bots(variant(), actions={**ACTIONS, "return_it": {"return_id": "R-42"}})
        (tmp_path / "bot.yaml").write_text(variant("slot_made_required"), encoding="utf-8")
        assert bot.reload() is True
        for text in (RETURN["en"], PHONE["en"], "the screen is scratched", YES["en"]):
            reply = bot.handle("s", text)
        assert reply.text == "Return R-42 filed."

    def test_a_bot_not_loaded_from_a_file_cannot_reload(self) -> None:
        bot = Bot(parse_bot_text(variant(), actions=ACTIONS), MemoryStore())
        with pytest.raises(DialogkitError, match="not loaded from a file"):
            bot.reload()
