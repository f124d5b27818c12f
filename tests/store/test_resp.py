"""The pipelined connection a turn's two scripts take (store/resp.py): replies in order, Redis
errors and a lost or silent server as StoreErrors, and the URLs it leaves to the redis client."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest
import redis

from dialogkit.model.session import Message
from dialogkit.store import resp
from dialogkit.store.redis import RedisStore
from dialogkit.store.resp import LeanError, LeanScript, Pipe, Target, encode_command, lean_target, parse_reply
from tests.store.factories import CONTENT, REDIS_URL, make_session, needs_redis

ECHO = "return {KEYS[1], ARGV[1], tonumber(ARGV[2]) + 1, false, redis.call('ping')}"


# ---- the protocol, without a server -------------------------------------------------------------

def test_a_command_is_an_array_of_bulk_strings_in_utf8() -> None:
    assert encode_command(["SET", "k", "订单"]) == b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$6\r\n\xe8\xae\xa2\xe5\x8d\x95\r\n"
    assert encode_command(["SET", b"k\r\n"]) == b"*2\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n"


@pytest.mark.parametrize(("raw", "value"), [
    (b"+OK\r\n", "OK"),
    (b":42\r\n", 42),
    (b"$-1\r\n", None),
    (b"$6\r\n\xe6\x89\x8b\xe6\x9c\xba\r\n", "手机"),
    (b"$5\r\nphone\r\n", "phone"),
    (b"*3\r\n:1\r\n$-1\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n", [1, None, ["a", "b"]]),
    (b"*0\r\n", []),
])
def test_replies_are_read_as_the_redis_client_decodes_them(raw: bytes, value: object) -> None:
    assert parse_reply(raw + b"+next\r\n", 0) == (value, len(raw))


def test_an_error_reply_is_a_value_and_a_cut_reply_waits_for_more() -> None:
    error, _ = parse_reply(b"-NOSCRIPT No matching script\r\n", 0)
    assert isinstance(error, LeanError) and str(error).startswith("NOSCRIPT")
    with pytest.raises(resp._Incomplete):
        parse_reply(b"*2\r\n$5\r\nphone\r\n$6\r\n\xe6\x89", 0)


@pytest.mark.parametrize(("url", "target"), [
    ("redis://127.0.0.1:6399/2", Target("127.0.0.1", 6399, 2, None, None)),
    ("redis://localhost", Target("localhost", 6379, 0, None, None)),
    ("redis://bot:p%40ss@cache:6380/0", Target("cache", 6380, 0, "bot", "p@ss")),
    ("redis://:secret@cache/1", Target("cache", 6379, 1, None, "secret")),
    ("rediss://cache:6380/0", None),                  # TLS: the redis client's
    ("unix:///run/redis.sock", None),
    ("redis://cache/0?socket_timeout=5", None),       # options the redis client reads
    ("redis://cache/zero", None),
])
def test_only_plain_redis_urls_take_the_pipelined_connection(url: str, target: Target | None) -> None:
    assert lean_target(url) == target


# ---- against a server -----------------------------------------------------------------------------

@pytest.fixture
def target() -> Target:
    assert REDIS_URL is not None
    found = lean_target(REDIS_URL)
    assert found is not None, "DIALOGKIT_TEST_REDIS_URL should be a plain redis:// URL"
    return found


@needs_redis
def test_many_scripts_in_flight_on_one_connection_get_their_own_replies(target: Target) -> None:
    async def main() -> list[object]:
        pipe = await Pipe.open(target, 5.0)
        script = LeanScript(ECHO)
        try:
            return list(await asyncio.gather(*(script(pipe, [f"k{n}"], ["订单" if n % 2 else "order", str(n)])
                                               for n in range(200))))
        finally:
            pipe.close()

    replies = asyncio.run(main())
    assert replies == [[f"k{n}", "订单" if n % 2 else "order", n + 1, None, "PONG"] for n in range(200)]


@needs_redis
def test_a_script_redis_forgot_is_sent_again_whole(target: Target) -> None:
    assert REDIS_URL is not None
    redis.Redis.from_url(REDIS_URL).script_flush()

    async def main() -> object:
        pipe = await Pipe.open(target, 5.0)
        try:
            return await LeanScript(ECHO)(pipe, ["k"], ["x", "1"])
        finally:
            pipe.close()

    assert asyncio.run(main()) == ["k", "x", 2, None, "PONG"]


@needs_redis
def test_an_error_in_a_script_fails_that_call_only(target: Target) -> None:
    async def main() -> tuple[BaseException | object, object]:
        pipe = await Pipe.open(target, 5.0)
        try:
            bad, good = await asyncio.gather(LeanScript("return redis.call('nosuchcommand')")(pipe, [], []),
                                             LeanScript(ECHO)(pipe, ["k"], ["y", "2"]), return_exceptions=True)
            return bad, good
        finally:
            pipe.close()

    bad, good = asyncio.run(main())
    assert isinstance(bad, LeanError) and "unknown redis command" in str(bad).lower()
    assert good == ["k", "y", 3, None, "PONG"]


def _silent_server() -> tuple[socket.socket, int]:
    """A server that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    return server, server.getsockname()[1]


def test_a_server_that_does_not_answer_fails_the_calls_after_the_timeout() -> None:
    server, port = _silent_server()

    async def main() -> None:
        pipe = await Pipe.open(Target("127.0.0.1", port, 0, None, None), 0.2)
        with pytest.raises(LeanError, match=r"did not answer within 0\.2 s"):
            await asyncio.wait_for(LeanScript(ECHO)(pipe, ["k"], ["z", "1"]), 5.0)
        assert pipe.closed
        with pytest.raises(LeanError, match="closed"):
            await LeanScript(ECHO)(pipe, ["k"], ["z", "1"])

    try:
        asyncio.run(main())
    finally:
        server.close()


def test_nothing_listening_is_a_connection_error() -> None:
    server, port = _silent_server()
    server.close()
    with pytest.raises(LeanError, match=f"cannot connect to 127\\.0\\.0\\.1:{port}"):
        asyncio.run(Pipe.open(Target("127.0.0.1", port, 0, None, None), 1.0))


# ---- in the store -------------------------------------------------------------------------------

@pytest.fixture
def store(redis_prefix: str) -> Iterator[RedisStore]:
    assert REDIS_URL is not None
    opened = RedisStore(REDIS_URL, prefix=redis_prefix)
    yield opened
    opened.close()


def test_a_connection_lost_with_calls_in_flight_fails_them() -> None:
    server, port = _silent_server()

    async def main() -> None:
        pipe = await Pipe.open(Target("127.0.0.1", port, 0, None, None), 5.0)
        call = asyncio.ensure_future(LeanScript(ECHO)(pipe, ["k"], ["z", "1"]))
        accepted, _ = await asyncio.get_running_loop().sock_accept(server)
        accepted.close()
        with pytest.raises(LeanError, match="lost"):
            await asyncio.wait_for(call, 5.0)

    server.setblocking(False)
    try:
        asyncio.run(main())
    finally:
        server.close()


@needs_redis
@pytest.mark.parametrize("language", ["zh", "en"])
def test_turns_go_on_after_redis_drops_the_connection(store: RedisStore, language: str) -> None:
    """Redis closes the connection between two turns (a restart, a proxy's idle timeout): the next
    turn connects again, and each turn's message is stored once."""
    said = CONTENT[language][0]

    async def turn() -> None:
        async with store.atransaction("s1") as txn:
            session = txn.session or make_session("s1", language=language)
            session.history.append(Message(role="user", content=said, turn=len(session.history) + 1,
                                           language=language))
            txn.save(session)

    async def main() -> None:
        await turn()
        pipe = store._async._current.pipe  # type: ignore[union-attr]
        assert pipe is not None and not pipe.closed
        host, port = pipe._transport.get_extra_info("sockname")[:2]  # type: ignore[union-attr]
        assert REDIS_URL is not None
        assert redis.Redis.from_url(REDIS_URL).client_kill(f"{host}:{port}")
        await asyncio.sleep(0.05)
        assert pipe.closed
        await turn()
        await store.aclose()

    asyncio.run(main())
    assert [m.content for m in store.history("s1")] == [said, said]
