"""Compilation: one shared ``transitions`` machine per flow, resolved callables, the fixed table."""

from __future__ import annotations

from pathlib import Path

import pytest
import transitions

from dialogkit import Bot
from dialogkit.spec.compiler import PhasedCallback, TaskBinding, compile_flow
from dialogkit.spec.schema import TRIGGERS, FlowSpec

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"


def _recorder(seen: list[str]):
    def resolve(name: str) -> PhasedCallback:
        phase = "before" if name in ("resolve_references", "track_entities") else "after"
        return PhasedCallback(name, lambda event, n=name: seen.append(n), phase)

    return resolve


class TestCompiledFlow:
    def test_every_flow_has_the_five_states(self) -> None:
        """IDLE, TASK_INIT, PARAM_COLLECT, CONFIRMATION and EXECUTION, whatever the flow."""
        flow = compile_flow("f", FlowSpec(), _recorder([]))
        assert set(flow.machine.states) == {"IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION"}

    def test_triggers_are_the_fixed_names(self) -> None:
        """Only the documented trigger names exist (docs/bot-file.md); no auto transitions such as to_IDLE."""
        flow = compile_flow("f", FlowSpec(confirm={"ask": "ok?"}), _recorder([]))
        assert set(flow.machine.events) <= set(TRIGGERS)
        assert not any(name.startswith("to_") for name in flow.machine.events)

    def test_confirm_decides_between_confirmation_and_execute(self) -> None:
        """A flow without `confirm` goes PARAM_COLLECT -> EXECUTION by `execute`."""
        with_confirm = compile_flow("a", FlowSpec(confirm={"ask": "ok?"}), _recorder([]))
        without = compile_flow("b", FlowSpec(), _recorder([]))
        assert with_confirm.can_fire("request_confirmation", "PARAM_COLLECT")
        assert not with_confirm.can_fire("execute", "PARAM_COLLECT")
        assert without.can_fire("execute", "PARAM_COLLECT")
        assert not without.can_fire("confirm", "CONFIRMATION")

    def test_memory_actions_run_before_and_after_the_state_change_in_order(self) -> None:
        """resolve_references and track_entities run before; the others after, in YAML order."""
        seen: list[str] = []
        flow = compile_flow("f", FlowSpec(memory={"provide_param": ["summarize", "resolve_references", "pin"]}),
                            _recorder(seen))
        assert flow.fire("provide_param", "PARAM_COLLECT", ctx=None) == "PARAM_COLLECT"
        assert seen == ["resolve_references", "summarize", "pin"]

    def test_defaults_apply_to_triggers_a_flow_does_not_name(self) -> None:
        """A flow's memory block replaces the defaults only for the triggers it names."""
        flow = compile_flow("f", FlowSpec(memory={"confirm": ["pin"]}, confirm={"ask": "ok?"}), _recorder([]))
        assert flow.memory["confirm"] == ["pin"]
        assert flow.memory["complete"] == ["persist_slots", "summarize", "forget"]

    def test_an_invalid_trigger_for_the_state_is_refused(self) -> None:
        """`confirm` from PARAM_COLLECT is not a transition of the table."""
        flow = compile_flow("f", FlowSpec(confirm={"ask": "ok?"}), _recorder([]))
        with pytest.raises(transitions.MachineError):
            flow.fire("confirm", "PARAM_COLLECT", ctx=None)

    @pytest.mark.parametrize("confirm", [None, {"ask": "ok?"}], ids=["no-confirm", "confirm"])
    def test_fire_runs_what_the_machine_would_run(self, confirm: dict[str, str] | None) -> None:
        """Every (trigger, source): the same callbacks in the same order and the same new state as
        the machine's own ``Event.trigger``, with the turn in the event's kwargs."""
        hook_seen: list[object] = []
        for trigger in TRIGGERS:
            for source in ("IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION"):
                fast: list[str] = []
                slow: list[str] = []
                hooks = {trigger: [lambda event: hook_seen.append(event.kwargs["ctx"])]}
                flow = compile_flow("f", FlowSpec(confirm=confirm), _recorder(fast), before_hooks=hooks)
                reference = compile_flow("f", FlowSpec(confirm=confirm), _recorder(slow), before_hooks=hooks)
                if not flow.can_fire(trigger, source):
                    assert (trigger, source) not in flow.routes
                    continue
                binding = TaskBinding(state=source, ctx="turn")
                reference.machine.events[trigger].trigger(binding, ctx="turn")
                assert flow.fire(trigger, source, ctx="turn") == binding.state
                assert fast == slow, (trigger, source)
        assert hook_seen and set(hook_seen) == {"turn"}

    def test_callbacks_are_callables_never_strings(self) -> None:
        """transitions would import a dotted string a YAML file names; only callables are passed."""
        flow = compile_flow("f", FlowSpec(confirm={"ask": "ok?"}), _recorder([]))
        for event in flow.machine.events.values():
            for transitions_of_source in event.transitions.values():
                for t in transitions_of_source:
                    assert all(callable(cb) and not isinstance(cb, str) for cb in t.before + t.after)


class TestSharedMachines:
    @pytest.mark.parametrize("lines", [["我的手机碎了", "12345", "确认"], ["my phone arrived broken", "12345", "yes"]],
                             ids=["zh", "en"])
    def test_no_machine_is_built_per_session_or_turn(self, lines: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
        """Machines are built when the bot loads; sessions and turns only bind data to them."""
        bot = Bot.from_file(SUPPORT, store="memory://")
        built: list[object] = []
        original = transitions.Machine.__init__

        def counting(self, *args, **kwargs):
            built.append(self)
            original(self, *args, **kwargs)

        monkeypatch.setattr(transitions.Machine, "__init__", counting)
        for session in ("s1", "s2", "s3"):
            for line in lines:
                bot.handle(session, line)
        assert built == []
        assert bot.session("s3").state == "IDLE"
        bot.close()

    def test_one_machine_per_flow(self) -> None:
        """Each flow of the bot file has exactly one compiled machine."""
        bot = Bot.from_file(SUPPORT, store="memory://")
        assert set(bot.flows) == {"report_issue", "check_status", "return_order"}
        assert len({id(f.machine) for f in bot.flows.values()}) == 3
        bot.close()
