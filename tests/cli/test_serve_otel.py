"""dialogkit serve --otel: the workers are asked for traces through OTEL_TRACES_EXPORTER."""

from __future__ import annotations

import os

import pytest

from dialogkit.cli.serve import _traces_ready


@pytest.fixture
def unset(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """OTEL_TRACES_EXPORTER absent now, and again after the test. ``_traces_ready`` sets it in
    ``os.environ`` itself, and a bare ``delenv`` of an absent name records nothing to restore: the
    variable would outlive the test, and a later in-process server would export spans (with
    retries drawing on the global ``random``) for the rest of the session."""
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
    monkeypatch.delenv("OTEL_TRACES_EXPORTER")
    return monkeypatch


def test_otel_asks_for_the_otlp_exporter(unset: pytest.MonkeyPatch) -> None:
    assert _traces_ready(True)
    assert os.environ["OTEL_TRACES_EXPORTER"] == "otlp"


def test_an_exporter_the_user_chose_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    assert _traces_ready(True)
    assert os.environ["OTEL_TRACES_EXPORTER"] == "console"


def test_without_otel_nothing_is_asked(unset: pytest.MonkeyPatch) -> None:
    assert _traces_ready(False)
    assert "OTEL_TRACES_EXPORTER" not in os.environ


def test_a_missing_extra_is_said_before_any_worker_starts(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert not _traces_ready(False)
    assert "pip install 'dialogkit[otel]'" in capsys.readouterr().err
