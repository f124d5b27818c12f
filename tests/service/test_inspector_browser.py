"""The inspector page at ``/`` in a real headless browser (Debian's chromium through Playwright).

The server is ``dialogkit serve`` in a subprocess on a free loopback port. A support
conversation is chatted in Chinese through the page, from the first message to the ticket,
with a screenshot at every stage (under test-artifacts/inspector/); user text that looks like
markup must show literally and never run; a server with a token makes the page ask for it once.
The page must not reach anything but its own server. The checks at the end read the shipped
files and need no browser.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dialogkit.service.operations import STATIC_DIR
from tests.service.browser.chromium import chromium_page, require_browser, screenshot
from tests.service.conftest import SUPPORT, TOKEN, Server

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(document.domain)">',
    '<b>粗体</b> & "引号" &lt;不是标签&gt;',
]


@pytest.fixture
def served(start_server: Callable[..., Server], tmp_path: Path) -> Server:
    require_browser()
    return start_server([str(SUPPORT), "--store", f"sqlite:///{tmp_path / 'sessions.db'}"])


def say(page: Any, text: str) -> None:
    """Type a message, press Enter, and wait for the bot's answer to it."""
    from playwright.sync_api import expect

    expect(page.locator("#send")).to_be_enabled()          # the page sends nothing while a turn is running
    answered = page.locator(".msg-bot:not(.typing)").count()
    page.fill("#text", text)
    page.press("#text", "Enter")
    page.locator(".msg-bot:not(.typing)").nth(answered).wait_for()


def test_a_support_conversation_in_chinese_from_first_message_to_ticket(served: Server) -> None:
    from playwright.sync_api import expect

    with chromium_page(served.url) as (page, watch):
        page.goto(served.url + "/?session=web-zh-1")
        state = page.locator("#state-badge")
        expect(page.locator("#bot-name")).to_have_text("support")
        expect(state).to_have_text("IDLE")
        expect(page.locator("#machine g.state")).to_have_count(5)
        screenshot(page, "01-empty")

        # a flow starts: the machine moves to PARAM_COLLECT and the bot asks for the order number
        say(page, "我上周买的手机屏幕碎了")
        expect(page.locator(".msg-user .bubble")).to_have_text(["我上周买的手机屏幕碎了"])
        expect(page.locator(".msg-bot .bubble").last).to_have_text("请提供您的订单号。")
        expect(state).to_have_text("PARAM_COLLECT")
        expect(page.locator("#machine g.state.current")).to_have_attribute("data-state", "PARAM_COLLECT")
        expect(page.locator("#machine g.state.before")).to_have_attribute("data-state", "IDLE")
        expect(page.locator("#machine path.edge.fired")).to_have_count(2)          # start_task, collect
        expect(page.locator("#slots tr[data-slot=product] .slot-value")).to_have_text("phone")
        expect(page.locator("#slots tr[data-slot=issue_type] .slot-value")).to_have_text("damaged")
        expect(page.locator("#slots tr[data-slot=order_id] .pill-ask")).to_have_text("asking")
        expect(page.locator("#stack .stack-flow")).to_have_text(["report_issue"])
        expect(page.locator("#summary [data-section=facts] li").first).to_be_visible()
        expect(page.locator("#entities li.entity[data-entity]").first).to_be_visible()
        expect(page.locator("#turn [data-stat=trigger] .stat-value")).to_have_text("collect")
        expect(page.locator("#turn .chip-trans")).to_have_text(["start_task", "collect"])
        expect(page.locator("#turn .chip-mem").first).to_be_visible()
        expect(page.locator("#turn [data-stat=latency] .stat-value")).to_have_text(re.compile(r"^[\d.]+ ms$"))
        expect(page.locator("#context tr[data-part=system] td.num")).to_have_text(re.compile(r"^[1-9]\d*$"))
        expect(page.locator("#context-note")).to_have_text(re.compile(r"^\d+ / \d+ tokens$"))
        screenshot(page, "02-flow-started")

        # the slot fills: every value is in, so the bot asks to confirm, with quick replies
        say(page, "123456")
        expect(state).to_have_text("CONFIRMATION")
        expect(page.locator("#slots tr[data-slot=order_id] .slot-value")).to_have_text("123456")
        expect(page.locator("#slots tr[data-slot=order_id] .pill-new")).to_have_text("new")
        expect(page.locator("#options button")).to_have_text(["确认", "取消"])
        expect(page.locator("#machine g.state.current")).to_have_attribute("data-state", "CONFIRMATION")
        screenshot(page, "03-confirmation")

        # the quick reply is clicked: the ticket is created and the session is back in IDLE
        page.locator("#options button", has_text="确认").click()
        expect(state).to_have_text("IDLE")
        expect(page.locator(".msg-user .bubble").last).to_have_text("确认")
        expect(page.locator(".msg-bot .bubble").last).to_have_text(re.compile(r"^已创建工单 T-\d+。$"))
        expect(page.locator("#options button")).to_have_count(0)
        expect(page.locator("#machine g.state.current")).to_have_attribute("data-state", "IDLE")
        expect(page.locator("#machine-flow")).to_contain_text("report_issue")
        expect(page.locator("#turn [data-stat=trigger] .stat-value")).to_have_text("complete")
        expect(page.locator("#turn .chip-act")).to_contain_text(["create_ticket"])
        expect(page.locator("#stack")).to_contain_text("idle")
        expect(page.locator("#summary [data-section=confirmed] li").first).to_be_visible()
        screenshot(page, "04-idle")
        screenshot(page, "04-idle-full", full_page=True)

        # the session opened again later shows the whole conversation from the store
        page.goto(served.url + "/?session=web-zh-1")
        expect(page.locator(".msg-user .bubble")).to_have_text(["我上周买的手机屏幕碎了", "123456", "确认"])
        expect(state).to_have_text("IDLE")

        assert watch.errors == [], watch.errors
        assert watch.dialogs == [], watch.dialogs
        assert watch.foreign == [], f"the page reached beyond its server: {watch.foreign}"


WHY = "#turn [data-testid=explain] li"


@pytest.mark.parametrize(("lang", "turns"), [
    ("zh", [("我的手机坏了", ["intent_keyword", "slot_offer", "slot_offer"]),
            ("12345", ["slot_offer"]),
            ("不对，是耳机", ["correction"]),
            ("确认", ["confirm"])]),
    ("en", [("my laptop arrived broken", ["intent_keyword", "slot_offer", "slot_offer"]),
            ("12345", ["slot_offer"]),
            ("no, it was the headphones", ["correction"]),
            ("yes", ["confirm"])]),
])
def test_the_last_turn_panel_says_why_the_bot_answered_so(served: Server, lang: str,
                                                          turns: list[tuple[str, list[str]]]) -> None:
    from playwright.sync_api import expect

    with chromium_page(served.url) as (page, watch):
        page.goto(served.url + f"/?session=web-why-{lang}")
        for text, rules in turns:
            say(page, text)
            expect(page.locator(WHY + " .chip-rule")).to_have_text(rules)
        expect(page.locator(WHY).first).to_contain_text("confirmed")
        say(page, "<b>取消</b>" if lang == "zh" else "<b>cancel</b>")
        # the user's words show as written, never as markup
        expect(page.locator(WHY + " .explain-words").first).to_contain_text("<b>")
        screenshot(page, f"why-{lang}")
        assert not watch.errors, watch.errors


def test_user_text_that_looks_like_markup_shows_literally_and_never_runs(served: Server) -> None:
    from playwright.sync_api import expect

    # The page's CSP would block inline scripts anyway; it is bypassed so that escaping is what is tested.
    with chromium_page(served.url, bypass_csp=True) as (page, watch):
        page.goto(served.url + "/?session=web-xss")
        for text in HOSTILE:
            say(page, text)
        expect(page.locator(".msg-user .bubble")).to_have_text(HOSTILE)
        assert page.locator("#messages img, #messages script, #messages b").count() == 0
        screenshot(page, "05-markup-shown-literally")

        page.goto(served.url + "/?session=web-xss")         # again, from the stored history
        expect(page.locator(".msg-user .bubble")).to_have_text(HOSTILE)
        assert page.locator("img, b, #messages script").count() == 0
        page.wait_for_timeout(300)                           # an onerror handler would have run by now

        assert watch.dialogs == [], f"user text ran as script: {watch.dialogs}"
        assert watch.errors == [], watch.errors


def test_a_server_with_a_token_makes_the_page_ask_for_it_once_in_english(start_server: Callable[..., Server]) -> None:
    require_browser()
    from playwright.sync_api import expect

    server = start_server([str(SUPPORT), "--store", "memory://", "--token", TOKEN])
    with chromium_page(server.url) as (page, watch):
        page.goto(server.url + "/?session=web-en-token")
        expect(page.locator("#token-form")).to_be_visible()
        page.fill("#text", "my order never arrived")
        page.press("#text", "Enter")
        expect(page.locator("#error")).to_contain_text("token")
        expect(page.locator(".msg-user")).to_have_count(0)         # not sent: back in the box
        expect(page.locator("#text")).to_have_value("my order never arrived")
        screenshot(page, "06-token-asked")

        page.fill("#token-input", TOKEN)
        page.locator("#token-form button").click()
        expect(page.locator(".msg-bot:not(.typing)")).to_have_count(1)   # the message went, once
        expect(page.locator(".msg-user .bubble")).to_have_text(["my order never arrived"])
        expect(page.locator(".msg-bot .bubble").last).to_have_text("What is your order number?")
        expect(page.locator("#token-form")).to_be_hidden()
        expect(page.locator("#error")).to_be_hidden()
        expect(page.locator("#bot-name")).to_have_text("support")

        say(page, "12345")                                         # not asked for the token again
        expect(page.locator("#options button")).to_have_text(["phone", "laptop", "headphones", "tablet"])
        page.locator("#options button", has_text="laptop").click()
        expect(page.locator("#state-badge")).to_have_text("CONFIRMATION")
        expect(page.locator("#slots tr[data-slot=product] .slot-value")).to_have_text("laptop")
        screenshot(page, "07-english-confirmation")
        page.locator("#options button").first.click()
        expect(page.locator("#state-badge")).to_have_text("IDLE")
        expect(page.locator(".msg-bot .bubble").last).to_have_text(re.compile(r"^Ticket T-\d+ has been created\.$"))
        expect(page.locator("#token-form")).to_be_hidden()
        assert watch.errors == [] and watch.dialogs == [] and watch.foreign == []


# ---- the shipped files (no browser needed) ---------------------------------------------------------------

def shipped(*suffixes: str) -> list[Path]:
    found = sorted(p for p in STATIC_DIR.rglob("*") if p.suffix in (suffixes or (".html", ".js", ".css")))
    assert found
    return found


def test_every_asset_the_page_loads_ships_in_the_package() -> None:
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    referenced = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert referenced, "index.html references no asset"
    for ref in referenced:
        if ref.startswith("data:"):
            continue
        assert not re.match(r"^(?:[a-z]+:)?//", ref), f"index.html loads {ref} from elsewhere"
        assert ref.startswith("static/"), ref
        assert (STATIC_DIR / ref.removeprefix("static/")).is_file(), f"{ref} is not in the package"
    for path in shipped():
        urls = set(re.findall(r"https?://[^\s\"')]+", path.read_text(encoding="utf-8"))) - {"http://www.w3.org/2000/svg"}
        assert not urls, f"{path.name} refers to {urls}"


def test_the_page_never_parses_text_as_html_and_forbids_inline_script() -> None:
    for path in shipped(".js"):
        script = path.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                     "setAttribute(\"on", "DOMParser", "createContextualFragment"):
            assert sink not in script, f"{path.name} uses {sink}"
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy"\s+content="([^"]+)"', page)
    assert policy is not None
    assert "script-src 'self'" in policy.group(1) and "unsafe-inline" not in policy.group(1)
    assert "<script>" not in page and re.search(r"<[^>]*\s(?:on[a-z]+|style)=", page) is None
