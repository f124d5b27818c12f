"""A mention is not a request (docs/behaviours.md, item 18), on any bot and in both languages.

A flow starts from evidence that it is asked for: a keyword, or a resemblance to a trigger example
in the words of the request. Naming a value ("王医生", "a monitor", "CA981") is no such evidence,
however much of an example's wording the value's own text shares ("我想看医生" and "王医生"
share 医生).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dialogkit.spec.schema import BotFile
from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding.intents import INTENT_THRESHOLD, features, similarity
from dialogkit.understanding.rules import RuleUnderstanding
from dialogkit.understanding.statements import MENTION, is_statement
from tests.understanding.conftest import fixed_clock

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BOTS = {
    "support": ROOT / "flows" / "support_ticket.yaml",
    "meeting": ROOT / "flows" / "meeting.yaml",
    "transfer": ROOT / "tests" / "conversations" / "bots" / "transfer.yaml",
    "returns": HERE / "bots" / "returns.yaml",
    "desk": HERE / "bots" / "desk.yaml",
}
ZH_FRAMES = ("我家里有一台{a}", "我买了{a}和{b}", "{a}是我的邻居", "{a}", "昨天我看到了{a}", "{a}和{b}", "我认识{a}")
EN_FRAMES = ("I have a {a} at home", "I bought a {a} and a {b}", "{a} is my neighbour", "{a}",
             "yesterday I saw {a}", "{a} and {b}", "I know {a}")


@cache
def rules(name: str) -> RuleUnderstanding:
    spec = BotFile.model_validate(YAML(typ="safe").load(BOTS[name].read_text(encoding="utf-8")))
    return RuleUnderstanding(spec, clock=fixed_clock)


def requested(bot: RuleUnderstanding, text: str, language: str = "en") -> str | None:
    top = bot.interpret(text, language).top_intent
    return top.flow if top is not None and top.score >= INTENT_THRESHOLD else None


def _keyword_words(bot: RuleUnderstanding) -> set[tuple[str, str]]:
    """Values some flow made a keyword: naming them is asking, by the author's own choice."""
    return {value for flow in bot.intents._flows for value in flow.valued}


def mention_only(name: str) -> list[tuple[str, str]]:
    """Utterances that only name values of the bot's synonym types, zh and en, none a keyword."""
    bot = rules(name)
    out: list[tuple[str, str]] = []
    for type_name, entity in bot.spec.entities.items():
        synonyms = list(entity.synonyms().items())
        for index, (canonical, aliases) in enumerate(synonyms):
            if (type_name, canonical) in _keyword_words(bot):
                continue
            other = synonyms[(index + 1) % len(synonyms)][1]
            for language, frames in (("zh", ZH_FRAMES), ("en", EN_FRAMES)):
                own = [a for a in aliases[1:] if has_cjk(a) == (language == "zh")]
                second = [a for a in other[1:] if has_cjk(a) == (language == "zh")]
                if own and second:
                    out += [(f.format(a=own[0], b=second[0]), language) for f in frames]
    return out


@pytest.mark.parametrize("name", list(BOTS))
def test_every_trigger_example_starts_its_own_flow(name: str) -> None:
    bot = rules(name)
    for flow_name, flow in bot.spec.flows.items():
        for example in flow.trigger.examples:
            assert requested(bot, example) == flow_name, example


@pytest.mark.parametrize("name", list(BOTS))
def test_naming_values_starts_no_flow(name: str) -> None:
    """"我家里有一台显示器", "王医生是我的邻居", "I bought a monitor and a keyboard": zh and en alike."""
    bot = rules(name)
    texts = [t for t in mention_only(name) if bot.intents._flows and not _has_keyword(bot, t[0])]
    for text, language in texts:
        assert requested(bot, text, language) is None, text


def _has_keyword(bot: RuleUnderstanding, text: str) -> bool:
    return any(f.keywords.full is not None and f.keywords.full.search(text.lower()) for f in bot.intents._flows)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("returns", "我家里有一台显示器"), ("returns", "我买了显示器和键盘"),
        ("returns", "I have a monitor at home"), ("returns", "I bought a monitor and a keyboard"),
        ("desk", "王医生是我的邻居"), ("desk", "Dr. Wang is my neighbour"),
        ("desk", "我认识王医生和李医生"), ("desk", "I know Dr. Wang and Dr. Li"),
        ("desk", "我有两个航班 CA981 和 MU5101"), ("desk", "I have two flights, CA981 and MU5101"),
        ("support", "我有两个订单 12345 和 67890"), ("support", "I have two orders, 12345 and 67890"),
    ],
)
def test_the_reported_mentions_stay_idle(name: str, text: str) -> None:
    assert requested(rules(name), text) is None


@pytest.mark.parametrize(
    ("name", "text", "flow"),
    [
        ("returns", "我想退一台键盘", "return_item"), ("returns", "I want to return a keyboard", "return_item"),
        ("desk", "我想挂皮肤科", "book_appointment"), ("desk", "I want to see Dr. Li", "book_appointment"),
        ("desk", "航班 MU5101 准点吗", "flight_status"), ("desk", "is flight MU5101 on time", "flight_status"),
        ("support", "我的iPhone丢了", "report_issue"), ("support", "my iPhone is lost", "report_issue"),
        ("support", "my iphone broke", "report_issue"), ("support", "我的笔记本裂了", "report_issue"),
    ],
)
def test_a_request_naming_another_value_than_its_example_still_starts(name: str, text: str, flow: str) -> None:
    """Examples are compared with their values replaced by the type: "我想挂心内科" is the request
    "我想挂皮肤科" makes; a value the author made a keyword ("missing") counts under its other
    aliases ("lost"), and stays a word that meets its inflections ("broken" / "broke")."""
    assert requested(rules(name), text) == flow


def test_the_support_bots_first_behaviour_holds(rules: RuleUnderstanding) -> None:
    """"我上周买的手机屏幕碎了" starts report_issue with the product and the issue."""
    found = rules.interpret("我上周买的手机屏幕碎了", "zh")
    assert requested(rules, "我上周买的手机屏幕碎了") == "report_issue"
    assert {(m.type, m.value) for m in found.mentions} >= {("product", "phone"), ("issue_type", "damaged")}


class TestMaskedSimilarity:
    def test_text_inside_a_mention_is_not_shared(self) -> None:
        """"王医生" shares 医生 with "我想看医生" only as text; masked, nothing is shared."""
        bot = rules("desk")
        said = features("王医生是我的邻居", bot.interpret("王医生是我的邻居", "zh").mentions)
        assert similarity(said, features("我想看医生")) == 0.0
        assert similarity(features("王医生是我的邻居"), features("我想看医生")) > 0.0

    def test_the_same_request_with_another_value_is_identical(self) -> None:
        bot = rules("desk")
        one, other = ("我想挂心内科", "我想挂皮肤科")
        assert similarity(features(one, bot.interpret(one, "zh").mentions),
                          features(other, bot.interpret(other, "zh").mentions)) == 1.0

    def test_a_shared_placeholder_alone_is_no_resemblance(self) -> None:
        bot = rules("desk")
        said = features("Dr. Li", bot.interpret("Dr. Li", "en").mentions)
        example = "I want to see Dr. Wang tomorrow"
        assert similarity(said, features(example, bot.interpret(example, "en").mentions)) == 0.0


class TestStatements:
    @pytest.mark.parametrize(
        "text",
        [
            f"我有两个订单 {MENTION} 和 {MENTION}", f"{MENTION}是我的邻居", f"我认识{MENTION}和{MENTION}",
            f"我家里有一台{MENTION}", f"我和{MENTION}、{MENTION}一起出行", f"我的请假单是 {MENTION}",
            f"i have two flights, {MENTION} and {MENTION}", f"{MENTION} is my neighbour",
            f"{MENTION} and {MENTION} are my managers", f"my leave request is {MENTION}",
            f"i bought a {MENTION} and a {MENTION}", f"we own a {MENTION}", f"i'm travelling with {MENTION}",
        ],
    )
    def test_telling_is_a_statement(self, text: str) -> None:
        assert is_statement(text)

    @pytest.mark.parametrize(
        "text",
        [
            f"我有两个订单 {MENTION} 和 {MENTION}，帮我查一下", f"我有一台{MENTION}想退", f"我有几天{MENTION}？",
            f"我想看{MENTION}", f"i have two flights, {MENTION} and {MENTION}. are they on time?",
            f"i have a {MENTION} i want to return", f"can you book {MENTION}", "我的包裹没收到",
            "where is my order", f"check {MENTION}",
        ],
    )
    def test_asking_is_no_statement(self, text: str) -> None:
        assert not is_statement(text)


@pytest.mark.parametrize(("text", "flow"), [("裂了", None), ("lost", None), ("屏幕裂了", "report_issue"),
                                            ("my iPhone is lost", "report_issue"), ("碎了", "report_issue")])
def test_a_keyword_value_alone_names_a_value(text: str, flow: str | None) -> None:
    """"裂了" shares its value with the keyword 碎了; alone it names the value, with more said it
    asks; the keyword itself always asks."""
    assert requested(rules("support"), text) == flow
