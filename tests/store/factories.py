"""Sessions and messages for store tests, in Chinese and in English."""

from __future__ import annotations

import os
import time

import pytest

from dialogkit.model.session import Message, Session, Task
from dialogkit.store.protocol import SessionStore

REDIS_URL = os.environ.get("DIALOGKIT_TEST_REDIS_URL")
needs_redis = pytest.mark.skipif(
    not REDIS_URL, reason="set DIALOGKIT_TEST_REDIS_URL=redis://127.0.0.1:6399/0 to run the Redis store tests")

# language -> (user utterance, bot reply, product): the zh and en variants of each behaviour
CONTENT = {
    "zh": ("我上周买的手机屏幕碎了，订单号 12345", "已创建工单 T-1001。", "手机"),
    "en": ("my phone arrived broken, order 12345", "Ticket T-1001 has been created.", "phone"),
}


def make_session(session_id: str, user_id: str = "alice", language: str = "en", messages: int = 0) -> Session:
    """A session with a task, slots and ``messages`` history entries in the given language."""
    product = CONTENT[language][2]
    session = Session(id=session_id, user_id=user_id, language=language)
    session.stack.append(Task(flow="report_issue", state="PARAM_COLLECT",
                              slots={"product": product, "order_id": "12345"}))
    add_messages(session, messages, language)
    return session


def add_messages(session: Session, count: int, language: str = "en") -> None:
    """Append ``count`` messages, alternating user and assistant, numbered by absolute index."""
    said, reply, _ = CONTENT[language]
    for _ in range(count):
        index = session.history_offset + len(session.history)
        role = "user" if index % 2 == 0 else "assistant"
        text = said if role == "user" else reply
        session.history.append(Message(role=role, content=f"{text} #{index}", turn=index // 2,
                                        language=language))


def child_turn_script(open_store: str) -> str:
    """A second process that takes session s1's turn lock, says "locked", then either dies mid-turn
    after saving (argv[-2] == "die", as a killed worker would) or finishes after argv[-1] seconds.

    ``open_store`` is the line that binds ``store`` from the leading arguments.
    """
    return f"""
import os, sys, time
from dialogkit.model.session import PersistedValue
from tests.store.factories import make_session
{open_store}
with store.transaction("s1") as txn:
    session = txn.session or make_session("s1")
    session.turn += 1
    txn.save(session)
    txn.set_user_slot("alice", "order_id", PersistedValue(value="from child"))
    print("locked", flush=True)
    if sys.argv[-2] == "die":
        os._exit(9)
    time.sleep(float(sys.argv[-1]))
print("done", flush=True)
"""


def assert_the_dead_turn_left_nothing(store: SessionStore, *, messages: int) -> None:
    """After ``child_turn_script`` died inside session s1's turn: the lock is free at once, and
    neither its saved session, its appended messages nor its user slot were written."""
    started = time.monotonic()
    with store.transaction("s1", timeout_s=5.0) as txn:
        assert txn.session is not None and txn.session.turn == 0
    assert time.monotonic() - started < 1.0
    assert store.user_slots("alice") == {}
    assert len(store.history("s1")) == messages


def redis_text(prefix: str) -> str:
    """Everything stored under ``prefix`` on the test Redis, as one text (then deleted): what a
    search for a value in clear reads."""
    import redis

    assert REDIS_URL is not None
    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        dumped: list[object] = []
        for name in client.scan_iter(match=f"{prefix}*"):
            kind = client.type(name)
            if kind == "string":
                dumped.append(client.get(name) or "")
            elif kind == "list":
                dumped.extend(client.lrange(name, 0, -1))
            elif kind == "hash":
                dumped.extend(client.hvals(name))
        names = list(client.scan_iter(match=f"{prefix}*"))
        if names:
            client.delete(*names)
        return "\n".join(str(d) for d in dumped)
    finally:
        client.close()
