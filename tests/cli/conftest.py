"""``dialogkit test`` runs on the harness's fake bot and inline test files: share those fixtures here."""

from tests.testing.conftest import use_fake_bot, write_tests

__all__ = ["use_fake_bot", "write_tests"]
