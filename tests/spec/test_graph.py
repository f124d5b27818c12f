"""Drawing the compiled machines: mermaid always, svg/png when Graphviz is installed."""

from __future__ import annotations

import importlib.util
import logging
import shutil
from pathlib import Path

import pytest

from dialogkit.actions.loading import load_bot_file
from dialogkit.spec import graph
from dialogkit.spec.graph import GraphError, render_graph
from dialogkit.spec.schema import BotFile
from tests.spec.helpers import load

SUPPORT = Path(__file__).resolve().parents[2] / "flows" / "support_ticket.yaml"
STUBS = {"create_ticket": {"ticket_id": "T-1"}, "order_status": {"status": "ok"}}
HAS_GRAPHVIZ = importlib.util.find_spec("graphviz") is not None and shutil.which("dot") is not None


@pytest.fixture(scope="module")
def support() -> BotFile:
    return load_bot_file(SUPPORT, actions=STUBS).spec


class TestMermaid:
    def test_one_block_per_flow_with_a_title_comment(self, support: BotFile) -> None:
        """Every shipped flow is drawn, each after a '%% flow:' comment with its description."""
        text = render_graph(support)
        assert isinstance(text, str)
        assert text.count("stateDiagram-v2") == 3
        assert "%% flow: report_issue — 报告订单问题并创建工单 / Report a problem" in text
        assert "%% flow: check_status" in text

    def test_the_five_states_and_the_confirmation_path(self, support: BotFile) -> None:
        """A flow with confirm goes PARAM_COLLECT -> CONFIRMATION -> EXECUTION."""
        text = render_graph(support, flow="report_issue")
        for state in ("IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION"):
            assert f'state "{state}" as {state}' in text
        assert "PARAM_COLLECT --> CONFIRMATION: request_confirmation" in text
        assert "CONFIRMATION --> EXECUTION: confirm" in text
        assert "CONFIRMATION --> PARAM_COLLECT: deny" in text
        assert "PARAM_COLLECT --> EXECUTION: execute" not in text
        assert text.count("stateDiagram-v2") == 1

    def test_a_flow_without_confirm_executes_directly(self, support: BotFile) -> None:
        """check_status has no confirm: PARAM_COLLECT --execute--> EXECUTION."""
        text = render_graph(support, flow="check_status")
        assert "PARAM_COLLECT --> EXECUTION: execute" in text
        assert "request_confirmation" not in text

    def test_no_invalid_front_matter(self, support: BotFile) -> None:
        """transitions' bare '---' title block is replaced by the comment."""
        assert not render_graph(support).startswith("---")

    def test_unknown_flow(self, support: BotFile) -> None:
        """A flow that does not exist: GraphError listing the flows."""
        with pytest.raises(GraphError, match="no flow named 'refund'; flows: report_issue, check_status"):
            render_graph(support, flow="refund")

    def test_unknown_format(self, support: BotFile) -> None:
        with pytest.raises(GraphError, match="unknown format 'jpeg'"):
            render_graph(support, fmt="jpeg")

    def test_transitions_logger_stays_quiet(self) -> None:
        """Drawing does not log every transition at INFO."""
        assert logging.getLogger("transitions").level == logging.WARNING

    @pytest.mark.parametrize("description", ["会议 / meeting"], ids=["zh-en"])
    def test_inline_bot(self, description: str) -> None:
        """An inline bot's flow is drawn with its description."""
        spec = load(f"""\
            flows:
              meeting:
                description: {description}
                trigger: {{keywords: [会议, meeting]}}
            """).spec
        assert f"%% flow: meeting — {description}" in render_graph(spec)


class TestGraphviz:
    def test_missing_graphviz_says_what_and_how(self, support: BotFile, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without the Python package and dot: a GraphError naming both and the install command."""
        monkeypatch.setattr(graph.importlib.util, "find_spec", lambda name: None)
        monkeypatch.setattr(graph.shutil, "which", lambda name: None)
        with pytest.raises(GraphError) as caught:
            render_graph(support, fmt="svg")
        message = str(caught.value)
        assert "the 'graphviz' Python package and the Graphviz 'dot' program" in message
        assert "apt-get install graphviz && pip install graphviz" in message

    def test_missing_dot_only(self, support: BotFile, monkeypatch: pytest.MonkeyPatch) -> None:
        """Only the system program missing: only it is named."""
        monkeypatch.setattr(graph.shutil, "which", lambda name: None)
        if importlib.util.find_spec("graphviz") is None:
            monkeypatch.setattr(graph.importlib.util, "find_spec", lambda name: object())
        with pytest.raises(GraphError, match=r"need the Graphviz 'dot' program, which is not installed"):
            render_graph(support, fmt="png")

    @pytest.mark.skipif(not HAS_GRAPHVIZ, reason="Graphviz (dot + python package) not installed")
    def test_svg_of_all_flows(self, support: BotFile) -> None:
        """svg bytes with one cluster per flow, states shown by their own names."""
        svg = render_graph(support, fmt="svg")
        assert isinstance(svg, bytes) and b"<svg" in svg
        assert b"report_issue" in svg and b"check_status" in svg
        assert b">IDLE</text>" in svg
        assert b">report_issue__IDLE</text>" not in svg

    @pytest.mark.skipif(not HAS_GRAPHVIZ, reason="Graphviz (dot + python package) not installed")
    def test_png_of_one_flow(self, support: BotFile) -> None:
        assert render_graph(support, flow="check_status", fmt="png")[:4] == b"\x89PNG"
