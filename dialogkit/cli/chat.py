"""``dialogkit chat``: talk to a bot in the terminal (or through a pipe), inspecting its memory.

Rendering only: every command reads the public ``Bot`` API, so what the chat shows is exactly
what an embedding application would see.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from rich.console import Console
from rich.table import Table

from dialogkit.actions.loading import stand_in_actions
from dialogkit.bot import Bot, SessionView
from dialogkit.cli.consoles import plain_console
from dialogkit.cli.context_export import ExportError, check_target, parse_export, render, write_export
from dialogkit.engine.ownership import SessionOwnerError
from dialogkit.errors import DialogkitError, FlowError
from dialogkit.logging import configure_logging
from dialogkit.model.reply import Reply
from dialogkit.service.inspection import reply_redactor
from dialogkit.spec.watch import FileWatch
from dialogkit.strings.redaction import MASK, Redactor, mask_deep

HELP = "/state /summary /entities /stats /context /export FILE [--force] [--raw] /clear /help /exit"


def _lines(console: Console, interactive: bool) -> Iterator[str]:
    while True:
        try:
            line = console.input("[bold cyan]you>[/] ") if interactive else sys.stdin.readline()
        except (EOFError, KeyboardInterrupt):
            return
        if not interactive and line == "":
            return
        yield line.rstrip("\n")


def _render_reply(console: Console, reply: Reply, said: str, hidden: frozenset[str], explain: bool = False) -> None:
    console.print("[bold green]bot>[/] ", end="")
    console.print(reply.text, highlight=False, markup=False)
    slots = ", ".join(f"{k}={MASK if k in hidden and v is not None else v}" for k, v in reply.slots.items()) or "-"
    extra = f"  resolved: {reply.resolved}" if reply.resolved and reply.resolved != said else ""
    if reply.options:
        extra += "  options: " + " / ".join(reply.options)
    console.print(f"[dim]  [{reply.state}] flow={reply.flow or '-'} slots: {slots}{extra}[/]", highlight=False)
    if explain:
        _render_explain(console, reply, hidden)


def _render_explain(console: Console, reply: Reply, hidden: frozenset[str]) -> None:
    """Why the bot answered so: one dim line per decision, sensitive values masked."""
    redact = reply_redactor(reply, hidden)
    for record in reply.explain:
        line = record.line()
        console.print("  " + (redact(line) if redact else line), style="dim", highlight=False, markup=False)


def _shown(bot: Bot, sid: str) -> tuple[SessionView, Redactor]:
    """The session and what masks its sensitive values in whatever a command prints of it."""
    view = bot.session(sid)
    assert view.data is not None
    return view, bot.view.output_redactor(view.data)


def _state(console: Console, bot: Bot, sid: str) -> None:
    view, redact = _shown(bot, sid)
    console.print(f"state: {view.state}  flow: {view.flow or '-'}  stack: {' > '.join(view.stack) or '-'}",
                  highlight=False)
    slots = json.dumps(view.slots, ensure_ascii=False, default=str)
    console.print(f"slots: {redact(slots)}", highlight=False, markup=False)


def _entities(console: Console, bot: Bot, sid: str) -> None:
    view, redact = _shown(bot, sid)
    if not view.entities:
        console.print("(no entities yet)")
        return
    table = Table("type", "value", "kind", "aliases", "mentions", "attributes", "last turn")
    for e in view.entities:
        table.add_row(*mask_deep((e.type, str(e.value), e.kind, ", ".join(e.aliases), str(e.mentions),
                                  json.dumps(e.attributes, ensure_ascii=False, default=str), str(e.last_turn)), redact))
    console.print(table)


def _stats(console: Console, bot: Bot, sid: str) -> None:
    stats = mask_deep(bot.stats(sid), bot.output_redactor(sid))
    for key, value in stats.items():
        console.print(f"{key}: {value}", highlight=False, markup=False)
    if stats["saved_pct"] < 0:
        console.print("(saved_pct is negative: on a short conversation the system prompt, task state and summary "
                      "cost more than the history itself; the saving grows as the conversation does)",
                      highlight=False, markup=False)


def _context(console: Console, bot: Bot, sid: str) -> None:
    table = Table("#", "role", "priority", "tokens", "content")
    redact = bot.output_redactor(sid)
    for i, m in enumerate(bot.context(sid), 1):
        content = redact(m.content if len(m.content) < 300 else m.content[:297] + "...")
        table.add_row(str(i), m.role, str(m.priority), str(m.tokens), content)
    console.print(table)


def _export(console: Console, bot: Bot, sid: str, arg: str) -> None:
    """``/export FILE [--force] [--raw]``: a mistake is a message and the chat goes on."""
    try:
        path, force, raw = parse_export(arg)
        fmt = check_target(path, force)
        write_export(path, bot.output_redactor(sid)(render(bot.build_context(sid), sid, fmt, raw)), force)
    except ExportError as exc:
        console.print(str(exc), markup=False, soft_wrap=True)
        return
    console.print(f"exported to {path}", markup=False, soft_wrap=True)


def _summary(console: Console, bot: Bot, sid: str) -> None:
    view, redact = _shown(bot, sid)
    console.print(redact(view.summary) or "(empty)", markup=False)


COMMANDS: dict[str, Callable[[Console, Bot, str], None]] = {
    "/state": _state, "/entities": _entities, "/stats": _stats, "/context": _context, "/summary": _summary,
}
"""In-chat commands that only show something; /export, /clear, /help and /exit are handled apart."""


def _new_session() -> str:
    return f"chat-{uuid.uuid4().hex[:8]}"


def _open_bot(console: Console, bot_file: Path, store: str | None, stub_actions: bool = False) -> Bot | None:
    """The bot, or None after printing why it cannot be loaded (every problem of an invalid file)."""
    try:
        stubs = stand_in_actions(bot_file) if stub_actions else {}
        if stubs:
            console.print(f"stand-ins for actions without code: {', '.join(sorted(stubs))}", markup=False)
        return Bot.from_file(bot_file, store=store, actions=stubs or None)
    except FlowError as exc:
        for problem in exc.problems:
            console.print(str(problem), markup=False)
    except DialogkitError as exc:
        console.print(f"error: {exc}", markup=False)
    return None


def _reload(console: Console, bot: Bot, bot_file: Path) -> None:
    """Reload a changed bot file; on problems, print them all and keep the bot that runs."""
    try:
        bot.reload()
    except FlowError as exc:
        for problem in exc.problems:
            console.print(str(problem), markup=False)
        console.print(f"{bot_file} not reloaded: the bot keeps running the previous version", markup=False,
                      soft_wrap=True)
        return
    except DialogkitError as exc:
        console.print(f"{bot_file} not reloaded: {exc}", markup=False, soft_wrap=True)
        return
    console.print(f"reloaded {bot_file}", markup=False, soft_wrap=True)


def _answer(console: Console, bot: Bot, sid: str, text: str, user: str | None, explain: bool = False) -> str:
    """Run one line, an in-chat command or a turn; the session id after it (/clear starts a new one)."""
    head, _, arg = text.partition(" ")
    if text == "/help":
        console.print(HELP)
    elif text == "/clear":
        sid = _new_session()
        console.print(f"new session {sid}")
    elif head == "/export":
        _export(console, bot, sid, arg.strip())
    elif head in COMMANDS:
        COMMANDS[head](console, bot, sid)
    elif text.startswith("/"):
        console.print(f"unknown command {head}; commands: {HELP}")
    else:
        sid = _turn(console, bot, sid, text, user, explain)
    return sid


def _turn(console: Console, bot: Bot, sid: str, text: str, user: str | None, explain: bool = False) -> str:
    """Answer ``text``; a session of another user is never joined: a fresh one starts instead."""
    try:
        reply = bot.handle(sid, text, user_id=user)
    except SessionOwnerError as refused:
        sid = _new_session()
        whose = "a user (name them with --user)" if refused.anonymous else "another user"
        console.print(f"that session belongs to {whose}; new session {sid}", markup=False)
        reply = bot.handle(sid, text, user_id=user)
    _render_reply(console, reply, text, bot.view.sensitive_names, explain)
    return sid


def run_chat(bot_file: Path, user: str | None, session: str | None, store: str | None,
             log_level: str = "error", reload: bool = False, stub_actions: bool = False, explain: bool = False) -> int:
    """Chat until /exit or the end of input; 1 when the bot cannot be loaded, else 0.

    Through a pipe each line is echoed after ``you>``, so a saved transcript reads like a chat.
    With ``reload`` a bot file changed since the last line is reloaded before the next is
    answered; the session goes on (docs/lifecycle.md). With ``explain`` each reply is followed
    by the decisions that made it (``reply.explain``).
    """
    configure_logging(level=log_level, force=True)
    console = plain_console()
    interactive = sys.stdin.isatty()
    watch = FileWatch(bot_file) if reload else None       # before loading: an edit meanwhile is not missed
    bot = _open_bot(console, bot_file, store, stub_actions)
    if bot is None:
        return 1
    sid = session or _new_session()
    console.print(f"[bold]{bot.spec.bot.name}[/] — session {sid} (store {bot.store.url}). Type /help for commands.",
                  highlight=False)
    with bot:
        for line in _lines(console, interactive):
            text = line.strip()
            if not interactive and text:
                console.print("you> " + text, markup=False)
            if text in ("/exit", "/quit"):
                break
            if watch is not None and watch.changed():
                _reload(console, bot, bot_file)
            try:
                sid = _answer(console, bot, sid, text, user, explain)
            except DialogkitError as exc:
                console.print(f"error: {exc}", markup=False)
    return 0
