"""Slot keys that load but decide nothing where they are written are warnings of `dialogkit validate`:
role words on a slot whose entity type no other slot of its flow has, a list of free text."""

from __future__ import annotations

import textwrap

from dialogkit.spec.checks_warnings import bot_warnings
from dialogkit.spec.loader import check_bot_text

BOT = """\
entities:
  station: {{values: {{xidan: [西单, Xidan], bank: [Bank]}}}}
flows:
  trip:
    trigger: {{keywords: [地铁, metro]}}
    slots:
{slots}
"""


def warnings(slots: str) -> list[str]:
    text = BOT.format(slots=textwrap.indent(textwrap.dedent(slots), "      "))
    checked = check_bot_text(text, "bot.yaml")
    assert checked.spec is not None and checked.problems == []
    return [f"{p.line}:{p.col}: {p.message}" for p in bot_warnings(checked.spec, checked.document)]


def test_role_words_on_two_slots_of_one_type_are_no_warning() -> None:
    assert warnings("""\
        - {name: origin, entity: station, role: [从, from]}
        - {name: destination, entity: station, role: [到, to]}
        """) == []


def test_role_words_on_a_slot_alone_with_its_type_warn() -> None:
    assert warnings("""\
        - {name: origin, entity: station, role: [从, from]}
        - {name: day, entity: date}
        """) == ["7:47: warning: slot 'origin' has role words, but no other slot of its flow has entity type "
                 "'station': they decide nothing"]


def test_a_list_of_free_text_warns() -> None:
    assert warnings("""\
        - {name: stations, entity: station, list: true}
        - {name: notes, list: true}
        """) == ["8:29: warning: slot 'notes' is a list, but it holds free text: it is filled with one value as before"]
