"""Aliases are found by one automaton: the longest wins, Chinese needs no segmentation, Latin
aliases are whole words, case is ignored, and a turn costs the same whatever the catalogue's size."""

from __future__ import annotations

import time

import pytest

from dialogkit.understanding.alias_automaton import AliasAutomaton
from dialogkit.understanding.entities import SynonymMatcher

MATCHER = SynonymMatcher({
    "laptop": ["笔记本电脑", "笔记本", "laptop", "notebook computer"],
    "desktop": ["电脑", "computer", "PC"],
    "phone": ["手机", "phone", "iPhone"],
})


def read(text: str) -> list[tuple[str, str]]:
    return [(text[f.start:f.end], f.value) for f in MATCHER.find(text)]


@pytest.mark.parametrize("text, found", [
    ("我的笔记本电脑坏了", [("笔记本电脑", "laptop")]),              # the longest alias wins
    ("电脑和手机都坏了", [("电脑", "desktop"), ("手机", "phone")]),     # no segmentation needed
    ("my notebook computer broke", [("notebook computer", "laptop")]),
    ("my Notebook   Computer and my PC", [("Notebook   Computer", "laptop"), ("PC", "desktop")]),
    ("two iPHONES and a phone", [("iPHONES", "phone"), ("phone", "phone")]),
])
def test_the_longest_alias_is_read_left_to_right(text: str, found: list[tuple[str, str]]) -> None:
    assert read(text) == found


@pytest.mark.parametrize("text", ["microphone", "xiphone2", "phone3", "pcs2", "computers1"])
def test_a_latin_alias_inside_a_longer_word_is_none(text: str) -> None:
    assert read(text) == []


def test_a_latin_alias_beside_chinese_is_a_whole_word() -> None:
    assert read("我的phone坏了") == [("phone", "phone")]


@pytest.mark.parametrize("lang, text, value", [("zh", "我要买{}", "p4321"), ("en", "I want {} please", "p4321")])
def test_a_turn_costs_the_same_with_fifty_thousand_aliases(lang: str, text: str, value: str) -> None:
    """The scan depends on the turn, not the catalogue (a regex alternation grew with it)."""
    def word(i: int) -> str:
        return f"名{i:05d}号" if lang == "zh" else f"item{i:05d}x"

    small = SynonymMatcher({f"p{i}": [word(i)] for i in range(4320, 4330)})
    large = SynonymMatcher({f"p{i}": [word(i)] for i in range(50_000)})
    utterance = text.format(word(4321))
    assert [f.value for f in small.find(utterance)] == [f.value for f in large.find(utterance)] == [value]

    def cost(matcher: SynonymMatcher) -> float:
        started = time.perf_counter()
        for _ in range(2000):
            matcher.find(utterance)
        return time.perf_counter() - started

    assert min(cost(large) for _ in range(3)) < 3 * min(cost(small) for _ in range(3))


def test_the_first_payload_given_for_an_alias_is_kept() -> None:
    automaton = AliasAutomaton([("Phone", 1), ("phone", 2), ("手机", 3)])
    assert len(automaton) == 2
    assert [m.payload for m in automaton.find("PHONE 手机")] == [1, 3]


def test_each_text_is_read_as_itself_one_after_another() -> None:
    """The folded, squeezed text of the last turn is kept for the next type that reads it: a turn
    whose words differ (spacing, case) is read anew, offsets of its own."""
    assert read("my Notebook   Computer") == [("Notebook   Computer", "laptop")]
    assert read("my notebook computer") == [("notebook computer", "laptop")]
    assert read("我的笔记本  坏了，my PC") == [("笔记本", "laptop"), ("PC", "desktop")]
    assert read("my Notebook   Computer") == [("Notebook   Computer", "laptop")]
