"""The incremental ticket summary: what the user stated, what was confirmed, what is pending.

Each transition adds or replaces a few keyed items; nothing here ever reads the history, so a
summary costs O(one transition) to update however long the conversation. Every item keeps
both languages and the turn it came from, so the summary renders in the turn's language and
"forget what I just said" can take back exactly that turn's contribution.

Facts are keyed ``<flow>`` (the task's heading, from its description) and ``<flow>.<slot>``;
a corrected slot replaces its item in place.
"""

from __future__ import annotations

import re

from dialogkit.memory.lexicon import has_cjk
from dialogkit.runtime.session import SummaryItem, SummaryState

__all__ = ["record_confirmed", "record_facts", "record_pending", "remove_turn", "render_summary",
           "resolve_pending"]

SlotFact = tuple[str, str, str, str]   # label_zh, label_en, value_label_zh, value_label_en


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


def record_facts(summary: SummaryState, *, flow: str, flow_description: str, slots: dict[str, SlotFact],
                 turn: int, flow_description_en: str | None = None) -> None:
    """Record the slot values one transition filled as facts the user stated."""
    if not slots:
        return
    zh, en = _split_description(flow_description, flow, flow_description_en)
    if not any(item.key == flow for item in summary.facts):
        summary.facts.append(SummaryItem(key=flow, zh=zh, en=en, turn=turn))
    for name, (label_zh, label_en, value_zh, value_en) in slots.items():
        _put(summary.facts, SummaryItem(key=f"{flow}.{name}", zh=f"{label_zh} {value_zh}".strip(),
                                        en=f"{label_en} {value_en}".strip(), turn=turn))


def record_confirmed(summary: SummaryState, *, key: str, zh: str, en: str, turn: int) -> None:
    """A conclusion both sides agreed on ("已确认创建工单")."""
    _put(summary.confirmed, SummaryItem(key=key, zh=zh, en=en, turn=turn))


def record_pending(summary: SummaryState, *, key: str, zh: str, en: str, turn: int) -> None:
    """An action still to happen ("等待工单处理")."""
    _put(summary.pending, SummaryItem(key=key, zh=zh, en=en, turn=turn))


def resolve_pending(summary: SummaryState, key: str) -> bool:
    """Drop a pending action once it happened; True when there was one."""
    before = len(summary.pending)
    summary.pending[:] = [item for item in summary.pending if item.key != key]
    return len(summary.pending) != before


def remove_turn(summary: SummaryState, turn: int) -> int:
    """Take back what the summary took from ``turn``; returns how many items went.

    A task heading goes with its last fact: a heading with nothing under it says nothing.
    """
    removed = 0
    for items in (summary.facts, summary.confirmed, summary.pending):
        kept = [item for item in items if item.turn != turn]
        removed += len(items) - len(kept)
        items[:] = kept
    headings = {item.key for item in summary.facts if "." not in item.key}
    with_facts = {item.key.split(".", 1)[0] for item in summary.facts if "." in item.key}
    orphans = headings - with_facts
    if orphans:
        removed += len(orphans)
        summary.facts[:] = [item for item in summary.facts if item.key not in orphans]
    return removed


def _render_facts(items: list[SummaryItem], language: str) -> list[str]:
    """One phrase per task: "报告订单问题（订单号 12345，商品 手机）"."""
    zh = language == "zh"
    phrases = []
    for heading in (i for i in items if "." not in i.key):
        details = [getattr(i, language if language in ("zh", "en") else "en") for i in items
                   if i.key.startswith(heading.key + ".")]
        title = heading.zh if zh else heading.en
        if details:
            joined = "，".join(details) if zh else ", ".join(details)
            title = f"{title}（{joined}）" if zh else f"{title} ({joined})"
        phrases.append(title)
    return phrases


def _bare(text: str) -> str:
    """Items are joined into one sentence: their own final stops would double up ("。，")."""
    return text.strip().rstrip("。.！!；;，,")


def render_summary(summary: SummaryState, language: str) -> str:
    """The three sections, kept apart; empty sections are left out, an empty summary is ""."""
    zh = language == "zh"
    sections: list[str] = []
    facts = _render_facts(summary.facts, language)
    if facts:
        sections.append(("用户陈述：" if zh else "User stated: ") + ("；".join(facts) if zh else "; ".join(facts)))
    for title_zh, title_en, items in (("已确认", "Confirmed", summary.confirmed), ("待办", "Pending", summary.pending)):
        if items:
            texts = [_bare(i.zh if zh else i.en) for i in items]
            sections.append(f"{title_zh}：" + "，".join(texts) if zh else f"{title_en}: " + ", ".join(texts))
    return ("；" if zh else ". ").join(sections) + ("" if zh or not sections else ".")
