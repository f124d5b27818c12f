"""Importing a bot's code from its folder, and ``module:function`` references."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from dialogkit.actions.importer import import_module, import_reference, search_paths
from dialogkit.errors import ActionError


def _module(folder: Path, body: str) -> str:
    name = f"importer_probe_{uuid.uuid4().hex[:10]}"
    (folder / f"{name}.py").write_text(body, encoding="utf-8")
    return name


class TestSearchPaths:
    def test_the_bot_folder_first_then_the_working_directory(self, tmp_path: Path) -> None:
        assert search_paths(tmp_path) == [tmp_path.resolve(), Path.cwd().resolve()]

    def test_no_repeat_when_they_are_the_same(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        monkeypatch.chdir(tmp_path)
        assert search_paths(tmp_path) == [tmp_path.resolve()]


class TestImportModule:
    def test_sys_path_is_left_as_it_was(self, tmp_path: Path) -> None:
        """The bot folder is on sys.path only while its module is imported."""
        name = _module(tmp_path, "VALUE = 1\n")
        before = list(sys.path)
        assert import_module(name, [tmp_path]).VALUE == 1
        assert sys.path == before

    @pytest.mark.parametrize("body", ["raise SystemExit(3)\n", "import sys\nsys.exit('bye')\n",
                                      "class Stop(BaseException):\n    pass\n\nraise Stop()\n"])
    def test_a_module_that_exits_while_imported_is_an_import_error(self, tmp_path: Path, body: str) -> None:
        """Not an exit: loading reports it as a problem of the bot file."""
        name = _module(tmp_path, body)
        with pytest.raises(ImportError, match="while imported"):
            import_module(name, [tmp_path])


class TestImportReference:
    def test_a_function_is_resolved(self, tmp_path: Path) -> None:
        name = _module(tmp_path, "def make(ctx):\n    return {'ticket_id': 'T-1'}\n")
        assert import_reference(f"{name}:make", [tmp_path])(None) == {"ticket_id": "T-1"}

    def test_a_dotted_attribute_is_followed(self, tmp_path: Path) -> None:
        name = _module(tmp_path, "class Tools:\n    @staticmethod\n    def make():\n        return 1\n")
        assert import_reference(f"{name}:Tools.make", [tmp_path])() == 1

    @pytest.mark.parametrize(("ref", "reason"), [
        ("no_colon_here", "not a reference"),
        (":make", "not a reference"),
        ("no_such_module_for_importer_tests:make", "cannot import module"),
    ])
    def test_a_bad_reference_says_why(self, ref: str, reason: str) -> None:
        with pytest.raises(ActionError, match=reason):
            import_reference(ref, [])

    def test_a_missing_name_or_a_value_that_is_not_callable(self, tmp_path: Path) -> None:
        name = _module(tmp_path, "LIMIT = 5\n")
        with pytest.raises(ActionError, match="has no 'make'"):
            import_reference(f"{name}:make", [tmp_path])
        with pytest.raises(ActionError, match="is not callable"):
            import_reference(f"{name}:LIMIT", [tmp_path])

    def test_a_module_that_raises_while_importing(self, tmp_path: Path) -> None:
        """The author's error is kept as the original, for the traceback in a log."""
        name = _module(tmp_path, "raise RuntimeError('配置缺失 / config missing')\n")
        with pytest.raises(ActionError, match="config missing") as caught:
            import_reference(f"{name}:make", [tmp_path])
        assert isinstance(caught.value.original, RuntimeError)
