"""``/metrics``: what the server counts, in the Prometheus text format (docs/serving.md, "Metrics").

Each app has its own registry, so two apps in one process (tests) never add to each other. With
several workers ``PROMETHEUS_MULTIPROC_DIR`` is set before any worker starts: prometheus-client
then keeps every value in a file of that directory, one per process, and a scrape adds up every
worker's, whichever worker answers it.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

from dialogkit.model.reply import Reply

__all__ = ["CONTENT_TYPE", "MULTIPROC_ENV", "Metrics", "outcome_of"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_ENDINGS = (("complete", "completed"), ("fail", "failed"), ("cancel", "cancelled"))


def outcome_of(reply: Reply) -> str:
    """How a turn ended, for the ``outcome`` label: the end of a task first, then a question."""
    for trigger, outcome in _ENDINGS:
        if trigger in reply.transitions:
            return outcome
    return "clarification" if reply.clarification else "continued"


class Metrics:
    """The server's counters and the turn-latency histogram."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.turns = Counter("dialogkit_turns", "Turns, by flow and outcome.", ["flow", "outcome"], registry=registry)
        self.latency = Histogram("dialogkit_turn_latency_seconds", "Turn latency as the server measured it.",
                                 buckets=_LATENCY_BUCKETS, registry=registry)
        self.llm_calls = Counter("dialogkit_llm_calls", "LLM completions, by result.", ["result"], registry=registry)
        self.llm_fallbacks = Counter("dialogkit_llm_fallbacks", "LLM calls that failed, so the rules answered.",
                                     registry=registry)
        self.clarifications = Counter("dialogkit_clarifications", "Clarification questions asked.", registry=registry)
        self.errors = Counter("dialogkit_errors", "Error responses, by code.", ["code"], registry=registry)
        self._llm_seen: tuple[int, int, int] = (0, 0, 0)     # id of the client, its calls, its failures

    def turn(self, reply: Reply, flow: str, seconds: float) -> None:
        self.turns.labels(flow, outcome_of(reply)).inc()
        self.latency.observe(seconds)
        if reply.clarification:
            self.clarifications.inc()

    def turn_failed(self, flow: str, seconds: float) -> None:
        self.turns.labels(flow, "error").inc()
        self.latency.observe(seconds)

    def error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def llm_usage(self, client: Any) -> None:
        """Add what ``client`` (the bot's LLM client, or None) did since the last look.

        The client counts for every session at once; adding its growth since the last turn
        counts each call exactly once however turns overlap. A new client (a reload) starts at 0.
        """
        if client is None:
            return
        usage = client.usage
        seen_client, seen_calls, seen_failures = self._llm_seen
        if seen_client != id(client):
            seen_calls = seen_failures = 0
        calls, failures = usage.calls, usage.failures
        if calls > seen_calls:
            self.llm_calls.labels("ok").inc(calls - seen_calls)
        if failures > seen_failures:
            self.llm_calls.labels("failed").inc(failures - seen_failures)
            self.llm_fallbacks.inc(failures - seen_failures)
        self._llm_seen = (id(client), calls, failures)

    def render(self) -> bytes:
        """The text a scrape reads: every worker's figures when several run."""
        path = os.environ.get(MULTIPROC_ENV)
        if not path:
            return generate_latest(self.registry)
        from prometheus_client import multiprocess

        merged = CollectorRegistry()
        multiprocess.MultiProcessCollector(merged, path=path)  # type: ignore[no-untyped-call]
        return generate_latest(merged)
