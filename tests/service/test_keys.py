"""API keys with scopes (docs/serving.md, "Keys and scopes"): read from a file or the environment,
kept only as sha256 digests, found in constant time; a bad file is refused with its position."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from dialogkit.errors import DialogkitError
from dialogkit.service.keys import KEYS_ENV, SCOPES, ApiKey, KeyRing, KeysError, digest, load_keys, parse_keys
from dialogkit.service.server import ServeOptions, check_options

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
WIDGET, BACKEND, OPS = "widget-key-0001", "backend-key-0002", "ops-key-0003"
KEYS_FILE = f"""# name     digest of the key                 scopes
widget    sha256:{digest(WIDGET)}   chat
backend   sha256:{digest(BACKEND)}  chat,users

ops       sha256:{digest(OPS)}      admin, inspector   # the operators
"""


def test_the_digest_is_sha256_of_the_key() -> None:
    assert digest(WIDGET) == hashlib.sha256(WIDGET.encode()).hexdigest()


def test_a_keys_file_names_each_key_its_digest_and_scopes(tmp_path: Path) -> None:
    path = tmp_path / "keys.txt"
    path.write_text(KEYS_FILE, encoding="utf-8")
    ring = load_keys(path, env={}, token=None)
    assert [(k.name, sorted(k.scopes)) for k in ring.keys] == [
        ("widget", ["chat"]), ("backend", ["chat", "users"]), ("ops", ["admin", "inspector"])]
    assert ring.find(BACKEND) == ring.keys[1] and ring.find(OPS) == ring.keys[2]
    assert ring.find("backend-key-0003") is None and ring.find("") is None


def test_only_digests_are_kept() -> None:
    (key,) = parse_keys(f"widget sha256:{digest(WIDGET)} chat", "test")
    assert WIDGET not in repr(key) and WIDGET.encode() not in key.digest
    assert key.digest == hashlib.sha256(WIDGET.encode()).digest()


def test_keys_come_from_the_environment_too(tmp_path: Path) -> None:
    env = {KEYS_ENV: f"widget sha256:{digest(WIDGET)} chat; ops sha256:{digest(OPS)} admin"}
    ring = load_keys(None, env=env, token=None)
    assert [k.name for k in ring.keys] == ["widget", "ops"]
    path = tmp_path / "keys.txt"
    path.write_text(f"backend sha256:{digest(BACKEND)} chat,users\n", encoding="utf-8")
    both = load_keys(path, env=env, token=None)
    assert [k.name for k in both.keys] == ["backend", "widget", "ops"]


def test_the_single_token_is_a_key_with_every_scope() -> None:
    ring = load_keys(None, env={}, token="s3cret")
    key = ring.find("s3cret")
    assert key is not None and key.scopes == frozenset(SCOPES) and key.name == "token"


def test_no_keys_at_all_is_an_open_server() -> None:
    ring = load_keys(None, env={}, token=None)
    assert ring.open and not load_keys(None, env={}, token="t").open


@pytest.mark.parametrize(("text", "where", "says"), [
    ("widget chat", "line 1", "NAME sha256:DIGEST SCOPES"),
    (f"# keys\nwidget {digest(WIDGET)} chat", "line 2, column 8", "sha256:"),
    ("widget sha256:abc chat", "line 1, column 8", "64 hexadecimal digits"),
    (f"widget sha256:{digest(WIDGET)} chat,root", "line 1, column 85", "unknown scope 'root'"),
    (f"widget sha256:{digest(WIDGET)} chat,admn", "line 1, column 85", "did you mean 'admin'"),
    (f"a sha256:{digest(WIDGET)} chat\na sha256:{digest(OPS)} chat", "line 2, column 1", "'a' is named twice"),
    (f"a sha256:{digest(WIDGET)} chat\nb sha256:{digest(WIDGET)} admin", "line 2, column 3", "same key as 'a'"),
    (f"w!dget sha256:{digest(WIDGET)} chat", "line 1, column 1", "name"),
])
def test_a_bad_keys_file_is_refused_with_its_position(tmp_path: Path, text: str, where: str, says: str) -> None:
    path = tmp_path / "keys.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(KeysError) as caught:
        load_keys(path, env={}, token=None)
    message = str(caught.value)
    assert isinstance(caught.value, DialogkitError)
    assert message.startswith(f"{path}, {where}:"), message
    assert says in message


def test_a_bad_environment_variable_is_named(tmp_path: Path) -> None:
    with pytest.raises(KeysError, match=f"^{KEYS_ENV}, line 2: expected"):
        load_keys(None, env={KEYS_ENV: f"w sha256:{digest(WIDGET)} chat;oops"}, token=None)


def test_a_missing_or_empty_keys_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KeysError, match="cannot be read"):
        load_keys(tmp_path / "nope.txt", env={}, token=None)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n", encoding="utf-8")
    with pytest.raises(KeysError, match="holds no key"):
        load_keys(empty, env={}, token=None)


def test_serve_checks_the_keys_before_starting(tmp_path: Path) -> None:
    path = tmp_path / "keys.txt"
    path.write_text("widget sha256:123 chat\n", encoding="utf-8")
    with pytest.raises(KeysError, match="line 1, column 8"):
        check_options(ServeOptions(bot_file=str(SUPPORT), store="memory://", keys=str(path)))
    path.write_text(KEYS_FILE, encoding="utf-8")
    warnings = check_options(ServeOptions(bot_file=str(SUPPORT), store="memory://", host="0.0.0.0",
                                          keys=str(path)))
    assert warnings == []


def test_a_key_ring_is_a_plain_value() -> None:
    key = ApiKey(name="w", digest=hashlib.sha256(b"k").digest(), scopes=frozenset({"chat"}))
    ring = KeyRing((key,))
    assert ring.find("k") is key and key.may("chat") and not key.may("admin")


def test_dialogkit_serve_reports_a_bad_keys_file_and_exits_1(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from dialogkit.cli.serve import serve_command

    path = tmp_path / "keys.txt"
    path.write_text(f"# keys\nops sha256:{digest(OPS)} admn\n", encoding="utf-8")
    code = serve_command(SUPPORT, "127.0.0.1", 8000, "memory://", 1, None, False, "info", keys=path)
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert f"{path}, line 2, column 77: unknown scope 'admn' (did you mean 'admin'?)" in err
