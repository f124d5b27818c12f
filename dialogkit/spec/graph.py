"""Drawing the compiled state machines (``dialogkit graph``).

The diagram is drawn by ``transitions``' own diagrams extension from the same transition table
the compiler uses, so the picture cannot drift from what runs. Mermaid is text and needs nothing
installed; SVG and PNG go through Graphviz, which needs both the ``graphviz`` Python package and
the system ``dot`` program: when either is missing the error says which and how to install it.
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
from typing import Any, Literal

from dialogkit.errors import DialogkitError
from dialogkit.spec.schema import STATES, BotFile, FlowSpec
from dialogkit.spec.transitions_table import transition_table

FORMATS: tuple[str, ...] = ("mermaid", "svg", "png")
INSTALL_HINT = "apt-get install graphviz && pip install graphviz"

# transitions logs every added transition at INFO; a drawing command should not chatter.
logging.getLogger("transitions").setLevel(logging.WARNING)


class GraphError(DialogkitError):
    """A diagram cannot be drawn: unknown flow or format, or Graphviz is not installed."""


class _Model:
    """A bare model for the diagram machine; drawing needs no session state."""


Engine = Literal["graphviz", "mermaid"]


THEN_PREFIX = "start_"     # the state drawn for the flow ``execute.then`` starts


def _machine(name: str, flow: FlowSpec, engine: Engine, prefix: str = "") -> Any:
    from transitions.extensions import GraphMachine

    states = [prefix + state for state in STATES]
    machine = GraphMachine(
        model=_Model(), states=states, initial=prefix + "IDLE", auto_transitions=False,
        graph_engine=engine, title=name, show_conditions=False, show_state_attributes=False,
    )
    for transition in transition_table(flow):
        machine.add_transition(transition.trigger, [prefix + s for s in transition.sources],
                               prefix + transition.dest)
    if flow.execute.then:
        # The follow-up flow starts as the task completes: drawn as a state of its own name.
        target = prefix + THEN_PREFIX + flow.execute.then
        machine.add_state(target)
        machine.add_transition("then" + (" (when)" if flow.execute.when else ""), prefix + "EXECUTION", target)
    return machine


def _selected(spec: BotFile, flow: str | None) -> dict[str, FlowSpec]:
    if flow is None:
        return dict(spec.flows)
    if flow not in spec.flows:
        raise GraphError(f"no flow named '{flow}'; flows: {', '.join(spec.flows)}")
    return {flow: spec.flows[flow]}


def _mermaid_block(name: str, flow: FlowSpec) -> str:
    machine = _machine(name, flow, "mermaid")
    source: str = machine.model.get_graph().draw(None)
    lines = source.splitlines()
    # transitions writes the title as bare front matter ("---\\nname\\n---"), which is not valid
    # mermaid front matter; a comment naming the flow is, and lets several blocks share a file.
    if lines[:1] == ["---"] and len(lines) > 2 and lines[2] == "---":
        lines = lines[3:]
    heading = f"%% flow: {name}" + (f" — {flow.description}" if flow.description else "")
    return "\n".join([heading, *[line.rstrip() for line in lines]]).rstrip() + "\n"


def _require_graphviz() -> Any:
    missing = []
    if importlib.util.find_spec("graphviz") is None:
        missing.append("the 'graphviz' Python package")
    if shutil.which("dot") is None:
        missing.append("the Graphviz 'dot' program")
    if missing:
        raise GraphError(f"svg and png need {' and '.join(missing)}, which "
                         f"{'is' if len(missing) == 1 else 'are'} not installed; install with: "
                         f"{INSTALL_HINT} (or use --format mermaid, which needs nothing)")
    import graphviz  # type: ignore[import-untyped]  # the graphviz package ships no type hints

    return graphviz


def _graphviz(spec: BotFile, flows: dict[str, FlowSpec], fmt: str) -> bytes:
    graphviz = _require_graphviz()
    if len(flows) == 1:
        (name, flow), = flows.items()
        return bytes(_machine(name, flow, "graphviz").model.get_graph().pipe(format=fmt))
    # Several flows: one boxed cluster each in one picture; node names are prefixed per flow so
    # the five states of one flow are not merged with another's.
    top = graphviz.Digraph(name=spec.bot.name, graph_attr={"rankdir": "LR", "label": spec.bot.name})
    for name, flow in flows.items():
        drawn = _machine(name, flow, "graphviz", prefix=f"{name}__").model.get_graph()
        cluster = graphviz.Digraph(name=f"cluster_{name}", graph_attr={"label": name})
        for line in drawn.body:
            if line.lstrip().startswith(("rankdir", "label")):
                continue  # the cluster's own label names the flow
            # show "IDLE", not the prefixed node name, inside each box
            cluster.body.append(line.replace(f'label="{name}__', 'label="').replace(f"label={name}__", "label="))
        top.subgraph(cluster)
    try:
        return bytes(top.pipe(format=fmt))
    except Exception as exc:  # graphviz raises its own types for a failing 'dot'
        raise GraphError(f"Graphviz failed to draw the diagram: {exc}") from exc


def render_graph(spec: BotFile, *, flow: str | None = None, fmt: str = "mermaid") -> str | bytes:
    """The state machines of ``spec`` (or of one ``flow``): mermaid text, or svg/png bytes."""
    if fmt not in FORMATS:
        raise GraphError(f"unknown format '{fmt}'; use one of: {', '.join(FORMATS)}")
    flows = _selected(spec, flow)
    if fmt == "mermaid":
        return "\n".join(_mermaid_block(name, f) for name, f in flows.items())
    return _graphviz(spec, flows, fmt)
