"""The bot file as pydantic models: the single source of truth for loading and the JSON Schema.

Unknown keys are forbidden everywhere so a misspelt key is an error with a position, never a
silently ignored setting. Cross-references (slot -> entity type, placeholders -> slots, action
names) are checked by ``flow.validation`` because they need the whole file.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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
Language = Literal["zh", "en"]
EntityKind = Literal["person", "thing", "place", "time", "other"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LocalizedText(_Model):
    """A prompt with one text per language; a missing language falls back to the other."""

    zh: str | None = None
    en: str | None = None

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


def parse_duration(value: str | int | float) -> float:
    """'30m' / '2h' / '45s' / '1d' / 90 -> seconds."""
    if isinstance(value, (int, float)):
        return float(value)
    match = _DURATION.match(value)
    if not match:
        raise ValueError(f"{value!r} is not a duration; write e.g. 30m, 2h, 45s or 1d")
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


class SynonymValue(_Model):
    """Long form of a synonym entry: aliases plus a display label per language."""

    aliases: list[str] = Field(default_factory=list)
    label: Prompt | None = None


class EntityTypeSpec(_Model):
    """A custom entity type: a regex, a synonym dictionary, or both."""

    pattern: str | None = None
    values: dict[str, list[str] | SynonymValue] | None = None
    kind: EntityKind = "other"
    description: str | None = None

    @model_validator(mode="after")
    def _pattern_or_values(self) -> EntityTypeSpec:
        if self.pattern is None and not self.values:
            raise ValueError("an entity type needs a pattern, values, or both")
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
    """One slot rule; exactly one of the rule keys, with its own error message."""

    pattern: str | None = None
    min: float | None = None
    max: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    one_of: list[Any] | None = None
    action: str | None = None
    error: Prompt | None = None

    @model_validator(mode="after")
    def _at_least_one_rule(self) -> ValidationRule:
        keys = ("pattern", "min", "max", "min_length", "max_length", "one_of", "action")
        if all(getattr(self, k) is None for k in keys):
            raise ValueError("a validation rule needs one of: " + ", ".join(keys))
        return self


class SlotSpec(_Model):
    name: str
    entity: str | None = None
    ask: Prompt | None = None
    required: bool = True
    persist: Literal["none", "session", "user"] = "none"
    sensitive: bool = False
    validate_: list[ValidationRule] = Field(default_factory=list, alias="validate")
    description: str | None = None
    label: Prompt | None = None          # how the slot is named in summaries ("订单号" / "order number")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class TriggerSpec(_Model):
    intent: str | None = None
    examples: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)


class ConfirmSpec(_Model):
    ask: Prompt


class ExecuteSpec(_Model):
    action: str | None = None
    say: Prompt | None = None
    on_error: Prompt | None = None


class FlowSpec(_Model):
    description: str | None = None
    trigger: TriggerSpec = Field(default_factory=TriggerSpec)
    slots: list[SlotSpec] = Field(default_factory=list)
    confirm: ConfirmSpec | None = None
    execute: ExecuteSpec = Field(default_factory=ExecuteSpec)
    memory: dict[Literal[TRIGGERS], list[str]] = Field(default_factory=dict)  # type: ignore[valid-type]
    object: Prompt | None = None         # what the task is about ("会议" / "meeting"): completes ellipsis
    follow_up: Prompt | None = None      # pending action the summary lists after the task completes

    def slot(self, name: str) -> SlotSpec | None:
        return next((s for s in self.slots if s.name == name), None)

    def memory_for(self, trigger: str) -> list[str]:
        """The memory actions of ``trigger``: the flow's own list, else the default."""
        if trigger in self.memory:
            return list(self.memory[trigger])
        return list(DEFAULT_FLOW_MEMORY.get(trigger, []))


class BotMemorySpec(_Model):
    every_turn: list[str] = Field(default_factory=lambda: ["track_entities"])


class BotSettings(_Model):
    name: str = "bot"
    language: Literal["auto", "zh", "en"] = "auto"
    actions: str | list[str] | None = None
    session_timeout: str | int | float = "30m"
    max_reprompts: Annotated[int, Field(ge=0)] = 2
    handoff: str | None = None
    memory: BotMemorySpec = Field(default_factory=BotMemorySpec)
    description: str | None = None

    @field_validator("session_timeout")
    @classmethod
    def _duration(cls, value: str | int | float) -> str | int | float:
        parse_duration(value)
        return value

    @property
    def timeout_seconds(self) -> float:
        return parse_duration(self.session_timeout)

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
    """Context window settings; numbers given beside a preset override the preset's."""

    model: str = "gpt-4o-mini"
    preset: Literal["economy", "standard", "long", "analysis"] = "standard"
    max_tokens: Annotated[int, Field(gt=0)] | None = None
    reserve_tokens: Annotated[int, Field(ge=0)] = 1000
    keep_recent_rounds: Annotated[int, Field(ge=0)] | None = None
    system_prompt: Prompt | None = None

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


class LLMSpec(_Model):
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key: str | None = None
    use_for: list[Literal["understanding", "summaries", "rephrase"]] = Field(
        default_factory=lambda: ["understanding", "summaries"]
    )
    timeout_s: Annotated[float, Field(gt=0)] = 20
    max_retries: Annotated[int, Field(ge=0)] = 2
    temperature: float = 0.0


class BotFile(_Model):
    bot: BotSettings = Field(default_factory=BotSettings)
    entities: dict[str, EntityTypeSpec] = Field(default_factory=dict)
    flows: dict[str, FlowSpec]
    context: ContextSpec = Field(default_factory=ContextSpec)
    llm: LLMSpec | None = None

    def entity_kind(self, type_name: str) -> str:
        if type_name in self.entities:
            return self.entities[type_name].kind
        return {"date": "time", "time": "time"}.get(type_name, "other")

    def flow_intent(self, flow_name: str) -> str:
        return self.flows[flow_name].trigger.intent or flow_name


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the bot file, for editor completion (``dialogkit schema``)."""
    schema = BotFile.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "dialogkit bot file"
    return schema
