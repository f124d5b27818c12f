"""The incremental ticket summary: what the user stated, what was confirmed, what is pending.

Each transition adds or replaces a few keyed items; nothing here ever reads the history, so a
summary costs O(one transition) to update however long the conversation. Every item keeps
zh and en, the bot's own language besides (a Spanish bot's es: ``SummaryState.others``) and the
turn it came from, so the summary renders in the turn's language and "forget what I just said"
can take back exactly that turn's contribution.

Facts are keyed ``<flow>`` (the task's heading, from its description) and ``<flow>.<slot>``;
a corrected slot replaces its item in place.

The sections stay bounded however long the session: past ``RECENT_TASKS`` tasks (facts) or
``RECENT_ITEMS`` items (confirmed, pending), the oldest are folded into one compact "earlier"
item per section that keeps their values but not their headings, and that item keeps at most
``EARLIER_GROUPS`` of them. The session row, stored and loaded every turn, stays small.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

from dialogkit.lexicon import languages, writing
from dialogkit.model.session import SummaryItem, SummaryState
from dialogkit.strings.cjk import has_cjk
from dialogkit.text.phrases import phrase

__all__ = ["EARLIER_GROUPS", "EARLIER_KEY", "RECENT_ITEMS", "RECENT_TASKS", "STORED", "Others", "compact", "compacted",
           "item_text", "kept_languages", "mentions", "record_confirmed", "record_facts", "record_pending",
           "remove_turn", "render_summary", "resolve_pending", "snapshot", "trim_for_window"]

RECENT_TASKS = 12
"""Tasks whose facts the summary keeps verbatim (heading and labelled values)."""
RECENT_ITEMS = 12
"""Confirmed conclusions and pending actions kept verbatim, per section."""
EARLIER_GROUPS = 40
"""Folded tasks / items the "earlier" item keeps (oldest go first): bounded, still every recent value."""
EARLIER_KEY = "~earlier"
STORED: tuple[str, ...] = tuple(name for name in SummaryItem.model_fields if name in languages())
"""The languages every summary item is kept in: its fields named after a language (``SummaryItem.zh``
/ ``.en``, what stored sessions hold). A bot in another language keeps its items in that one
too (``kept_languages``); an item without it (stored before) reads in the second (en)."""
_ZH, _EN = STORED


@lru_cache(maxsize=16)
def kept_languages(bot_languages: tuple[str, ...]) -> tuple[str, ...]:
    """The languages a bot's summary items are kept in: ``STORED``, then the bot's others (es)."""
    return STORED + tuple(lang for lang in bot_languages if lang not in STORED)


Others = dict[str, dict[str, str]]
"""``SummaryState.others``: language -> an item's en text -> its text in that language. Kept
beside the items, not in them: a zh/en bot's session stores and reads exactly what it did."""


def item_text(item: SummaryItem, language: str, others: Others | None = None) -> str:
    """A summary item's text in ``language``, or in en when the summary does not keep that one."""
    if language in STORED:
        text: str = getattr(item, language)
        return text
    return (others or {}).get(language, {}).get(item.en) or item.en


def _texts_of(item: SummaryItem, others: Others | None) -> dict[str, str]:
    """Every language the summary keeps the item in, with its text."""
    said = {_ZH: item.zh, _EN: item.en}
    if others:
        said.update((lang, texts[item.en]) for lang, texts in others.items() if item.en in texts)
    return said


def _item(key: str, said: Mapping[str, str], turn: int, others: Others | None) -> SummaryItem:
    """An item from its text per language (zh and en at least; any other goes into ``others``)."""
    item = SummaryItem(key=key, zh=said[_ZH], en=said[_EN], turn=turn)
    for lang, text in said.items():
        if lang not in STORED and others is not None:
            others.setdefault(lang, {})[item.en] = text
    return item


def _keep_others(summary: SummaryState, en: str, texts: Mapping[str, str]) -> None:
    """Keep the item whose en text is ``en`` in the other languages of ``texts`` (the table is made
    when the first item in one comes: a zh/en bot's summary never has one)."""
    if summary.others is None:
        summary.others = {}
    for lang, text in texts.items():
        summary.others.setdefault(lang, {})[en] = text


def _copied(others: Others | None) -> Others | None:
    """A copy of the other languages' texts that later turns leave as it is."""
    return {lang: dict(texts) for lang, texts in others.items()} if others else None


def _prune(summary: SummaryState) -> None:
    """Drop the other languages' texts of items no longer in the summary."""
    assert summary.others is not None
    live = {i.en for items in (summary.facts, summary.confirmed, summary.pending) for i in items}
    for texts in summary.others.values():
        for gone in [en for en in texts if en not in live]:
            del texts[gone]


def _earlier(language: str) -> str:
    return phrase("summary_earlier", language)


def _groups_sep(language: str) -> str:
    """Between the tasks an "earlier" item folds: "；" / "; "."""
    return writing(language).clause_separator


def _details_sep(language: str) -> str:
    """Between the values of one task: "，" / ", "."""
    return writing(language).comma

SlotFact = tuple[str, str, str, str]   # label_zh, label_en, value_label_zh, value_label_en
MoreFacts = Mapping[str, tuple[str, Mapping[str, tuple[str, str]]]]
"""Per language besides zh and en: (the task's heading, slot -> (label, value label))."""


def _put(items: list[SummaryItem], item: SummaryItem) -> None:
    """Replace the item with the same key in place (keeping its order), else append."""
    for i, old in enumerate(items):
        if old.key == item.key:
            if (old.zh, old.en) != (item.zh, item.en):
                items[i] = item
            return
    items.append(item)


def _split_description(description: str, flow: str, description_en: str | None) -> tuple[str, str]:
    """"报告问题 / Report a problem" -> both halves; a single-language description stands for both."""
    parts = [p.strip() for p in re.split(r"\s+/\s+", description, maxsplit=1)]
    if len(parts) == 2:
        zh, en = parts if has_cjk(parts[0]) else parts[::-1]
    else:
        zh = en = parts[0] or flow
        if has_cjk(en):
            en = flow.replace("_", " ")
    return zh, description_en or en


def _fact_key(flow: str, name: str) -> str:
    """A slot's fact under its task's heading: ``flow`` is the heading's key."""
    return f"{flow}.{name}"


def record_facts(summary: SummaryState, *, flow: str, flow_description: str, slots: dict[str, SlotFact],
                 turn: int, flow_description_en: str | None = None, more: MoreFacts | None = None) -> None:
    """Record the slot values one transition filled as facts the user stated; ``more`` gives
    them in the bot's languages besides zh and en."""
    if not slots:
        return
    facts = summary.facts
    where = {item.key: i for i, item in enumerate(facts)}      # one pass, not one per slot
    if flow not in where:
        zh, en = _split_description(flow_description, flow, flow_description_en)
        facts.append(SummaryItem(key=flow, zh=zh, en=en, turn=turn))
        if more:
            _keep_others(summary, en, {lang: heading for lang, (heading, _) in more.items()})
    for name, (label_zh, label_en, value_zh, value_en) in slots.items():
        key = _fact_key(flow, name)
        zh, en = f"{label_zh} {value_zh}".strip(), f"{label_en} {value_en}".strip()
        if more:
            _keep_others(summary, en, {lang: f"{fact[0]} {fact[1]}".strip() for lang, (_, said) in more.items()
                                       if (fact := said.get(name)) is not None})
        i = where.get(key)
        if i is None:
            where[key] = len(facts)
            facts.append(SummaryItem(key=key, zh=zh, en=en, turn=turn))
        elif (facts[i].zh, facts[i].en) != (zh, en):
            facts[i] = SummaryItem(key=key, zh=zh, en=en, turn=turn)     # replaced in place, keeping its order
    _fold_facts(facts, RECENT_TASKS, summary.others)
    if summary.others:
        _prune(summary)


def record_confirmed(summary: SummaryState, *, key: str, zh: str, en: str, turn: int, **more: str) -> None:
    """A conclusion both sides agreed on ("已确认创建工单"); ``more``: in the bot's other languages."""
    if more:
        _keep_others(summary, en, more)
    _put(summary.confirmed, SummaryItem(key=key, zh=zh, en=en, turn=turn))
    _fold_items(summary.confirmed, RECENT_ITEMS, summary.others)
    if summary.others:
        _prune(summary)


def record_pending(summary: SummaryState, *, key: str, zh: str, en: str, turn: int, **more: str) -> None:
    """An action still to happen ("等待工单处理"); ``more``: in the bot's other languages."""
    if more:
        _keep_others(summary, en, more)
    _put(summary.pending, SummaryItem(key=key, zh=zh, en=en, turn=turn))
    _fold_items(summary.pending, RECENT_ITEMS, summary.others)
    if summary.others:
        _prune(summary)


# ---------------------------------------------------------------------------------- bounding


Group = dict[str, str]
"""One folded task or item, per language: its text in each the summary keeps."""


def _groups(item: SummaryItem | None, others: Others | None) -> list[Group]:
    """The groups an "earlier" item holds, oldest first."""
    if item is None:
        return []
    said = _texts_of(item, others)
    parts = [text.removeprefix(_earlier(lang)).split(_groups_sep(lang)) for lang, text in said.items()]
    return [dict(zip(said, texts, strict=True)) for texts in zip(*parts, strict=False) if any(texts)]


def _clean(text: str, language: str) -> str:
    """A group must not contain the group separator, or it would split on the next fold."""
    return _bare(text).replace(_groups_sep(language).strip(), _details_sep(language).strip())


def _fold_into(items: list[SummaryItem], folded: Iterable[tuple[Group, int]], others: Others | None) -> None:
    """Add ``folded`` groups to the section's "earlier" item (first in the section), deduplicated
    (a group said again moves to the end) and capped at ``EARLIER_GROUPS``."""
    earlier = next((i for i in items if i.key == EARLIER_KEY), None)
    groups = _groups(earlier, others)
    turn = earlier.turn if earlier is not None else 0
    for said, item_turn in folded:
        group = {lang: _clean(text, lang) for lang, text in said.items()}
        if group in groups:
            groups.remove(group)
        groups.append(group)
        turn = max(turn, item_turn)
    groups = groups[-EARLIER_GROUPS:]
    if not groups:
        return
    languages = dict.fromkeys(lang for g in groups for lang in g)     # zh and en, then any other kept
    item = _item(EARLIER_KEY, {lang: _earlier(lang) + _groups_sep(lang).join(g.get(lang) or g[_EN] for g in groups)
                               for lang in languages}, turn, others)
    items[:] = [item, *(i for i in items if i.key != EARLIER_KEY)]


def _fold_items(items: list[SummaryItem], keep: int, others: Others | None) -> None:
    """Fold the oldest items beyond ``keep`` into the "earlier" item."""
    own = [i for i in items if i.key != EARLIER_KEY]
    if len(own) <= keep:
        return
    old = own[: len(own) - keep]
    gone = {id(i) for i in old}
    items[:] = [i for i in items if id(i) not in gone]
    _fold_into(items, ((_texts_of(i, others), i.turn) for i in old), others)


def _fold_facts(facts: list[SummaryItem], keep: int, others: Others | None) -> None:
    """Fold the oldest tasks beyond ``keep`` into the "earlier" item: their values, labelled, without the heading."""
    headings = [i for i in facts if "." not in i.key and i.key != EARLIER_KEY]
    if len(headings) <= keep:
        return
    folded: list[tuple[Group, int]] = []
    gone: set[int] = set()
    for heading in headings[: len(headings) - keep]:
        details = [i for i in facts if i.key.startswith(heading.key + ".")]
        gone.update(id(i) for i in (heading, *details))
        if details:
            languages = dict.fromkeys(lang for d in details for lang in _texts_of(d, others))
            said = {lang: _details_sep(lang).join(item_text(d, lang, others) for d in details) for lang in languages}
            folded.append((said, max(d.turn for d in details)))
    facts[:] = [i for i in facts if id(i) not in gone]
    _fold_into(facts, folded, others)


def compact(summary: SummaryState, *, tasks: int = RECENT_TASKS, items: int = RECENT_ITEMS) -> None:
    """Fold every section down to ``tasks`` verbatim tasks and ``items`` verbatim items, in place."""
    _fold_facts(summary.facts, tasks, summary.others)
    _fold_items(summary.confirmed, items, summary.others)
    _fold_items(summary.pending, items, summary.others)


def compacted(summary: SummaryState, *, tasks: int, items: int, labels: Iterable[str] = (),
              earlier_conclusions: bool = True) -> SummaryState:
    """A folded copy of the three sections (round summaries left out): a shorter view for a
    context window tighter than what the session keeps. The original is untouched.

    Without ``earlier_conclusions`` the confirmed and pending sections show only their latest
    ``items`` (the facts still list every older value).
    ``labels`` (slot labels, both languages) are dropped from the facts' "earlier" item, which
    then lists bare values ("此前：12345，手机，损坏；67890"): the verbatim tasks keep theirs.
    """
    view = SummaryState(facts=list(summary.facts), confirmed=list(summary.confirmed), pending=list(summary.pending),
                        others=_copied(summary.others))
    compact(view, tasks=tasks, items=items)
    if not earlier_conclusions:
        view.confirmed[:] = [i for i in view.confirmed if i.key != EARLIER_KEY]
        view.pending[:] = [i for i in view.pending if i.key != EARLIER_KEY]
    names = frozenset(label.strip() for label in labels if label.strip())
    if names:
        view.facts[:] = [
            _item(EARLIER_KEY, {lang: _bare_values(text, lang, names)
                                for lang, text in _texts_of(item, view.others).items()}, item.turn, view.others)
            if item.key == EARLIER_KEY else item
            for item in view.facts
        ]
    return view


def trim_for_window(view: SummaryState, *, shown_task: str | None = None, flow_names: bool = False,
                    labels: Iterable[str] = ()) -> None:
    """Drop from a ``compacted`` view, in place, what the window would otherwise say twice.

    - ``shown_task`` (the active task's key): the flow instructions already list its values;
    - a task whose heading and values repeat a later one's (a status asked again for one order);
    - a conclusion a later one of the same task supersedes ("confirmed" once it is done);
    - a task whose every value its shown conclusion names ("订单 12345 当前状态：已发货" says
      all "查询订单状态（订单号 12345）" did); ``labels`` are the slot labels before its values;
    - with ``flow_names`` (the system prompt describes every flow), a task's heading becomes its
      flow's name ("report_issue#…" -> "report_issue"), as the flow instructions name it.

    Every value stays: the active task's in the flow instructions, the others here.
    """
    newest = {i.key.partition(":")[0]: i.key for i in view.confirmed}
    view.confirmed[:] = [i for i in view.confirmed if newest[i.key.partition(":")[0]] == i.key]
    tasks = _tasks(view.facts)
    last = {tuple(f"{i.zh}\n{i.en}" for i in items): key for key, items in tasks.items()}
    gone = {key for key, items in tasks.items() if last[tuple(f"{i.zh}\n{i.en}" for i in items)] != key}
    gone |= _concluded(tasks, view.confirmed, frozenset(label.strip() for label in labels if label.strip()))
    if shown_task is not None:
        gone.add(shown_task)
    view.facts[:] = [_named_by_flow(i) if flow_names else i for i in view.facts if i.key.partition(".")[0] not in gone]


def _tasks(facts: list[SummaryItem]) -> dict[str, list[SummaryItem]]:
    """Task key -> its heading and fact items, in order (the "earlier" item is no task)."""
    tasks: dict[str, list[SummaryItem]] = {}
    for item in facts:
        if item.key != EARLIER_KEY:
            tasks.setdefault(item.key.partition(".")[0], []).append(item)
    return tasks


def _concluded(tasks: dict[str, list[SummaryItem]], conclusions: list[SummaryItem], labels: frozenset[str]) -> set[str]:
    """Tasks whose conclusion (keyed ``<task id>:…``, the task keyed ``<flow>#<task id>``) names
    each of their values, in both languages."""
    by_task = {i.key.partition(":")[0]: i for i in conclusions}
    out: set[str] = set()
    for key, items in tasks.items():
        end = by_task.get(key.partition("#")[2])
        values = [i for i in items if "." in i.key]
        if end is not None and values and all(mentions(end.zh, _unlabelled(i.zh, labels)) and
                                              mentions(end.en, _unlabelled(i.en, labels)) for i in values):
            out.add(key)
    return out


def _named_by_flow(item: SummaryItem) -> SummaryItem:
    """A task heading as its flow's name; other items as they are."""
    if "." in item.key or item.key == EARLIER_KEY:
        return item
    name = item.key.partition("#")[0]
    return item.model_copy(update=dict.fromkeys(STORED, name))


def mentions(text: str, value: str) -> bool:
    """``value`` occurs in ``text`` as a whole: not inside a longer number or word ("10000" is
    not in "510000"; "手机" is in "手机，损坏")."""
    start = text.find(value)
    while value and start >= 0:
        end = start + len(value)
        if not (_word_char(text, start - 1) and _word_char(value, 0)) and \
                not (_word_char(text, end) and _word_char(value, len(value) - 1)):
            return True
        start = text.find(value, start + 1)
    return False


def _word_char(text: str, at: int) -> bool:
    """An ASCII letter or digit at ``at`` (False outside the text)."""
    return 0 <= at < len(text) and text[at].isascii() and text[at].isalnum()


@lru_cache(maxsize=256)
def _bare_values(text: str, language: str, labels: frozenset[str]) -> str:
    """An "earlier" item without the slot label before each value, and the values its tasks
    share said once: "商品 手机，问题 损坏，订单号 10000；商品 手机，问题 损坏，订单号 41676" ->
    "手机，损坏：10000、41676".

    Tasks that share the same values and differ in exactly one merge under the shared ones, at
    the place of the latest of them; every other task stays as written. Every value, and which
    values went together, survive; only the order among merged tasks is lost. Cached: the item
    changes only when a task folds, and every context built until then asks for the same text.
    """
    prefix, detail_sep = _earlier(language), _details_sep(language)
    groups = [[_unlabelled(d, labels) for d in g.split(detail_sep)]
              for g in text.removeprefix(prefix).split(_groups_sep(language))]
    counts = Counter(d for details in groups for d in set(details))
    merged: dict[frozenset[str], tuple[str, list[str], int]] = {}
    place: dict[int | frozenset[str], int] = {}     # entry -> the place of its latest task
    for i, details in enumerate(groups):
        own = [d for d in details if counts[d] == 1]
        if len(own) != 1 or len(own) == len(details):
            place[i] = i
            continue
        key = frozenset(d for d in details if counts[d] > 1)
        merged.setdefault(key, (detail_sep.join(d for d in details if counts[d] > 1), [], i))[1].append(own[0])
        place[key] = i
    entries = sorted(place, key=place.__getitem__)
    return prefix + _groups_sep(language).join(
        detail_sep.join(groups[e]) if isinstance(e, int) else _merged(*merged[e], groups, language) for e in entries)


def _unlabelled(detail: str, labels: frozenset[str]) -> str:
    """"订单号 12345" -> "12345": the longest label the detail starts with, before a space, goes."""
    end = len(detail)
    while (space := detail.rfind(" ", 0, end)) > 0:
        if detail[:space].rstrip() in labels:
            return detail[space:].lstrip()
        end = space
    return detail


def _merged(head: str, found: list[str], first: int, groups: list[list[str]], language: str) -> str:
    """Tasks sharing ``head``, with their own values; one alone stays as it was written."""
    if len(found) == 1:
        return _details_sep(language).join(groups[first])
    written = writing(language)
    return head + written.colon + written.list_separator.join(found)


def resolve_pending(summary: SummaryState, key: str) -> bool:
    """Drop a pending action once it happened; True when there was one."""
    before = len(summary.pending)
    summary.pending[:] = [item for item in summary.pending if item.key != key]
    return len(summary.pending) != before


def drop_fact(summary: SummaryState, *, flow: str, name: str) -> bool:
    """A stated value that no longer holds (rejected, its replacement not taken yet): gone from
    the facts, its task's heading kept while other facts stand under it; True when it was there."""
    key = _fact_key(flow, name)
    before = len(summary.facts)
    summary.facts[:] = [item for item in summary.facts if item.key != key]
    return len(summary.facts) != before


def remove_turn(summary: SummaryState, turn: int) -> int:
    """Take back what the summary took from ``turn``; returns how many items went.

    A task heading goes with its last fact: a heading with nothing under it says nothing.
    The "earlier" items stay: they hold older turns' values folded together, and only the
    newest turns are ever taken back.
    """
    removed = 0
    for items in (summary.facts, summary.confirmed, summary.pending):
        kept = [item for item in items if item.turn != turn or item.key == EARLIER_KEY]
        removed += len(items) - len(kept)
        items[:] = kept
    headings = {item.key for item in summary.facts if "." not in item.key and item.key != EARLIER_KEY}
    with_facts = {item.key.split(".", 1)[0] for item in summary.facts if "." in item.key}
    orphans = headings - with_facts
    if orphans:
        removed += len(orphans)
        summary.facts[:] = [item for item in summary.facts if item.key not in orphans]
    return removed


def _render_facts(items: list[SummaryItem], language: str, others: Others | None = None) -> list[str]:
    """One phrase per task: "报告订单问题（订单号 12345，商品 手机）" (one pass over the items)."""
    details: dict[str, list[str]] = {}
    for item in items:
        head, dot, _ = item.key.partition(".")
        if dot:
            details.setdefault(head, []).append(item_text(item, language, others))
    phrases = []
    for heading in (i for i in items if "." not in i.key):
        title = item_text(heading, language, others)
        found = details.get(heading.key)
        if found:
            title = phrase("summary_details", language, title=title, details=_details_sep(language).join(found))
        phrases.append(title)
    return phrases


def _bare(text: str) -> str:
    """Items are joined into one sentence: their own final stops would double up ("。，")."""
    return text.strip().rstrip("。.！!；;，,")


def render_summary(summary: SummaryState, language: str) -> str:
    """The three sections, kept apart; empty sections are left out, an empty summary is ""."""
    return _render((summary.facts, summary.confirmed, summary.pending), language, summary.others)


def snapshot(summary: SummaryState, language: str) -> Callable[[], str]:
    """``render_summary(summary, language)`` as the summary is now, rendered when called (a turn's
    reply renders its summary only if asked): items are replaced, never edited, so copying the lists
    is a faithful snapshot even after the next turn changes the summary."""
    sections = (list(summary.facts), list(summary.confirmed), list(summary.pending))
    others = _copied(summary.others) if summary.others else None
    return lambda: _render(sections, language, others)


_TITLES = ("summary_stated", "summary_confirmed", "summary_pending")
Rendered = dict[tuple[str, str], tuple[tuple[SummaryItem, ...], dict[str, str] | None, str]]
_RENDERED: Rendered = {}
"""Each section as last rendered, by (section, language): its items and its text. Kept here, not
on the summary: a session is decoded from the store every turn, and a memo on the model (a pydantic
private attribute) cost every decode its setup while living only until the turn ended. Here it
outlives the turn, and the items are compared by content, so a summary read again renders only
the sections whose items changed whichever session or decode it comes from. One entry a section
and language: the dict never grows, and a lost race between threads only renders again."""


def _render(sections: tuple[list[SummaryItem], ...], language: str, others: Others | None) -> str:
    language = language if language in languages() else _EN
    texts = [text for title, items in zip(_TITLES, sections, strict=True)
             if (text := _section(title, items, language, others))]
    return phrase("summary_sections", language).join(texts) + (phrase("summary_end", language) if texts else "")


def _section(title: str, items: list[SummaryItem], language: str, others: Others | None) -> str:
    """One section's text, "" when it has no item. Rendered again only when its items changed since
    it was last rendered (``_RENDERED``): a turn that moves no slot and no task (a question, a
    repair, small talk) changes none, and one that does changes one section or two. The items kept
    are compared (the same object, or one equal in every field), so an item replaced by another
    with the same words counts as unchanged, and a changed one never reads as the old."""
    if not items:
        return ""
    now = tuple(items)
    own = others.get(language) if others and language not in STORED else None   # a Spanish bot's texts
    kept = _RENDERED.get((title, language))
    if kept is not None and kept[0] == now and kept[1] == own:
        return kept[2]
    if title == "summary_stated":
        text = phrase(title, language) + _groups_sep(language).join(_render_facts(items, language, others))
    else:
        texts = dict.fromkeys(_bare(item_text(i, language, others)) for i in items)     # one line per distinct item
        text = phrase(title, language) + _details_sep(language).join(texts)
    _RENDERED[(title, language)] = (now, dict(own) if own is not None else None, text)
    return text
