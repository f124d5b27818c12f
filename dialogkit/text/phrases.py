"""Reply texts: template rendering in the turn's language and the framework's own phrases.

Flow authors write the task-specific prompts; the phrases here are what every bot needs
(help, cancel, resume, re-ask, give up), kept in one table so both languages stay equal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from dialogkit.lexicon import writing
from dialogkit.logging import get_logger
from dialogkit.spec.schema import Prompt, prompt_text
from dialogkit.text.templates import fill

log = get_logger("dialogkit.responses")

PHRASES: dict[str, dict[str, str]] = {
    "help_intro": {"zh": "我可以帮您：", "en": "I can help you with:",
                   "es": "Puedo ayudarle con:"},
    "help_item": {"zh": "- {description}", "en": "- {description}",
                  "es": "- {description}"},
    "greeting": {"zh": "您好！", "en": "Hello!",
                 "es": "¡Hola!"},
    "farewell": {"zh": "再见！", "en": "Goodbye!",
                 "es": "¡Adiós!"},
    "cancelled": {"zh": "好的，已取消{task}。", "en": "OK, I've cancelled {task}.",
                  "es": "De acuerdo, he cancelado {task}."},
    "nothing_to_cancel": {"zh": "当前没有进行中的任务。", "en": "There is no task in progress.",
                          "es": "No hay ninguna tarea en curso."},
    "resume": {"zh": "回到刚才的{task}：", "en": "Back to {task}:",
               "es": "Volvamos a {task}:"},
    "ask_what_to_change": {"zh": "好的，请问要修改哪一项？", "en": "OK, what would you like to change?",
                           "es": "De acuerdo, ¿qué desea cambiar?"},
    "not_understood": {"zh": "抱歉，我没有理解。", "en": "Sorry, I didn't get that.",
                       "es": "Lo siento, no le he entendido."},
    "noted": {"zh": "好的，已记下{items}。", "en": "OK, noted: {items}.",
              "es": "De acuerdo, anotado: {items}."},
    "give_up": {"zh": "抱歉，{error}我先取消{task}，您可以随时重新开始。",
                "en": "Sorry: {error} I've cancelled {task}; you can start again any time.",
                "es": "Lo siento: {error} He cancelado {task}; puede empezar de nuevo cuando quiera."},
    "give_up_default": {"zh": "多次未能获取所需信息。", "en": "I couldn't get the information I need.",
                        "es": "No he podido obtener la información que necesito."},
    "prefilled": {"zh": "（沿用之前的{slots}）", "en": "(using your earlier {slots})",
                  "es": "(uso su {slots} anterior)"},
    "forgot": {"zh": "好的，已忘记刚才说的内容。", "en": "OK, I've forgotten what you just said.",
               "es": "De acuerdo, he olvidado lo que acaba de decir."},
    "nothing_to_forget": {"zh": "没有需要忘记的内容。", "en": "There is nothing to forget.",
                          "es": "No hay nada que olvidar."},
    "forgot_value": {"zh": "好的，已忘记您的{slots}。", "en": "OK, I've forgotten your {slots}.",
                     "es": "De acuerdo, he olvidado su {slots}."},
    "no_value_to_forget": {"zh": "我没有记着您的{slots}。", "en": "I have no {slots} of yours on record.",
                           "es": "No tengo guardado su {slots}."},
    "cleared_value": {"zh": "好的，{slots}先不定。", "en": "OK, the {slots} is open again.",
                      "es": "De acuerdo, {slots} queda pendiente de nuevo."},
    "too_long": {"zh": "（消息过长：共 {n} 个字符，只读取了前 {k} 个。）",
                 "en": "(Your message is very long: {n} characters; I read the first {k}.)",
                 "es": "(Su mensaje es muy largo: {n} caracteres; he leído los primeros {k}.)"},
    "empty_input": {"zh": "请输入内容。", "en": "Please type a message.",
                    "es": "Escriba un mensaje, por favor."},
    "done": {"zh": "已完成。", "en": "Done.",
             "es": "Hecho."},
    "action_failed": {"zh": "抱歉，操作失败：{error}", "en": "Sorry, that failed: {error}",
                      "es": "Lo siento, ha fallado: {error}"},
    "invalid_value": {"zh": "这个值无效。", "en": "That value is not valid.",
                      "es": "Ese valor no es válido."},
    "impossible_date": {"zh": "没有“{text}”这个日期。", "en": "There is no such date as \"{text}\".",
                        "es": "No existe la fecha \"{text}\"."},
    "impossible_time": {"zh": "没有“{text}”这个时间。", "en": "There is no such time as \"{text}\".",
                        "es": "No existe la hora \"{text}\"."},
    "ask_slot": {"zh": "请提供{slot}。", "en": "Please give the {slot}.",
                 "es": "Indique {slot}, por favor."},
    "options_listed": {"zh": "{ask}可选：{items}。", "en": "{ask} Options: {items}.",
                       "es": "{ask} Opciones: {items}."},
    "not_an_option": {"zh": "“{value}”不在可选项中。", "en": "{value} is not one of the options.",
                      "es": "{value} no es una de las opciones."},
    "typo_doubt": {"zh": "您说的“{said}”是指 {value} 吗？是的话请再说一遍。",
                   "en": "By \"{said}\" do you mean {value}? If so, please say it again.",
                   "es": "¿Con \"{said}\" quiere decir {value}? Si es así, dígalo otra vez."},
    "looks_like_another_type": {"zh": "{value} 看起来像{kind}，不像{label}。",
                                "en": "{value} looks like {kind}, not like the {label}.",
                                "es": "{value} parece {kind}, no {label}."},
    "kind_phone": {"zh": "手机号", "en": "a phone number", "es": "un número de teléfono"},
    "kind_email": {"zh": "邮箱地址", "en": "an e-mail address", "es": "una dirección de correo"},
    # what the LLM is told (the context window): the default system prompt and the flow instructions
    "llm_system": {"zh": "你是「{name}」，一个任务型助手，用简体中文回答。你能处理的任务：\n{flows}",
                   "en": "You are \"{name}\", a task-oriented assistant; answer in English. "
                         "The tasks you handle:\n{flows}",
                   "es": "Eres \"{name}\", un asistente de tareas; responde en español. "
                         "Las tareas que atiendes:\n{flows}"},
    "llm_task": {"zh": "当前任务：{label}（{flow}），状态 {state}",
                 "en": "Current task: {label} ({flow}), state {state}",
                 "es": "Tarea actual: {label} ({flow}), estado {state}"},
    "llm_task_named": {"zh": "当前任务：{flow}，状态 {state}", "en": "Current task: {flow}, state {state}",
                       "es": "Tarea actual: {flow}, estado {state}"},
    "llm_asking": {"zh": "正在询问：{slot}", "en": "Asking for: {slot}", "es": "Se pregunta por: {slot}"},
    "llm_filled": {"zh": "已填写：{slots}", "en": "Filled: {slots}", "es": "Completado: {slots}"},
    "llm_missing": {"zh": "待填写：{slots}", "en": "Still needed: {slots}", "es": "Falta: {slots}"},
    "llm_suspended": {"zh": "暂停的任务：{tasks}", "en": "Suspended tasks: {tasks}", "es": "Tareas en pausa: {tasks}"},
    "llm_entities": {"zh": "实体：", "en": "Entities: ", "es": "Entidades: "},
    "speaker_user": {"zh": "用户", "en": "User", "es": "Usuario"},
    "speaker_bot": {"zh": "助手", "en": "Bot", "es": "Asistente"},
    # the ticket summary (kept in zh and en, and in the bot's own language besides: es)
    "summary_earlier": {"zh": "此前：", "en": "earlier: ", "es": "antes: "},
    "summary_details": {"zh": "{title}（{details}）", "en": "{title} ({details})", "es": "{title} ({details})"},
    "summary_stated": {"zh": "用户陈述：", "en": "User stated: ", "es": "El usuario indicó: "},
    "summary_confirmed": {"zh": "已确认：", "en": "Confirmed: ", "es": "Confirmado: "},
    "summary_pending": {"zh": "待办：", "en": "Pending: ", "es": "Pendiente: "},
    "summary_run": {"zh": "执行{task}", "en": "run: {task}", "es": "ejecutar: {task}"},
    "summary_done": {"zh": "已完成{task}", "en": "done: {task}", "es": "hecho: {task}"},
    "summary_failed": {"zh": "{task}失败", "en": "failed: {task}", "es": "falló: {task}"},
    "summary_cancelled": {"zh": "已取消{task}", "en": "cancelled: {task}", "es": "cancelado: {task}"},
    "small_talk": {"zh": "闲聊", "en": "small talk"},    # a rule summary of rounds that held no value
    "summary_sections": {"zh": "；", "en": ". ", "es": ". "},
    "summary_end": {"zh": "", "en": ".", "es": "."},
    "take_over": {"zh": "我已将您的问题转给人工客服，稍后会有工作人员接手。",
                  "en": "I've passed your request to a person, who will take over shortly.",
                  "es": "He pasado su solicitud a una persona, que la atenderá en breve."},
    "task_gone": {"zh": "之前的「{task}」已不再提供。", "en": 'The earlier "{task}" task is no longer available.',
                  "es": 'La tarea anterior "{task}" ya no está disponible.'},
    "value_refused_now": {"zh": "之前提供的{slot}已不再有效。", "en": "The {slot} you gave earlier is no longer valid.",
                          "es": "El dato {slot} que dio antes ya no es válido."},
    "outcome_unknown": {"zh": "处理过程被中断，结果正在核实中",
                        "en": "it was interrupted, and its outcome is being checked",
                        "es": "se interrumpió, y se está comprobando el resultado"},
    # for the LLM: the language to answer in (named in English), the ticket's section headings
    "language_name": {"zh": "Simplified Chinese", "en": "English", "es": "Spanish"},
    "ticket_facts": {"zh": "事实", "en": "Facts", "es": "Hechos"},
    "ticket_confirmed": {"zh": "已确认", "en": "Confirmed", "es": "Confirmado"},
    "ticket_pending": {"zh": "待处理", "en": "Pending", "es": "Pendiente"},
    # /entities and the LLM's list of remembered entities
    "entity_aliases": {"zh": "别名：", "en": "aliases: ", "es": "alias: "},
    "entity_mentions": {"zh": "提及 {n} 次", "en": "mentions: {n}", "es": "menciones: {n}"},
    "entity_last_turn": {"zh": "最近第 {turn} 轮", "en": "last turn: {turn}", "es": "último turno: {turn}"},
    "entity_attributes": {"zh": "属性：", "en": "attributes: ", "es": "atributos: "},
    "entity_parts": {"zh": "｜", "en": " | "},
    "no_entities": {"zh": "（暂无实体）", "en": "(no entities)", "es": "(ninguna entidad)"},
    "which_one": {"zh": "您指的是{options}？", "en": "Do you mean {options}?",
                  "es": "¿A cuál se refiere: {options}?"},
    "confirm_default": {"zh": "确认执行{task}吗？", "en": "Shall I go ahead with {task}?",
                        "es": "¿Continúo con {task}?"},
}

SENTENCE_VALUES: dict[str, tuple[str, ...]] = {"give_up": ("error",)}
"""Values a phrase says as sentences of their own: a rule's message keeps its capital and gets
its full stop, whatever the bot file wrote ("Sorry: An order number has 5 to 12 digits. I've …")."""

_SENTENCE_END = ("。", "！", "？", ".", "!", "?", "…")


def as_sentence(text: str, language: str) -> str:
    """``text`` as a whole sentence of ``language``: a capital first where the language writes
    one, and the language's closing stop."""
    text = text.strip()
    if not text:
        return ""
    written = writing(language)
    if written.capitals and text[0].islower():
        text = text[0].upper() + text[1:]
    if not text.endswith(_SENTENCE_END):
        text += written.sentence_end
    return text


def phrase(key: str, language: str, **values: Any) -> str:
    """A framework phrase in ``language``; a language the table lacks says it in English."""
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
    """A bot file's prompt in ``language``: a value left empty takes its label or joiner with it
    (``templates.fill``), so an optional slot never leaves "加料：，" / "with ," behind."""
    template = prompt_text(p, language)
    return fill(template, values, functools.partial(_missing, template=template))


def _missing(key: str, template: str) -> str:
    """A placeholder no value fills renders empty, and is logged."""
    log.warning("placeholder_without_value", placeholder=key, template=template)
    return ""


def enumerate_items(items: list[str], language: str) -> str:
    """A list inside a sentence: "张经理、李主管" / "Joe Brown, John Smith"."""
    return writing(language).list_separator.join(items)


def spoken_list(items: list[str], language: str, *, last: str | None = None) -> str:
    """A list as a sentence says it: "SPA和叫醒服务", "SPA、叫醒服务和健身房" / "spa and gym",
    "spa, wake-up call and gym"; ``last`` joins the last item instead of the language's "and"."""
    if len(items) < 2:
        return "".join(items)
    written = writing(language)
    return written.list_separator.join(items[:-1]) + (written.last_joiner if last is None else last) + items[-1]


def alternatives(items: list[str], language: str) -> str:
    """Choices as a question offers them: "12345还是67890" / "12345 or 67890"."""
    return spoken_list(items, language, last=writing(language).or_joiner)


def colon(language: str) -> str:
    """The colon before what a label names: "：" / ": "."""
    return writing(language).colon


def spaced(language: str) -> bool:
    """Whether ``language`` puts spaces between words (reply pieces, a noun before a value)."""
    return writing(language).spaced


def join(parts: list[str], language: str) -> str:
    """Join reply pieces: Chinese text needs no space after full-width punctuation, and a piece
    after a list (the help text) starts on a line of its own."""
    out = ""
    unspaced = not writing(language).spaced
    for piece in (p for p in (s.strip() for s in parts) if p):
        if out:
            if "\n" in out:
                out += "\n"
            elif not unspaced or not out.endswith(("。", "？", "！", "：", "）", "…")):
                out += " "
        out += piece
    return out
