"""A bot file's own words (``lexicon:``): nouns that name a slot, checked against the slots there are."""

from __future__ import annotations

import textwrap

from dialogkit.spec.loader import CheckedBotFile, check_bot_text
from dialogkit.text.labels import Texts

PARCEL = """\
entities:
  tracking_no: {pattern: 'SF\\d{10}', kind: thing}
flows:
  track:
    trigger: {keywords: [查件, track]}
    slots:
      - {name: tracking_no, entity: tracking_no, label: {zh: 运单号, en: tracking number}}
    execute: {say: {zh: "好的", en: "OK"}}
lexicon:
"""


def _checked(lexicon: str) -> CheckedBotFile:
    return check_bot_text(PARCEL + textwrap.indent(textwrap.dedent(lexicon), "  "), "bot.yaml")


def test_slot_nouns_join_the_nouns_of_the_slots_label() -> None:
    checked = _checked("""\
        zh: {slot_nouns: {tracking_no: [包裹, 快递]}}
        en: {slot_nouns: {tracking_no: [parcel]}}
        """)
    assert checked.problems == [] and checked.spec is not None
    texts = Texts(checked.spec)
    assert texts.type_nouns("tracking_no", "zh") == ("运单", "包裹", "快递")
    assert texts.type_nouns("tracking_no", "en") == ("tracking", "parcel")


def test_a_noun_for_a_slot_no_flow_has_names_the_slots_there_are() -> None:
    checked = _checked("""\
        zh: {slot_nouns: {tracking: [包裹]}}
        """)
    assert checked.spec is None
    assert any("no slot is named 'tracking'; the slots are tracking_no" in p.message for p in checked.problems)


def test_an_unknown_language_is_refused() -> None:
    checked = _checked("""\
        fr: {slot_nouns: {tracking_no: [colis]}}
        """)
    assert any("no language 'fr'" in p.message for p in checked.problems)
