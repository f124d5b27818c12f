"""An action's options: labelled in zh and en, shown in en to a language the action does not label."""

from __future__ import annotations

import pytest

from dialogkit.engine.choices import listed, parse_choices

ORDERS = {"choices": [{"value": "12345", "label": {"zh": "12345（已发货）", "en": "12345 (shipped)"}},
                      {"value": "67890", "label": "67890"}]}


@pytest.mark.parametrize(("language", "question"), [
    ("zh", "要退哪个订单？可选：12345（已发货）、67890。"),
    ("en", "Which order? Options: 12345 (shipped), 67890."),
    ("es", "¿Qué pedido? Opciones: 12345 (shipped), 67890."),     # no es label: the en one, never the zh
])
def test_the_options_are_listed_in_the_turns_language(language: str, question: str) -> None:
    choices = parse_choices(ORDERS)
    assert choices is not None
    ask = {"zh": "要退哪个订单？", "en": "Which order?", "es": "¿Qué pedido?"}[language]
    assert listed(ask, choices, language) == question
