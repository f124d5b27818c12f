"""The validate, graph and schema commands, as plain functions the typer app wires in."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from dialogkit.cli.graph import graph_command
from dialogkit.cli.schema import schema_command
from dialogkit.cli.validate import validate_command

FIXTURES = Path(__file__).parent.parent / "spec" / "fixtures"
POSITION = re.compile(r"^(\S+\.yaml):(\d+):(\d+): ", re.MULTILINE)


def _console() -> Console:
    return Console(record=True, width=200, force_terminal=False, color_system=None)


def _bot(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bot.yaml"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """\
entities:
  city: {values: {beijing: [北京, Beijing]}}
flows:
  weather:
    description: 查天气 / weather
    trigger: {examples: [北京天气怎么样, what's the weather in Beijing]}
    slots: [{name: city, entity: city, ask: {zh: 哪个城市？, en: Which city?}}]
    execute: {say: {zh: "{city}：晴", en: "{city}: sunny"}}
"""


ACTIONS_TO_COME = GOOD.split("    slots:")[0] + """\
    slots:
      - {name: city, entity: city, validate: [{action: known_city}]}
      - {name: day, entity: date, choices: {action: forecast_days}}
    execute: {action: look_up, returns: [forecast], say: {zh: "{city}：{forecast}", en: "{city}: {forecast}"}}
"""


class TestStubActions:
    def test_actions_without_code_are_problems_with_a_hint_to_stub_them(self, tmp_path: Path) -> None:
        console = _console()
        assert validate_command([_bot(tmp_path, ACTIONS_TO_COME)], console=console) == 1
        out = console.export_text()
        assert "unknown action 'look_up'" in out and "dialogkit chat --stub-actions" in out

    def test_with_stub_actions_only_a_choices_action_still_needs_code(self, tmp_path: Path) -> None:
        """A task's action and a validator get stand-ins; the options of a choices action are the
        bot's own to give, so that one is still reported."""
        console = _console()
        assert validate_command([_bot(tmp_path, ACTIONS_TO_COME)], console=console, stub_actions=True) == 1
        out = console.export_text()
        assert "forecast_days" in out and "look_up" not in out and "known_city" not in out

    def test_stand_ins_return_a_placeholder_for_each_key_and_accept_every_value(self, tmp_path: Path) -> None:
        from dialogkit.actions.loading import stand_in_actions

        stubs = stand_in_actions(_bot(tmp_path, ACTIONS_TO_COME))
        assert stubs == {"known_city": {}, "look_up": {"forecast": "<forecast>"}}


class TestValidate:
    def test_three_problems_fixture(self) -> None:
        """Exit 1 and three 'file:line:col:' lines, each followed by its hint."""
        console = _console()
        code = validate_command([FIXTURES / "three_problems.yaml"], console=console)
        out = console.export_text()
        assert code == 1
        assert [(int(line), int(col)) for _, line, col in POSITION.findall(out)] == [(8, 14), (19, 9), (21, 17)]
        assert out.count("    hint: ") == 3
        assert "three_problems.yaml: 3 problems" in out

    def test_valid_file_reports_counts(self, tmp_path: Path) -> None:
        """A good file: 'path: ok (1 flow, 1 entity type)' and exit 0."""
        console = _console()
        assert validate_command([_bot(tmp_path, GOOD)], console=console) == 0
        assert "bot.yaml: ok (1 flow, 1 entity type)" in console.export_text()

    def test_missing_file_and_directory_are_problems_not_tracebacks(self, tmp_path: Path) -> None:
        console = _console()
        assert validate_command([tmp_path / "nope.yaml", tmp_path], console=console) == 1
        out = console.export_text()
        assert "nope.yaml:1:1: no such file" in out
        assert "is a directory" in out

    def test_one_bad_file_fails_the_run(self, tmp_path: Path) -> None:
        """Good and bad together: exit 1, the good one still reported ok."""
        console = _console()
        assert validate_command([_bot(tmp_path, GOOD), FIXTURES / "three_problems.yaml"], console=console) == 1
        assert ": ok (" in console.export_text()

    def test_a_memory_action_not_registered_is_a_problem_at_its_position(self, tmp_path: Path) -> None:
        """'sys:exit' is refused when the file is checked, never run: validate goes on and exits 1."""
        console = _console()
        text = GOOD.replace("flows:", "bot:\n  memory: {every_turn: [track_entities, 'sys:exit']}\nflows:", 1)
        assert validate_command([_bot(tmp_path, text)], console=console) == 1
        out = console.export_text()
        assert "bot.yaml:4:41: cannot use memory action 'sys:exit': it is not registered with @memory_action" in out
        assert "@memory_action" in out.split("hint: ", 1)[1]

    def test_problem_text_with_brackets_is_printed_verbatim(self, tmp_path: Path) -> None:
        """Messages hold [..] and {..}; rich must not treat them as markup."""
        console = _console()
        validate_command([_bot(tmp_path, GOOD.replace("entity: city, ask", "entity: city, promt"))],
                         console=console)
        assert "flows.weather.slots[0]" in console.export_text()

    def test_emoji_codes_in_paths_and_messages_are_printed_verbatim(self, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
        """The default console prints ':ok:' in a file name or a quoted key as written."""
        folder = tmp_path / "a:cd:b"
        folder.mkdir()
        path = folder / "bot:ok:.yaml"
        path.write_text(GOOD.replace("entity: city, ask", "entity: city, :ok:"), encoding="utf-8")
        assert validate_command([path]) == 1
        out = capsys.readouterr().out
        assert "a:cd:b" in out and "bot:ok:.yaml" in out and "\U0001f197" not in out and "\U0001f4bf" not in out


class TestGraph:
    def test_mermaid_to_stdout(self, tmp_path: Path) -> None:
        console = _console()
        assert graph_command(_bot(tmp_path, GOOD), None, "mermaid", None, console=console) == 0
        out = console.export_text()
        assert "%% flow: weather — 查天气 / weather" in out
        assert "PARAM_COLLECT --> EXECUTION: execute" in out

    def test_mermaid_to_a_file(self, tmp_path: Path) -> None:
        target = tmp_path / "out.mmd"
        assert graph_command(_bot(tmp_path, GOOD), "weather", "mermaid", target, console=_console()) == 0
        assert "stateDiagram-v2" in target.read_text(encoding="utf-8")

    def test_binary_format_needs_an_output_file(self, tmp_path: Path) -> None:
        console = _console()
        assert graph_command(_bot(tmp_path, GOOD), None, "png", None, console=console) == 1
        assert "give -o FILE" in console.export_text()

    def test_unknown_flow_is_an_error_message(self, tmp_path: Path) -> None:
        console = _console()
        assert graph_command(_bot(tmp_path, GOOD), "refund", "mermaid", None, console=console) == 1
        assert "no flow named 'refund'" in console.export_text()

    def test_invalid_bot_prints_its_problems(self) -> None:
        console = _console()
        assert graph_command(FIXTURES / "three_problems.yaml", None, "mermaid", None, console=console) == 1
        assert len(POSITION.findall(console.export_text())) == 3


class TestSchema:
    def test_prints_the_json_schema(self) -> None:
        console = _console()
        assert schema_command(None, console=console) == 0
        schema = json.loads(console.export_text())
        assert schema["title"] == "dialogkit bot file"
        assert "flows" in schema["properties"]

    def test_writes_to_a_file(self, tmp_path: Path) -> None:
        target = tmp_path / "schema.json"
        assert schema_command(target, console=_console()) == 0
        assert json.loads(target.read_text(encoding="utf-8"))["required"] == ["flows"]

    def test_unwritable_output(self, tmp_path: Path) -> None:
        console = _console()
        assert schema_command(tmp_path / "missing" / "schema.json", console=console) == 1
        assert "cannot write" in console.export_text()


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Problems are one line each whatever the terminal width."""
    monkeypatch.setenv("COLUMNS", "200")
