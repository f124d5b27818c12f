"""``dialogkit validate BOTFILE...``: load each file and print every problem, or that it is fine.

Output is one ``file:line:col: message`` line per problem (editors and CI annotate from it) with
an indented hint; the exit code is 1 when any file has a problem. Warnings (a shadowed flow, a
prompt lacking one language, ``\b`` next to Chinese text...) are printed the same way and fail
only with ``strict``. Nothing here lets a traceback through for a user's mistake.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from dialogkit.actions.loading import LoadedBot, load_bot_file, stand_in_actions
from dialogkit.cli.consoles import plain_console
from dialogkit.engine.shadowed_flows import shadowed_flows
from dialogkit.errors import DialogkitError, FlowError, Problem
from dialogkit.spec.checks_warnings import bot_warnings
from dialogkit.spec.loader import check_bot_file


def print_problem(console: Console, problem: Problem) -> None:
    """``file:line:col: message`` then the hint, indented: the format editors jump from."""
    where = f"{problem.file}:{problem.line}:{problem.col}"
    console.print(f"[bold]{escape(where)}[/bold]: [red]{escape(problem.message)}[/red]", soft_wrap=True)
    if problem.hint:
        console.print(f"    hint: {escape(problem.hint)}", soft_wrap=True)


def validate_command(paths: list[Path], console: Console | None = None, *, strict: bool = False,
                     stub_actions: bool = False) -> int:
    """Check each bot file; 0 when all are valid (and, with ``strict``, free of warnings), 1 otherwise.
    With ``stub_actions`` an action no code provides is no problem (``stand_in_actions``)."""
    # Paths and messages quote the user's file: ":ok:" in them is text, not an emoji code.
    console = console or plain_console()
    failed = False
    for path in paths:
        try:
            bot = load_bot_file(path, actions=stand_in_actions(path) if stub_actions else None)
        except FlowError as error:
            failed = True
            for problem in error.problems:
                print_problem(console, problem)
            count = len(error.problems)
            console.print(f"{escape(str(path))}: {count} problem{'s' if count != 1 else ''}", soft_wrap=True)
            continue
        except (DialogkitError, OSError) as error:
            failed = True
            print_problem(console, Problem(str(path), 1, 1, str(error)))
            continue
        warnings = file_warnings(path, bot)
        for problem in warnings:
            print_problem(console, problem)
        failed = failed or (strict and bool(warnings))
        flows, entities = len(bot.spec.flows), len(bot.spec.entities)
        noted = f", {len(warnings)} warning{'s' if len(warnings) != 1 else ''}" if warnings else ""
        console.print(f"{escape(str(path))}: [green]ok[/green] ({flows} flow{'s' if flows != 1 else ''}, "
                      f"{entities} entity type{'s' if entities != 1 else ''}{noted})", soft_wrap=True)
    return 1 if failed else 0


def file_warnings(path: Path, bot: LoadedBot) -> list[Problem]:
    """The warnings of a bot file that loaded: the spec's own, and flows no trigger can reach
    (read with the bot's own understanding, one layer above the spec)."""
    checked = check_bot_file(path)
    document = checked.document
    found = [*checked.warnings(), *bot_warnings(bot.spec, document)]
    found.extend(document.problem(where, "warning: " + message, hint)
                 for where, message, hint in shadowed_flows(bot.spec))
    return found
