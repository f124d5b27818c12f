"""``dialogkit user export`` and ``dialogkit user forget``, on a SQLite file and on Redis, zh and en."""

from __future__ import annotations

import json
import stat
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
import typer
from rich.console import Console
from typer.testing import CliRunner

from dialogkit.bot import Bot
from dialogkit.cli import app
from dialogkit.cli import user as user_cli
from dialogkit.cli.user import forget_command, write_new_file
from dialogkit.model.session import user_scope
from tests.store.factories import REDIS_URL, needs_redis

BOT = """\
bot:
  name: desk
  session_timeout: 30m
  retention: 90d
entities:
  city: {values: {beijing: {aliases: [北京, Beijing], label: {zh: 北京, en: Beijing}},
                  shanghai: {aliases: [上海, Shanghai], label: {zh: 上海, en: Shanghai}}}}
flows:
  weather:
    description: 查天气 / weather
    trigger: {examples: [北京天气怎么样, what's the weather in Beijing]}
    slots:
      - {name: city, entity: city, persist: user, label: {zh: 城市, en: city}, ask: {zh: 哪个城市？, en: Which city?}}
    execute: {say: {zh: "{city}：晴", en: "{city}: sunny"}}
"""
SAID = {"zh": "北京天气怎么样", "en": "what's the weather in Beijing"}
LABEL = {"zh": "城市", "en": "city"}


def run(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input)


@pytest.fixture(autouse=True)
def logging_put_back() -> Iterator[None]:
    """The commands quiet logging for the whole process; later tests get it back as it was."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "desk.yaml"
    path.write_text(BOT, encoding="utf-8")
    return path


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=needs_redis)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'sessions.db'}"
        return
    import redis

    prefix = f"dktest:{uuid.uuid4().hex[:8]}:"
    yield f"{REDIS_URL}?prefix={prefix}"
    client = redis.Redis.from_url(str(REDIS_URL))
    keys = list(client.scan_iter(match=f"{prefix}*"))
    if keys:
        client.delete(*keys)
    client.close()


def chat(bot_file: Path, store_url: str, session_id: str, user_id: str, language: str) -> None:
    with Bot.from_file(bot_file, store=store_url) as bot:
        bot.handle(session_id, SAID[language], user_id=user_id)


class TestExport:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_the_document_goes_to_stdout(self, bot_file: Path, store_url: str, language: str) -> None:
        chat(bot_file, store_url, "s1", "alice", language)
        chat(bot_file, store_url, "s2", "bob", language)
        result = run("user", "export", str(bot_file), "alice", "--store", store_url)
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert doc["format"] == "dialogkit.user-export/1" and doc["bot"] == "desk"
        assert [s["id"] for s in doc["sessions"]] == ["s1"]
        assert doc["sessions"][0]["history"][0]["content"] == SAID[language]
        assert doc["values"]["city"]["value"] == "beijing" and doc["values"]["city"]["label"] == LABEL[language]
        if language == "zh":
            assert SAID["zh"] in result.stdout                   # Chinese is written as itself, not \\u escapes

    def test_a_file_is_written_once_and_replaced_only_with_force(self, bot_file: Path, store_url: str,
                                                                 tmp_path: Path) -> None:
        chat(bot_file, store_url, "s1", "alice", "zh")
        out = tmp_path / "alice.json"
        first = run("user", "export", str(bot_file), "alice", "--store", store_url, "-o", str(out))
        assert first.exit_code == 0 and "wrote" in first.stderr and first.stdout == ""
        assert json.loads(out.read_text(encoding="utf-8"))["user_id"] == "alice"
        assert stat.S_IMODE(out.stat().st_mode) == 0o600                # personal data: the owner's only
        out.write_text("keep me", encoding="utf-8")
        refused = run("user", "export", str(bot_file), "alice", "--store", store_url, "-o", str(out))
        assert refused.exit_code == 1 and "--force" in refused.stderr
        assert out.read_text(encoding="utf-8") == "keep me"
        forced = run("user", "export", str(bot_file), "alice", "--store", store_url, "-o", str(out), "--force")
        assert forced.exit_code == 0 and json.loads(out.read_text(encoding="utf-8"))["user_id"] == "alice"
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []

    def test_an_unknown_user_is_an_empty_document(self, bot_file: Path, store_url: str) -> None:
        result = run("user", "export", str(bot_file), "nobody", "--store", store_url)
        assert result.exit_code == 0
        assert json.loads(result.stdout)["sessions"] == []

    def test_a_broken_bot_file_or_store_url_is_a_message_and_exit_1(self, bot_file: Path, tmp_path: Path) -> None:
        broken = tmp_path / "broken.yaml"
        broken.write_text("flows:\n  x: {slots: 3}\n", encoding="utf-8")
        bad_bot = run("user", "export", str(broken), "alice", "--store", "memory://")
        assert bad_bot.exit_code == 1 and "broken.yaml:" in bad_bot.stderr
        bad_store = run("user", "export", str(bot_file), "alice", "--store", "sessions.db")
        assert bad_store.exit_code == 1 and "sqlite:///sessions.db" in bad_store.stderr

    def test_write_new_file_never_replaces_what_appeared_meanwhile(self, tmp_path: Path) -> None:
        target = tmp_path / "out.json"
        target.write_text("theirs", encoding="utf-8")
        with pytest.raises(FileExistsError):
            write_new_file(target, b"ours", replace=False)
        assert target.read_text(encoding="utf-8") == "theirs"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


class TestForget:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_yes_deletes_everything_and_prints_the_counts(self, bot_file: Path, store_url: str,
                                                          language: str) -> None:
        chat(bot_file, store_url, "s1", "alice", language)
        chat(bot_file, store_url, "s2", "alice", language)
        chat(bot_file, store_url, "s3", "bob", language)
        result = run("user", "forget", str(bot_file), "alice", "--store", store_url, "--yes")
        assert result.exit_code == 0, result.output
        assert "deleted 2 sessions, 4 messages, 1 persisted values" in result.stdout
        with Bot.from_file(bot_file, store=store_url) as bot:
            assert bot.store.sessions_of("alice") == [] and bot.store.sessions_of("bob") == ["s3"]
            assert bot.store.user_slots(user_scope("desk", "alice")) == {}

    def test_without_a_terminal_and_without_yes_it_refuses(self, bot_file: Path, store_url: str) -> None:
        chat(bot_file, store_url, "s1", "alice", "zh")
        result = run("user", "forget", str(bot_file), "alice", "--store", store_url)
        assert result.exit_code == 1
        assert "pass --yes" in result.stderr and result.stdout == ""
        with Bot.from_file(bot_file, store=store_url) as bot:
            assert bot.store.sessions_of("alice") == ["s1"]

    @pytest.mark.parametrize("answer", [True, False])
    def test_the_question_names_what_goes_and_the_answer_decides(
            self, bot_file: Path, tmp_path: Path, answer: bool) -> None:
        url = f"sqlite:///{tmp_path / 'sessions.db'}"
        chat(bot_file, url, "s1", "alice", "en")
        asked: list[str] = []

        def confirm(question: str) -> bool:
            asked.append(question)
            return answer

        console = Console(record=True, width=200, color_system=None)
        code = forget_command(bot_file, "alice", url, console=console, confirm=confirm)
        assert asked == [f"Delete everything stored about user 'alice' for bot 'desk' in {url} "
                         f"(1 session, their history and persisted values)?"]
        assert code == (0 if answer else 1)
        with Bot.from_file(bot_file, store=url) as bot:
            assert bot.store.sessions_of("alice") == ([] if answer else ["s1"])

    @pytest.mark.parametrize(("typed", "expected"), [(True, True), (False, False)])
    def test_on_a_terminal_it_asks(self, monkeypatch: pytest.MonkeyPatch, typed: bool, expected: bool) -> None:
        monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
        monkeypatch.setattr(typer, "confirm", lambda question, default: typed)
        console = Console(record=True, width=200, color_system=None)
        assert user_cli._ask_on_terminal(console)("Delete?") is expected
        assert ("nothing deleted" in console.export_text()) is not expected
