"""``/export`` in ``dialogkit chat``: clear errors instead of a crash, no folder created, no file
replaced without ``--force``, atomic writes, JSON / CSV / text by extension, PII masked unless
``--raw`` (docs/cli.md, "/export")."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIALOGKIT = ROOT / ".venv" / "bin" / "dialogkit"
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
TURNS = {"zh": ["我上周买的手机屏幕碎了", "123456", "我的手机号是13812345678"],
         "en": ["my phone arrived broken", "123456", "my e-mail is amy@example.com"]}


def chat(lines: list[str], cwd: Path, user: str | None = None) -> str:
    extra = ["--user", user] if user else []
    result = subprocess.run(
        [str(DIALOGKIT), "chat", str(SUPPORT), "--store", "memory://", "--session", "pipe", *extra],
        input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=cwd, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.replace("\n", "")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_formats_by_extension_and_pii_masked(lang: str, tmp_path: Path) -> None:
    out = chat([*TURNS[lang], "/export a.json", "/export b.csv", "/export c.txt", "/export d --raw",
                "/exit"], tmp_path)
    assert out.count("exported to") == 4
    document = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert document["masked"] is True and document["messages"][0]["role"] == "system"
    contents = [m["content"] for m in document["messages"]]
    assert any(c.endswith("123456") for c in contents)                     # an order id is no phone
    for text in ((tmp_path / "a.json").read_text(encoding="utf-8"), (tmp_path / "b.csv").read_text(encoding="utf-8"),
                 (tmp_path / "c.txt").read_text(encoding="utf-8")):
        assert "13812345678" not in text and "amy@example.com" not in text
    with (tmp_path / "b.csv").open(encoding="utf-8", newline="") as handle:
        *rows, saved = list(csv.DictReader(handle))
    assert [r["number"] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]
    line = (tmp_path / "c.txt").read_text(encoding="utf-8").splitlines()[-1]
    assert line.startswith("Token saved: ") and saved["number"] == line          # the CSV ends as the text does
    assert line == f"Token saved: {document['token_saved']} ({document['saved_pct']:.1f}%)"
    assert document["token_saved"] == document["full_tokens"] - document["sent_tokens"]
    if document["token_saved"] < 0:                                            # a short chat: says what it means
        assert document["saved_pct"] < 0 and document["note"].startswith("negative: the window costs more")
    raw = json.loads((tmp_path / "d").read_text(encoding="utf-8"))
    assert raw["masked"] is False and TURNS[lang][2] in json.dumps(raw, ensure_ascii=False)


def test_mistakes_are_messages_and_the_chat_goes_on(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "kept.json").write_text("mine", encoding="utf-8")
    out = chat([*TURNS["en"][:1], "/export folder", "/export missing/x.json", "/export kept.json", "/export x.md",
                "/export", "/export a b", "/state"], tmp_path)
    assert "is a folder" in out and "does not exist" in out and "already exists" in out and "--force" in out
    assert "unknown format '.md'" in out and out.count("usage: /export FILE") == 2
    assert "state:" in out or "CONFIRMATION" in out or "SLOT_FILLING" in out        # still chatting
    assert not (tmp_path / "missing").exists() and (tmp_path / "kept.json").read_text(encoding="utf-8") == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "kept.json"]     # no temporary left


def test_force_replaces(tmp_path: Path) -> None:
    (tmp_path / "kept.json").write_text("mine", encoding="utf-8")
    out = chat([*TURNS["en"][:1], "/export kept.json --force", "/exit"], tmp_path)
    assert "exported to" in out
    assert json.loads((tmp_path / "kept.json").read_text(encoding="utf-8"))["session_id"] == "pipe"
