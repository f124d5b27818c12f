"""``dialogkit simulate BOTFILE``: generated conversations, checked behaviour by behaviour.

Only typer is imported when the command line starts; the simulation (hypothesis, the bot) loads
when the command runs, so other commands stay as quick to start as before.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from dialogkit.simulation import Progress, SimulationResult

def simulate(
    bot_file: Annotated[Path, typer.Argument(help="The bot file (YAML).")],
    conversations: Annotated[int, typer.Option("--conversations", "-n", min=1,
                                               help="How many conversations to generate.")] = 200,
    seed: Annotated[int, typer.Option("--seed", help="The same seed generates the same conversations.")] = 0,
    lang: Annotated[str, typer.Option("--lang", help="The users' language: zh, en, another language with a "
                                      "lexicon (es), or both (every language the bot speaks).")] = "both",
    save: Annotated[Path | None, typer.Option("--save", help="Write each violation as a YAML conversation "
                                              "test in this folder.")] = None,
) -> None:
    """Generate conversations from the bot file and check its behaviours after every turn; a
    violation is shrunk to a minimal conversation. Exits 1 on any violation."""
    from dialogkit.lexicon import languages

    if lang != "both" and lang not in languages():
        raise typer.BadParameter(f"use {', '.join(languages())} or both", param_hint="--lang")
    spoken = languages() if lang == "both" else (lang,)
    raise typer.Exit(simulate_command(bot_file, conversations, seed, spoken, save))


def _progress(progress: Progress) -> None:
    from dialogkit.simulation import progress_line

    live = sys.stderr.isatty() and progress.done < progress.total and not progress.shrinking
    sys.stderr.write(f"  {progress_line(progress)}".ljust(79) + ("\r" if live else "\n"))
    sys.stderr.flush()


def _load_failed(bot_file: Path, error: Exception) -> int:
    from rich.console import Console

    from dialogkit.cli.validate import print_problem
    from dialogkit.errors import FlowError, Problem

    console = Console(highlight=False, stderr=True)
    problems = error.problems if isinstance(error, FlowError) else [Problem(str(bot_file), 1, 1, str(error))]
    for problem in problems:
        print_problem(console, problem)
    return 1


def _save(result: SimulationResult, directory: Path) -> None:
    from dialogkit.simulation import write_conversation_test

    header = (f"Minimal conversations found by `dialogkit simulate {result.bot_path.as_posix()} "
              f"--conversations {result.options.conversations} --seed {result.options.seed}`.\n"
              "Each test fails while the behaviour it names is broken and passes once it is fixed.")
    path = write_conversation_test(result.violations, result.bot_path, directory, result.stubs,
                                   result.bot_name, header)
    typer.echo(f"wrote {len(result.violations)} test(s) to {path}")


def simulate_command(bot_file: Path, conversations: int, seed: int, languages: tuple[str, ...],
                     save: Path | None) -> int:
    """Run the simulation and print what it found; 1 on any violation or a bot that does not load,
    2 when the languages asked for leave none the bot speaks."""
    from dialogkit.errors import DialogkitError
    from dialogkit.logging import configure_logging
    from dialogkit.simulation import Options, format_result, simulate
    from dialogkit.simulation.languages import UnspokenLanguage

    configure_logging(level="error", force=True)   # stubbed actions and odd turns log warnings on purpose
    options = Options(conversations=conversations, seed=seed, languages=languages)
    try:
        result = simulate(bot_file, options, progress=_progress)
    except UnspokenLanguage as error:
        typer.echo(f"Error: {error}", err=True)
        return 2
    except (DialogkitError, OSError) as error:
        return _load_failed(bot_file, error)
    typer.echo(format_result(result))
    if save is not None and result.violations:
        _save(result, save)
    return 1 if result.failed else 0
