"""``dialogkit schema``: the bot file's JSON Schema, for editor completion and checking."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from dialogkit.cli.consoles import plain_console
from dialogkit.spec.schema import json_schema


def schema_command(output: Path | None = None, console: Console | None = None) -> int:
    """Print the JSON Schema (or write it to ``output``); 0 on success, 1 if it cannot be written."""
    console = console or plain_console()
    text = json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
    if output is None:
        console.print(text, end="", soft_wrap=True, markup=False, emoji=False, highlight=False)
        return 0
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        console.print(f"[red]error:[/red] cannot write {escape(str(output))}: {escape(error.strerror or str(error))}")
        return 1
    console.print(f"wrote {escape(str(output))}")
    return 0
