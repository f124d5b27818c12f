"""HTTP actions (docs/bot-file.md, "HTTP actions"): a task's action as a call to a web service,
tried against a real server on 127.0.0.1 (``tests.actions.backend``).

The service gets the slots as JSON with the task's idempotency key as a header; every retry,
and a run repeated after the bot's process was killed, carries the same key.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from dialogkit import Bot
from dialogkit.actions.http import failure_text
from dialogkit.actions.loading import load_bot_file, stand_in_actions
from dialogkit.engine.execution import OUTCOME_UNKNOWN
from dialogkit.errors import FlowError
from tests.actions.backend import Backend

BOT = """\
bot: {{name: tickets, language: auto}}
http_actions:
  create_ticket:
    url_env: DK_TEST_TICKETS_URL
    timeout_s: 0.4
    retries: 2
    backoff_s: 0
    headers_env: {{X-Api-Key: DK_TEST_TICKETS_KEY}}
    idempotent: {idempotent}
flows:
  report_issue:
    description: 报修 / Report a fault
    trigger: {{keywords: [报修, 坏了, broken, repair]}}
    slots:
      - name: phone
        entity: phone
        ask: {{zh: 请留下联系电话。, en: What phone number can we call?}}
        sensitive: true
    confirm: {{ask: {{zh: 确认提交吗？, en: Shall I submit it?}}}}
    execute:
      action: create_ticket
      returns: [ticket_id]
      say: {{zh: "已创建工单 {{ticket_id}}。", en: "Ticket {{ticket_id}} has been created."}}
      on_error: {{zh: "抱歉，工单创建失败：{{error}}", en: "Sorry, the ticket could not be created: {{error}}"}}
"""
PHONE = "13812345678"
SAY = {"zh": (f"我的电脑坏了，电话{PHONE}", "确认"), "en": (f"my laptop is broken, call me on {PHONE}", "yes")}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


@pytest.fixture
def bot_file(tmp_path: Path) -> Callable[..., Path]:
    def write(idempotent: bool = True) -> Path:
        path = tmp_path / "tickets.yaml"
        path.write_text(BOT.format(idempotent=str(idempotent).lower()), encoding="utf-8")
        return path

    return write


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Backend]]:
    """Start a backend with the given steps and point the bot's variables at it."""
    started: list[Backend] = []

    def start(*steps: Any) -> Backend:
        backend = Backend(*steps).__enter__()
        started.append(backend)
        monkeypatch.setenv("DK_TEST_TICKETS_URL", backend.url)
        monkeypatch.setenv("DK_TEST_TICKETS_KEY", "k-123")
        return backend

    yield start
    for backend in started:
        backend.__exit__(None, None, None)


def confirm(path: Path, lang: str, *, store: str = "memory://") -> tuple[Bot, Any]:
    bot = Bot.from_file(path, store=store)
    start, yes = SAY[lang]
    assert bot.handle("s1", start, user_id="alice").state == "CONFIRMATION"
    return bot, bot.handle("s1", yes, user_id="alice")


@pytest.mark.parametrize(("kind", "lang", "said"), [
    ("unavailable", "zh", "服务暂时无法访问"), ("unavailable", "en", "the service could not be reached"),
    ("refused", "zh", "服务拒绝了请求"), ("invalid", "en", "the service gave an invalid answer"),
    ("refused", "es", "the service refused the request"), ("invalid", "fr", "the service gave an invalid answer"),
])
def test_a_failure_is_said_in_the_turns_language_or_else_in_english(kind: str, lang: str, said: str) -> None:
    assert failure_text(kind, lang) == said


class TestSuccess:
    @LANGS
    def test_the_service_gets_the_slots_and_the_key_and_its_answer_is_said(
            self, bot_file: Callable[..., Path], service: Callable[..., Backend], lang: str) -> None:
        backend = service((200, {"ticket_id": "T-7"}))
        bot, reply = confirm(bot_file(), lang)
        assert "T-7" in reply.text and reply.state == "IDLE"
        [request] = backend.requests
        assert request.method == "POST" and request.path == "/tickets"
        assert request.headers["x-api-key"] == "k-123"
        assert request.headers["idempotency-key"] == request.body["idempotency_key"]
        assert request.headers["idempotency-key"].startswith("s1:")
        assert request.body["slots"] == {"phone": PHONE}          # sensitive values reach the service
        assert request.body["action"] == "create_ticket" and request.body["flow"] == "report_issue"
        assert request.body["language"] == lang and request.body["user_id"] == "alice"
        bot.close()

    def test_a_repeated_yes_does_not_call_again(self, bot_file: Callable[..., Path],
                                                service: Callable[..., Backend]) -> None:
        backend = service((200, {"ticket_id": "T-7"}))
        bot, _ = confirm(bot_file(), "en")
        bot.handle("s1", "yes", user_id="alice")
        assert len(backend.requests) == 1
        bot.close()


class TestRetries:
    @LANGS
    def test_a_timeout_is_retried_with_the_same_key(self, bot_file: Callable[..., Path],
                                                    service: Callable[..., Backend], lang: str) -> None:
        backend = service(lambda: time.sleep(1.0), (200, {"ticket_id": "T-late"}), (200, {"ticket_id": "T-8"}))
        bot, reply = confirm(bot_file(), lang)
        assert "T-8" in reply.text
        assert len(backend.requests) == 2
        assert backend.keys[0] == backend.keys[1] is not None
        bot.close()

    @LANGS
    def test_a_5xx_is_retried_with_the_same_key(self, bot_file: Callable[..., Path],
                                                service: Callable[..., Backend], lang: str) -> None:
        backend = service((503, {}), (500, b"oops"), (200, {"ticket_id": "T-9"}))
        bot, reply = confirm(bot_file(), lang)
        assert "T-9" in reply.text
        assert len(backend.requests) == 3 and len(set(backend.keys)) == 1
        bot.close()

    @LANGS
    def test_retries_run_out_into_on_error(self, bot_file: Callable[..., Path],
                                           service: Callable[..., Backend], lang: str) -> None:
        backend = service((502, {}))
        bot, reply = confirm(bot_file(), lang)
        assert len(backend.requests) == 3                       # the first try and 2 retries
        assert failure_text("unavailable", lang) in reply.text and reply.state == "IDLE"
        assert reply.actions[0].error is not None
        bot.close()

    def test_a_service_that_does_not_deduplicate_gets_no_retry_after_a_5xx(
            self, bot_file: Callable[..., Path], service: Callable[..., Backend]) -> None:
        backend = service((503, {}), (200, {"ticket_id": "T-1"}))
        bot, reply = confirm(bot_file(idempotent=False), "en")
        assert len(backend.requests) == 1
        assert failure_text("unavailable", "en") in reply.text
        bot.close()

    def test_a_refused_connection_is_retried_even_then(self, bot_file: Callable[..., Path],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
        closed = Backend()                          # bound, then closed: nothing listens on its port
        url = closed.url
        closed.__exit__(None, None, None)
        monkeypatch.setenv("DK_TEST_TICKETS_URL", url)
        monkeypatch.setenv("DK_TEST_TICKETS_KEY", "k")
        with structlog.testing.capture_logs() as logs:
            bot, reply = confirm(bot_file(idempotent=False), "zh")
        attempts = [e for e in logs if e["event"] == "http_action_attempt_failed"]
        assert [e["attempt"] for e in attempts] == [1, 2, 3]
        assert failure_text("unavailable", "zh") in reply.text
        bot.close()


class TestAnswers:
    @LANGS
    def test_an_answer_without_the_promised_key_is_the_failure_path(
            self, bot_file: Callable[..., Path], service: Callable[..., Backend], lang: str) -> None:
        backend = service((200, {"id": "T-1"}))
        with structlog.testing.capture_logs() as logs:
            bot, reply = confirm(bot_file(), lang)
        assert failure_text("invalid", lang) in reply.text and reply.state == "IDLE"
        assert len(backend.requests) == 1                     # an answer is not retried
        [event] = [e for e in logs if e["event"] == "http_action_invalid_answer"]
        assert event["action"] == "create_ticket" and event["keys"] == ["id"]
        assert "ticket_id" in event["reason"]
        bot.close()

    @pytest.mark.parametrize("body", [b"<html>ok</html>", b"", [1, 2]])
    def test_an_answer_that_is_no_json_object_is_the_failure_path(
            self, bot_file: Callable[..., Path], service: Callable[..., Backend], body: Any) -> None:
        service((200, body))
        bot, reply = confirm(bot_file(), "en")
        assert failure_text("invalid", "en") in reply.text
        bot.close()

    @LANGS
    def test_a_refusal_says_the_services_error(self, bot_file: Callable[..., Path],
                                               service: Callable[..., Backend], lang: str) -> None:
        backend = service((422, {"error": "no such device"}))
        bot, reply = confirm(bot_file(), lang)
        assert "no such device" in reply.text and len(backend.requests) == 1
        bot.close()

    def test_no_log_line_holds_the_sensitive_value(self, bot_file: Callable[..., Path],
                                                   service: Callable[..., Backend]) -> None:
        service((500, {}), (200, {"phone": PHONE}))          # an answer echoing it, lacking ticket_id
        with structlog.testing.capture_logs() as logs:
            bot, reply = confirm(bot_file(), "en")
        assert logs and PHONE not in repr(logs)
        assert failure_text("invalid", "en") in reply.text
        bot.close()


def _confirm_until_killed(path: str, store: str) -> None:
    bot = Bot.from_file(path, store=store)
    start, yes = SAY["zh"]
    bot.handle("s1", start, user_id="alice")
    bot.handle("s1", yes, user_id="alice")                   # killed while the service holds the request


class TestKilledDuringTheCall:
    """The bot's process is killed (SIGKILL) while its request is at the service; a new process
    finds the "about to run" record and goes on as for a Python action."""

    @pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the bot's process")
    @pytest.mark.parametrize("idempotent", [True, False])
    def test_a_new_process_repeats_the_call_only_with_the_same_key(
            self, bot_file: Callable[..., Path], service: Callable[..., Backend], tmp_path: Path,
            idempotent: bool) -> None:
        store = f"sqlite:///{tmp_path / 's.db'}"
        path = bot_file(idempotent=idempotent)
        child: list[Any] = []
        backend = service(lambda: os.kill(child[0].pid, signal.SIGKILL), (200, {"ticket_id": "T-lost"}),
                          (200, {"ticket_id": "T-2"}))
        process = multiprocessing.get_context("fork").Process(target=_confirm_until_killed, args=(str(path), store))
        child.append(process)
        process.start()
        process.join(10)
        assert process.exitcode == -signal.SIGKILL and len(backend.requests) == 1

        bot = Bot.from_file(path, store=store)
        assert bot.session("s1").state == "CONFIRMATION"      # the killed turn left nothing behind
        reply = bot.handle("s1", "确认", user_id="alice")
        if idempotent:
            assert "T-2" in reply.text
            assert len(backend.requests) == 2 and backend.keys[0] == backend.keys[1]
        else:
            assert OUTCOME_UNKNOWN["zh"] in reply.text
            assert len(backend.requests) == 1
        bot.close()


class TestLoading:
    def test_an_unset_variable_is_a_load_error_naming_it(self, bot_file: Callable[..., Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("DK_TEST_TICKETS_URL", raising=False)
        monkeypatch.setenv("DK_TEST_TICKETS_KEY", "k")
        with pytest.raises(FlowError) as caught:
            load_bot_file(bot_file())
        [problem] = caught.value.problems
        assert "DK_TEST_TICKETS_URL is not set" in problem.message
        assert (problem.line, problem.col) == (4, 14)             # at url_env's value
        assert "--stub-actions" in problem.hint

    def test_an_unset_header_variable_points_at_its_header(self, bot_file: Callable[..., Path],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("DK_TEST_TICKETS_URL", "http://127.0.0.1:9/x")
        monkeypatch.delenv("DK_TEST_TICKETS_KEY", raising=False)
        with pytest.raises(FlowError) as caught:
            load_bot_file(bot_file())
        [problem] = caught.value.problems
        assert "DK_TEST_TICKETS_KEY is not set" in problem.message and problem.line == 8

    def test_a_variable_holding_no_url_is_a_load_error(self, bot_file: Callable[..., Path],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("DK_TEST_TICKETS_URL", "tickets.internal/api")
        monkeypatch.setenv("DK_TEST_TICKETS_KEY", "k")
        with pytest.raises(FlowError, match="holds no http:// or https:// URL"):
            load_bot_file(bot_file())

    def test_stubs_and_actions_given_in_code_need_no_variable(self, bot_file: Callable[..., Path],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("DK_TEST_TICKETS_URL", raising=False)
        monkeypatch.delenv("DK_TEST_TICKETS_KEY", raising=False)
        path = bot_file()
        assert stand_in_actions(path) == {"create_ticket": {"ticket_id": "<ticket_id>"}}
        load_bot_file(path, actions=stand_in_actions(path))
        load_bot_file(path, actions={"create_ticket": {"ticket_id": "T-1"}})

    def test_a_name_also_registered_with_action_is_a_load_error(self, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
        (tmp_path / "http_clash_actions.py").write_text(
            "from dialogkit import action\n\n@action('create_ticket')\ndef create(ctx):\n    return {}\n",
            encoding="utf-8")
        monkeypatch.setenv("DK_TEST_TICKETS_URL", "http://127.0.0.1:9/x")
        monkeypatch.setenv("DK_TEST_TICKETS_KEY", "k")
        path = tmp_path / "clash.yaml"
        path.write_text(BOT.format(idempotent="true").replace(
            "language: auto}", "language: auto, actions: http_clash_actions}"), encoding="utf-8")
        with pytest.raises(FlowError, match="declared in http_actions and registered with @action"):
            load_bot_file(path)
