"""Rate limits (docs/serving.md, "Rate limits"): a token bucket per key and per session; a limited
request gets 429 ``rate_limited`` with ``Retry-After`` in whole seconds; the buckets refill with
time (a fake clock here, no sleeping), hold across workers on Redis, and CORS lets a widget on an
allowed origin call the API."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
import structlog
from fastapi.testclient import TestClient
from httpx import Response

from dialogkit import Bot
from dialogkit.errors import DialogkitError
from dialogkit.service import ServiceSettings, create_app
from dialogkit.service.keys import KeysError, digest, parse_keys
from dialogkit.service.limits import MemoryBuckets
from dialogkit.service.rates import DEFAULT_KEY_RATE, DEFAULT_SESSION_RATE, Limits, LimitsError, Rate, limits_from
from dialogkit.service.server import OPTIONS_ENV, ServeOptions, app_from_environment, check_options, max_body

from .conftest import REDIS_URL, SUPPORT, needs_redis

WIDGET, BACKEND, OPS = "widget-key-0001", "backend-key-0002", "ops-key-0003"
KEYS = parse_keys(f"""widget  sha256:{digest(WIDGET)}  chat
backend sha256:{digest(BACKEND)} chat,users rate=off
ops     sha256:{digest(OPS)}     admin,inspector rate=1/min burst=2
""", "keys.txt")
FIRST = {"zh": "我上周买的手机屏幕碎了", "en": "my phone arrived broken"}
SHOP = "https://shop.example"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def app_client(bot: Bot, limits: Limits, clock: Clock | None = None, key: str = WIDGET,
               origins: tuple[str, ...] = ()) -> TestClient:
    settings = ServiceSettings(keys=KEYS, limits=limits, limits_clock=clock, widget_origins=origins)
    return TestClient(create_app(bot, settings), headers={"Authorization": f"Bearer {key}"})


def turn(client: TestClient, session_id: str, text: str) -> Response:
    return client.post(f"/v1/sessions/{session_id}/turns", json={"text": text})


def assert_limited(response: Response) -> None:
    assert response.status_code == 429, response.text
    assert response.json()["error"]["code"] == "rate_limited"
    retry = response.headers["retry-after"]
    assert retry.isdigit() and int(retry) >= 1


# ---- the bucket --------------------------------------------------------------------------------

def test_a_bucket_lets_its_burst_through_then_refills_with_time() -> None:
    clock = Clock()
    buckets = MemoryBuckets(clock)
    rate = [("key:widget", Rate(0.5, 3))]
    waits = [asyncio.run(buckets.take(rate)) for _ in range(5)]
    assert waits[:3] == [0, 0, 0] and waits[3] == waits[4] == pytest.approx(2.0)   # a token every 2 s
    clock.now += 1.0
    assert asyncio.run(buckets.take(rate)) == pytest.approx(1.0)
    clock.now += 1.0
    assert asyncio.run(buckets.take(rate)) == 0
    clock.now += 60
    assert [asyncio.run(buckets.take(rate)) for _ in range(4)][:3] == [0, 0, 0]        # never above the burst


def test_a_request_takes_from_every_bucket_or_from_none() -> None:
    buckets = MemoryBuckets(Clock())
    key, session = ("key:widget", Rate(1, 5)), ("session:s1", Rate(1, 1))
    assert asyncio.run(buckets.take([key, session])) == 0
    assert asyncio.run(buckets.take([key, session])) > 0         # the session's is empty: the key's kept its token
    assert [asyncio.run(buckets.take([key])) for _ in range(5)] == [0, 0, 0, 0, 1.0]


# ---- over HTTP ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
def test_five_quick_requests_with_a_burst_of_three_get_two_429s(bot: Bot, lang: str) -> None:
    clock = Clock()
    with app_client(bot, Limits(key=Rate(0.5, 3)), clock) as client:
        answers = [turn(client, f"s{n}-{lang}", FIRST[lang]) for n in range(5)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
        assert_limited(answers[3])
        assert answers[3].headers["retry-after"] == "2"
        clock.now += 2.0                                          # the bucket refills
        assert turn(client, f"s5-{lang}", FIRST[lang]).status_code == 200
        assert_limited(turn(client, f"s6-{lang}", FIRST[lang]))
        errors = client.get("/metrics", headers={"Authorization": f"Bearer {OPS}"}).text
        assert 'dialogkit_errors_total{code="rate_limited"} 3.0' in errors


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_session_has_its_own_bucket(bot: Bot, lang: str) -> None:
    with app_client(bot, Limits(session=Rate(0.1, 2)), Clock()) as client:
        assert [turn(client, f"a-{lang}", FIRST[lang]).status_code for _ in range(3)] == [200, 200, 429]
        assert turn(client, f"b-{lang}", FIRST[lang]).status_code == 200
        assert client.get(f"/v1/sessions/a-{lang}", headers={"Authorization": f"Bearer {OPS}"}).status_code == 200


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_widgets_socket_takes_from_the_same_buckets_and_goes_on(bot: Bot, lang: str) -> None:
    """The widget's key comes in its hello, not a header the middleware sees: its turns are limited
    all the same, each refusal an error message with retry_after, the conversation left open."""
    with app_client(bot, Limits(key=Rate(0.5, 5), session=Rate(0.1, 2)), Clock()) as client:
        with client.websocket_connect("/v1/ws") as ws:
            ws.send_json({"type": "hello", "key": WIDGET, "session_id": f"ws-{lang}"})
            assert ws.receive_json()["type"] == "ready"
            answers = []
            for _ in range(3):
                ws.send_json({"type": "turn", "text": FIRST[lang]})
                answers.append(ws.receive_json())
            assert [a["type"] for a in answers] == ["reply", "reply", "error"]
            assert answers[2]["error"]["code"] == "rate_limited" and answers[2]["retry_after"] >= 1
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"
        assert turn(client, f"ws-{lang}", FIRST[lang]).status_code == 429    # one session, one bucket


def test_the_rasa_channel_takes_its_senders_bucket_after_reading_the_body(bot: Bot) -> None:
    with app_client(bot, Limits(session=Rate(0.1, 2)), Clock()) as client:
        def say(sender: str) -> Response:
            return client.post("/webhooks/rest/webhook", json={"sender": sender, "message": FIRST["en"]})

        first = [say("visitor-1").status_code for _ in range(3)]
        assert first == [200, 200, 429]
        assert_limited(say("visitor-1"))
        assert say("visitor-2").status_code == 200


def test_a_key_may_set_its_own_rate_or_none(bot: Bot) -> None:
    with app_client(bot, Limits(key=Rate(0.5, 1)), Clock(), key=BACKEND) as backend:
        assert {turn(backend, f"b{n}", FIRST["zh"]).status_code for n in range(5)} == {200}   # rate=off
    with app_client(bot, Limits(key=Rate(100, 100)), Clock(), key=OPS) as ops:
        answers = [ops.get("/v1/bot").status_code for _ in range(3)]
        assert answers == [200, 200, 429]                             # its own: 1/min, burst 2


def test_health_checks_and_the_page_are_never_limited(bot: Bot) -> None:
    with app_client(bot, Limits(key=Rate(0.01, 1)), Clock()) as client:
        assert {client.get("/healthz").status_code for _ in range(5)} == {200}
        assert {client.get("/").status_code for _ in range(3)} == {200}


def test_an_open_server_limits_by_client_address_when_told_to(bot: Bot) -> None:
    app = create_app(bot, ServiceSettings(limits=Limits(key=Rate(0.5, 2)), limits_clock=Clock()))
    with TestClient(app) as client:
        assert [turn(client, f"o{n}", FIRST["en"]).status_code for n in range(3)] == [200, 200, 429]


# ---- across workers ----------------------------------------------------------------------------

@needs_redis
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_two_workers_on_redis_share_the_buckets(lang: str) -> None:
    """Two apps, as two workers are, on one Redis prefix: five requests spread over them, with a
    burst of three, still get two 429s; and the session's bucket is shared the same way."""
    store = f"{REDIS_URL}?prefix=dk-limits-{uuid.uuid4().hex[:8]}:"
    with Bot.from_file(SUPPORT, store=store) as one, Bot.from_file(SUPPORT, store=store) as two:
        limits = Limits(key=Rate(1 / 60, 3), session=Rate(1 / 60, 2))
        with app_client(one, limits) as first, app_client(two, limits) as second:
            workers = [first, second, first, second, first]
            answers = [turn(worker, f"r{n}-{lang}", FIRST[lang]) for n, worker in enumerate(workers)]
            assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
            assert_limited(answers[4])
            assert int(answers[4].headers["retry-after"]) > 1        # a token a minute
        with app_client(one, Limits(session=Rate(1 / 60, 2))) as first, \
                app_client(two, Limits(session=Rate(1 / 60, 2))) as second:
            codes = [turn(worker, f"shared-{lang}", FIRST[lang]).status_code for worker in (first, second, first)]
            assert codes == [200, 200, 429]
            assert turn(second, f"other-{lang}", FIRST[lang]).status_code == 200


# ---- CORS --------------------------------------------------------------------------------------

def preflight(client: TestClient, origin: str) -> Response:
    return client.options("/v1/sessions/s1/turns", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type"})


def test_a_preflight_is_answered_for_an_allowed_origin_only(bot: Bot) -> None:
    with app_client(bot, Limits(key=Rate(0.5, 1)), Clock(), origins=(SHOP,)) as client:
        allowed = preflight(client, SHOP)
        assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == SHOP
        assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
        other = preflight(client, "https://evil.example")
        assert other.status_code == 400 and "access-control-allow-origin" not in other.headers
        assert turn(client, "s1", FIRST["zh"]).status_code == 200      # preflights took no token
        limited = client.post("/v1/sessions/s1/turns", json={"text": FIRST["zh"]}, headers={"Origin": SHOP})
        assert_limited(limited)                                      # and the page can read why
        assert limited.headers["access-control-allow-origin"] == SHOP
        assert "retry-after" in limited.headers["access-control-expose-headers"].lower()


def test_without_origins_no_preflight_is_answered(bot: Bot) -> None:
    with app_client(bot, Limits()) as client:
        answer = preflight(client, SHOP)
        assert answer.status_code != 200 and "access-control-allow-origin" not in answer.headers


# ---- configuration -----------------------------------------------------------------------------

def test_the_defaults_hold_on_a_server_with_keys_and_none_on_an_open_one() -> None:
    assert limits_from({}, {}, keys=True) == Limits(DEFAULT_KEY_RATE, DEFAULT_SESSION_RATE)
    assert limits_from({}, {}, keys=False) == Limits()
    env = {"DIALOGKIT_SESSION_RATE": "30/min", "DIALOGKIT_KEY_RATE": "off"}
    assert limits_from({"session_burst": 4}, env, keys=False) == Limits(None, Rate(0.5, 4))
    assert limits_from({"key_rate": "5/s"}, env, keys=True) == Limits(Rate(5, 200), Rate(0.5, 10))


@pytest.mark.parametrize(("given", "says"), [
    ({"key_rate": "fast"}, "--key-rate: a rate is a number of requests per second"),
    ({"session_burst": "0"}, "--session-burst: a burst is a whole number"),
    ({"key_rate": "5/week"}, "--key-rate"),
])
def test_a_bad_rate_is_refused_with_where_it_was_given(given: dict[str, str], says: str) -> None:
    with pytest.raises(LimitsError, match=says):
        limits_from(given, {}, keys=True)


def test_a_keys_file_line_sets_a_rate_and_a_burst() -> None:
    widget, backend, ops = KEYS
    assert (widget.rate, widget.burst) == (None, None)
    assert (backend.rate, backend.burst) == (0.0, None)
    assert ops.rate == pytest.approx(1 / 60) and ops.burst == 2 and ops.scopes == {"admin", "inspector"}
    with pytest.raises(KeysError, match=r"keys.txt, line 1, column 85: .*rate is a number"):
        parse_keys(f"widget sha256:{digest(WIDGET)} chat rate=lots", "keys.txt")
    with pytest.raises(KeysError, match=r"line 1, column \d+: unknown setting 'speed'"):
        parse_keys(f"widget sha256:{digest(WIDGET)} chat speed=3", "keys.txt")


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("DIALOGKIT_KEY_RATE", "DIALOGKIT_SESSION_RATE", "DIALOGKIT_KEY_BURST", "DIALOGKIT_SESSION_BURST"):
        monkeypatch.delenv(name, raising=False)
    yield




# ---- dialogkit serve ---------------------------------------------------------------------------

def test_dialogkit_serve_refuses_a_bad_rate_before_serving() -> None:
    with pytest.raises(LimitsError, match="--key-rate: a rate is a number"):
        check_options(ServeOptions(bot_file=str(SUPPORT), store="memory://", key_rate="fast"))
    with pytest.raises(DialogkitError, match="DIALOGKIT_MAX_BODY must be a whole number"):
        max_body(ServeOptions(bot_file=str(SUPPORT)), env={"DIALOGKIT_MAX_BODY": "64k"})


def test_a_worker_serves_with_the_limits_body_limit_and_origins_of_its_options(
        monkeypatch: pytest.MonkeyPatch) -> None:
    options = ServeOptions(bot_file=str(SUPPORT), store="memory://", token=WIDGET, session_burst=1,
                           session_rate="1/min", max_body=100, allow_origins=SHOP)
    monkeypatch.setenv(OPTIONS_ENV, options.to_env())
    saved = structlog.get_config()
    app = app_from_environment()
    structlog.configure(**saved)
    try:
        client = TestClient(app, headers={"Authorization": f"Bearer {WIDGET}"})     # no lifespan: no gc.freeze
        assert turn(client, "w1", FIRST["zh"]).status_code == 200
        assert_limited(turn(client, "w1", FIRST["zh"]))
        assert turn(client, "w2", "x" * 200).status_code == 413
        assert preflight(client, SHOP).headers["access-control-allow-origin"] == SHOP
    finally:
        app.state.service.bot.close()
