"""Two entity types that can read the same words: `dialogkit validate` says which one keeps them.

The longer reading wins ("JW万豪酒店" is the hotel, not the brand "万豪"); on the very same words
the type declared first does. An alias wholly inside another type's longer alias, an alias another
type's pattern reads whole, and two types with one pattern are warnings, one per pair of types.
An empty list of questions (`ask: []`) is an error: every turn asking that slot used to crash.
"""

from __future__ import annotations

import textwrap

import pytest

from dialogkit.spec.checks_warnings import bot_warnings
from dialogkit.spec.loader import check_bot_text
from tests.spec.helpers import only, problems

FLOW = """\
flows:
  ask:
    trigger: {keywords: [设施, facilities]}
    slots:
      - {name: hotel, entity: hotel}
      - {name: brand, entity: brand}
"""


def warnings(text: str) -> list[str]:
    checked = check_bot_text(textwrap.dedent(text) + FLOW, "bot.yaml")
    assert checked.spec is not None and checked.problems == []
    return [f"{p.line}:{p.col}: {p.message}" for p in bot_warnings(checked.spec, checked.document)]


@pytest.mark.parametrize(("inner", "outer"), [("万豪", "北京JW万豪酒店"), ("Marriott", "JW Marriott Beijing")])
def test_an_alias_inside_a_longer_alias_of_another_type(inner: str, outer: str) -> None:
    found = warnings(f"""\
        entities:
          brand:
            values:
              marriott: [{inner}]
              hilton: [希尔顿, Hilton]
          hotel:
            values:
              jw_beijing: [{outer}]
        """)
    assert found == [f"3:5: warning: alias '{inner.lower()}' of entity type 'brand' is written inside alias "
                     f"'{outer.lower()}' of entity type 'hotel': where that is said, 'hotel' keeps the words "
                     f"(the longer reading wins)"]


def test_many_aliases_inside_longer_ones_make_one_warning_per_pair_of_types() -> None:
    found = warnings("""\
        entities:
          brand:
            values:
              marriott: [万豪]
              hilton: [希尔顿]
              hyatt: [凯悦]
          hotel:
            values:
              a: [北京万豪酒店]
              b: [上海希尔顿酒店]
              c: [广州凯悦酒店]
        """)
    assert len(found) == 1 and "(and 2 more)" in found[0]


def test_latin_words_count_only_as_whole_words() -> None:
    """'art' is no word of 'smart hotel': the alias matcher would never read it there."""
    assert warnings("""\
        entities:
          brand: {values: {art: [art]}}
          hotel: {values: {s: [smart hotel]}}
        """) == []


@pytest.mark.parametrize(("first", "second", "keeper"), [("brand", "hotel", "brand"), ("hotel", "brand", "hotel")])
def test_an_alias_read_whole_by_another_types_pattern(first: str, second: str, keeper: str) -> None:
    types = {"brand": "brand: {values: {jw: [JW123]}}", "hotel": "hotel: {pattern: '[A-Z]{2}\\d{3}'}"}
    found = warnings(f"""\
        entities:
          {types[first]}
          {types[second]}
        """)
    assert len(found) == 1
    assert found[0].endswith(f"alias 'jw123' of entity type 'brand' is read whole by the pattern of entity type "
                             f"'hotel': '{keeper}' keeps it, being declared first")


def test_two_types_with_one_pattern() -> None:
    found = warnings("""\
        entities:
          brand: {pattern: '\\d{5}'}
          hotel: {pattern: '\\d{5}'}
        """)
    assert found == ["3:20: warning: entity types 'brand' and 'hotel' have the same pattern: 'brand', declared "
                     "first, reads every value in running text"]


def test_types_that_read_different_words_are_not_warned_about() -> None:
    assert warnings("""\
        entities:
          brand: {values: {marriott: [万豪, Marriott]}}
          hotel: {values: {a: [北京饭店]}, pattern: 'H\\d{6}'}
        """) == []


def test_an_empty_list_of_questions_is_an_error() -> None:
    problem = only(problems("""\
        flows:
          book:
            trigger: {keywords: [订位, book]}
            slots:
              - name: size
                entity: integer
                ask: []
        """))
    assert (problem.line, problem.col) == (7, 14)
    assert problem.message == "slot 'size' has an empty list of questions (ask: [])"
    assert "leave ask out" in problem.hint
