"""The ``dialogkit`` command line: chat, test, validate, graph, schema, simulate, serve, user, store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dialogkit.cli.serve import serve
from dialogkit.cli.simulate import simulate
from dialogkit.cli.store import store_app
from dialogkit.cli.user import user_app

STORE_HELP = "sqlite:///path, memory:// or redis://host:port/db."
LOG_LEVEL_HELP = "Log events at this level and above to stderr."
STUB_HELP = ("Stand in for actions no code provides yet: a task's action returns <key> for each key it "
             "returns, a validator accepts every value.")

app = typer.Typer(add_completion=False, no_args_is_help=True, help="dialogkit: task-oriented bots from YAML flows.")


@app.command()
def chat(
    bot_file: Annotated[Path, typer.Argument(help="The bot file (YAML).")],
    user: Annotated[str | None, typer.Option("--user", help="User id (user-scoped slots follow it).")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Session id to continue.")] = None,
    store: Annotated[str | None, typer.Option("--store", help=STORE_HELP)] = None,
    log_level: Annotated[str, typer.Option("--log-level", help=LOG_LEVEL_HELP)] = "error",
    reload: Annotated[bool, typer.Option(
        "--reload", help="Reload the bot file when it changes between turns; sessions are kept.")] = False,
    stub_actions: Annotated[bool, typer.Option("--stub-actions", help=STUB_HELP)] = False,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Under each reply, the decisions that made it: rule → what (words).")] = False,
) -> None:
    """Chat with a bot; /help lists the in-chat commands."""
    from dialogkit.cli.chat import run_chat

    raise typer.Exit(run_chat(bot_file, user, session, store, log_level, reload=reload, stub_actions=stub_actions,
                              explain=explain))


@app.command("test")
def test_(
    paths: Annotated[list[Path], typer.Argument(help="Test files or directories (test_*.yaml, recursively).")],
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML here.")] = None,
    keyword: Annotated[str | None, typer.Option("-k", help="Select tests by name expression.")] = None,
    coverage: Annotated[bool, typer.Option("--coverage", help="Print per-flow coverage.")] = False,
    log_level: Annotated[str, typer.Option("--log-level", help=LOG_LEVEL_HELP)] = "error",
    llm: Annotated[bool, typer.Option("--llm", help="Run the bots with their LLM (llm: block; key from it or "
                                      "OPENAI_API_KEY); without it the rules answer.")] = False,
    base_url: Annotated[str | None, typer.Option("--base-url", help="With --llm: the server's /v1 URL.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="With --llm: the model to ask.")] = None,
    repeat: Annotated[int | None, typer.Option("--repeat", help="Run each test N times, unless it or its file "
                                               "sets repeat.")] = None,
    min_pass: Annotated[int | None, typer.Option("--min-pass", help="With --repeat: how many runs must pass "
                                                 "(default: all).")] = None,
) -> None:
    """Run conversation tests written in YAML."""
    from dialogkit.cli.test_cmd import test_command
    from dialogkit.logging import configure_logging

    configure_logging(level=log_level, force=True)   # the bots' warnings (a stubbed failure...) are expected here
    raise typer.Exit(test_command(paths, junit, keyword, coverage, llm=llm, base_url=base_url, model=model,
                                  repeat=repeat, min_pass=min_pass))


@app.command()
def validate(
    paths: Annotated[list[Path], typer.Argument(help="Bot files to check.")],
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    stub_actions: Annotated[bool, typer.Option("--stub-actions", help=STUB_HELP)] = False,
) -> None:
    """Load and check bot files; print every problem; exit 1 on an error (or a warning with --strict)."""
    from dialogkit.cli.validate import validate_command

    raise typer.Exit(validate_command(paths, strict=strict, stub_actions=stub_actions))


@app.command()
def graph(
    bot_file: Annotated[Path, typer.Argument(help="The bot file.")],
    flow: Annotated[str | None, typer.Option("--flow", help="Only this flow.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="mermaid, svg or png.")] = "mermaid",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")] = None,
) -> None:
    """Draw the compiled state machines."""
    from dialogkit.cli.graph import graph_command

    raise typer.Exit(graph_command(bot_file, flow, fmt, output))


@app.command()
def schema(output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here.")] = None) -> None:
    """Print the JSON Schema of the bot file, for editor completion."""
    from dialogkit.cli.schema import schema_command

    raise typer.Exit(schema_command(output))


app.command()(simulate)
app.command()(serve)
app.add_typer(user_app)
app.add_typer(store_app)


def main() -> None:
    app()
