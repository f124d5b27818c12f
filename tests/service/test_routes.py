"""Every route of the HTTP API on the support bot, in Chinese and in English (docs/serving.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dialogkit import Bot
from dialogkit.service import create_app
from dialogkit.service.operations import STATIC_DIR

TICKET = {
    "zh": ("我上周买的手机屏幕碎了", "123456", "确认", "请提供您的订单号。", ["确认", "取消"]),
    "en": ("my phone arrived broken", "12345", "yes", "What is your order number?", ["yes", "no"]),
}


def turn(client: TestClient, session: str, text: str, **extra: str) -> dict:
    response = client.post(f"/v1/sessions/{session}/turns", json={"text": text, **extra})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_support_ticket_over_the_api(trusted: TestClient, language: str) -> None:
    opening, order, yes, question, options = TICKET[language]
    client = trusted
    first = turn(client, "s1", opening, user_id="alice")
    assert first["text"] == question and first["state"] == "PARAM_COLLECT" and first["flow"] == "report_issue"
    assert first["slots"] == {"product": "phone", "issue_type": "damaged"} and first["language"] == language
    assert first["transitions"] == ["start_task", "collect"] and first["trigger"] == "collect"
    assert "track_entities" in first["memory_actions"] and first["latency_ms"] > 0
    second = turn(client, "s1", order, user_id="alice")
    assert second["state"] == "CONFIRMATION" and second["options"] == options
    done = turn(client, "s1", yes, user_id="alice")
    assert done["state"] == "IDLE" and done["flow"] is None
    assert done["actions"][0]["name"] == "create_ticket" and done["actions"][0]["result"]["ticket_id"] in done["text"]
    assert done["slots"]["order_id"] == order


def test_the_session_json_has_every_panel_of_the_inspector(trusted: TestClient) -> None:
    client = trusted
    turn(client, "s1", "我上周买的手机屏幕碎了", user_id="alice")
    turn(client, "s1", "123456", user_id="alice")
    body = client.get("/v1/sessions/s1").json()
    assert body["id"] == "s1" and body["user_id"] == "alice" and body["turn"] == 2 and body["language"] == "zh"
    assert body["state"] == "CONFIRMATION" and body["flow"] == "report_issue"
    assert body["stack"] == [{"flow": "report_issue", "state": "CONFIRMATION", "asking": None,
                              "slots": {"product": "phone", "issue_type": "damaged", "order_id": "123456"}}]
    assert body["slots"]["order_id"] == "123456" and body["sensitive"] == ["note"]
    assert body["clarification"] is None
    summary = body["summary"]
    assert "订单号 123456" in summary["facts"] and summary["confirmed"] == [] and summary["pending"] == []
    assert "123456" in summary["text"]
    entities = body["entities"]
    assert entities[0]["value"] == "123456"                      # the latest mention is the most salient
    assert [e["salience"] for e in entities] == sorted((e["salience"] for e in entities), reverse=True)
    machine = body["machine"]
    assert machine["flow"] == "report_issue" and machine["current"] == "CONFIRMATION"
    assert machine["states"] == ["IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION"]
    assert {"trigger": "confirm", "source": "CONFIRMATION", "dest": "EXECUTION"} in machine["transitions"]
    context = body["context"]
    assert 0 < sum(p["tokens"] for p in context["parts"]) <= context["used"] <= context["budget"]   # used: + priming
    assert {p["part"] for p in context["parts"]} >= {"system", "flow", "current"}
    last = body["last_turn"]
    assert last["trigger"] == "request_confirmation" and last["state"] == "CONFIRMATION" and last["latency_ms"] > 0
    assert [m["content"] for m in body["history"]][:1] == ["我上周买的手机屏幕碎了"]


def test_an_idle_session_shows_the_machine_of_its_last_flow(client: TestClient) -> None:
    for text in TICKET["en"][:3]:
        turn(client, "s1", text)
    machine = client.get("/v1/sessions/s1").json()["machine"]
    assert machine["flow"] == "report_issue" and machine["current"] == "IDLE"


def test_a_session_that_never_started_a_flow_has_a_bare_machine(client: TestClient) -> None:
    turn(client, "s1", "你好")
    machine = client.get("/v1/sessions/s1").json()["machine"]
    assert machine == {"flow": None, "description": None, "transitions": [], "current": "IDLE",
                       "states": ["IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION"]}


def test_context_and_stats(client: TestClient) -> None:
    turn(client, "s1", "my phone arrived broken")
    context = client.get("/v1/sessions/s1/context").json()
    assert context["messages"][0]["role"] == "system" and context["budget"] > 0
    assert sum(m["tokens"] for m in context["messages"]) <= context["used"]
    assert set(context["breakdown"]) == {m["part"] for m in context["messages"]}
    stats = client.get("/v1/sessions/s1/stats").json()
    assert stats["messages"] == 2 and stats["state"] == "PARAM_COLLECT" and stats["full_tokens"] > 0


def test_delete_a_session(client: TestClient) -> None:
    turn(client, "s1", "my phone arrived broken")
    assert client.delete("/v1/sessions/s1").json() == {"deleted": True, "messages": 2}
    assert client.get("/v1/sessions/s1").status_code == 404
    assert client.delete("/v1/sessions/s1").json()["error"]["code"] == "unknown_session"


def test_export_and_forget_a_user(trusted: TestClient) -> None:
    client = trusted
    turn(client, "s1", "我上周买的手机屏幕碎了", user_id="张三")
    turn(client, "s1", "123456", user_id="张三")
    document = client.get("/v1/users/张三/export").json()
    assert document["user_id"] == "张三" and [s["id"] for s in document["sessions"]] == ["s1"]
    counts = client.delete("/v1/users/张三").json()
    assert counts["sessions"] == 1 and counts["messages"] == 4
    assert client.get("/v1/users/张三/export").json()["error"]["code"] == "unknown_user"
    assert client.delete("/v1/users/张三").status_code == 404
    assert client.get("/v1/sessions/s1").status_code == 404


def test_describe_the_bot(client: TestClient, bot: Bot) -> None:
    body = client.get("/v1/bot").json()
    assert body["name"] == "support" and body["version"] == bot.loaded.version
    assert [f["name"] for f in body["flows"]] == list(bot.spec.flows)


def test_health_and_readiness(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready"}


def test_openapi_documents_the_routes(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/v1/sessions/{session_id}/turns", "/v1/sessions/{session_id}", "/v1/sessions/{session_id}/context",
                 "/v1/sessions/{session_id}/stats", "/v1/users/{user_id}/export", "/v1/users/{user_id}",
                 "/webhooks/rest/webhook", "/healthz", "/readyz", "/metrics"):
        assert path in paths, path
    assert "text" in client.get("/openapi.json").json()["components"]["schemas"]["TurnRequest"]["properties"]
    assert client.get("/docs").status_code == 200


def test_the_inspector_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    if not (STATIC_DIR / "index.html").is_file():
        assert page.status_code == 404 and page.json()["error"]["code"] == "not_found"
        return
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    asset = next(p for p in STATIC_DIR.rglob("*") if p.is_file() and p.name != "index.html")
    served = client.get("/static/" + asset.relative_to(STATIC_DIR).as_posix())
    assert served.status_code == 200 and served.content == asset.read_bytes()
    assert client.get("/static/no-such-file.js").json()["error"]["code"] == "not_found"


def test_static_files_stay_inside_their_folder(client: TestClient) -> None:
    response = client.get("/static/../../bot.py")
    assert response.status_code == 404 and b"import" not in response.content


def test_sensitive_values_are_masked(slow_bot_file: Path) -> None:
    with Bot.from_file(slow_bot_file, store="memory://") as bot, TestClient(create_app(bot)) as client:
        turn(client, "p1", "I want to pay")
        done = turn(client, "p1", "87654321")
        assert done["slots"] == {"card": "***"} and done["actions"][0]["inputs"]["card"] == "***"
        assert done["text"] == "Paid, receipt R-21."
        body = client.get("/v1/sessions/p1").json()
        assert "87654321" not in str(body) and body["sensitive"] == ["card"]
