"""Answering a clarification with a character that is a digit but not a decimal ("①", "²", "₁").

``str.isdigit`` is true for them while ``int`` refuses them: the answer must be read as "no
choice", never raise.
"""

from __future__ import annotations

import pytest

from dialogkit.memory.clarification import answer_clarification
from tests.memory.test_clarification import pending_of


@pytest.mark.parametrize("answer", ["①", "²", "₁", "第²个", "#①", "２", "第①个"])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_non_decimal_digits_never_raise(answer: str, language: str) -> None:
    answer_clarification(pending_of("12345", "67890", language=language), answer, [])


@pytest.mark.parametrize("answer", ["２", "٢"])
def test_other_scripts_decimals_still_pick(answer: str) -> None:
    """A full-width or Arabic-Indic 2 is a decimal: it picks the second candidate as "2" does."""
    choice = answer_clarification(pending_of("12345", "67890"), answer, [])
    assert choice is not None and choice.value == "67890"
