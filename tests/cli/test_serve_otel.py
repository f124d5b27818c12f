"""dialogkit serve --otel: the workers are asked for traces through OTEL_TRACES_EXPORTER."""

from __future__ import annotations

import os

import pytest

from dialogkit.cli.serve import _traces_ready


def test_otel_asks_for_the_otlp_exporter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    assert _traces_ready(True)
    assert os.environ["OTEL_TRACES_EXPORTER"] == "otlp"


def test_an_exporter_the_user_chose_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    assert _traces_ready(True)
    assert os.environ["OTEL_TRACES_EXPORTER"] == "console"


def test_without_otel_nothing_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    assert _traces_ready(False)
    assert "OTEL_TRACES_EXPORTER" not in os.environ


def test_a_missing_extra_is_said_before_any_worker_starts(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert not _traces_ready(False)
    assert "pip install 'dialogkit[otel]'" in capsys.readouterr().err
