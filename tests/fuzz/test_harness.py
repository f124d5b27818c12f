"""The fuzz harness itself: what it keeps of the slowest example is text the summary can write."""

from __future__ import annotations

from tests.fuzz.harness import SLOWEST, SLOWEST_EXAMPLE, guarded


def test_a_turn_that_is_no_string_is_kept_as_its_repr() -> None:
    """Hostile turns include numbers and bytes; the end-of-run summary writes the slowest to a file."""
    suite = "harness self-test"
    try:
        with guarded(suite, 12345):
            pass
        assert SLOWEST_EXAMPLE[suite] == "12345"
        SLOWEST[suite] = 0.0
        with guarded(suite, b"\xff"):
            pass
        assert SLOWEST_EXAMPLE[suite] == "b'\\xff'"
    finally:
        SLOWEST.pop(suite, None)
        SLOWEST_EXAMPLE.pop(suite, None)
