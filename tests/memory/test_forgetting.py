"""Forgetting (docs/behaviours.md item 14): a finished task's details, and "忘记刚才说的" / "forget what I just said"."""

from __future__ import annotations

import pytest

from dialogkit.memory.forgetting import forget_last_turn, forget_task_details
from dialogkit.memory.references import resolve
from dialogkit.memory.summary import record_facts, render_summary
from dialogkit.memory.tracker import set_attributes
from dialogkit.model.session import Session, SlotChange, Task
from tests.memory._builders import mention, new_session, say


class TestForgetLastTurn:
    @pytest.mark.parametrize("alias", ["手机", "phone"])
    def test_entities_only_mentioned_in_that_turn_disappear(self, alias: str) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        say(s, 2, mention("product", "phone", alias))
        removed = forget_last_turn(s, 2)
        assert [e.value for e in s.entities] == ["12345"]
        assert removed["entities_removed"] == ["phone"]

    def test_zh_others_lose_that_turns_mention_and_alias(self) -> None:
        s = new_session()
        say(s, 1, mention("product", "phone", "手机"))
        say(s, 2, mention("product", "phone", "iPhone"))
        removed = forget_last_turn(s, 2)
        (phone,) = s.entities
        assert (phone.mentions, phone.aliases, phone.last_turn, phone.last_position) == (1, ["手机"], 1, 1)
        assert removed["entities_updated"] == ["phone"]

    def test_en_a_list_formed_in_that_turn_is_cleared(self) -> None:
        """After forgetting "orders 12345 and 67890", "the second one" binds nothing."""
        s = new_session()
        say(s, 1, mention("order_id", "12345"), mention("order_id", "67890"))
        forget_last_turn(s, 1)
        assert s.last_list == [] and s.entities == []
        assert resolve(s, "the second one", "en", turn=2, mentions=[]).bindings == []

    def test_attributes_set_in_that_turn_go(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        set_attributes(s, "order_id", "12345", {"status": "已发货"}, turn=1)
        set_attributes(s, "order_id", "12345", {"eta": "friday"}, turn=2)
        forget_last_turn(s, 2)
        assert s.entities[0].attributes == {"status": "已发货"}

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_what_the_summary_took_from_that_turn_goes(self, language: str) -> None:
        s = new_session()
        record_facts(s.summary, flow="report_issue", flow_description="报告问题 / Report a problem", turn=1,
                     slots={"product": ("商品", "product", "手机", "phone")})
        record_facts(s.summary, flow="report_issue", flow_description="报告问题 / Report a problem", turn=2,
                     slots={"order_id": ("订单号", "order number", "12345", "12345")})
        removed = forget_last_turn(s, 2)
        assert removed["summary_items_removed"] == 1
        assert "12345" not in render_summary(s.summary, language)

    def test_the_pronoun_no_longer_sees_the_forgotten_entity(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        say(s, 2, mention("order_id", "67890"))
        forget_last_turn(s, 2)
        assert [b.entity.value for b in resolve(s, "它还没到", "zh", turn=3, mentions=[]).bindings] == ["12345"]


class TestForgetTaskDetails:
    def _corrected_task(self) -> tuple[Session, Task]:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        say(s, 2, mention("order_id", "67890"))
        task = Task(flow="report_issue", started_turn=1, slots={"order_id": "67890"},
                    slot_history={"order_id": [SlotChange(value="12345", turn=1, at=0.0, superseded_at=1.0)]})
        record_facts(s.summary, flow="report_issue", flow_description="报告问题 / Report a problem", turn=2,
                     slots={"order_id": ("订单号", "order number", "67890", "67890")})
        return s, task

    def test_a_corrected_away_value_is_dropped(self) -> None:
        s, task = self._corrected_task()
        forget_task_details(s, task)
        assert [e.value for e in s.entities] == ["67890"] and task.slot_history == {}

    @pytest.mark.parametrize(("text", "language"), [("它现在怎么样？", "zh"), ("how is it now?", "en")])
    def test_summary_and_referable_entities_stay(self, text: str, language: str) -> None:
        s, task = self._corrected_task()
        forget_task_details(s, task)
        assert "67890" in render_summary(s.summary, language)
        assert [b.entity.value for b in resolve(s, text, language, turn=3, mentions=[]).bindings] == ["67890"]

    def test_values_mentioned_before_the_task_stay(self) -> None:
        s, task = self._corrected_task()
        task.started_turn = 2
        forget_task_details(s, task)
        assert [e.value for e in s.entities] == ["12345", "67890"]


class TestForgettingWithABoundedRecord:
    """"忘记刚才说的" still takes back the last turn after older mentions left the record."""

    @pytest.mark.parametrize(("first", "last"), [("手机", "iPhone"), ("phone", "the iPhone")])
    def test_the_last_turn_goes_and_the_early_ones_stand(self, first: str, last: str) -> None:
        s = new_session()
        for turn in range(1, 41):
            say(s, turn, mention("product", "phone", first))
        say(s, 41, mention("product", "phone", last))
        removed = forget_last_turn(s, 41)
        (phone,) = s.entities
        assert removed["entities_updated"] == ["phone"]
        assert phone.mentions == 40 and (phone.first_turn, phone.last_turn) == (1, 40)
        assert (phone.first_position, phone.last_position) == (1, 40)
        assert 41 not in phone.mention_turns
        assert first in phone.aliases        # older, unrecorded mentions used it: never dropped
