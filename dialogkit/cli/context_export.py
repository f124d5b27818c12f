"""``/export [--force] [--raw] FILE`` in ``dialogkit chat``: the context window, written to a file.

The format follows the extension: ``.json`` (also when there is none), ``.csv`` or ``.txt`` (the
plain ``number, role, priority, tokens, content`` lines, then ``Token saved: N (P%)``; the CSV ends
with that line too, as a row of one field). N and P are signed and agree: negative while the window
costs more than the full history, which the JSON's ``note`` then says. Phone
numbers and e-mail addresses are masked the way logs mask them unless ``--raw`` is given. Nothing
is created or replaced behind the user's back: the folder must exist, an existing file is kept
unless ``--force``, and the file appears whole or not at all (written beside it, then renamed).
Every mistake is a message; the chat goes on (docs/cli.md, "/export").
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from dialogkit.context.parts import BuiltContext
from dialogkit.context.window import NEGATIVE_SAVING, saved_line
from dialogkit.strings.redaction import mask_pii

__all__ = ["USAGE", "ExportError", "check_target", "parse_export", "render", "write_export"]

USAGE = "usage: /export FILE [--force] [--raw]   (FILE.json (default), .csv or .txt)"
FORMATS = {"": "json", ".json": "json", ".csv": "csv", ".txt": "txt"}


class ExportError(Exception):
    """Why ``/export`` wrote nothing, in words the chat prints as they are."""


def parse_export(arg: str) -> tuple[Path, bool, bool]:
    """(file, force, raw) from the words after ``/export``; ExportError when no file is named."""
    words = arg.split()
    flags = {w for w in words if w in ("--force", "--raw")}
    rest = [w for w in words if w not in flags]
    if len(rest) != 1:
        raise ExportError(USAGE)
    return Path(rest[0]).expanduser(), "--force" in flags, "--raw" in flags


def render(built: BuiltContext, session_id: str, fmt: str, raw: bool) -> str:
    """The file's text in ``fmt``; contents masked with ``mask_pii`` unless ``raw``."""
    show: Callable[[str], str] = (lambda s: s) if raw else mask_pii
    rows = [{"number": n, "role": m.role, "priority": m.priority, "tokens": m.tokens, "content": show(m.content)}
            for n, m in enumerate(built.messages, start=1)]
    if fmt == "json":
        document: dict[str, object] = {
            "session_id": session_id, "messages": rows, "full_tokens": built.full_tokens,
            "sent_tokens": built.sent_tokens, "token_saved": built.net_saved_tokens,
            "saved_pct": round(built.saved_pct, 1), "masked": not raw}
        if built.net_saved_tokens < 0:
            document["note"] = NEGATIVE_SAVING
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=["number", "role", "priority", "tokens", "content"])
        writer.writeheader()
        writer.writerows(rows)
        csv.writer(out).writerow([saved_line(built)])     # the last row, as the last line of .txt
        return out.getvalue()
    lines = [f"{r['number']}, {r['role']}, {r['priority']}, {r['tokens']}, {r['content']}" for r in rows]
    lines.append(saved_line(built))
    return "\n".join(lines) + "\n"


def check_target(path: Path, force: bool) -> str:
    """The format to write ``path`` in, or ExportError saying why it cannot be written."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ExportError(f"cannot export to {path}: unknown format {path.suffix!r}; use .json, .csv or .txt")
    if path.is_dir():
        raise ExportError(f"{path} is a folder; name a file in it, e.g. {path / 'context.json'}")
    parent = path.parent
    if not parent.is_dir():
        raise ExportError(f"cannot export to {path}: the folder {parent} does not exist")
    if path.exists() and not force:
        raise ExportError(f"{path} already exists; /export {path} --force replaces it")
    return fmt


def write_export(path: Path, text: str, force: bool) -> None:
    """Write ``text`` to ``path`` atomically; without ``force`` an existing file is never replaced."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if force:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)        # fails if the file appeared meanwhile: never overwrites
    except FileExistsError:
        raise ExportError(f"{path} already exists; /export {path} --force replaces it") from None
    except OSError as exc:
        raise ExportError(f"cannot export to {path}: {exc.strerror or exc}") from exc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
