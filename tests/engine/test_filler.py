"""Filler in the rounds the window sends again (``context.drop_filler``): a long earlier message
keeps each clause the bot reads something in, and one "…" stands for each run of the others."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dialogkit import Bot
from dialogkit.engine import filler
from dialogkit.engine.filler import ELLIPSIS, FillerTrim, clauses
from dialogkit.spec.schema import ContextSpec
from dialogkit.strings.limits import MAX_STORED_CHARS
from dialogkit.strings.redaction import MASK

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])

COURTESY = {
    "zh": ["我是你们店的老顾客了，平时经常在这里给家里人买礼物，也推荐过好几个朋友来买东西",
           "客服之前的态度一直很好，麻烦你们多费心帮我看一看，你们的网站最近改版以后找东西方便多了"],
    "en": ["I have been a loyal customer of your shop for several years and I often buy gifts here for my family",
           "your support team has always been kind and patient with me, and the new version of your website "
           "is much easier to use than the old one was"],
}
ORDER = {"zh": "订单号是123456", "en": "the order number is 123456"}
REPORT = {"zh": "我上周买的手机屏幕碎了", "en": "my phone arrived broken"}


def long_message(lang: str, fact: str) -> str:
    """``fact`` between two stretches of courtesy, as a customer writes it."""
    if lang == "zh":
        return f"{COURTESY['zh'][0]}，{fact}，{COURTESY['zh'][1]}。"
    return f"{COURTESY['en'][0]}, and {fact}, and {COURTESY['en'][1]}."


@pytest.fixture(scope="module")
def trim() -> FillerTrim:
    bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS)
    return FillerTrim(bot.understanding, bot.view.counter.count)


def bot_file(tmp_path: Path, drop_filler: bool | None) -> Path:
    """The support bot with ``drop_filler`` set as given (None: the key left out)."""
    text = re.sub(r"(?m)^  drop_filler: .*\n", "", SUPPORT.read_text(encoding="utf-8"))
    if drop_filler is not None:
        text = text.replace("\ncontext:\n", f"\ncontext:\n  drop_filler: {str(drop_filler).lower()}\n")
    path = tmp_path / "support.yaml"
    path.write_text(text, encoding="utf-8")
    return path


class TestClauses:
    @pytest.mark.parametrize("text", [
        "订单号是123456，我是老顾客了。谢谢！", "the order is 3.5 kg, it cost 1,000 yuan; mail a.b@example.com please",
        "没有标点的一句话", "", "ends with a comma, ",
    ])
    def test_clauses_give_the_text_back(self, text: str) -> None:
        assert "".join(clauses(text)) == text

    def test_decimals_thousands_and_addresses_stay_in_one_clause(self) -> None:
        assert clauses("it weighs 3.5 kg, write to a.b@example.com") == ["it weighs 3.5 kg, ", "write to a.b@example.com"]


class TestTrim:
    @LANGS
    def test_the_fact_stays_and_each_run_of_courtesy_becomes_one_ellipsis(self, trim: FillerTrim, lang: str) -> None:
        trimmed = trim.trim(long_message(lang, ORDER[lang]), lang)
        assert ORDER[lang] in trimmed
        assert trimmed.count(ELLIPSIS) == 2
        assert not any(sentence[:12] in trimmed for sentence in COURTESY[lang])

    @LANGS
    @pytest.mark.parametrize("kind, fact", [
        ("entity", {"zh": "我的手机屏幕碎了", "en": "my phone arrived broken"}),
        ("number", {"zh": "我买了3个", "en": "I bought 3 of them"}),
        ("question", {"zh": "你们能上门取件吗？", "en": "can you pick it up at my door?"}),
        ("cue", {"zh": "不对", "en": "forget what I just said"}),
        ("reference", {"zh": "那个订单还没到", "en": "the second one is fine"}),
        ("trigger word", {"zh": "我要退货", "en": "I want to return the order"}),
    ])
    def test_a_clause_the_bot_reads_something_in_is_kept(self, trim: FillerTrim, lang: str, kind: str,
                                                           fact: dict[str, str]) -> None:
        assert fact[lang] in trim.trim(long_message(lang, fact[lang]), lang), kind

    @LANGS
    def test_a_message_of_courtesy_alone_becomes_an_ellipsis(self, trim: FillerTrim, lang: str) -> None:
        joiner = "，" if lang == "zh" else ", and "
        assert trim.trim(joiner.join(COURTESY[lang]), lang) == ELLIPSIS

    @LANGS
    def test_a_short_message_is_sent_whole(self, trim: FillerTrim, lang: str) -> None:
        short = {"zh": "好的，谢谢你们，辛苦了", "en": "ok, thanks a lot, have a nice day"}[lang]
        assert trim.trim(short, lang) == short

    @LANGS
    def test_a_message_of_facts_alone_is_sent_whole(self, trim: FillerTrim, lang: str) -> None:
        facts = {"zh": "订单号是123456，我的手机屏幕碎了，耳机也没收到，订单654321的平板也坏了，"
                       "订单777777的笔记本也没收到，订单888888的手机也坏了",
                 "en": "the order number is 123456, my phone arrived broken, my headphones never arrived, "
                       "my tablet from order 654321 is broken, and my laptop from order 777777 never arrived"}[lang]
        assert trim.trim(facts, lang) == facts


class TestWindow:
    def converse(self, bot: Bot, lang: str) -> list[tuple[str, str, str]]:
        """A report, its order number in a long message, then a yes: the context at the yes."""
        for text in (REPORT[lang], long_message(lang, ORDER[lang]), "确认" if lang == "zh" else "yes"):
            bot.handle("s", text)
        return [(m.part, m.role, m.content) for m in bot.context("s")]

    @LANGS
    def test_earlier_rounds_lose_their_filler_and_the_current_message_does_not(self, tmp_path: Path, lang: str) -> None:
        with Bot.from_file(bot_file(tmp_path, True), store="memory://", actions=STUBS) as bot:
            bot.handle("s", REPORT[lang])
            bot.handle("s", long_message(lang, ORDER[lang]))
            current = [m for m in bot.context("s") if m.part == "current"]
            bot.handle("s", "确认" if lang == "zh" else "yes")
            later = [(m.part, m.role, m.content) for m in bot.context("s")]
        assert current[0].content == long_message(lang, ORDER[lang])
        users = [content for part, role, content in later if part == "recent" and role == "user"]
        assert users[0] == REPORT[lang]
        assert ORDER[lang] in users[1] and ELLIPSIS in users[1] and COURTESY[lang][0] not in users[1]
        replies = [content for part, role, content in later if role == "assistant"]
        assert replies and all(ELLIPSIS not in reply for reply in replies)

    @LANGS
    @pytest.mark.parametrize("setting", [False, None])
    def test_without_the_setting_rounds_are_sent_word_for_word(self, tmp_path: Path, lang: str,
                                                               setting: bool | None) -> None:
        with Bot.from_file(bot_file(tmp_path, setting), store="memory://", actions=STUBS) as bot:
            later = self.converse(bot, lang)
        assert ("recent", "user", long_message(lang, ORDER[lang])) in later
        assert ContextSpec().drop_filler is False

    @LANGS
    def test_a_sensitive_value_in_a_kept_clause_is_still_masked(self, tmp_path: Path, lang: str) -> None:
        account = (Path(__file__).parent / "bots" / "account.yaml").read_text(encoding="utf-8")
        path = tmp_path / "account.yaml"
        path.write_text(account + "context: {keep_recent_rounds: 3, drop_filler: true}\n", encoding="utf-8")
        phone = "13812345678"
        start = {"zh": "修改手机号", "en": "change my phone number"}[lang]
        with Bot.from_file(path, store="memory://") as bot:
            bot.handle("s", start)
            bot.handle("s", long_message(lang, phone))
            bot.handle("s", "确认" if lang == "zh" else "yes")
            sent = "\n".join(m.content for m in bot.context("s"))
        assert phone not in sent and MASK in sent


class TestBounds:
    @LANGS
    def test_what_is_remembered_stays_within_its_character_budget(self, monkeypatch: pytest.MonkeyPatch,
                                                                 lang: str) -> None:
        monkeypatch.setattr(filler, "CACHE_CHARS", 2_000)
        bot = Bot.from_file(SUPPORT, store="memory://", actions=STUBS)
        trim = FillerTrim(bot.understanding, bot.view.counter.count)
        for n in range(30):
            text = long_message(lang, f"{ORDER[lang]}{n}")
            assert f"{ORDER[lang]}{n}" in trim.trim(text, lang)
            assert sum(len(t) + len(v) for (t, _), v in trim._trimmed.items()) <= 2_000

    @LANGS
    def test_a_message_of_the_longest_stored_size_is_trimmed_once(self, tmp_path: Path, lang: str) -> None:
        """64K characters of courtesy (the most a stored message keeps) become one ellipsis."""
        joiner = "，" if lang == "zh" else ", and "
        huge = joiner.join(COURTESY[lang] * 2_000)[:MAX_STORED_CHARS]
        with Bot.from_file(bot_file(tmp_path, True), store="memory://", actions=STUBS) as bot:
            bot.handle("s", huge)
            bot.handle("s", REPORT[lang])
            users = [m.content for m in bot.context("s") if m.part == "recent" and m.role == "user"]
        assert users == [ELLIPSIS]
