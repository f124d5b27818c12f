"""The bot file as pydantic models: the single source of truth for loading, the JSON Schema and
the key reference in docs/bot-file.md.

Unknown keys are forbidden everywhere so a misspelt key is an error with a position, never a
silently ignored setting. Cross-references (slot -> entity type, placeholders -> slots, action
names) are checked by ``spec.validation`` because they need the whole file.

Every field carries a ``description`` (and usually ``examples``): ``dialogkit schema`` hands them
to editors, and ``spec.reference`` renders them as the key table of docs/bot-file.md, so the
documentation cannot drift from what the loader accepts. A field whose default comes from a
factory states that default in ``json_schema_extra``, since pydantic leaves it out of the schema.
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue

from dialogkit.lexicon import languages
from dialogkit.lexicon import words as lexicon_words

STATES: tuple[str, ...] = ("IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION")
TASK_STATES: tuple[str, ...] = STATES[1:]
TRIGGERS: tuple[str, ...] = (
    "start_task", "collect", "provide_param", "request_confirmation", "execute",
    "confirm", "deny", "complete", "fail", "cancel",
)
BUILTIN_ENTITY_TYPES: tuple[str, ...] = ("number", "integer", "phone", "email", "date", "time", "yes_no")
BUILTIN_MEMORY_ACTIONS: tuple[str, ...] = (
    "resolve_references", "track_entities", "summarize", "persist_slots", "forget", "pin",
)
DEFAULT_FLOW_MEMORY: dict[str, list[str]] = {
    "start_task": ["resolve_references", "track_entities", "summarize"],
    "provide_param": ["resolve_references", "track_entities", "summarize"],
    "confirm": ["summarize"],
    "deny": ["summarize"],
    "cancel": ["summarize"],
    "fail": ["summarize"],
    "complete": ["persist_slots", "summarize", "forget"],
}
EntityKind = Literal["person", "thing", "place", "time", "other"]


def _shown_default(value: Any) -> dict[str, Any]:
    """Schema metadata stating a factory-made default, which pydantic does not emit itself (a copy:
    the schema is handed out, and the constants it shows are used at run time)."""
    return {"default": copy.deepcopy(value)}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LocalizedText(_Model):
    """A text per language. Wherever the bot file takes a prompt, it takes either one string
    (said in both languages) or this map; a language left out falls back to the other."""

    zh: str | None = Field(default=None, description="The Chinese text.", examples=["请提供您的订单号。"])
    en: str | None = Field(default=None, description="The English text.", examples=["What is your order number?"])

    @model_validator(mode="after")
    def _one_language_at_least(self) -> LocalizedText:
        if self.zh is None and self.en is None:
            raise ValueError("give at least one of zh or en")
        return self

    def text(self, language: str) -> str:
        first, second = (self.zh, self.en) if language == "zh" else (self.en, self.zh)
        return first if first is not None else (second or "")


Prompt = str | LocalizedText


def prompt_text(prompt: Prompt | None, language: str) -> str:
    """The text of a prompt in ``language`` (a plain string serves every language)."""
    if prompt is None:
        return ""
    return prompt if isinstance(prompt, str) else prompt.text(language)


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}
NEAR = "near"      # the role of a slot holding the place a search looks around


@functools.lru_cache(maxsize=64)
def parse_duration(value: str | int | float) -> float:
    """'30m' / '2h' / '45s' / '1d' / 90 -> seconds (each spelling read once: a turn asks for the
    session timeout)."""
    if isinstance(value, (int, float)):
        return float(value)
    match = _DURATION.match(value)
    if not match:
        raise ValueError(f"{value!r} is not a duration; write e.g. 30m, 2h, 45s or 1d")
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


class SynonymValue(_Model):
    """The long form of an entity value: its aliases plus how replies name it in each language."""

    aliases: list[str] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="Words that mean this value in an utterance, in any language; case and width do not "
                    "matter (\"（东店）\" is \"(东店)\") and the longest alias found wins. The canonical value "
                    "itself always counts as one.",
        examples=[["笔记本", "电脑", "laptop", "notebook"]],
    )
    label: Prompt | None = Field(
        default=None,
        description="How replies, confirmations and summaries show the value, per language. Default: the "
                    "canonical value.",
        examples=[{"zh": "笔记本电脑", "en": "laptop"}],
    )


class EntityTypeSpec(_Model):
    """A custom entity type: a regular expression, a dictionary of canonical values with their
    aliases, or both. A slot names it in ``entity:``; every flow can use it."""

    pattern: str | None = Field(
        default=None,
        description="A regular expression (Python syntax) that finds values in an utterance. The value is "
                    "the first group that took part in the match, else the whole match.",
        examples=[r"(?<!\d)\d{5,12}(?!\d)"],
    )
    values: dict[str, list[str] | SynonymValue] | None = Field(
        default=None,
        description="Canonical value -> its aliases: a list, or the long form with a label per language. "
                    "Slots hold the canonical value (iPhone -> phone); replies show its label.",
        examples=[{"phone": ["手机", "电话", "phone", "iPhone"]}],
    )
    values_file: str | None = Field(
        default=None,
        description="A CSV or JSON file of further values, beside the bot file (a path relative to its folder). "
                    "CSV: a header row naming the columns value (required), aliases (separated by |), zh and en "
                    "(labels); one value per row. JSON: a list of objects with the same keys, aliases a list. "
                    "A bad row is reported as file:line; the bot's version covers the file's content, so a "
                    "changed file is picked up by reload.",
        examples=["products.csv"],
    )
    kind: EntityKind = Field(
        default="other",
        description="What the values are, for reference resolution: 他/她/he/she/him/her bind only a "
                    "person; 它/it/this/that never bind a person and prefer a thing.",
        examples=["thing"],
    )
    fuzzy: int = Field(
        default=0, ge=0, le=2,
        description="Typos accepted in the Latin aliases of 5 letters or more: at most this many edits (a "
                    "letter added, dropped, changed, or two neighbours swapped), so \"lattee\" names latte and "
                    "\"iphnoe\" iPhone. A word within reach of two values names neither. The bot asks about a "
                    "value read through a typo before writing it, as about any doubted value; 0 reads aliases "
                    "exactly.",
        examples=[1],
    )
    any: str | None = Field(
        default=None,
        description="The canonical value that \"随便 / 都可以 / 无所谓 / any / anything / I don't care / doesn't "
                    "matter\" means when said in answer to a slot question of this type, or with the type's noun "
                    "(\"any doctor\", \"哪个医生都行\"). It must be one of `values`. Without it such an answer "
                    "is no value of this type.",
        examples=["any_doctor"],
    )
    description: str | None = Field(
        default=None, description="A note for people reading the bot file; the bot does not use it.",
        examples=["订单号 / order number"],
    )

    @model_validator(mode="after")
    def _pattern_or_values(self) -> EntityTypeSpec:
        if self.pattern is None and not self.values and self.values_file is None:
            raise ValueError("an entity type needs a pattern, values (or a values_file), or both")
        return self

    def synonyms(self) -> dict[str, list[str]]:
        """canonical -> aliases (the canonical value itself always counts as an alias)."""
        out: dict[str, list[str]] = {}
        for canonical, entry in (self.values or {}).items():
            aliases = entry if isinstance(entry, list) else entry.aliases
            out[canonical] = [canonical, *[str(a) for a in aliases]]
        return out

    def label(self, canonical: str, language: str) -> str:
        entry = (self.values or {}).get(canonical)
        if isinstance(entry, SynonymValue) and entry.label is not None:
            return prompt_text(entry.label, language)
        return canonical


class ValidationRule(_Model):
    """One rule a slot's value must pass, with the message said when it does not. A rule has at
    least one rule key (``min`` and ``max`` may share one rule); rules are checked in order and
    the first that fails speaks."""

    pattern: str | None = Field(
        default=None,
        description="The value, as text, must contain a match of this regular expression; anchor it "
                    "with ^...$ to match the whole value.",
        examples=[r"^\d{5,12}$"],
    )
    min: float | None = Field(
        default=None, description="The value must be a number no smaller than this.", examples=[1])
    max: float | None = Field(
        default=None, description="The value must be a number no larger than this.", examples=[5000])
    min_length: int | None = Field(
        default=None, description="The value, as text, must have at least this many characters.", examples=[2])
    max_length: int | None = Field(
        default=None, description="The value, as text, must have at most this many characters.", examples=[200])
    one_of: list[Any] | None = Field(
        default=None,
        description="The value must be one of these, compared as text (canonical values for an entity type).",
        examples=[["CNY", "USD"]],
    )
    action: str | None = Field(
        default=None,
        description="A custom validator: an @action name or package.module:function, called with the value. "
                    "It returns an error message to refuse the value (that message is said) or None to "
                    "accept it.",
        examples=["no_weekends"],
    )
    error: Prompt | None = Field(
        default=None,
        description="What the bot says when the value breaks this rule, before asking again. Default: "
                    "这个值无效。/ That value is not valid.",
        examples=[{"zh": "订单号应为5到12位数字。", "en": "An order number has 5 to 12 digits."}],
    )

    @model_validator(mode="after")
    def _at_least_one_rule(self) -> ValidationRule:
        keys = ("pattern", "min", "max", "min_length", "max_length", "one_of", "action")
        if all(getattr(self, k) is None for k in keys):
            raise ValueError("a validation rule needs one of: " + ", ".join(keys))
        return self


class ChoicesSpec(_Model):
    """Options offered for a slot, computed by an action when the question is asked."""

    action: str = Field(
        description="An @action returning the options as [{value:, label: {zh:, en:}}]; the question lists "
                    "their labels (and reply.options carries them), and a label, a value, an alias or an "
                    "ordinal (第二个, the last one) picks one. A value outside the list is refused with the "
                    "list; when the action fails the question is asked without options.",
        examples=["recent_orders"],
    )


class RoleSpec(_Model):
    """The words that say which of two slots of one type a value fills ("从西单到国贸", "from
    Victoria to Kings Cross"): words said right before the value, and words said right after it."""

    before: list[str] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="Words said right before a value of this slot, in any language: 从 (从西单), from "
                    "(from Victoria). Case does not matter; a Latin word stands as a whole word.",
        examples=[["从", "由", "from", "leaving"]],
    )
    after: list[str] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="Words said right after a value of this slot: 出发 (西单出发), 上车 (东单上车). A word "
                    "before the value decides first: in 从西单到国贸 the 到 after 西单 names the other slot.",
        examples=[["出发", "上车"]],
    )

    @model_validator(mode="after")
    def _some_words(self) -> RoleSpec:
        if not any(w.strip() for w in (*self.before, *self.after)):
            raise ValueError("a role needs at least one word, before or after the value")
        return self


class SlotSpec(_Model):
    """One value a task needs. Required slots are asked for in the order listed; several may be
    filled by one utterance, in any order, in either language."""

    name: str = Field(
        description="The slot's name: {name} in prompts, the key in reply.slots, and the store key of a "
                    "persisted value (shared by every flow's slot of that name).",
        examples=["order_id"],
    )
    entity: str | None = Field(
        default=None,
        description="The entity type that fills the slot: one declared under entities:, or a built-in "
                    "(number, integer, phone, email, date, time, yes_no). Without one the slot takes free "
                    "text: the whole answer when it is asked, or 'label: text' when offered unasked.",
        examples=["order_id"],
    )
    ask_: Prompt | list[Prompt] | None = Field(
        default=None, alias="ask",
        description="The question asking for this slot; placeholders name slots of the flow. A list gives "
                    "variants: the n-th failed answer gets the n-th prompt (the last one repeats). Default: "
                    "a question built from the slot's label.",
        examples=[{"zh": "请提供您的订单号。", "en": "What is your order number?"}],
    )
    ask_if: str | None = Field(
        default=None,
        description="A condition over the flow's slot values (issue_type == 'damaged', amount > 100 and "
                    "not express); while it is false the slot is skipped and its value cleared, and a "
                    "correction that changes it asks or drops the slot. Checked when the bot loads: a "
                    "syntax error or an unknown slot name is a load error. Default: always asked.",
        examples=["issue_type == 'damaged'"],
    )
    choices: ChoicesSpec | None = Field(
        default=None,
        description="Options from an action, listed with the question. Default: a free-form question (a slot "
                    "whose entity has a few fixed values still offers them as quick replies).",
        examples=[{"action": "recent_orders"}],
    )
    required: bool = Field(
        default=True,
        description="A required slot is asked for until filled; an optional one (false) is filled only "
                    "when the user offers it, and never asked for.",
        examples=[False],
    )
    persist: Literal["none", "session", "user"] = Field(
        default="none",
        description="Whether the value outlives its task: session (later tasks of the session) or user "
                    "(every session of the user, across restarts). Written by the persist_slots memory "
                    "action (on complete by default); prefills a slot of this name when a task starts.",
        examples=["user"],
    )
    sensitive: bool = Field(
        default=False,
        description="Masked in logs, replaced by a placeholder in everything sent to an LLM, and never "
                    "recorded as an entity attribute.",
        examples=[True],
    )
    validate_: list[ValidationRule] = Field(
        default_factory=list, alias="validate", json_schema_extra=_shown_default([]),
        description="Rules the value must pass, checked in order. A value that fails is refused with the "
                    "rule's error and the question is asked again (see bot.max_reprompts).",
        examples=[[{"min": 1, "error": {"zh": "金额至少为1。", "en": "The amount must be at least 1."}}]],
    )
    description: str | None = Field(
        default=None, description="What the slot holds, told to the LLM beside the slot's name and type.",
        examples=["the order number printed on the receipt"],
    )
    label: Prompt | None = Field(
        default=None,
        description="The slot's name as replies and summaries say it; users may also offer a free-text "
                    "slot as 'label: text'. Default: the slot's name with spaces.",
        examples=[{"zh": "订单号", "en": "order number"}],
    )
    is_list: bool = Field(
        default=False, alias="list",
        description="The slot holds several values of its type, in the order said: \"SPA和叫醒服务\" / \"oat milk "
                    "and extra shot\" fill it with both (no \"which one?\" question). \"再加一个健身房\" / "
                    "\"also a gym\" adds a value, \"不要叫醒服务了\" / \"drop the wake-up call\" removes one, a "
                    "correction replaces the list. reply.slots and actions get a list; a placeholder says it in "
                    "the turn's language (SPA、叫醒服务和健身房 / spa, wake-up call and gym); validate rules hold "
                    "for every value.",
        examples=[True],
    )
    role: list[str] | RoleSpec | Literal["near"] | None = Field(
        default=None,
        description="Role words, for two slots of one entity type (from/to, 出发地/目的地): a value said with "
                    "one slot's words fills that slot, though the other is asked (\"从西单到国贸\", \"to Bank\"). "
                    "A list gives words said before the value; {before:, after:} also words said after it. "
                    "Without role words the slots take their values in the order said, the asked slot first. "
                    "`near` is the place a search looks around, in every language's words (\"故宫周边的酒店\", "
                    "\"hotels near the Forbidden City\"): the slot takes a value only when a near word stands "
                    "beside it, and a question about the place's surroundings still asks the place's own flow.",
        examples=[["到", "去", "to", "towards"], {"before": ["从", "from"], "after": ["出发"]}, "near"],
    )

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @field_validator("role")
    @classmethod
    def _role_has_words(cls, value: list[str] | RoleSpec | str | None) -> list[str] | RoleSpec | str | None:
        if isinstance(value, list) and not any(w.strip() for w in value):
            raise ValueError("a role needs at least one word")
        return value

    @property
    def role_words(self) -> RoleSpec | None:
        """The role's words, the short form read as words said before the value; ``near`` the
        lexicon's near words, so one bot file reads "故宫周边", "near the hotel" and "cerca del hotel"."""
        if isinstance(self.role, str):      # near
            return RoleSpec(before=list(lexicon_words("near_before")), after=list(lexicon_words("near_after")))
        return RoleSpec(before=self.role) if isinstance(self.role, list) else self.role

    @property
    def is_near(self) -> bool:
        """Whether the slot holds the place a search looks around, not a value of the thing sought."""
        return self.role == NEAR

    @property
    def ask(self) -> Prompt | None:
        """The first question (the one asked before any failed answer)."""
        return self.ask_[0] if isinstance(self.ask_, list) else self.ask_

    @property
    def asks(self) -> list[Prompt]:
        """Every variant of the question, in order (empty without ``ask``)."""
        if isinstance(self.ask_, list):
            return list(self.ask_)
        return [] if self.ask_ is None else [self.ask_]


class TriggerSpec(_Model):
    """How an utterance starts the flow. A flow needs examples or keywords (or both), else
    nothing can start it."""

    intent: str | None = Field(
        default=None,
        description="The intent's name, as an LLM proposes it; unique across flows. Default: the flow's name.",
        examples=["report_issue"],
    )
    examples: list[str] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="Utterances meaning this request, in both languages; an utterance is scored by its "
                    "similarity to them. The flow's description counts as one more example.",
        examples=[["我上周买的手机屏幕碎了", "my phone arrived broken"]],
    )
    keywords: list[str] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="Words or phrases that point to this flow wherever they appear in an utterance.",
        examples=[["碎了", "坏了", "broken", "ticket"]],
    )


class ConfirmSpec(_Model):
    """The confirmation step. Without ``confirm`` a task runs as soon as its required slots are
    filled; with it, yes runs the action and no goes back to ask what to change."""

    ask: Prompt = Field(
        description="The confirmation question; placeholders name slots and show their values' labels in "
                    "the turn's language.",
        examples=[{"zh": "将为订单 {order_id} 创建工单，确认吗？", "en": "I'll open a ticket for order {order_id}. "
                   "Shall I go ahead?"}],
    )


class ExecuteSpec(_Model):
    """What runs once the task is confirmed (or, without ``confirm``, complete), and what the
    bot says after it."""

    action: str | None = Field(
        default=None,
        description="The action to run: an @action name from bot.actions, or package.module:function. "
                    "Without one the task simply completes.",
        examples=["create_ticket"],
    )
    say: Prompt | None = Field(
        default=None,
        description="The reply after the action succeeded; placeholders name slots and keys of the dict "
                    "the action returned. Default: a short 'done'.",
        examples=[{"zh": "已创建工单 {ticket_id}。", "en": "Ticket {ticket_id} has been created."}],
    )
    on_error: Prompt | None = Field(
        default=None,
        description="The reply when the action raised an exception; {error} is its message, other "
                    "placeholders name slots. Default: an apology quoting the error.",
        examples=[{"zh": "抱歉，工单创建失败：{error}", "en": "Sorry, the ticket could not be created: {error}"}],
    )
    returns: list[str] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="The keys the action promises in the dict it returns; placeholders in say and on_error "
                    "may name them, and dialogkit validate checks every placeholder against the slots and "
                    "these keys.",
        examples=[["ticket_id"]],
    )
    then: str | None = Field(
        default=None,
        description="A flow started when this task completes, its slots prefilled by name from the "
                    "finished task's values.",
        examples=["notify_user"],
    )
    when: str | None = Field(
        default=None,
        description="A condition over the finished task's slot values (the same language as ask_if): "
                    "then starts only while it is true. Default: always.",
        examples=["issue_type == 'damaged'"],
    )


class FlowSpec(_Model):
    """One task the bot can do, compiled to the state machine
    IDLE -> TASK_INIT -> PARAM_COLLECT -> CONFIRMATION -> EXECUTION -> IDLE."""

    description: str | None = Field(
        default=None,
        description="What the flow does, as the help text lists it; write '中文 / English' to give each "
                    "language its own. It also counts as one more trigger example. Default: the flow's name.",
        examples=["报告订单问题并创建工单 / Report a problem with an order and open a ticket"],
    )
    trigger: TriggerSpec = Field(
        default_factory=TriggerSpec, json_schema_extra=_shown_default({}),
        description="How an utterance starts this flow.",
        examples=[{"examples": ["查看订单状态", "where is my order"], "keywords": ["状态", "status"]}],
    )
    slots: list[SlotSpec] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="The values the task needs, in the order they are asked for.",
        examples=[[{"name": "order_id", "entity": "order_id"}]],
    )
    confirm: ConfirmSpec | None = Field(
        default=None, description="Ask before running the action. Default: no confirmation step.",
        examples=[{"ask": {"zh": "确认吗？", "en": "Shall I go ahead?"}}],
    )
    execute: ExecuteSpec = Field(
        default_factory=ExecuteSpec, json_schema_extra=_shown_default({}),
        description="The action the task runs and the replies after it.",
        examples=[{"action": "order_status", "say": "{order_id}: {status}"}],
    )
    memory: dict[Literal[TRIGGERS], list[str]] = Field(  # type: ignore[valid-type]
        default_factory=dict, json_schema_extra=_shown_default(DEFAULT_FLOW_MEMORY),
        description="Memory actions run when a trigger fires, in order: built-ins (resolve_references, "
                    "track_entities, summarize, persist_slots, forget, pin) or package.module:function. A "
                    "trigger named here replaces its default list (shown as the default); the others keep "
                    "theirs.",
        examples=[{"complete": ["persist_slots", "summarize", "forget"]}],
    )
    object: Prompt | None = Field(
        default=None,
        description="What the task is about; an utterance that leaves it out is completed with it "
                    "(改到下午三点 -> 将会议改到下午三点).",
        examples=[{"zh": "会议", "en": "the meeting"}],
    )
    follow_up: Prompt | None = Field(
        default=None, description="A pending item the ticket summary lists once the task has completed.",
        examples=[{"zh": "等待工单处理", "en": "waiting for the ticket to be handled"}],
    )

    @property
    def value_types(self) -> set[str]:
        """The entity types of the values the flow finds by: its slots' types, a near slot's aside. The
        place a hotel search looks around is a sight; a sight named alone still asks the sight search."""
        return {s.entity for s in self.slots if s.entity and not s.is_near}

    def slot(self, name: str) -> SlotSpec | None:
        for slot in self.slots:      # a plain loop: asked several times a turn, a generator cost twice as much
            if slot.name == name:
                return slot
        return None

    def memory_for(self, trigger: str) -> list[str]:
        """The memory actions of ``trigger``: the flow's own list, else the default."""
        if trigger in self.memory:
            return list(self.memory[trigger])
        return list(DEFAULT_FLOW_MEMORY.get(trigger, []))


class BotMemorySpec(_Model):
    """Memory actions that run on every user turn, besides those bound to transitions."""

    every_turn: list[str] = Field(
        default_factory=lambda: ["track_entities"], json_schema_extra=_shown_default(["track_entities"]),
        description="Run after every user turn, in any state, even when no transition fires, so that "
                    "things mentioned in IDLE are remembered.",
        examples=[["track_entities"]],
    )


class HandoffAction(_Model):
    """A handoff to a person through an action, which is told what the agent needs to know."""

    action: str = Field(
        description="An @action called with ctx.value = {summary: {stated, confirmed, pending}, slots, "
                    "messages, language}: the ticket summary's three sections, the task's slots and the "
                    "last user messages, sensitive values masked (***).",
        examples=["notify_agent"],
    )
    messages: int = Field(
        default=5, ge=0, description="How many of the last user messages the action is given.", examples=[10],
    )


class BotSettings(_Model):
    """Settings of the whole bot."""

    name: str = Field(
        default="bot", description="The bot's name, shown by dialogkit chat and in the default system prompt.",
        examples=["support"],
    )
    language: str = Field(
        default="auto", json_schema_extra={"enum": ["auto", *languages()]},
        description="The language a new session starts in (auto: en): auto or a language with a lexicon "
                    "(dialogkit/lexicon/<code>.yaml). Each turn then follows the user: CJK text is zh, "
                    "three or more Latin words are the session's Latin-script language (en under auto), "
                    "anything else keeps the session's language.",
        examples=["auto"],
    )
    actions: str | list[str] | None = Field(
        default=None,
        description="The Python module(s) holding this bot's @action functions, imported with the bot "
                    "file's folder and the working directory on sys.path.",
        examples=["examples.support_actions"],
    )
    session_timeout: str | int | float = Field(
        default="30m",
        description="Idle time after which a session starts afresh (user-scoped values survive): a "
                    "number of seconds, or a number with s, m, h or d.",
        examples=["2h"],
    )
    retention: str | int | float | None = Field(
        default=None,
        description="How long history messages and users' persisted values are kept: a number of "
                    "seconds, or a number with s, m, h or d; a purge (dialogkit store purge, bot.purge()) "
                    "deletes what is older. Not set: kept until deleted.",
        examples=["90d"],
    )
    timezone: str = Field(
        default="UTC",
        description="The bot's time zone, an IANA name: relative dates and times (\"明天下午三点\", "
                    "\"next Friday\", \"in two hours\") are read on the bot's clock in this zone.",
        examples=["Asia/Shanghai"],
    )
    max_reprompts: int = Field(
        default=2, ge=0,
        description="How often a question is asked again after failed answers (an invalid value, or "
                    "input that fills nothing); the failure after that gives up.",
        examples=[1],
    )
    handoff_: str | HandoffAction | None = Field(
        default=None, alias="handoff",
        description="What happens when a question gives up: a flow's name (that flow starts), or "
                    "{action: NAME} (that action hands the conversation to a person, and the bot says so); "
                    "without it the bot apologises and cancels the task.",
        examples=["agent", {"action": "notify_agent"}],
    )
    memory: BotMemorySpec = Field(
        default_factory=BotMemorySpec, json_schema_extra=_shown_default({}),
        description="Memory actions that run on every turn.",
        examples=[{"every_turn": ["track_entities"]}],
    )
    description: str | None = Field(
        default=None, description="What the bot is for, for people reading the file; the bot does not use it.",
        examples=["订单售后支持 / Order support"],
    )

    @field_validator("language")
    @classmethod
    def _known_language(cls, value: str) -> str:
        if value != "auto" and value not in languages():
            raise ValueError(f"no language '{value}': the languages are auto, {', '.join(languages())} "
                             f"(a language is added with dialogkit/lexicon/{value}.yaml and its reply texts)")
        return value

    @field_validator("session_timeout", "retention")
    @classmethod
    def _duration(cls, value: str | int | float | None) -> str | int | float | None:
        if value is not None:
            parse_duration(value)
        return value

    @property
    def handoff(self) -> str | None:
        """The flow a give-up starts, when ``handoff`` names one."""
        return self.handoff_ if isinstance(self.handoff_, str) else None

    @property
    def handoff_action(self) -> HandoffAction | None:
        """The action a give-up hands the conversation to a person with, when ``handoff`` names one."""
        return self.handoff_ if isinstance(self.handoff_, HandoffAction) else None

    @property
    def timeout_seconds(self) -> float:
        return parse_duration(self.session_timeout)

    @property
    def retention_seconds(self) -> float | None:
        return None if self.retention is None else parse_duration(self.retention)

    @property
    def action_modules(self) -> list[str]:
        if self.actions is None:
            return []
        return [self.actions] if isinstance(self.actions, str) else list(self.actions)


PRESETS: dict[str, dict[str, int]] = {
    "economy": {"max_tokens": 2000, "keep_recent_rounds": 3},
    "standard": {"max_tokens": 8000, "keep_recent_rounds": 10},
    "long": {"max_tokens": 16000, "keep_recent_rounds": 20},
    "analysis": {"max_tokens": 32000, "keep_recent_rounds": 5},
}


class ContextSpec(_Model):
    """The context window: the messages an LLM receives for a turn, trimmed by priority to a
    budget of max_tokens - reserve_tokens. Numbers given beside a preset override the preset's."""

    model: str = Field(
        default="gpt-4o-mini",
        description="The model whose tokenizer counts tokens; when its encoding cannot be loaded offline, "
                    "a bundled one or a CJK-aware estimate stands in.",
        examples=["gpt-4o-mini"],
    )
    preset: Literal["economy", "standard", "long", "analysis"] = Field(
        default="standard",
        description="max_tokens / keep_recent_rounds: economy 2000/3, standard 8000/10, long 16000/20, "
                    "analysis 32000/5.",
        examples=["economy"],
    )
    max_tokens: Annotated[int, Field(gt=0)] | None = Field(
        default=None, description="The window's size in tokens. Default: the preset's.", examples=[4000],
    )
    reserve_tokens: int = Field(
        default=1000, ge=0,
        description="Tokens kept free for the model's answer (at most a quarter of max_tokens is reserved).",
        examples=[500],
    )
    keep_recent_rounds: Annotated[int, Field(ge=0)] | None = Field(
        default=None,
        description="Rounds (a user message and the replies to it) kept word for word; older rounds give "
                    "way to their summaries first. Default: the preset's.",
        examples=[1],
    )
    drop_filler: bool = Field(
        default=False,
        description="Send earlier user messages of 40 tokens or more without their filler: clauses in which the "
                    "bot reads no entity, number, question, cue, reference or trigger word become one \"…\". "
                    "The current message and the bot's replies are always sent whole.",
        examples=[True],
    )
    system_prompt: Prompt | None = Field(
        default=None,
        description="The system message. Default: one naming the bot and listing its flows.",
        examples=[{"zh": "你是订单售后助手。", "en": "You are an order support assistant."}],
    )

    @property
    def effective_max_tokens(self) -> int:
        return self.max_tokens if self.max_tokens is not None else PRESETS[self.preset]["max_tokens"]

    @property
    def effective_keep_recent_rounds(self) -> int:
        if self.keep_recent_rounds is not None:
            return self.keep_recent_rounds
        return PRESETS[self.preset]["keep_recent_rounds"]

    @property
    def effective_reserve_tokens(self) -> int:
        # A reserve larger than the window would leave no budget at all; cap it at a quarter.
        return min(self.reserve_tokens, self.effective_max_tokens // 4)

    @property
    def budget(self) -> int:
        return self.effective_max_tokens - self.effective_reserve_tokens


LLMUse = Literal["understanding", "summaries", "rephrase"]
StructuredOutput = Literal["auto", "json_schema", "json_object", "tools", "text"]


def _default_use_for() -> list[LLMUse]:
    return ["understanding", "summaries"]


class LLMSpec(_Model):
    """An OpenAI-compatible LLM. Without this block, or without an API key, the bot is rule-based;
    with it the LLM proposes and the rules still validate every value."""

    model: str = Field(default="gpt-4o-mini", description="The model name sent to the server.", examples=["qwen2.5:7b"])
    base_url: str | None = Field(
        default=None,
        description="The server's URL (any OpenAI-compatible server). Default: OPENAI_BASE_URL, else OpenAI.",
        examples=["http://localhost:11434/v1"],
    )
    api_key: str | None = Field(
        default=None,
        description="The API key. Default: OPENAI_API_KEY; prefer the environment to a key written in the file.",
        examples=["sk-..."],
    )
    use_for: list[LLMUse] = Field(
        default_factory=_default_use_for,
        json_schema_extra=_shown_default(["understanding", "summaries"]),
        description="understanding: flows, slot values, yes/no/cancel, each validated by the rules; "
                    "summaries: summaries of older rounds; rephrase: rewording each reply.",
        examples=[["understanding", "summaries", "rephrase"]],
    )
    timeout_s: float = Field(
        default=20, gt=0,
        description="Seconds for all LLM calls of one turn, retries included; past it the rules answer.",
        examples=[10],
    )
    max_retries: int = Field(
        default=2, ge=0,
        description="Retries of a call after a timeout, a connection error, 429 or 5xx, with back-off, "
                    "within timeout_s.",
        examples=[0],
    )
    temperature: float = Field(default=0.0, description="The sampling temperature of every call.", examples=[0.2])
    structured_output: StructuredOutput = Field(
        default="auto",
        description="How the model is asked for JSON. auto: a JSON Schema first; a server that refuses it is "
                    "asked in JSON mode with the schema in the request and the prompt, then in plain text with "
                    "the first JSON object taken from the reply, and what worked is remembered for that server. "
                    "json_schema, json_object, tools (one function per command) or text: that way only.",
        examples=["json_object"],
    )
    max_tokens: int | None = Field(
        default=None, gt=0,
        description="The most tokens one answer may have (max_tokens). Default: the server's; set it for a "
                    "small local model, which may otherwise ramble until its context is full.",
        examples=[256],
    )


class FaqSpec(_Model):
    """A question answered in any state without starting a task: matched like a flow's trigger, and
    inside a task followed by the pending question again (never a failed answer)."""

    examples: list[str] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="Utterances asking this question, in both languages; scored like trigger examples.",
        examples=[["你们几点下班", "营业时间", "what are your opening hours"]],
    )
    keywords: list[str] = Field(
        default_factory=list, json_schema_extra=_shown_default([]),
        description="Words or phrases that point to this question wherever they appear in an utterance.",
        examples=[["营业时间", "opening hours"]],
    )
    answer: Prompt = Field(
        description="The answer, a string or a {zh:, en:} map.",
        examples=[{"zh": "客服时间：每天 9:00–21:00。", "en": "We are available 9:00–21:00 every day."}],
    )

    @model_validator(mode="after")
    def _examples_or_keywords(self) -> FaqSpec:
        if not self.examples and not self.keywords:
            raise ValueError("an FAQ entry needs examples or keywords, else nothing can match it")
        return self


ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


class HttpActionSpec(_Model):
    """An action run by calling a web service: the slots go out as JSON, the answer comes back as
    the action's values. The URL and any secret headers come from the environment, never the file."""

    url_env: str = Field(
        pattern=ENV_NAME,
        description="The environment variable holding the URL (http:// or https://) the action posts to; "
                    "unset when the bot loads is a load error naming it.",
        examples=["TICKETS_URL"],
    )
    method: Literal["POST", "PUT"] = Field(default="POST", description="The HTTP method.", examples=["PUT"])
    timeout_s: float = Field(default=10, gt=0, description="Seconds one attempt may take.", examples=[3])
    retries: int = Field(
        default=2, ge=0, le=10,
        description="Attempts after the first one failed with a timeout, a connection error, 408, 429 or 5xx; "
                    "every attempt carries the same Idempotency-Key header.",
        examples=[0],
    )
    backoff_s: float = Field(
        default=0.5, ge=0,
        description="The wait before the first retry, doubled for each next one (a Retry-After header wins).",
        examples=[1],
    )
    headers_env: dict[str, Annotated[str, Field(pattern=ENV_NAME)]] = Field(
        default_factory=dict, json_schema_extra=_shown_default({}),
        description="Headers sent with every attempt: header name -> the environment variable holding its "
                    "value (an API key, say).",
        examples=[{"Authorization": "TICKETS_AUTH"}],
    )
    idempotent: bool = Field(
        default=True,
        description="The service deduplicates by the Idempotency-Key header: a request that timed out or got "
                    "a 5xx is retried, and after a crash the action is run again with the same key. false: only "
                    "a request that never reached the service (connection refused) or got 429 is retried, and "
                    "after a crash the task fails through on_error.",
        examples=[False],
    )


class BotLexicon(_Model):
    """Words a bot adds to the built-in lexicon of one language (``dialogkit/lexicon/<language>.yaml``)."""

    slot_nouns: dict[str, list[Annotated[str, Field(min_length=1)]]] = Field(
        default_factory=dict, json_schema_extra=_shown_default({}),
        description="Nouns that name a slot's value, by slot name, beside the noun of the slot's label: "
                    "with {tracking_no: [包裹]}, '那个包裹' points back at the tracking number as '那个运单号' "
                    "does. They name the slot's entity type wherever it is remembered.",
        examples=[{"tracking_no": ["包裹", "快递"]}],
    )


class BotFile(_Model):
    """A dialogkit bot file: settings, entity types and flows, and optionally the context window
    and an LLM."""

    bot: BotSettings = Field(
        default_factory=BotSettings, json_schema_extra=_shown_default({}),
        description="The bot's name, languages, actions module, timeouts and every-turn memory.",
        examples=[{"name": "support", "language": "auto"}],
    )
    entities: dict[str, EntityTypeSpec] = Field(
        default_factory=dict, json_schema_extra=_shown_default({}),
        description="Custom entity types by name, shared by every flow. Built-in types need no "
                    "declaration: number, integer, phone, email, date, time, yes_no.",
        examples=[{"order_id": {"pattern": r"(?<!\d)\d{5,12}(?!\d)", "kind": "thing"}}],
    )
    flows: dict[str, FlowSpec] = Field(
        description="The tasks the bot can do, by name.",
        examples=[{"check_status": {"trigger": {"keywords": ["状态", "status"]}}}],
    )
    faq: dict[str, FaqSpec] = Field(
        default_factory=dict, json_schema_extra=_shown_default({}),
        description="Questions answered in any state without starting a task, by name.",
        examples=[{"opening_hours": {"examples": ["营业时间", "when are you open"],
                                     "answer": {"zh": "客服时间：每天 9:00–21:00。", "en": "Open 9:00–21:00."}}}],
    )
    context: ContextSpec = Field(
        default_factory=ContextSpec, json_schema_extra=_shown_default({}),
        description="The context window an LLM is sent.", examples=[{"preset": "economy"}],
    )
    llm: LLMSpec | None = Field(
        default=None, description="The LLM; without it the bot is rule-based.",
        examples=[{"model": "gpt-4o-mini", "use_for": ["understanding"]}],
    )
    http_actions: dict[str, HttpActionSpec] = Field(
        default_factory=dict, json_schema_extra=_shown_default({}),
        description="Actions run by calling a web service, by the name execute.action (or a validator, or "
                    "choices) gives them; for backends not written in Python.",
        examples=[{"create_ticket": {"url_env": "TICKETS_URL", "timeout_s": 3, "retries": 2}}],
    )

    lexicon: dict[str, BotLexicon] = Field(
        default_factory=dict, json_schema_extra=_shown_default({}),
        description="Words this bot adds to the built-in lexicon, by language (zh, en, ...): today the nouns that "
                    "name a slot (docs/bot-file.md, 'lexicon').",
        examples=[{"zh": {"slot_nouns": {"tracking_no": ["包裹"]}}, "en": {"slot_nouns": {"tracking_no": ["parcel"]}}}],
    )

    @model_validator(mode="after")
    def _lexicon_names_slots(self) -> BotFile:
        slots = {slot.name for flow in self.flows.values() for slot in flow.slots}
        for language, words in self.lexicon.items():
            if language not in languages():
                raise ValueError(f"lexicon: no language '{language}'; the languages are {', '.join(languages())}")
            for name in words.slot_nouns:
                if name not in slots:
                    raise ValueError(f"lexicon.{language}.slot_nouns: no slot is named '{name}'"
                                     + (f"; the slots are {', '.join(sorted(slots))}" if slots else ""))
        return self

    def any_value(self, slot: SlotSpec | None) -> str | None:
        """The no-preference value (``any``) of the slot's type, or None when it declares none."""
        entity = self.entities.get(slot.entity) if slot is not None and slot.entity else None
        return entity.any if entity is not None else None

    def entity_kind(self, type_name: str) -> str:
        if type_name in self.entities:
            return self.entities[type_name].kind
        return {"date": "time", "time": "time"}.get(type_name, "other")

    def flow_intent(self, flow_name: str) -> str:
        return self.flows[flow_name].trigger.intent or flow_name


def _in_written_order(value: Any, parent: str | None = None) -> Any:
    """Keys sorted as pydantic sorts them, except that properties, defaults and examples keep the
    order they were written in: an example reads ``{zh: ..., en: ...}``, as a bot file does."""
    if parent in ("default", "examples"):
        return value
    if isinstance(value, list):
        return [_in_written_order(item, parent) for item in value]
    if not isinstance(value, dict):
        return value
    if parent == "properties":   # property names: their schemas are sorted like any other
        return {key: _in_written_order(item) for key, item in value.items()}
    return {key: _in_written_order(value[key], key) for key in sorted(value)}


class _SchemaGenerator(GenerateJsonSchema):
    def sort(self, value: JsonSchemaValue, parent_key: str | None = None) -> JsonSchemaValue:
        ordered: JsonSchemaValue = _in_written_order(value, parent_key)
        return ordered


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the bot file, for editor completion (``dialogkit schema``)."""
    schema = BotFile.model_json_schema(by_alias=True, schema_generator=_SchemaGenerator)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "dialogkit bot file"
    return schema
