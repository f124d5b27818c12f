"""A small rule-based stand-in with ``dialogkit.Bot``'s public surface, for the harness's own tests.

It reads a real bot file (entity patterns and synonyms, flow keywords, prompts) and keeps its
sessions in a real SQLite file, so the harness tests exercise restarts through a store rather
than through an object that survives in memory. Its understanding is deliberately simple:
the harness is under test here, not the bot.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from dialogkit.model.reply import ActionRun, Reply
from dialogkit.spec.schema import BotFile, FlowSpec, prompt_text
from dialogkit.testing.protocols import Clock

YES = ("确认", "是的", "好的", "yes", "ok", "sure")
NO = ("不对", "不是", "no", "nope")
CANCEL = ("取消", "算了", "cancel", "never mind")
ORDINALS = {"第一个": 0, "the first": 0, "第二个": 1, "the second": 1}


@dataclass
class Message:
    role: str
    content: str
    priority: int
    tokens: int


@dataclass
class Entity:
    value: Any
    type: str


@dataclass
class SessionView:
    state: str
    flow: str | None
    slots: dict[str, Any]
    summary: str
    entities: list[Entity]
    history: list[dict[str, str]] = field(default_factory=list)


class FakeBot:
    """Implements handle / session / context / spec / close like ``dialogkit.Bot``."""

    def __init__(self, path: Path, store: str, actions: Mapping[str, Any], clock: Clock | None = None) -> None:
        self.clock = clock
        self.spec = BotFile.model_validate(YAML(typ="safe").load(Path(path).read_text(encoding="utf-8")))
        self.actions = dict(actions)
        if not store.startswith("sqlite:///"):
            raise ValueError(f"the fake bot only knows sqlite stores, not {store}")
        self.db = sqlite3.connect(store.removeprefix("sqlite:///"))
        self.db.execute("create table if not exists kv (key text primary key, value text)")
        self.closed = False

    @classmethod
    def from_file(cls, path: Path, store: str, actions: Mapping[str, Any], clock: Clock | None = None) -> FakeBot:
        return cls(path, store, actions, clock)

    # -- store -------------------------------------------------------------------------------

    def _get(self, key: str, default: Any) -> Any:
        row = self.db.execute("select value from kv where key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def _put(self, key: str, value: Any) -> None:
        self.db.execute("insert or replace into kv values (?, ?)", (key, json.dumps(value, ensure_ascii=False)))
        self.db.commit()

    def close(self) -> None:
        self.closed = True
        self.db.close()

    # -- understanding -------------------------------------------------------------------------

    def _mentions(self, text: str) -> list[tuple[str, str]]:
        """(entity type, canonical value) in order of appearance."""
        found: list[tuple[int, str, str]] = []
        for name, spec in self.spec.entities.items():
            if spec.pattern:
                found += [(m.start(), name, m.group(0)) for m in re.finditer(spec.pattern, text)]
            for canonical, aliases in spec.synonyms().items():
                for alias in aliases:
                    at = text.lower().find(alias.lower())
                    if at >= 0:
                        found.append((at, name, canonical))
                        break
        return [(t, v) for _at, t, v in sorted(found)]

    def _intent(self, text: str) -> str | None:
        for name, flow in self.spec.flows.items():
            if any(k.lower() in text.lower() for k in flow.trigger.keywords):
                return name
        return None

    # -- the turn ------------------------------------------------------------------------------

    def handle(self, session_id: str, text: str, user_id: str | None = None) -> Reply:
        if self.closed:
            raise RuntimeError("the bot was closed")
        user = user_id or session_id
        s = self._get(f"session:{session_id}", {"flow": None, "state": "IDLE", "slots": {}, "entities": [],
                                               "history": [], "last_list": [], "pending": None, "summary": ""})
        lang = "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
        turn = _Turn(text=text, lang=lang)
        mentions = self._mentions(text)
        lowered = text.lower()
        if s["pending"]:
            text, mentions = self._pick(s, turn, text, lowered, mentions)
        elif _has_pronoun(text) and len(s["last_list"]) > 1 and s["flow"] is None:
            s["pending"], s["pending_text"] = list(s["last_list"]), text
            turn.clarification = list(s["last_list"])
            turn.text_out = ("您指的是订单 " + " 还是 ".join(s["last_list"]) + "？") if lang == "zh" else (
                "Do you mean order " + " or ".join(s["last_list"]) + "?")
            return self._finish(session_id, user, s, turn, mentions)
        self._step(s, turn, text, lowered, mentions, user)
        return self._finish(session_id, user, s, turn, mentions)

    def _pick(self, s: dict[str, Any], turn: _Turn, text: str, lowered: str,
              mentions: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
        """The answer to "which order?": the pending question's text with "it" resolved, if one was picked."""
        choice = next((i for k, i in ORDINALS.items() if k in lowered), None)
        picked = s["pending"][choice] if choice is not None else next(
            (v for _t, v in mentions if v in s["pending"]), None)
        s["pending"] = None
        if picked is None:
            return text, mentions
        original = s["pending_text"].replace("它", f"订单{picked}")
        turn.resolved = text = re.sub(r"\bit\b", f"order {picked}", original)
        return text, self._mentions(text)

    def _step(self, s: dict[str, Any], turn: _Turn, text: str, lowered: str,
              mentions: list[tuple[str, str]], user: str) -> None:
        """Move the flow one step: cancel, start, confirm, deny or fill slots."""
        zh = turn.lang == "zh"
        intent = self._intent(text)
        flow = self.spec.flows[s["flow"]] if s["flow"] else None
        if flow is not None and any(c in lowered for c in CANCEL):
            self._fire(turn, flow, "cancel")
            s.update(flow=None, state="IDLE", slots={})
            turn.text_out = "好的，已取消。" if zh else "OK, cancelled."
        elif flow is None and intent is not None:
            flow = self.spec.flows[intent]
            s.update(flow=intent, state="TASK_INIT", slots=self._prefill(user, flow))
            self._fire(turn, flow, "start_task")
            self._fill(s, flow, mentions)
            self._fire(turn, flow, "collect")
            s["state"] = "PARAM_COLLECT"
            self._advance(s, flow, turn, user)
        elif flow is not None and s["state"] == "CONFIRMATION" and any(y in lowered for y in YES):
            self._fire(turn, flow, "confirm")
            s["state"] = "EXECUTION"
            self._execute(s, flow, turn, user)
        elif flow is not None and s["state"] == "CONFIRMATION" and any(n in lowered for n in NO):
            self._fire(turn, flow, "deny")
            s["state"] = "PARAM_COLLECT"
            turn.text_out = "请问要修改什么？" if zh else "What should I change?"
        elif flow is not None:
            if self._fill(s, flow, mentions):
                self._fire(turn, flow, "provide_param")
            self._advance(s, flow, turn, user)
        else:
            turn.text_out = "我可以帮您报告订单问题。" if zh else "I can help you report a problem with an order."

    def _prefill(self, user: str, flow: FlowSpec) -> dict[str, Any]:
        saved = self._get(f"user:{user}", {})
        return {slot.name: saved[slot.name] for slot in flow.slots if slot.persist == "user" and slot.name in saved}

    def _fill(self, s: dict[str, Any], flow: FlowSpec, mentions: list[tuple[str, str]]) -> bool:
        filled = False
        for slot in flow.slots:
            value = next((v for t, v in mentions if t == slot.entity), None)
            if value is not None:
                s["slots"][slot.name] = value
                filled = True
        return filled

    def _advance(self, s: dict[str, Any], flow: FlowSpec, turn: _Turn, user: str) -> None:
        missing = next((slot for slot in flow.slots if slot.required and slot.name not in s["slots"]), None)
        if missing is not None:
            turn.text_out = prompt_text(missing.ask, turn.lang)
            return
        if flow.confirm is not None:
            if s["state"] != "CONFIRMATION":
                self._fire(turn, flow, "request_confirmation")
            s["state"] = "CONFIRMATION"
            turn.text_out = prompt_text(flow.confirm.ask, turn.lang).format_map(_Blank(s["slots"]))
            return
        self._fire(turn, flow, "execute")
        s["state"] = "EXECUTION"
        self._execute(s, flow, turn, user)

    def _execute(self, s: dict[str, Any], flow: FlowSpec, turn: _Turn, user: str) -> None:
        name = flow.execute.action or ""
        stub = dict(self.actions.get(name, {}))
        inputs = dict(s["slots"])
        if "error" in stub:
            turn.actions.append(ActionRun(name, inputs, error=str(stub["error"])))
            self._fire(turn, flow, "fail")
            turn.text_out = prompt_text(flow.execute.on_error, turn.lang).format_map(_Blank({"error": stub["error"]}))
        else:
            turn.actions.append(ActionRun(name, inputs, result=stub))
            self._fire(turn, flow, "complete")
            turn.text_out = prompt_text(flow.execute.say, turn.lang).format_map(_Blank({**inputs, **stub}))
            saved = self._get(f"user:{user}", {})
            saved.update({slot.name: inputs[slot.name] for slot in flow.slots
                          if slot.persist == "user" and slot.name in inputs})
            self._put(f"user:{user}", saved)
            s["summary"] = f"用户反馈订单 {inputs.get('order_id')} 的问题；已确认创建工单"
        turn.ended_slots = inputs
        s.update(flow=None, state="IDLE", slots={})

    def _fire(self, turn: _Turn, flow: FlowSpec, trigger: str) -> None:
        turn.transitions.append(trigger)
        turn.memory += [a for a in flow.memory_for(trigger) if a not in turn.memory]

    def _finish(self, session_id: str, user: str, s: dict[str, Any], turn: _Turn,
                mentions: list[tuple[str, str]]) -> Reply:
        for kind, value in mentions:
            if {"value": value, "type": kind} not in s["entities"]:
                s["entities"].append({"value": value, "type": kind})
        orders = [v for t, v in mentions if t == "order_id"]
        if len(orders) > 1:
            s["last_list"] = orders
        memory = [*self.spec.bot.memory.every_turn, *[m for m in turn.memory if m not in self.spec.bot.memory.every_turn]]
        s["history"] += [{"role": "user", "content": turn.text}, {"role": "assistant", "content": turn.text_out}]
        self._put(f"session:{session_id}", s)
        return Reply(
            text=turn.text_out, state=s["state"], flow=s["flow"],
            slots=dict(turn.ended_slots if turn.ended_slots is not None else s["slots"]),
            session_id=session_id, language=turn.lang, clarification=turn.clarification,
            resolved=turn.resolved or turn.text, actions=turn.actions,
            trigger=turn.transitions[-1] if turn.transitions else None, transitions=turn.transitions,
            memory_actions=memory, summary=s["summary"],
        )

    # -- inspection ------------------------------------------------------------------------------

    def session(self, session_id: str) -> SessionView:
        s = self._get(f"session:{session_id}", None)
        if s is None:
            raise KeyError(session_id)
        entities = [Entity(e["value"], e["type"]) for e in s["entities"]]
        return SessionView(s["state"], s["flow"], s["slots"], s["summary"], entities, s["history"])

    def context(self, session_id: str) -> list[Message]:
        history = self.session(session_id).history
        return [Message(m["role"], m["content"], 5, len(m["content"])) for m in history]


@dataclass
class _Turn:
    text: str
    lang: str
    text_out: str = ""
    resolved: str | None = None
    clarification: list[str] | None = None
    actions: list[ActionRun] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)
    memory: list[str] = field(default_factory=list)
    ended_slots: dict[str, Any] | None = None


def _has_pronoun(text: str) -> bool:
    return "它" in text or re.search(r"\bit\b", text.lower()) is not None


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


class BareBot:
    """A bot offering only ``handle`` and ``close``: every richer expectation is unsupported."""

    def __init__(self, path: Path, store: str, actions: Mapping[str, Any], clock: Clock | None = None) -> None:
        self.closed = False

    def handle(self, session_id: str, text: str, user_id: str | None = None) -> Any:
        return type("BareReply", (), {"text": f"echo: {text}", "state": "IDLE", "flow": None, "slots": {}})()

    def close(self) -> None:
        self.closed = True
