"""Debian's ``chromium`` driven by Playwright's Python API, for the inspector page's tests.

Playwright's own browser download is never used (``playwright install`` is not run): the
system's chromium is launched by path, headless, with a fresh profile, and with every
background service that would reach the network turned off. Where playwright or chromium is
missing the tests skip with the reason, unless ``DIALOGKIT_REQUIRE_BROWSER=1`` (set by CI) makes
that a failure, so the page can never go untested there by accident.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = Path(os.environ.get("DIALOGKIT_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(os.environ.get("DIALOGKIT_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "inspector"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]
VIEWPORT = {"width": 1440, "height": 900}
INSTALL = ("apt-get install -y chromium fonts-noto-cjk && pip install 'playwright>=1.45' "
           "(never 'playwright install')")


def missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return f"playwright is not installed: {INSTALL}"
    if not CHROMIUM.exists():
        return f"no chromium at {CHROMIUM} (set DIALOGKIT_CHROMIUM): {INSTALL}"
    return None


def require_browser() -> None:
    reason = missing()
    if reason is None:
        return
    if os.environ.get("DIALOGKIT_REQUIRE_BROWSER") == "1":
        pytest.fail(f"DIALOGKIT_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@dataclass
class Watch:
    """What the page did that a test asserts never happens: script errors, dialogs, requests off the server."""

    origin: str
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("dialog", self._dialog)
        page.on("request", self._request)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def _request(self, request: Any) -> None:
        url = str(request.url)
        if not (url.startswith(self.origin + "/") or url.startswith("data:")):
            self.foreign.append(url)


@contextmanager
def chromium_page(origin: str, **context_options: Any) -> Iterator[tuple[Any, Watch]]:
    """A page in a fresh headless chromium profile, and the watch over it."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="dialogkit-chromium-") as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), headless=True, args=FLAGS, viewport=VIEWPORT,
            locale="zh-CN", **context_options)
        try:
            context.set_default_timeout(15_000)
            page = context.pages[0] if context.pages else context.new_page()
            watch = Watch(origin)
            watch.attach(page)
            yield page, watch
        finally:
            context.close()


def screenshot(page: Any, name: str, *, full_page: bool = False) -> Path:
    """Save a screenshot under the artifacts folder (``DIALOGKIT_TEST_ARTIFACTS``, default test-artifacts/)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
