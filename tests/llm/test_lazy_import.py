"""Heavy dependencies load only when used: openai when a client is built, never for a rule-based bot.

Each check runs in a fresh interpreter, since this test process has long imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
HEAVY = ("openai", "tiktoken", "redis", "fastapi", "uvicorn", "cryptography")
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
TURNS = {"zh": ["我的手机屏幕碎了", "123456"], "en": ["my phone arrived broken", "123456"]}


def loaded_after(code: str) -> list[str]:
    """The HEAVY modules a fresh interpreter holds after running ``code`` (no API key set)."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "DIALOGKIT_SECRET_KEY")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


def test_importing_the_llm_modules_does_not_load_openai() -> None:
    """The client and command modules import; the SDK waits for the first client."""
    assert "openai" not in loaded_after("import dialogkit.llm.client, dialogkit.llm.commands")


@LANGS
def test_a_rule_based_bot_never_loads_openai(lang: str) -> None:
    """No llm section: construction and whole turns go by without the SDK."""
    code = (f"from dialogkit.bot import Bot\nbot = Bot.from_file({str(SUPPORT)!r}, store='memory://')\n"
            f"for text in {TURNS[lang]!r}:\n    bot.handle('s', text)")
    assert "openai" not in loaded_after(code)


def test_an_llm_section_without_a_key_never_loads_openai() -> None:
    """A spec without a key stays rule-based, so it does not pay for the SDK either."""
    code = (f"from dialogkit.bot import Bot\n"
            f"bot = Bot.from_file({str(SUPPORT)!r}, store='memory://', llm={{'model': 'gpt-4o-mini'}})\n"
            "assert bot.llm is None")
    assert "openai" not in loaded_after(code)


def test_validate_loads_no_llm_token_store_or_service_stack() -> None:
    """``dialogkit validate`` needs the bot file and its actions, none of the heavy stacks."""
    code = (f"import sys\nfrom dialogkit.cli import main\nsys.argv = ['dialogkit', 'validate', {str(SUPPORT)!r}]\n"
            "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code")
    assert loaded_after(code) == []


@LANGS
def test_a_bot_on_sqlite_without_a_secret_key_never_loads_cryptography(lang: str, tmp_path: Path) -> None:
    """Sealing rows needs cryptography only when DIALOGKIT_SECRET_KEY is set (about 8 MB a worker)."""
    code = (f"from dialogkit.bot import Bot\n"
            f"bot = Bot.from_file({str(SUPPORT)!r}, store='sqlite:///{tmp_path / 'b.db'}')\n"
            f"for text in {TURNS[lang]!r}:\n    bot.handle('s', text)")
    assert "cryptography" not in loaded_after(code)
