"""The HTTP reply's ``explain``: the turn's decisions as JSON, in the turn's reply and in the
session's ``last_turn`` (the inspector reads it there), sensitive values masked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dialogkit import Bot
from dialogkit.service import ServiceSettings, create_app
from tests.engine.test_explaining import TABLE

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.chdir(ROOT)
    with Bot.from_file(SUPPORT, store="memory://", actions={"create_ticket": {"ticket_id": "T-1"}}) as bot, \
            TestClient(create_app(bot, ServiceSettings())) as test_client:
        yield test_client


@pytest.mark.parametrize(("first", "correction", "words"), [
    ("我的手机坏了", "不对，是耳机", "耳机"),
    ("my phone arrived broken", "no, it was the headphones", "headphones"),
])
def test_the_reply_and_the_last_turn_carry_the_explanation(client: TestClient, first: str, correction: str,
                                                           words: str) -> None:
    started = client.post("/v1/sessions/why/turns", json={"text": first}).json()
    assert [r["rule"] for r in started["explain"]] == ["intent_keyword", "slot_offer", "slot_offer"]
    client.post("/v1/sessions/why/turns", json={"text": "12345"})
    corrected = client.post("/v1/sessions/why/turns", json={"text": correction}).json()
    at = correction.index(words)
    expected = {"rule": "correction", "did": "corrected product: phone → headphones", "words": words,
                "span": [at, at + len(words)]}
    assert corrected["explain"] == [expected]
    assert client.get("/v1/sessions/why").json()["last_turn"]["explain"] == [expected]


@pytest.mark.parametrize("lines", [["订座", "3", "4111 1111 1111 1111"], ["book a table", "3", "4111 1111 1111 1111"]])
def test_a_sensitive_value_is_masked_in_the_explanation(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "table.yaml"
    path.write_text(TABLE, encoding="utf-8")
    with Bot.from_file(path, store="memory://", actions={"book": {}}) as bot, \
            TestClient(create_app(bot, ServiceSettings())) as test_client:
        replies = [test_client.post("/v1/sessions/s/turns", json={"text": line}).json() for line in lines]
    assert {"rule": "slot_offer", "did": "set card = ***", "words": None, "span": None} in replies[-1]["explain"]
    assert "4111" not in str(replies[-1]["explain"])
