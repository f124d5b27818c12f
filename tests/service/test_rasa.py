"""The Rasa REST channel, with the request and response shapes of Rasa's documentation:

    POST /webhooks/rest/webhook  {"sender": "test_user", "message": "Hi there!"}
    -> [{"recipient_id": "test_user", "text": "..."},
        {"recipient_id": "test_user", "text": "...", "buttons": [{"title": "...", "payload": "..."}]}]

``buttons`` appears only on a message that has some (Rasa leaves empty keys out).
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

CONVERSATION = {
    "zh": [("我上周买的手机屏幕碎了", "请提供您的订单号。", None),
           ("123456", "将为订单 123456", ["确认", "取消"]),
           ("确认", "已创建工单", None)],
    "en": [("my phone arrived broken", "What is your order number?", None),
           ("12345", "I'll open a ticket for order 12345", ["yes", "no"]),
           ("yes", "has been created", None)],
}


def post(client: TestClient, sender: str, message: str) -> list[dict]:
    response = client.post("/webhooks/rest/webhook", json={"sender": sender, "message": message})
    assert response.status_code == 200, response.text
    body = response.json()
    assert isinstance(body, list)
    return body


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_widget_chats_through_the_rasa_channel(client: TestClient, language: str) -> None:
    for message, expected, buttons in CONVERSATION[language]:
        (answer,) = post(client, "test_user", message)
        assert answer["recipient_id"] == "test_user" and expected in answer["text"]
        if buttons is None:
            assert set(answer) == {"recipient_id", "text"}
        else:
            assert set(answer) == {"recipient_id", "text", "buttons"}
            assert answer["buttons"] == [{"title": b, "payload": b} for b in buttons]


def test_a_button_payload_sent_back_is_understood(client: TestClient) -> None:
    post(client, "visitor-42", "my phone arrived broken")
    (question,) = post(client, "visitor-42", "12345")
    (done,) = post(client, "visitor-42", question["buttons"][0]["payload"])
    assert "has been created" in done["text"]


def test_the_sender_is_the_session(client: TestClient) -> None:
    post(client, "visitor-42", "我上周买的手机屏幕碎了")
    session = client.get("/v1/sessions/visitor-42").json()
    assert session["state"] == "PARAM_COLLECT" and session["user_id"] is None     # a session, never a user
    post(client, "visitor-43", "123456")                        # another sender's answer is not this one's
    assert client.get("/v1/sessions/visitor-43").json()["state"] != "CONFIRMATION"
    assert client.get("/v1/sessions/visitor-42").json()["slots"].get("order_id") is None


def test_metadata_is_accepted(client: TestClient) -> None:
    response = client.post("/webhooks/rest/webhook",
                           json={"sender": "u1", "message": "hi", "metadata": {"page": "/orders"}})
    assert response.status_code == 200 and response.json()[0]["recipient_id"] == "u1"


@pytest.mark.parametrize("body", [{"message": "hi"}, {"sender": "u1"}, {"sender": "u 1", "message": "hi"}])
def test_a_bad_rasa_message_is_refused(client: TestClient, body: dict) -> None:
    response = client.post("/webhooks/rest/webhook", json=body)
    assert response.status_code == 422 and response.json()["error"]["code"] in ("invalid_request", "invalid_id")


def test_the_channel_root_answers_as_rasa_does(client: TestClient) -> None:
    assert client.get("/webhooks/rest/").json() == {"status": "ok"}
