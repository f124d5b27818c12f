"""A sensitive value is masked in every output (docs/serving.md, "Sensitive values"): every route
of the app, the Rasa reply, /metrics, the log, the user's export and the chat's commands, while
the task that holds it is open and after it ended. The bot itself still has the value.

The bot asks a phone number (``sensitive: true``) and quotes it in its confirmation question, so
the value reaches the reply's text, the entities (working memory tracks it) and the history.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from fastapi import FastAPI
from fastapi.testclient import TestClient

from dialogkit import Bot
from dialogkit.cli.chat import run_chat
from dialogkit.logging import configure_logging
from dialogkit.service import ServiceSettings, create_app

TOKEN = "masking-test-token"
CALLBACK_BOT = """
bot:
  name: callback
  language: auto
flows:
  callback:
    description: 回电 / Request a callback
    trigger:
      examples: [请给我回电话, 我要预约回电, please call me back, I want a callback]
      keywords: [回电, callback, call me back]
    slots:
      - name: phone
        entity: phone
        label: {zh: 电话, en: phone}
        ask: {zh: "请留下您的手机号。", en: "What is your phone number?"}
        sensitive: true
      - name: topic
        label: {zh: 事由, en: topic}
        ask: {zh: "想咨询什么问题？", en: "What is it about?"}
    confirm:
      ask: {zh: "将回电 {phone}，关于 {topic}，确认吗？", en: "We will call {phone} about {topic}. OK?"}
    execute:
      action: book_callback
      returns: [ref]
      say: {zh: "已预约回电 {ref}。", en: "Callback booked, {ref}."}
"""
ACTIONS = {"book_callback": lambda ctx: {"ref": "CB-1"}}

# Up to the confirmation question (the task open), and a whole one (the task ended).
CONVERSATIONS = {
    "zh": ("13812345678", ["请给我回电话", "13812345678", "退货问题"], "确认"),
    "en": ("13987654321", ["please call me back", "13987654321", "a refund"], "yes"),
}
PHONES = tuple(phone for phone, _, _ in CONVERSATIONS.values())


def leaks(text: str) -> list[str]:
    """Each phone ``text`` holds, with what surrounds it (an empty list: nothing leaked)."""
    return [text[max(0, m.start() - 60):m.end() + 20] for phone in PHONES for m in re.finditer(phone, text)]


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "callback.yaml"
    path.write_text(CALLBACK_BOT, encoding="utf-8")
    return path


@pytest.fixture
def bot(bot_file: Path, tmp_path: Path) -> Iterator[Bot]:
    with Bot.from_file(bot_file, store=f"sqlite:///{tmp_path / 'sessions.db'}", actions=ACTIONS) as opened:
        yield opened


def _converse(client: TestClient, outputs: list[str]) -> None:
    """Both languages, twice each: a session left at the confirmation, one confirmed; over the
    JSON API (naming a user, so the export has something) and the Rasa channel."""
    for lang, (_, turns, yes) in CONVERSATIONS.items():
        for sid, said in ((f"open-{lang}", turns), (f"done-{lang}", [*turns, yes])):
            for text in said:
                answer = client.post(f"/v1/sessions/{sid}/turns", json={"text": text, "user_id": f"u-{lang}"})
                assert answer.status_code == 200, answer.text
                outputs.append(answer.text)
            for text in turns:
                answer = client.post("/webhooks/rest/webhook", json={"sender": f"rasa-{sid}", "message": text})
                assert answer.status_code == 200, answer.text
                outputs.append(answer.text)


def _every_get(app: FastAPI, client: TestClient) -> tuple[list[str], set[str]]:
    """Every GET route the API documents, and the pages it does not (the inspector, the API's own
    documentation), for every session and user of the conversations; and the paths walked (so a
    route added later is walked too)."""
    paths = [path for path, methods in app.openapi()["paths"].items() if "get" in methods]
    outputs: list[str] = []
    for template in [*paths, "/", "/openapi.json", "/docs"]:
        for lang in CONVERSATIONS:
            for sid in (f"open-{lang}", f"done-{lang}", f"rasa-open-{lang}"):
                path = template.replace("{session_id}", sid).replace("{user_id}", f"u-{lang}")
                answer = client.get(path)
                assert answer.status_code == 200, (path, answer.text)
                outputs.append(answer.text)
    return outputs, set(paths)


@pytest.fixture
def logging_restored() -> Iterator[None]:
    """The log's configuration put back after a test that changes it (to write to a captured
    stream, closed once the test ends)."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.fixture
def logged(logging_restored: None) -> None:
    """Every log event, as JSON, to the captured stderr."""
    configure_logging(level="debug", json=True, force=True)


@pytest.mark.usefixtures("logged")
def test_no_route_and_no_log_line_shows_a_sensitive_value(bot: Bot, capsys: pytest.CaptureFixture[str]) -> None:
    outputs: list[str] = []
    app = create_app(bot, ServiceSettings(token=TOKEN))
    with TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        _converse(client, outputs)
        walked_outputs, walked = _every_get(app, client)
        outputs.extend(walked_outputs)
        for lang in CONVERSATIONS:
            outputs.append(client.delete(f"/v1/sessions/open-{lang}").text)
    assert {"/v1/sessions/{session_id}", "/v1/sessions/{session_id}/context", "/v1/sessions/{session_id}/stats",
            "/v1/users/{user_id}/export", "/metrics", "/v1/bot"} <= walked
    outputs.append(capsys.readouterr().err)
    found = [leak for output in outputs for leak in leaks(output)]
    assert found == []


def test_the_open_task_holds_the_value_and_quotes_it_masked(bot: Bot) -> None:
    """What the test above looks for is there to find: the bot has the values, in clear."""
    with TestClient(create_app(bot, ServiceSettings(token=TOKEN)),
                    headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        _converse(client, [])
        for lang, (phone, _, _) in CONVERSATIONS.items():
            view = bot.session(f"open-{lang}")
            assert view.slots["phone"] == phone
            assert any(str(e.value) == phone for e in view.entities)
            shown = client.get(f"/v1/sessions/open-{lang}").json()
            assert shown["slots"]["phone"] == "***" and shown["entities"][0]["value"] == "***"
            assert "***" in shown["history"][-1]["content"]          # the confirmation question
        turn = client.post("/v1/sessions/again/turns", json={"text": "请给我回电话"}).json()
        assert turn["text"] == "请留下您的手机号。"
        turn = client.post("/v1/sessions/again/turns", json={"text": "13812345678"}).json()
        turn = client.post("/v1/sessions/again/turns", json={"text": "退货问题"}).json()
        assert turn["text"] == "将回电 ***，关于 退货问题，确认吗？"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_export_masks_unless_the_user_is_given_their_values(bot: Bot, lang: str) -> None:
    phone, turns, _ = CONVERSATIONS[lang]
    for text in turns:
        bot.handle(f"s-{lang}", text, user_id="alice")
    masked = json.dumps(bot.export_user("alice"), ensure_ascii=False)
    assert leaks(masked) == [] and json.loads(masked)["sensitive_values"] == "masked"
    revealed = bot.export_user("alice", reveal_sensitive=True)
    assert revealed["sensitive_values"] == "included" and phone in json.dumps(revealed, ensure_ascii=False)


@pytest.mark.usefixtures("logging_restored")                  # the chat configures the log its way
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_chat_commands_mask_it(bot_file: Path, tmp_path: Path, lang: str, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``dialogkit chat``'s /state /entities /summary /stats /context /export, on a session left at
    the confirmation (the conversation itself, typed by the user, is not checked: the user said it)."""
    store = f"sqlite:///{tmp_path / 'chat.db'}"
    _, turns, _ = CONVERSATIONS[lang]
    chat(monkeypatch, bot_file, store, turns)
    capsys.readouterr()
    exported = tmp_path / "context.json"
    chat(monkeypatch, bot_file, store, ["/state", "/entities", "/summary", "/stats", "/context", f"/export {exported}"])
    printed: Any = capsys.readouterr().out
    assert "/entities" in printed and f"exported to {exported}" in printed
    assert leaks(printed) == [] and leaks(exported.read_text(encoding="utf-8")) == []


def chat(monkeypatch: pytest.MonkeyPatch, bot_file: Path, store: str, lines: list[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    assert run_chat(bot_file, None, "chat-s1", store, stub_actions=True) == 0
