"""Reply texts: template rendering in the turn's language and the framework's own phrases.

Flow authors write the task-specific prompts; the phrases here are what every bot needs
(help, cancel, resume, re-ask, give up), kept in one table so both languages stay equal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dialogkit.logging import get_logger
from dialogkit.spec.schema import Prompt, prompt_text

log = get_logger("dialogkit.responses")

PHRASES: dict[str, dict[str, str]] = {
    "help_intro": {"zh": "我可以帮您：", "en": "I can help you with:"},
    "help_item": {"zh": "- {description}", "en": "- {description}"},
    "greeting": {"zh": "您好！", "en": "Hello!"},
    "cancelled": {"zh": "好的，已取消{task}。", "en": "OK, I've cancelled {task}."},
    "nothing_to_cancel": {"zh": "当前没有进行中的任务。", "en": "There is no task in progress."},
    "resume": {"zh": "回到刚才的{task}：", "en": "Back to {task}:"},
    "ask_what_to_change": {"zh": "好的，请问要修改哪一项？", "en": "OK, what would you like to change?"},
    "not_understood": {"zh": "抱歉，我没有理解。", "en": "Sorry, I didn't get that."},
    "noted": {"zh": "好的，已记下{items}。", "en": "OK, noted: {items}."},
    "give_up": {"zh": "抱歉，{error}我先取消{task}，您可以随时重新开始。",
                "en": "Sorry: {error} I've cancelled {task}; you can start again any time."},
    "give_up_default": {"zh": "多次未能获取所需信息。", "en": "I couldn't get the information I need."},
    "prefilled": {"zh": "（沿用之前的{slots}）", "en": "(using your earlier {slots})"},
    "forgot": {"zh": "好的，已忘记刚才说的内容。", "en": "OK, I've forgotten what you just said."},
    "nothing_to_forget": {"zh": "没有需要忘记的内容。", "en": "There is nothing to forget."},
    "forgot_value": {"zh": "好的，已忘记您的{slots}。", "en": "OK, I've forgotten your {slots}."},
    "no_value_to_forget": {"zh": "我没有记着您的{slots}。", "en": "I have no {slots} of yours on record."},
    "cleared_value": {"zh": "好的，{slots}先不定。", "en": "OK, the {slots} is open again."},
    "empty_input": {"zh": "请输入内容。", "en": "Please type a message."},
    "done": {"zh": "已完成。", "en": "Done."},
    "action_failed": {"zh": "抱歉，操作失败：{error}", "en": "Sorry, that failed: {error}"},
    "invalid_value": {"zh": "这个值无效。", "en": "That value is not valid."},
    "impossible_date": {"zh": "没有“{text}”这个日期。", "en": "There is no such date as \"{text}\"."},
    "impossible_time": {"zh": "没有“{text}”这个时间。", "en": "There is no such time as \"{text}\"."},
    "ask_slot": {"zh": "请提供{slot}。", "en": "Please give the {slot}."},
    "confirm_default": {"zh": "确认执行{task}吗？", "en": "Shall I go ahead with {task}?"},
}

SENTENCE_VALUES: dict[str, tuple[str, ...]] = {"give_up": ("error",)}
"""Values a phrase says as sentences of their own: a rule's message keeps its capital and gets
its full stop, whatever the bot file wrote ("Sorry: An order number has 5 to 12 digits. I've …")."""

_SENTENCE_END = ("。", "！", "？", ".", "!", "?", "…")


def as_sentence(text: str, language: str) -> str:
    """``text`` as a whole sentence of ``language``: a capital first (en) and a closing stop."""
    text = text.strip()
    if not text:
        return ""
    if language != "zh" and text[0].islower():
        text = text[0].upper() + text[1:]
    if not text.endswith(_SENTENCE_END):
        text += "。" if language == "zh" else "."
    return text


def phrase(key: str, language: str, **values: Any) -> str:
    table = PHRASES[key]
    for name in SENTENCE_VALUES.get(key, ()):
        if name in values:
            values[name] = as_sentence(str(values[name]), language)
    return table.get(language, table["en"]).format(**values)


def format_value(value: Any) -> str:
    """How a value renders in a reply: numbers without a trailing .0 (booleans: ``Texts.value_label``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if value is None:
        return ""
    return str(value)


class _Values(dict[str, str]):
    """Template values that render a missing placeholder empty and log it once per render."""

    def __init__(self, values: Mapping[str, str], template: str) -> None:
        super().__init__(values)
        self.template = template

    def __missing__(self, key: str) -> str:
        log.warning("placeholder_without_value", placeholder=key, template=self.template)
        return ""


_BRACES = re.compile(r"\{([^{}]*)\}")


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill ``{name}`` placeholders; anything unresolvable renders empty, never raises."""
    vals = _Values(values, template)
    return _BRACES.sub(lambda m: vals[m.group(1).strip()] if m.group(1).strip() else m.group(0), template)


def prompt(p: Prompt | None, language: str, values: Mapping[str, str]) -> str:
    return render(prompt_text(p, language), values)


def enumerate_items(items: list[str], language: str) -> str:
    """A list inside a sentence: "张经理、李主管" / "Joe Brown, John Smith"."""
    return ("、" if language == "zh" else ", ").join(items)


def spoken_list(items: list[str], language: str) -> str:
    """A list as a sentence says it: "SPA和叫醒服务", "SPA、叫醒服务和健身房" / "spa and gym",
    "spa, wake-up call and gym"."""
    if len(items) < 2:
        return "".join(items)
    if language == "zh":
        return "、".join(items[:-1]) + "和" + items[-1]
    return ", ".join(items[:-1]) + " and " + items[-1]


def join(parts: list[str], language: str) -> str:
    """Join reply pieces: Chinese text needs no space after full-width punctuation, and a piece
    after a list (the help text) starts on a line of its own."""
    out = ""
    for piece in (p for p in (s.strip() for s in parts) if p):
        if out:
            if "\n" in out:
                out += "\n"
            elif language != "zh" or not out.endswith(("。", "？", "！", "：", "）", "…")):
                out += " "
        out += piece
    return out
