"""``dialogkit validate BOTFILE...``: load each file and print every problem, or that it is fine.

Output is one ``file:line:col: message`` line per problem (editors and CI annotate from it) with
an indented hint; the exit code is 1 when any file has a problem. Nothing here lets a traceback
through for a user's mistake.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from dialogkit.actions.loading import load_bot_file
from dialogkit.errors import DialogkitError, FlowError, Problem


def print_problem(console: Console, problem: Problem) -> None:
    """``file:line:col: message`` then the hint, indented: the format editors jump from."""
    where = f"{problem.file}:{problem.line}:{problem.col}"
    console.print(f"[bold]{escape(where)}[/bold]: [red]{escape(problem.message)}[/red]", soft_wrap=True)
    if problem.hint:
        console.print(f"    hint: {escape(problem.hint)}", soft_wrap=True)


def validate_command(paths: list[Path], console: Console | None = None) -> int:
    """Check each bot file; 0 when all are valid, 1 otherwise."""
    console = console or Console(highlight=False)
    failed = False
    for path in paths:
        try:
            bot = load_bot_file(path)
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
        flows, entities = len(bot.spec.flows), len(bot.spec.entities)
        console.print(f"{escape(str(path))}: [green]ok[/green] ({flows} flow{'s' if flows != 1 else ''}, "
                      f"{entities} entity type{'s' if entities != 1 else ''})", soft_wrap=True)
    return 1 if failed else 0
