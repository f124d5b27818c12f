"""The chat widget (``static/widget.js``) on a page of another site, in a real headless browser.

``dialogkit serve`` runs in a subprocess with a ``chat`` key and the shop's origin allowed; the shop
is a page on another loopback port whose one script tag loads the widget from the server. A
support conversation runs to a ticket in Chinese and in English, typed and with the quick reply
clicked; the widget's words follow the reply's language; a reload and a server restart go on with
the same conversation; the typing indicator shows while a turn is in flight. Screenshots go to
test-artifacts/inspector/widget-*.png (docs/widget.png is one of them).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from dialogkit.service.keys import digest
from dialogkit.service.widget import ORIGINS_ENV
from tests.service import conftest
from tests.service.browser.chromium import chromium_page, require_browser, screenshot
from tests.service.conftest import SUPPORT, Server

KEY = "widget-chat-key-0001"
BOT = ".dk-msg.dk-bot:not(.dk-typing) .dk-bubble"
USER = ".dk-msg.dk-user .dk-bubble"
SHOP_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>Shop</title></head>
<body style="font-family: sans-serif; margin: 40px; background: #fafafa">
<h1>{heading}</h1><p>{text}</p>
<script src="{server}/static/widget.js" data-dialogkit-key="{key}"{title} defer></script>
</body></html>
"""


@dataclass
class Shop:
    """A site of its own (another port, so another origin) whose pages carry the widget's script tag."""

    root: Path
    port: int

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def page(self, name: str, server: Server, *, lang: str, title: str | None = None) -> str:
        heading, text = ("小店", "欢迎光临。") if lang == "zh" else ("The shop", "Welcome.")
        shown = f' data-title="{title}"' if title else ""
        (self.root / name).write_text(SHOP_PAGE.format(lang=lang, heading=heading, text=text, server=server.url,
                                                       key=KEY, title=shown), encoding="utf-8")
        return f"{self.origin}/{name}"


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[Shop]:
    root = tmp_path / "shop"
    root.mkdir()
    handler = functools.partial(_Quiet, directory=str(root))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield Shop(root, int(httpd.server_address[1]))
    httpd.shutdown()
    httpd.server_close()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve_widget(start_server: Callable[..., Server], shop: Shop, store: str) -> Server:
    require_browser()
    env = {"DIALOGKIT_API_KEYS": f"widget sha256:{digest(KEY)} chat", ORIGINS_ENV: shop.origin}
    return start_server([str(SUPPORT), "--store", store], env)


def say(page: Any, text: str) -> None:
    """Type a message, press Enter, and wait for the bot's answer to it."""
    from playwright.sync_api import expect

    expect(page.locator(".dk-send")).to_be_enabled()
    answered = page.locator(BOT).count()
    page.fill(".dk-input", text)
    page.press(".dk-input", "Enter")
    page.locator(BOT).nth(answered).wait_for()


def click_option(page: Any, text: str) -> None:
    from playwright.sync_api import expect

    answered = page.locator(BOT).count()
    button = page.locator(".dk-option", has_text=text)
    expect(button).to_be_enabled()
    button.click()
    page.locator(BOT).nth(answered).wait_for()


def assert_clean(watch: Any, *origins: str) -> None:
    foreign = [url for url in watch.foreign if not any(url.startswith(o + "/") for o in origins)]
    assert watch.errors == [], watch.errors
    assert foreign == [], f"the widget reached beyond its server: {foreign}"


def test_a_chinese_conversation_to_a_ticket_from_a_page_of_another_site(
        start_server: Callable[..., Server], shop: Shop, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    server = serve_widget(start_server, shop, f"sqlite:///{tmp_path / 'sessions.db'}")
    url = shop.page("zh.html", server, lang="en", title="售后服务")        # an English page: the words follow the bot
    with chromium_page(server.url) as (page, watch):
        page.goto(url)
        expect(page.locator(".dk-launcher")).to_be_visible()
        screenshot(page, "widget-01-closed")
        page.locator(".dk-launcher").click()
        expect(page.locator("#dialogkit-widget")).to_have_attribute("data-connection", "open")
        expect(page.locator(".dk-title")).to_have_text("售后服务")
        expect(page.locator(".dk-input")).to_have_attribute("placeholder", "Type a message…")

        say(page, "我上周买的手机屏幕碎了")
        expect(page.locator(BOT).last).to_have_text("请提供您的订单号。")
        expect(page.locator(".dk-input")).to_have_attribute("placeholder", "输入消息…")   # the reply's language
        expect(page.locator(".dk-send")).to_have_text("发送")
        say(page, "123456")
        expect(page.locator(BOT).last).to_have_text("将为订单 123456（手机，损坏）创建工单，确认吗？")
        expect(page.locator(".dk-option")).to_have_text(["确认", "取消"])
        screenshot(page, "widget-02-zh-confirmation")
        page.locator(".dk-panel").screenshot(path=str(screenshot(page, "widget-02-zh-panel")))   # docs/widget.png

        page.reload()                                   # the same conversation, from the server's history
        expect(page.locator("#dialogkit-widget")).to_have_attribute("data-connection", "open")
        expect(page.locator(USER)).to_have_text(["我上周买的手机屏幕碎了", "123456"])
        expect(page.locator(".dk-option")).to_have_text(["确认", "取消"])
        click_option(page, "确认")
        expect(page.locator(USER).last).to_have_text("确认")
        expect(page.locator(BOT).last).to_have_text(re.compile(r"^已创建工单 T-\d+。$"))
        expect(page.locator(".dk-option")).to_have_count(0)
        screenshot(page, "widget-03-zh-ticket")
        assert_clean(watch, shop.origin)


def test_an_english_conversation_to_a_ticket_with_the_quick_replies(
        start_server: Callable[..., Server], shop: Shop) -> None:
    from playwright.sync_api import expect

    server = serve_widget(start_server, shop, "memory://")
    url = shop.page("en.html", server, lang="zh")                       # a Chinese page, an English visitor
    with chromium_page(server.url) as (page, watch):
        page.goto(url)
        page.locator(".dk-launcher").click()
        expect(page.locator(".dk-title")).to_have_text("在线客服")
        say(page, "my phone arrived broken")
        expect(page.locator(BOT).last).to_have_text("What is your order number?")
        expect(page.locator(".dk-title")).to_have_text("Chat with us")
        expect(page.locator(".dk-input")).to_have_attribute("placeholder", "Type a message…")
        say(page, "12345")
        expect(page.locator(".dk-option")).to_have_text(["yes", "no"])
        screenshot(page, "widget-04-en-confirmation")
        click_option(page, "yes")
        expect(page.locator(BOT).last).to_have_text(re.compile(r"^Ticket T-\d+ has been created\.$"))
        expect(page.locator(USER)).to_have_text(["my phone arrived broken", "12345", "yes"])
        assert_clean(watch, shop.origin)


def test_the_widget_reconnects_to_a_restarted_server_and_goes_on(
        start_server: Callable[..., Server], shop: Shop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from playwright.sync_api import expect

    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    server = serve_widget(start_server, shop, store)
    url = shop.page("restart.html", server, lang="en")
    with chromium_page(server.url) as (page, watch):
        page.goto(url)
        page.locator(".dk-launcher").click()
        say(page, "my phone arrived broken")
        expect(page.locator(BOT).last).to_have_text("What is your order number?")

        server.stop()                                       # the socket closes: the widget says so and retries
        widget = page.locator("#dialogkit-widget")
        expect(widget).to_have_attribute("data-connection", "reconnecting")
        expect(page.locator(".dk-status")).to_have_text("Disconnected, reconnecting…")
        expect(page.locator(".dk-send")).to_be_disabled()
        screenshot(page, "widget-05-reconnecting")

        monkeypatch.setattr(conftest, "free_port", lambda: server.port)    # the same address again
        serve_widget(start_server, shop, store)
        expect(widget).to_have_attribute("data-connection", "open", timeout=30_000)
        expect(page.locator(".dk-status")).to_be_hidden()
        say(page, "12345")                                  # the same session: the order number fills its slot
        expect(page.locator(".dk-option")).to_have_text(["yes", "no"])
        click_option(page, "yes")
        expect(page.locator(BOT).last).to_have_text(re.compile(r"^Ticket T-\d+ has been created\.$"))
        expect(page.locator(USER)).to_have_text(["my phone arrived broken", "12345", "yes"])
        assert watch.errors == [], watch.errors


@pytest.mark.parametrize(("start", "card"), [("我要付款", "12345678"), ("I want to pay", "87654321")])
def test_the_typing_indicator_shows_while_a_turn_is_in_flight(
        start_server: Callable[..., Server], shop: Shop, slow_bot_file: Path, start: str, card: str) -> None:
    from playwright.sync_api import expect

    require_browser()
    env = {"DIALOGKIT_API_KEYS": f"widget sha256:{digest(KEY)} chat", ORIGINS_ENV: shop.origin, "SLOW_S": "1.5"}
    server = start_server([str(slow_bot_file), "--store", "memory://"], env, slow_bot_file.parent)
    url = shop.page("slow.html", server, lang="en")
    with chromium_page(server.url) as (page, watch):
        page.goto(url)
        page.locator(".dk-launcher").click()
        say(page, start)
        typing = page.locator(".dk-typing")
        expect(typing).to_have_count(0)
        page.fill(".dk-input", card)
        page.press(".dk-input", "Enter")
        expect(typing).to_be_visible()                      # the action takes 1.5 s
        expect(page.locator(".dk-send")).to_be_disabled()
        if start.startswith("我"):
            screenshot(page, "widget-06-typing")
        expect(typing).to_have_count(0, timeout=10_000)
        expect(page.locator(BOT).last).to_contain_text(card[-2:])
        expect(page.locator(".dk-send")).to_be_enabled()
        assert_clean(watch, shop.origin)


def test_a_page_of_a_site_not_allowed_is_refused_and_says_so(
        start_server: Callable[..., Server], shop: Shop) -> None:
    from playwright.sync_api import expect

    require_browser()
    server = start_server([str(SUPPORT), "--store", "memory://"], {"DIALOGKIT_API_KEYS": f"w sha256:{digest(KEY)} chat"})
    url = shop.page("other.html", server, lang="en")
    with chromium_page(server.url) as (page, watch):
        page.goto(url)
        page.locator(".dk-launcher").click()
        expect(page.locator("#dialogkit-widget")).to_have_attribute("data-connection", "refused")
        expect(page.locator(".dk-status")).to_contain_text(shop.origin)
        page.wait_for_timeout(1500)                          # and it does not knock again
        expect(page.locator("#dialogkit-widget")).to_have_attribute("data-connection", "refused")
        assert watch.errors == [], watch.errors
