"""A bot whose file fixes its language is spoken to in that language only: its users speak it
(docs/testing.md, "Simulation"). A bot with ``language: auto`` hears both."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialogkit.cli import app
from dialogkit.simulation import Options, SimulationResult, simulate
from dialogkit.simulation import invariants as invariants_module
from dialogkit.simulation.invariants.base import Finding, Invariant, Judge
from dialogkit.simulation.languages import UnspokenLanguage, spoken_languages
from dialogkit.simulation.observation import TurnRecord, turn_language
from dialogkit.strings.cjk import has_cjk
from tests.simulation._records import TRANSFER

ENGLISH_BOT = """\
bot:
  name: tables
  language: en
entities:
  area:
    values:
      centre: [centre, center, city centre]
      north: [north]
flows:
  book_table:
    description: Book a table
    trigger:
      examples: [book a table, I want to book a table for dinner, reserve a table please]
      keywords: [book a table, reserve]
    slots:
      - name: area
        entity: area
        label: area
        ask: Which part of town?
      - name: people
        entity: integer
        label: party size
        ask: How many people?
        validate:
          - {min: 1, max: 8, error: We seat between 1 and 8 people.}
    confirm:
      ask: A table for {people} in the {area}. Shall I book it?
    execute:
      say: Booked.
"""
"""Written in English only, as a bot for English users is: a Chinese turn gets English text back."""


def _bot(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bot.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _heard(monkeypatch: pytest.MonkeyPatch) -> list[TurnRecord]:
    """Every turn of the coming simulations, recorded by an invariant that never fails."""
    turns: list[TurnRecord] = []

    def record(turn: TurnRecord, judge: Judge) -> Finding | None:
        """Records the turn (docs/behaviours.md)."""
        turns.append(turn)
        return None

    listener = Invariant("listener", "z", "records every turn", record)
    monkeypatch.setattr(invariants_module, "INVARIANTS", (*invariants_module.INVARIANTS, listener))
    return turns


def _language_findings(result: SimulationResult) -> list[str]:
    return [key for key in result.tally.classes if key.startswith("reply_language/")]


def test_an_english_bot_hears_english_turns_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    turns = _heard(monkeypatch)
    result = simulate(_bot(tmp_path, ENGLISH_BOT), Options(conversations=20, seed=1, shrink=False))
    assert result.options.languages == ("en",) and result.tally.done == 20
    assert turns and all(t.utterance.language == "en" and t.language == "en" for t in turns)
    assert not any(has_cjk(t.utterance.text) for t in turns)
    assert _language_findings(result) == []


def test_a_chinese_bot_hears_chinese_turns_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    turns = _heard(monkeypatch)
    chinese = TRANSFER.read_text(encoding="utf-8").replace("language: auto", "language: zh")
    result = simulate(_bot(tmp_path, chinese), Options(conversations=20, seed=1, shrink=False))
    assert result.options.languages == ("zh",) and result.tally.done == 20
    assert turns and all(t.utterance.language == "zh" and t.language == "zh" for t in turns)
    assert _language_findings(result) == []


def test_a_bot_with_language_auto_hears_both(monkeypatch: pytest.MonkeyPatch) -> None:
    turns = _heard(monkeypatch)
    result = simulate(TRANSFER, Options(conversations=10, seed=1, shrink=False))
    assert result.options.languages == ("zh", "en")
    assert {t.utterance.language for t in turns} == {"zh", "en"}


@pytest.mark.parametrize(("bot", "requested", "spoken"), [
    ("auto", ("zh", "en"), ("zh", "en")), ("auto", ("en",), ("en",)),
    ("zh", ("zh", "en"), ("zh",)), ("en", ("zh", "en"), ("en",)), ("en", ("en",), ("en",)),
    ("auto", ("zh", "en", "es"), ("zh", "en")), ("es", ("zh", "en", "es"), ("es",)),   # a third language
])
def test_the_languages_spoken_are_those_asked_for_that_the_bot_speaks(bot: str, requested: tuple[str, ...],
                                                                       spoken: tuple[str, ...]) -> None:
    assert spoken_languages(bot, requested) == spoken


def test_asking_only_for_a_language_the_bot_does_not_speak_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UnspokenLanguage, match="language: en"):
        spoken_languages("en", ("zh",))
    result = CliRunner().invoke(app, ["simulate", str(_bot(tmp_path, ENGLISH_BOT)), "-n", "2", "--lang", "zh"])
    assert result.exit_code == 2
    assert "language: en" in result.output and "--lang en" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(("text", "current", "language"), [
    ("mi pedido nunca llegó", "es", "es"), ("my order never arrived", "zh", "en"), ("我的订单", "es", "zh"),
])
def test_latin_words_keep_a_latin_script_session_language(text: str, current: str, language: str) -> None:
    """The simulator expects what the engine does: a Spanish bot's Latin turns stay es."""
    assert turn_language(text, current) == language


def test_lang_takes_any_language_with_a_lexicon_and_names_them_otherwise(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", str(_bot(tmp_path, ENGLISH_BOT)), "-n", "2", "--lang", "fr"])
    assert result.exit_code == 2
    assert "zh, en, es or both" in result.output and "Traceback" not in result.output
