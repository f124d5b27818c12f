"""Every shortcut of rule understanding gives what the plain computation gives.

Each fast path (a first look that skips work, a regrouped alternation, a shared result) is
compared with the straightforward form it replaces, on a broad set of Chinese and English
utterances: every user turn of the conversation tests, every string of the understanding tests,
and variants of them (upper case, plurals, digits, full-width digits, doubled spaces).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dialogkit.model.interpretation import Mention
from dialogkit.spec.schema import BotFile
from dialogkit.strings.aliases import normalise_alias
from dialogkit.strings.cjk import has_cjk
from dialogkit.understanding import builtins, choices, cues, datetimes, entities, intents
from dialogkit.understanding.entities import EntityExtractor, SynonymMatcher
from dialogkit.understanding.language import LatinSplit, fold, may_hold_latin
from dialogkit.understanding.numbers import find_integers, find_numbers, non_overlapping
from dialogkit.understanding.rules import RuleUnderstanding
from tests.understanding.conftest import NOW, SUPPORT_BOT, bot_from_yaml, fixed_clock

TESTS = Path(__file__).resolve().parents[1]
MEETING_BOT = TESTS.parent / "flows" / "meeting.yaml"
EXTRA = [
    "我上周买的手机屏幕碎了", "123456", "确认", "查看订单 12345 的状态", "my laptop arrived broken",
    "order 67890", "yes", "where is my order 24680", "你好", "我的包裹没收到", "不对，订单号是 12345", "算了",
    "my iPhones and iPads are broken", "two phones, three laptops", "ipad平板坏了", "the headphoneses",
    "call +86 138-1234-5678 or (415) 555-2671", "+1 2 3 4 5 6 7", "00 44 20 7946 0958",
    "１２３４５６７",
    "where is it? the status of my ticket", "status: damaged / missing", "ＭＹ ＰＨＯＮＥ",
    "meet at 3 tomorrow", "at 3", "12/3 15:30", "下周五下午三点", "on Dec 3rd", "phone", "one", "ONE o'clock",
    "", " ", "ſtatus", "K", "İPHONE", "Tablets", "lost and never arrived", "没到没收到丢了",
]


def _yaml_user_turns(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [str(node["user"])] if isinstance(node.get("user"), (str, int)) else []
        return own + [t for value in node.values() for t in _yaml_user_turns(value)]
    if isinstance(node, list):
        return [t for value in node for t in _yaml_user_turns(value)]
    return []


@cache
def corpus() -> tuple[str, ...]:
    texts = list(EXTRA)
    for path in sorted((TESTS / "conversations").glob("*.yaml")):
        texts += _yaml_user_turns(YAML(typ="safe").load(path.read_text(encoding="utf-8")))
    for path in sorted((TESTS / "understanding").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
                texts.append(node.value)
    variants = [v for t in texts for v in (t, t.upper(), t + "s", f"{t} 12345", f"１２３ {t}", t.replace(" ", "  "))]
    return tuple(dict.fromkeys(variants))


@cache
def bots() -> tuple[RuleUnderstanding, ...]:
    specs = [
        BotFile.model_validate(YAML(typ="safe").load(path.read_text(encoding="utf-8")))
        for path in (SUPPORT_BOT, MEETING_BOT)
    ]
    specs.append(
        bot_from_yaml(
            """
            entities:
              device: {values: {tablet: [ipad平板, iPad, tablet], phone: [手机, phone, "cell phone"]}}
              code: {pattern: '[A-Z]{2}\\d{3,6}'}
            flows:
              fix:
                trigger:
                  keywords: [维修, ipad平板, fix, "cell phone", repair]
                  examples: [帮我修一下平板, fix my iPad]
                slots: [{name: device, entity: device}, {name: code, entity: code}]
            """
        )
    )
    return tuple(RuleUnderstanding(spec, clock=fixed_clock) for spec in specs)


# -------------------------------------------------------------------------- intents


def _plain_keyword_pattern(keywords: list[str]) -> re.Pattern[str] | None:
    """The keyword alternation before regrouping: one look-behind per Latin keyword."""
    parts = []
    for keyword in sorted({k.strip().lower() for k in keywords if k.strip()}, key=len, reverse=True):
        body = r"\s+".join(re.escape(p) for p in keyword.split())
        parts.append(body if has_cjk(keyword) else rf"(?<![a-z0-9]){body}(?![a-z0-9])")
    return re.compile("|".join(parts)) if parts else None


def test_keyword_hits_match_the_plain_alternation() -> None:
    """Chinese keywords first, Latin ones under one look-behind: the same hits, in order."""
    for rules in bots():
        for name, flow in rules.spec.flows.items():
            fast = intents._keyword_pattern(flow.trigger.keywords)
            plain = _plain_keyword_pattern(flow.trigger.keywords)
            assert (fast is None) == (plain is None)
            if fast is None or plain is None:
                continue
            for text in corpus():
                lowered = fold(text).lower()
                assert fast.findall(lowered) == [m.group() for m in plain.finditer(lowered)], (name, text)


def test_no_keyword_alternative_opens_with_a_look_behind() -> None:
    """Every alternative of a keyword pattern opens with a character (a Latin one checks its word
    edge after it), so the regex engine scans for where a keyword can start, Chinese or English."""
    for rules in bots():
        for flow in rules.intents._flows:
            for pattern in (flow.keywords.full, flow.keywords.unlettered):
                if pattern is not None:
                    assert not any(part.startswith("(?<") for part in pattern.pattern.split("|")), flow.name
        assert rules.intents._any_keyword.full is not None
        assert not any(part.startswith("(?<") for part in rules.intents._any_keyword.full.pattern.split("|"))


def test_best_similarity_is_the_max_over_every_example() -> None:
    """Skipping examples that share no word changes no score, not even in the last bit."""
    for rules in bots():
        for text in corpus():
            utterance = intents.features(text, rules.interpret(text, "en").mentions)
            for flow in rules.intents._flows:
                plain = max((intents.similarity(utterance, e.features) for e in flow.examples), default=0.0)
                assert intents._best_similarity(flow, utterance) == plain, (flow.name, text)


def test_examples_keep_their_placeholders_apart() -> None:
    """An example's ``marks`` are the placeholders among its features: the similarity's count of
    shared values reads them, not every feature of the example."""
    for rules in bots():
        for flow in rules.intents._flows:
            for example in flow.examples:
                assert example.marks == {f for f in example.features if intents.is_placeholder(f)}


@pytest.mark.parametrize("text", ["确认", "好的 12345", "yes", "it is 12345"])
def test_a_turn_no_flow_can_use_is_done_before_its_units_are_read(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No keyword, no example word, no value that lifts a flow to the floor: no flow is scored,
    and the units that scale a score are never made."""
    rules = bots()[0]
    mentions = rules.interpret(text, "en").mentions

    def unread(*_args: object) -> set[str]:
        raise AssertionError("units read")

    monkeypatch.setattr(intents, "_units_of", unread)
    assert rules.intents.score(fold(text), mentions) == []


def test_the_doubts_are_worked_out_once() -> None:
    """What a keyword, a synonym value and a pattern value leave of the doubt, and the span of
    similarity above its floor, are module constants: the floors the scorer made every turn."""
    assert intents._KEYWORD_DOUBT == 1 - intents.KEYWORD_WEIGHT
    assert intents._SYNONYM_DOUBT == 1 - intents.SYNONYM_WEIGHT
    assert intents._PATTERN_DOUBT == 1 - intents.PATTERN_WEIGHT
    assert intents._SIMILARITY_SPAN == 1 - intents.SIMILARITY_FLOOR


def _plain_score(flow: intents._FlowIndex, text: str, mentions: list[Mention]) -> float:
    """A flow's score for words holding no keyword, as the module docstring reads: the noisy-OR
    of example resemblance and values, scaled by how much of the words the flow explains."""
    utterance, content = intents.features(text, mentions), intents.units(text, mentions)
    types = {m.type for m in mentions}
    best = max((intents.similarity(utterance, e.features) for e in flow.examples), default=0.0)
    resemblance = max(0.0, (best - intents.SIMILARITY_FLOOR) / (1 - intents.SIMILARITY_FLOOR))
    doubt = 1 - resemblance
    doubt *= (1 - intents.SYNONYM_WEIGHT) ** len(types & flow.synonym_types)
    doubt *= (1 - intents.PATTERN_WEIGHT) ** len(types & flow.pattern_types)
    value = (1 - doubt) * (0.5 + 0.5 * len(content & flow.vocabulary) / len(content))
    return round(value if resemblance else min(value, intents.VALUES_ALONE_CEILING), 4)


@pytest.mark.parametrize("text", ["请问订单现在怎么样了 12345", "tell me how the order 12345 is doing today"])
def test_the_written_out_arithmetic_scores_as_the_plain_one(text: str) -> None:
    """Similarity and doubts written out in the scorer give the plain computation's scores to the
    last bit, for a Chinese and an English request (no keyword: only the arithmetic speaks)."""
    rules = bots()[0]
    mentions = rules.interpret(text, "en").mentions
    plain = {flow.name: _plain_score(flow, text, mentions) for flow in rules.intents._flows}
    scores = rules.intents.score(fold(text), mentions)
    assert scores and {s.flow: s.score for s in scores} == {
        name: value for name, value in plain.items() if value >= intents.INTENT_FLOOR}


# -------------------------------------------------------------------------- entities


def _plain_alias_pattern(aliases: list[str]) -> re.Pattern[str]:
    """The synonym alternation before regrouping: each Latin alias with its own look-behind."""
    parts = []
    for alias in sorted(aliases, key=len, reverse=True):
        body = r"\s+".join(re.escape(part) for part in alias.split())
        if has_cjk(alias):
            parts.append(body)
        else:
            plural = "(?:s|es)?" if alias[-1:].isalpha() else ""
            parts.append(rf"(?<![A-Za-z0-9]){body}{plural}(?![A-Za-z0-9])")
    return re.compile("|".join(parts), re.IGNORECASE)


def _plain_synonym_find(matcher: SynonymMatcher, text: str) -> list[tuple[int, int, str]]:
    found = []
    for match in _plain_alias_pattern(matcher.aliases()).finditer(text):
        key = normalise_alias(match.group())
        keys = [key, *(key[: -len(s)] for s in ("s", "es") if key.endswith(s) and len(key) > len(s))]
        canonical = next((matcher.canonical[k] for k in keys if k in matcher.canonical), None)
        if canonical is not None:
            found.append((match.start(), match.end(), canonical))
    return found


@pytest.mark.parametrize(
    "synonyms",
    [
        {"tablet": ["ipad平板", "iPad", "ipads", "tablet"], "phone": ["手机", "phone", "cell phone", "cell"]},
        {"x": ["a", "ab", "ab手", "a b c", "手a"], "y": ["b", "bs", "手", "c3"]},
    ],
)
def test_regrouped_aliases_find_what_the_plain_alternation_finds(
    synonyms: dict[str, list[str]],
) -> None:
    """Mixed aliases ("ipad平板" beside "iPad") keep the longest-first choice."""
    matcher = SynonymMatcher(synonyms)
    texts = [*corpus(), "ab手", "a b手", "AB手 abs", "a  b c手a", "ipads平板", "cell phones", "c3s 手a"]
    for text in texts:
        assert [tuple(f) for f in matcher.find(text)] == _plain_synonym_find(matcher, text), text


def test_declared_synonym_types_find_what_the_plain_alternation_finds() -> None:
    """The shipped bots' synonym types, on every utterance of the corpus."""
    for rules in bots():
        for custom in rules.entities.custom.values():
            if custom.synonyms is None:
                continue
            for text in corpus():
                folded = fold(text)
                found = [tuple(f) for f in custom.synonyms.find(folded)]
                assert found == _plain_synonym_find(custom.synonyms, folded), (custom.name, text)


def test_number_and_integer_together_equal_each_alone() -> None:
    """``find`` reads numbers once when both types are wanted; each alone must agree."""
    rules = bots()[0]
    for text in corpus():
        together = rules.extract(text, ["integer", "number"])
        alone = rules.extract(text, ["integer"]) + rules.extract(text, ["number"])
        assert together == sorted(alone, key=lambda m: (m.start, rules.entities._order[m.type]))
        assert [m.value for m in rules.extract(text, ["integer"])] == [f.value for f in find_integers(fold(text))]
        assert [m.value for m in rules.extract(text, ["number"])] == [f.value for f in find_numbers(fold(text))]


def _general_rank(extractor: EntityExtractor) -> Callable[[Mention], tuple[bool, int, int, int]]:
    """The ranking ``resolve_overlaps`` applies to two or more mentions."""

    def rank(m: Mention) -> tuple[bool, int, int, int]:
        return (m.type not in extractor.custom, m.start - m.end, extractor._order[m.type], m.start)

    return rank


def test_resolving_one_mention_or_none_takes_the_general_path_result() -> None:
    """``resolve_overlaps`` returns fewer than two mentions as they are: nothing to settle."""
    for rules in bots():
        extractor = rules.entities
        for text in corpus():
            found = extractor.find(text, fold(text), rules.tracked_types, NOW)
            general = non_overlapping(entities._trim_units(list(found), extractor.custom), _general_rank(extractor))
            assert extractor.resolve_overlaps(found) == general, text


# -------------------------------------------------------------------------- built-ins


def test_the_phone_first_look_loses_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text with fewer than seven digits holds no phone: skipping it finds the same phones."""
    texts = corpus()
    gated = [builtins.find_phones(fold(t)) for t in texts]
    monkeypatch.setattr(builtins, "_may_hold_phone", lambda text: True)
    assert [builtins.find_phones(fold(t)) for t in texts] == gated
    assert any(gated)


def test_the_date_and_time_first_looks_lose_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The split, prefix-tree first looks skip no text that holds a date or a time, possible or not."""
    now = NOW
    texts = corpus()
    gated = [(datetimes.read_dates(fold(t), now), datetimes.read_times(fold(t), now)) for t in texts]
    monkeypatch.setattr(datetimes, "_DATE_HINT", re.compile(""))
    monkeypatch.setattr(datetimes, "_TIME_HINT", re.compile(""))
    assert [(datetimes.read_dates(fold(t), now), datetimes.read_times(fold(t), now)) for t in texts] == gated
    assert sum(1 for d, t in gated if d or t) > 20


@pytest.mark.parametrize(
    "words",
    [
        ["day", "day after tomorrow", "dec", "december", "d"],
        ["mid", "midday", "midnight", "o'clock", "oclock", "one"],
        ["a.b", "a+b", "ab", "a b"],
    ],
)
def test_prefix_tree_matches_where_the_plain_alternation_matches(words: list[str]) -> None:
    """A first look only asks whether anything matches: the tree and the list agree on that."""
    tree = re.compile(rf"\b(?:{datetimes._prefix_tree(words)})", re.I)
    alternation = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    plain = re.compile(rf"\b(?:{alternation})", re.I)
    texts = [*corpus(), *words, *(w.upper() for w in words), "a-b", "axb", "midd", "o'clo"]
    for text in texts:
        assert (tree.search(text) is None) == (plain.search(text) is None), text


# -------------------------------------------------------------------------- first looks per bot


def test_bot_wide_looks_skip_only_flows_that_score_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The keyword and example-word looks, and the flows they skip, change no score: with looks
    that let every text through (an empty pattern, every feature of the corpus) the same scores."""
    texts = corpus()
    for rules in bots():
        read = [rules.interpret(text, "en", now=NOW) for text in texts]
        every_feature = frozenset().union(
            *(intents.features(t, rules.intents._maskable(i.mentions)) for t, i in zip(texts, read, strict=True))
        )
        monkeypatch.setattr(rules.intents, "_any_keyword", LatinSplit([""], lambda _: re.compile("")))
        monkeypatch.setattr(rules.intents, "_example_words", every_feature)
        assert [rules.interpret(text, "en", now=NOW).intents for text in texts] == [i.intents for i in read]
        monkeypatch.undo()


def test_the_keyword_looks_find_a_keyword_whenever_a_flow_does() -> None:
    """The bot-wide look misses no flow's keyword; text without a Latin letter scanned without
    the Latin keywords finds the same keywords."""
    for rules in bots():
        look = rules.intents._any_keyword.full
        for text in corpus():
            lowered = fold(text).lower()
            full = [(flow.keywords.full.findall(lowered) if flow.keywords.full else []) for flow in rules.intents._flows]
            if look is None or look.search(lowered) is None:
                assert not any(full), text
            if not may_hold_latin(lowered):
                assert [intents._keyword_hits(flow, lowered, False) for flow in rules.intents._flows] == [
                    intents._keyword_hits(flow, lowered) for flow in rules.intents._flows
                ], text


def test_an_alias_with_a_cased_non_ascii_letter_is_read_as_re_i_read_it() -> None:
    """"ſ" matches "s" under re.I but not in lower case: the automaton folds it the same way."""
    matcher = SynonymMatcher({"status": ["ſtatus"], "phone": ["Phone", "手机"]})
    for text in ("STATUS of my PHONES", "ſtatus of my phone", "ſTATUS 手机"):
        assert [tuple(f) for f in matcher.find(text)] == _plain_synonym_find(matcher, text), text
    assert [f.value for f in matcher.find("ſtatus of my PHONES")] == ["status", "phone"]


def test_the_date_and_time_looks_agree_with_the_plain_re_i_looks() -> None:
    """ASCII text in lower case without re.I, other text without the Latin look when it holds no
    Latin letter: each lets through exactly what the case-blind looks let through."""
    for hint in (datetimes._DATE_HINT, datetimes._TIME_HINT):
        latin = hint._latin
        assert latin is not None
        extra = ["AT 3", "3 PM", "Next MONDAY", "IN 5 MIN", "O'CLOCK", "明天 ſtatus", "下午 K", "İn 5 mins"]
        for text in [*corpus(), *extra]:
            folded = fold(text)
            plain = hint._uncased.search(folded) is not None or latin.search(folded) is not None
            assert (hint.search(folded) is not None) == plain, text


def test_the_latin_letters_are_every_character_an_ascii_letter_matches_case_blind() -> None:
    """``may_hold_latin`` is exact only if no other character folds to an ASCII letter."""
    letter = re.compile("[a-z]", re.IGNORECASE)
    folding = [chr(c) for c in range(0x80, 0x110000) if letter.match(chr(c))]
    assert all(may_hold_latin(ch) for ch in folding)
    assert not may_hold_latin("我上周买的手机屏幕碎了，订单 123") and may_hold_latin("手机 iPhone")


def test_the_cancel_look_loses_no_cancel(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [fold(t).lower() for t in corpus()]
    gated = [cues._is_cancel(t) for t in texts]
    monkeypatch.setattr(cues, "_CANCEL_HINT", re.compile(""))
    assert [cues._is_cancel(t) for t in texts] == gated
    assert any(gated)


def test_ascii_text_skips_only_chinese_phrases_that_cannot_match() -> None:
    """Each cue's English half alone gives what the whole alternation gives on ASCII text."""
    for english, both in zip(cues._ENGLISH_PHRASES, cues._ALL_PHRASES, strict=True):
        for text in [*corpus(), "actually 12345", "i meant the 3rd", "scratch that", "HELP", "what can you do?"]:
            lowered = fold(text).lower()
            if lowered.isascii():
                assert (english.search(lowered) is None) == (both.search(lowered) is None), text


def test_an_any_answer_is_read_with_the_half_its_text_can_match() -> None:
    """ASCII text with the English any-answers alone, text without Latin letters with the Chinese."""
    extra = ["随便", "any doctor", "Whatever", "都可以 ok", "I don't care", "哪个都行", "随便 any"]
    for text in [*corpus(), *extra]:
        lowered = fold(text).lower().strip(choices._END)
        if lowered and len(lowered) <= choices._ANY_LENGTH and not lowered.endswith(("?", "？", "吗", "么")):
            assert choices._is_any_answer(lowered) == (choices._any().match(lowered) is not None), text


class _EveryCharacter(frozenset[str]):
    def __contains__(self, item: object) -> bool:
        return True


def test_the_answer_look_loses_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn whose first character starts no answer word or filler holds no answer."""
    texts = [fold(t) for t in corpus()]
    gated = [cues.leading_answer(t) for t in texts]
    monkeypatch.setattr(cues._ANSWERS, "starts", _EveryCharacter())
    assert [cues.leading_answer(t) for t in texts] == gated
    assert any(gated)
