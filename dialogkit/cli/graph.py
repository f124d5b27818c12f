"""``dialogkit graph BOTFILE [--flow NAME] [--format mermaid|svg|png] [-o FILE]``."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from dialogkit.actions.loading import load_bot_file
from dialogkit.cli.consoles import plain_console
from dialogkit.cli.validate import print_problem
from dialogkit.errors import DialogkitError, FlowError
from dialogkit.spec.graph import render_graph


def graph_command(path: Path, flow: str | None = None, fmt: str = "mermaid", output: Path | None = None,
                  console: Console | None = None) -> int:
    """Draw the bot's state machines to ``output`` (or stdout); 1 on any error.

    png is binary, so without ``-o`` it is refused rather than dumped on a terminal.
    """
    errors = console or plain_console(stderr=True)
    console = console or plain_console()
    try:
        bot = load_bot_file(path)
        if fmt == "png" and output is None:
            errors.print(f"[red]--format {escape(fmt)} writes a binary file: give -o FILE[/red]")
            return 1
        drawing = render_graph(bot.spec, flow=flow, fmt=fmt)
        if output is None:
            text = drawing.decode("utf-8") if isinstance(drawing, bytes) else drawing
            console.print(text, end="", soft_wrap=True, markup=False, emoji=False, highlight=False)
            return 0
        data = drawing.encode("utf-8") if isinstance(drawing, str) else drawing
        output.write_bytes(data)
    except FlowError as error:
        for problem in error.problems:
            print_problem(errors, problem)
        return 1
    except (DialogkitError, OSError) as error:
        errors.print(f"[red]error:[/red] {escape(str(error))}", soft_wrap=True)
        return 1
    console.print(f"wrote {escape(str(output))}", soft_wrap=True)
    return 0

