"""``bot.language``: auto, or any language with a lexicon file; another is refused naming those there are."""

from __future__ import annotations

from dialogkit.spec.loader import check_bot_text

BOT = """\
bot: {{language: {language}}}
flows:
  greet:
    trigger: {{keywords: [hola, hello, 你好]}}
    execute: {{say: "OK"}}
"""


def test_a_language_with_a_lexicon_is_accepted() -> None:
    for language in ("auto", "zh", "en", "es"):
        checked = check_bot_text(BOT.format(language=language), "bot.yaml")
        assert checked.problems == [] and checked.spec is not None and checked.spec.bot.language == language


def test_a_language_without_a_lexicon_names_the_languages_and_how_to_add_it() -> None:
    checked = check_bot_text(BOT.format(language="fr"), "bot.yaml")
    message = " ".join(p.message for p in checked.problems)
    assert message.startswith("bot.language: ")
    assert "no language 'fr': the languages are auto, zh, en, es" in message
    assert "dialogkit/lexicon/fr.yaml" in message
