"""Store URLs: what each one opens, and the message a mistyped one gets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dialogkit.errors import StoreError
from dialogkit.store import DEFAULT_STORE_URL, MemoryStore, SqliteStore, open_store
from dialogkit.store.urls import redact_url, sqlite_path
from tests.store.factories import REDIS_URL, make_session, needs_redis

ROOT = Path(__file__).resolve().parent.parent.parent


class TestOpening:
    def test_no_url_opens_the_default_sqlite_file(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """None means ./.dialogkit/sessions.db in the working directory, folder created."""
        monkeypatch.chdir(tmp_path)
        store = open_store(None)
        try:
            assert isinstance(store, SqliteStore) and store.url == DEFAULT_STORE_URL
            assert (tmp_path / ".dialogkit" / "sessions.db").exists()
        finally:
            store.close()

    def test_memory_url_opens_a_memory_store(self) -> None:
        """memory:// keeps sessions in this process only."""
        assert isinstance(open_store("memory://"), MemoryStore)

    def test_three_slashes_is_relative_and_four_is_absolute(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """sqlite:///x.db is relative to the working directory; sqlite:////abs/x.db is absolute."""
        monkeypatch.chdir(tmp_path)
        relative = open_store("sqlite:///data/rel.db")
        absolute = open_store(f"sqlite:///{tmp_path}/abs/abs.db")
        try:
            assert (tmp_path / "data" / "rel.db").exists()
            assert (tmp_path / "abs" / "abs.db").exists()
        finally:
            relative.close()
            absolute.close()

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_a_sqlite_url_with_a_non_ascii_path_works(self, tmp_path: Path, language: str) -> None:
        """Folder names in any script are fine: 会话/sessions.db and sessions/sessions.db alike."""
        folder = "会话" if language == "zh" else "sessions"
        store = open_store(f"sqlite:///{tmp_path}/{folder}/sessions.db")
        try:
            with store.transaction("s1") as txn:
                txn.save(make_session("s1", language=language, messages=1))
            assert (tmp_path / folder / "sessions.db").exists()
        finally:
            store.close()

    @needs_redis
    def test_a_redis_url_opens_a_redis_store(self) -> None:
        """redis://host:port/db opens the Redis store."""
        from dialogkit.store.redis import RedisStore

        assert REDIS_URL is not None
        store = open_store(REDIS_URL)
        try:
            assert isinstance(store, RedisStore)
        finally:
            store.close()

    @pytest.mark.parametrize("url", ["memory://", "sqlite:///sessions.db"])
    def test_redis_is_imported_only_when_a_redis_url_is_opened(self, url: str, tmp_path: Path) -> None:
        """The optional redis package (and the Redis store) stay unloaded until a redis:// URL is opened."""
        script = (f"import sys, dialogkit, dialogkit.store\n"
                  f"dialogkit.store.open_store({url!r}).close()\n"
                  f"print(sorted(m for m in sys.modules if m.startswith(('redis', 'dialogkit.store.redis'))))")
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                              check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "[]", "")


class TestMistakes:
    @pytest.mark.parametrize(("url", "message"), [
        ("ftp://x", "unsupported store URL 'ftp://x'; use memory://, sqlite:///"),
        ("", "the store URL is empty"),
        ("sessions.db", "did you mean sqlite:///sessions.db"),
        ("sqlite://", "three slashes"),
        ("sqlite://host/sessions.db", "three slashes"),
        ("sqlite:///", "needs a file path"),
        ("sqlite:///data/", "needs a file path"),
        ("sqlite:///:memory:", "use memory://"),
        ("memory://somewhere", "takes no path"),
        ("sqlite:///a\x00b.db", "NUL or an unpaired surrogate"),
        ("sqlite:///a\ud800b.db", "NUL or an unpaired surrogate"),
        ("sqlite:///s.db?mode=ro", "are not supported; a session store is written on every turn"),
        ("redis://[::1", "IPv6 host in brackets"),
        ("redis://:pw@[::1", "IPv6 host in brackets"),
        ("redis://host:port/0", "not a valid server URL"),
    ])
    def test_a_bad_url_says_what_is_accepted(self, url: str, message: str) -> None:
        """Each mistake is a StoreError whose message shows the fix."""
        with pytest.raises(StoreError, match=message.replace("?", r"\?").replace(".", r"\.")):
            open_store(url)

    @pytest.mark.parametrize("url", [123, b"sqlite:///s.db", Path("s.db")])
    def test_a_url_that_is_no_string_is_a_store_error(self, url: object) -> None:
        with pytest.raises(StoreError, match="a store URL is a string"):
            open_store(url)  # type: ignore[arg-type]

    def test_a_broken_url_is_shown_without_its_password(self) -> None:
        with pytest.raises(StoreError) as caught:
            open_store("redis://admin:s3cret@[::1")
        assert "s3cret" not in str(caught.value)

    def test_a_home_directory_path_is_expanded(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """``~`` is the user's home, as docs/stores.md says."""
        monkeypatch.setenv("HOME", str(tmp_path))
        assert sqlite_path("sqlite:///~/bot/s.db") == tmp_path / "bot" / "s.db"

    def test_an_unreachable_redis_names_the_url_without_its_password(self) -> None:
        """A connection failure is a StoreError with the URL, and the password is masked."""
        with pytest.raises(StoreError) as caught:
            open_store("redis://admin:s3cret@127.0.0.1:1/0")
        text = str(caught.value)
        assert "redis://admin:***@127.0.0.1:1/0" in text
        assert "s3cret" not in text

    def test_a_password_never_shows_in_the_unsupported_scheme_message(self) -> None:
        """Even a URL we reject is shown without its password."""
        with pytest.raises(StoreError) as caught:
            open_store("postgres://bob:hunter2@db/sessions")
        assert "hunter2" not in str(caught.value)


class TestRedaction:
    @pytest.mark.parametrize(("url", "shown"), [
        ("redis://:pw@localhost:6379/0", "redis://:***@localhost:6379/0"),
        ("redis://user:pw@localhost/1", "redis://user:***@localhost/1"),
        ("redis://localhost:6379/0", "redis://localhost:6379/0"),
        ("sqlite:///./.dialogkit/sessions.db", "sqlite:///./.dialogkit/sessions.db"),
    ])
    def test_passwords_are_masked(self, url: str, shown: str) -> None:
        """Only the password is replaced; user, host, port and database stay readable."""
        assert redact_url(url) == shown
