"""Slot values as a simulated user types them: aliases and labels of an entity's values, strings
its ``pattern`` matches, built-in numbers, dates, times, phones and e-mails, free text — each with
the canonical value the slot should then hold.

Invalid values are values of the right type that break one of the slot's validation rules, so
the bot must answer with that rule's message (docs/behaviours.md, items 3 and 17). A rule that no
value of the type can break (an order-number rule repeating the entity's pattern) yields none.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from dialogkit.engine.choices import Choice
from dialogkit.lexicon import lexicon_of_script, writing
from dialogkit.simulation.catalog import Catalog, EntityInfo, SlotInfo
from dialogkit.simulation.vocabulary import ORDINALS, YES_NO_VALUES
from dialogkit.spec.schema import ValidationRule

PATTERN_ALPHABET = string.ascii_letters + string.digits + "-_.:/@+"
"""Pattern values are typed in ASCII: a ``\\d`` in a bot's pattern means the digits users type."""

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
CN_NUMERALS = lexicon_of_script("han").words("user_clock_hours")

Strategy = st.SearchStrategy
YES_NO = "yes_no"


Form = Literal["alias", "label", "pattern", "builtin", "number", "free_text", "choice", "ordinal"]


@dataclass(frozen=True, slots=True)
class Said:
    """A value as the simulated user says it, with the canonical value it stands for."""

    text: str
    canonical: Any
    entity: str | None
    valid: bool = True
    form: Form = "alias"      # where the text came from: a "label" is shown by the bot but not declared as input


# -- validation rules, as the bot file states them ------------------------------------------------

def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def rule_passes(rule: ValidationRule, value: Any) -> bool:
    """Whether ``value`` passes ``rule`` (a custom ``action`` rule counts as passed: its code decides)."""
    text = str(value)
    checks: list[bool] = []
    if rule.pattern is not None:
        checks.append(re.search(rule.pattern, text) is not None)
    if rule.min is not None or rule.max is not None:
        number = _number(value)
        checks.append(number is not None and (rule.min is None or number >= rule.min)
                      and (rule.max is None or number <= rule.max))
    if rule.min_length is not None:
        checks.append(len(text) >= rule.min_length)
    if rule.max_length is not None:
        checks.append(len(text) <= rule.max_length)
    if rule.one_of is not None:
        checks.append(text in {str(v) for v in rule.one_of})
    return all(checks)


def passes(slot: SlotInfo, value: Any) -> bool:
    return all(rule_passes(rule, value) for rule in slot.rules)


# -- values of each kind of entity ----------------------------------------------------------------

def _alias_values(entity: EntityInfo, language: str) -> list[Said]:
    out = []
    for value in entity.values:
        texts = value.said.get(language) or next((forms for forms in value.said.values() if forms), ())
        out += [Said(text, value.canonical, entity.name, form="label" if text in value.labels_only else "alias")
                for text in texts]
    return out


def _pattern_values(entity: EntityInfo, catalog: Catalog, slot: SlotInfo) -> Strategy[Said]:
    """Strings the type's pattern matches, and strings a rule's pattern of the slot matches that
    the type's pattern takes whole: a narrow rule ("^P\\d{8}$" on "P\\d{2,12}") is then met
    often enough for its valid values to be drawn without giving up."""
    assert entity.pattern is not None
    pattern = re.compile(entity.pattern)

    def whole(text: str) -> bool:
        match = pattern.search(text)
        return match is not None and match.group() == text and not catalog.has_alias(text)

    def canonical(text: str) -> Said:
        match = pattern.search(text)
        assert match is not None
        group = next((g for g in match.groups() if g is not None), None)
        return Said(text, group if group is not None else match.group(), entity.name, form="pattern")

    sources = [entity.pattern, *(rule.pattern for rule in slot.rules if rule.pattern is not None)]
    texts = [st.from_regex(source, fullmatch=True, alphabet=PATTERN_ALPHABET) for source in sources]
    return st.one_of(texts).filter(whole).map(canonical)


def _time(hour: int, half: bool, language: str) -> tuple[str, str]:
    value = f"{hour:02d}:{30 if half else 0:02d}"
    twelve = hour - 12 if hour > 12 else hour
    if writing(language).script == "han":
        period = "上午" if hour < 12 else "中午" if hour == 12 else "下午" if hour < 18 else "晚上"
        return f"{period}{CN_NUMERALS[twelve]}点{'半' if half else ''}", value
    suffix = "am" if hour < 12 else "pm"
    return (f"{twelve}:30{suffix}" if half else f"{twelve}{suffix}"), value


def _date(year: int, month: int, day: int, language: str) -> tuple[str, str]:
    value = f"{year}-{month:02d}-{day:02d}"
    if writing(language).script == "han":
        return f"{year}年{month}月{day}日", value
    return f"{MONTHS[month - 1]} {day}, {year}", value


def _bounds(slot: SlotInfo) -> tuple[float | None, float | None]:
    lows = [r.min for r in slot.rules if r.min is not None]
    highs = [r.max for r in slot.rules if r.max is not None]
    return (max(lows) if lows else None), (min(highs) if highs else None)


def _numbers(slot: SlotInfo, valid: bool) -> Strategy[Said] | None:
    """Integers inside the slot's min/max (valid) or just outside them (invalid)."""
    low, high = _bounds(slot)
    start = int(low) if low is not None and low > 0 else 1
    if valid:
        end = int(high) if high is not None else start + 999
        choices: Strategy[int] | None = st.integers(start, max(start, end))
    else:
        parts = []
        if high is not None:
            parts.append(st.integers(int(high) + 1, int(high) * 2 + 100))
        if low is not None and low >= 1:
            parts.append(st.integers(0, int(low) - 1 if low == int(low) else int(low)))
        choices = st.one_of(parts) if parts else None
    return None if choices is None else choices.map(lambda n: Said(str(n), n, slot.entity, form="number"))


def _pair(entity: str) -> Callable[[tuple[str, Any]], Said]:
    return lambda pair: Said(pair[0], pair[1], entity, form="builtin")


def _builtin(name: str, language: str) -> Strategy[Said] | None:
    if name == "phone":
        phones = st.from_regex(r"1[3-9]\d{9}", fullmatch=True, alphabet=string.digits)
        return phones.map(lambda t: (t, t)).map(_pair(name))
    if name == "email":
        names = st.from_regex(r"[a-z]{3,8}", fullmatch=True, alphabet=string.ascii_lowercase)
        return names.map(lambda n: (f"{n}@example.com", f"{n}@example.com")).map(_pair(name))
    if name == "date":
        dates = st.builds(_date, st.integers(2026, 2028), st.integers(1, 12), st.integers(1, 28), st.just(language))
        return dates.map(_pair(name))
    if name == "time":
        return st.builds(_time, st.integers(8, 21), st.booleans(), st.just(language)).map(_pair(name))
    return None


def _listed(catalog: Catalog, slot: SlotInfo, language: str) -> list[Said]:
    """The values of the slot's type that can be listed: aliases and labels, yes and no, or free-text answers."""
    if slot.entity is None:
        return [Said(t, t, None, form="free_text") for t in catalog.free_text(language)]
    if slot.entity == YES_NO:
        return [Said(text, value, YES_NO, form="builtin") for text, value in YES_NO_VALUES[language]]
    entity = catalog.entities.get(slot.entity)
    return _alias_values(entity, language) if entity is not None else []


def _generated(catalog: Catalog, slot: SlotInfo, language: str, valid: bool) -> Strategy[Said] | None:
    """Values hypothesis makes up: strings the type's pattern matches, numbers, dates, times,
    phones and e-mails."""
    if slot.entity in ("number", "integer"):
        return _numbers(slot, valid)
    entity = catalog.entities.get(slot.entity) if slot.entity else None
    parts: list[Strategy[Said]] = []
    if entity is not None and entity.pattern is not None:
        parts.append(_pattern_values(entity, catalog, slot))
    builtin = _builtin(slot.entity or "", language)
    if builtin is not None:
        parts.append(builtin)
    return st.one_of(parts) if parts else None


PoolKey = tuple[str, str, str, bool]
"""(entity type, its slot's rules, language or "" when the value is typed alike in both, valid)."""

WORDED = frozenset({"date", "time"})
"""Built-in types whose values are written differently per language ("3月5日" / "March 5")."""

EXAMPLES = 12
"""Made-up values hypothesis draws per type, rule set and validity before the conversations start."""


def made_up(strategy: Strategy[Said], keep: Callable[[Said], bool], run_seed: int) -> tuple[Said, ...]:
    """Up to ``EXAMPLES`` distinct values of ``strategy`` that ``keep`` accepts, drawn by hypothesis
    for this seed. Drawing them once, before any conversation, means no conversation is given up
    because a narrow rule refused every value tried; none at all means the rule cannot be met."""
    found: list[Said] = []

    @seed(run_seed)
    @settings(max_examples=EXAMPLES * 4, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: Said) -> None:
        if keep(value) and value not in found and len(found) < EXAMPLES:
            found.append(value)

    collect()
    return tuple(found)


@dataclass(frozen=True, slots=True)
class ValueSource:
    """Where one slot's valid (or invalid) values in one language come from."""

    listed: tuple[Said, ...]             # aliases, labels or free text that fit
    pool: PoolKey | None                 # the conversation's pool of made-up values that fit
    named: tuple[Said, ...] = field(init=False, repr=False, compare=False)    # listed, ordinals left out

    def __post_init__(self) -> None:
        """An ordinal ("第二个") only picks from a list a question shows; a catalogue's 20,000
        listed values are sorted out once, not on every move."""
        object.__setattr__(self, "named", tuple(s for s in self.listed if s.form != "ordinal"))


class SlotValues:
    """The value sources of every slot, built once per bot.

    Made-up values (pattern strings, dates, numbers ...) are drawn before the conversations start,
    then a couple per type go into each conversation's pool, as a user has a couple of order
    numbers rather than a new one each turn. A turn picks one value from the listed ones and the
    pool in a single choice, which keeps every turn short enough for hypothesis to delete it
    while shrinking.
    """

    POOL_SIZE = 2

    def __init__(self, catalog: Catalog, run_seed: int = 0,
                 choices: Mapping[tuple[str, str], tuple[Choice, ...]] | None = None) -> None:
        self.catalog = catalog
        self.seed = run_seed
        self.choices = dict(choices or {})       # (flow, slot) -> the options its choices action lists
        self._sources: dict[tuple[str, str, str, bool], ValueSource | None] = {}
        self._listed: dict[tuple[str | None, str], list[Said]] = {}
        self.examples: dict[PoolKey, tuple[Said, ...]] = {}
        self.memo: dict[tuple[str, ...], tuple[tuple[Said, str], ...]] = {}
        """What a move worked out once from a slot's listed values (flow, slot, language, move's
        own key -> (value, its value_key lowered)), kept for the run: moves.py fills it."""
        self.strategies: dict[tuple[str, ...], tuple[tuple[Said, ...], Strategy[Any]]] = {}
        """A move's strategy over a slot's values (flow, slot, language -> the conversation's
        pool it holds, the strategy), made once: moves.py fills it."""

    def prepare(self, languages: tuple[str, ...]) -> None:
        """Build every source now: making values up runs hypothesis, which must not happen inside
        a running simulation."""
        for flow in self.catalog.flows.values():
            for slot in flow.slots:
                for language in languages:
                    for valid in (True, False):
                        self._sources[(slot.flow, slot.name, language, valid)] = self._build(slot, language, valid)

    def source(self, slot: SlotInfo, language: str, valid: bool = True) -> ValueSource | None:
        return self._sources.get((slot.flow, slot.name, language, valid))

    def draw_pools(self) -> Strategy[dict[PoolKey, tuple[Said, ...]]]:
        """A conversation's pools of made-up values, one per type and rule set."""
        return st.fixed_dictionaries({
            key: st.lists(st.sampled_from(values), min_size=self.POOL_SIZE, max_size=self.POOL_SIZE).map(tuple)
            for key, values in sorted(self.examples.items()) if values
        })

    def _build(self, slot: SlotInfo, language: str, valid: bool) -> ValueSource | None:
        options = self.choices.get((slot.flow, slot.name))
        if options:
            return self._build_choices(slot, options, language, valid)
        said = (slot.entity, language)
        if said not in self._listed:         # a type's values are said alike by every slot taking it
            self._listed[said] = _listed(self.catalog, slot, language)
        listed = tuple(s if s.valid == valid else replace(s, valid=valid) for s in self._listed[said]
                       if passes(slot, s.canonical) == valid)
        generated = _generated(self.catalog, slot, language, valid)
        pool: PoolKey | None = None
        if generated is not None:
            key: PoolKey = (slot.entity or "", repr(slot.rules), language if slot.entity in WORDED else "", valid)
            if key not in self.examples:
                found = made_up(generated, lambda s: passes(slot, s.canonical) == valid, self.seed)
                self.examples[key] = tuple(replace(s, valid=valid) for s in found)
            pool = key if self.examples[key] else None
        return ValueSource(listed, pool) if listed or pool else None

    def _build_choices(self, slot: SlotInfo, options: tuple[Choice, ...], language: str,
                       valid: bool) -> ValueSource | None:
        """A slot with choices takes an option by value, label or ordinal; a value of its type
        naming none of them is outside and must be refused with the list."""
        if valid:
            listed = [Said(str(c.value), c.value, slot.entity, form="choice") for c in options]
            listed += [Said(c.label(language), c.value, slot.entity, form="choice") for c in options]
            listed += [Said(text, options[n].value, slot.entity, form="ordinal")
                       for n, text in enumerate(ORDINALS[language]) if n < len(options)]
            return ValueSource(tuple(dict.fromkeys(listed)), None)
        generated = _generated(self.catalog, slot, language, True)
        if generated is None:
            return None
        names = [n.lower() for c in options for n in (str(c.value), *c.labels.values()) if n]
        key: PoolKey = (f"{slot.entity or ''}|choices:{slot.flow}.{slot.name}", repr(slot.rules), language, False)
        if key not in self.examples:
            found = made_up(generated, lambda s: not any(n in s.text.lower() for n in names), self.seed)
            self.examples[key] = tuple(replace(s, valid=False) for s in found)
        return ValueSource((), key) if self.examples[key] else None
