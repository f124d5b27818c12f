/* dialogkit inspector: a flow's state machine drawn as SVG from its states and transitions.
 *
 * States sit in a row, in the order the server lists them; forward steps are straight arrows and
 * self-loops sit on top. A trigger that leads back to one state from three or more (cancel) is
 * drawn once, as a bus under the row. Other edges back go under the row when no bus drop lies
 * between their ends, over it otherwise, so that no two lines cross. Nothing here reads user
 * text: state and trigger names come from the bot file, and are set with textContent anyway.
 */
"use strict";

window.DialogkitMachine = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const W = 128, H = 44, GAP = 96, PAD = 14;
  const cx = (i) => PAD + i * (W + GAP) + W / 2;

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    return node;
  }

  /* The edges a turn walked, as "from>to:trigger": its triggers replayed from the state it
   * started in. Nothing is marked when that state is not known. */
  function firedEdges(machine, start, triggers) {
    const fired = new Set();
    let at = start;
    for (const trigger of start ? triggers || [] : []) {
      const t = machine.transitions.find((x) => x.trigger === trigger && x.sources.includes(at));
      if (!t) break;
      fired.add(at + ">" + t.dest + ":" + trigger);
      at = t.dest;
    }
    return fired;
  }

  // ---- layout -----------------------------------------------------------------------------------
  function layout(machine, current) {
    const used = new Set([current]);
    for (const t of machine.transitions) [...t.sources, t.dest].forEach((s) => used.add(s));
    // a flow without a confirmation never reaches CONFIRMATION: leave out states no transition touches
    const states = machine.transitions.length ? machine.states.filter((s, k) => k === 0 || used.has(s))
      : machine.states.slice();
    const index = new Map(states.map((s, i) => [s, i]));
    const raw = [];
    for (const t of machine.transitions) {
      for (const from of t.sources) {
        if (index.has(from) && index.has(t.dest)) raw.push({ trigger: t.trigger, from, to: t.dest });
      }
    }
    const bus = findBus(raw, index);
    const edges = mergeEdges(raw.filter((e) => !(bus && e.trigger === bus.trigger && e.to === bus.to)), index);
    classify(edges, bus, index);
    return { states, index, edges, bus };
  }

  function findBus(raw, index) {
    const groups = new Map();
    for (const e of raw.filter((x) => index.get(x.to) < index.get(x.from))) {
      const key = e.trigger + ">" + e.to;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(e);
    }
    const largest = [...groups.values()].sort((a, b) => b.length - a.length)[0] || [];
    if (largest.length < 3) return null;
    return { trigger: largest[0].trigger, to: largest[0].to, sources: largest.map((e) => e.from) };
  }

  /* One edge per pair of states, carrying every trigger that links them. */
  function mergeEdges(raw, index) {
    const merged = new Map();
    for (const e of raw) {
      const key = e.from + ">" + e.to;
      if (!merged.has(key)) {
        merged.set(key, { from: e.from, to: e.to, i: index.get(e.from), j: index.get(e.to), triggers: [] });
      }
      const edge = merged.get(key);
      if (!edge.triggers.includes(e.trigger)) edge.triggers.push(e.trigger);
    }
    return [...merged.values()];
  }

  /* loop, step (to the next state), over or under the row. A trigger drawn over the row once is
   * drawn over it everywhere, so its edges read as one family. */
  function classify(edges, bus, index) {
    const drops = bus ? bus.sources.map((s) => index.get(s)) : [];
    const crossesDrop = (e) => drops.some((k) => k > Math.min(e.i, e.j) && k < Math.max(e.i, e.j));
    const over = new Set();
    for (const e of edges) if (e.j < e.i && crossesDrop(e)) e.triggers.forEach((t) => over.add(t));
    for (const e of edges) {
      if (e.i === e.j) e.kind = "loop";
      else if (e.j === e.i + 1) e.kind = "step";
      else if (e.j > e.i) e.kind = "over";
      else e.kind = e.triggers.some((t) => over.has(t)) ? "over" : "under";
    }
  }

  /* Where each arc meets a state's top or bottom edge ("top2", "bottom0": side and state). */
  function placePorts(plan) {
    const ends = new Map();
    const addEnd = (side, i, other) => {
      const end = { other, x: cx(i) };
      if (!ends.has(side + i)) ends.set(side + i, []);
      ends.get(side + i).push(end);
      return end;
    };
    for (const e of plan.edges) {
      if (e.kind !== "over" && e.kind !== "under") continue;
      const side = e.kind === "over" ? "top" : "bottom";
      e.ends = [addEnd(side, e.i, e.j), addEnd(side, e.j, e.i)];
    }
    const bus = plan.bus;
    if (bus) {
      const to = plan.index.get(bus.to);
      bus.ends = bus.sources.map((s) => addEnd("bottom", plan.index.get(s), to));
      bus.arrive = addEnd("bottom", to, Math.max(...bus.sources.map((s) => plan.index.get(s))));
    }
    const loops = new Set(plan.edges.filter((e) => e.kind === "loop").map((e) => e.i));
    for (const [key, found] of ends) {
      const i = Number(key.replace(/^\D+/, ""));
      spreadPorts(found, i, key.startsWith("top") && loops.has(i));
    }
    return loops;
  }

  /* Edges to the left use a state's left half, nearer ones further in; edges to the right its
   * right half, nearer ones further in; a self-loop keeps the middle. Nested arcs never cross. */
  function spreadPorts(ends, i, hasLoop) {
    const left = ends.filter((e) => e.other < i).sort((a, b) => b.other - a.other);
    const right = ends.filter((e) => e.other > i).sort((a, b) => b.other - a.other);
    const x0 = cx(i) - W / 2 + 16, x1 = cx(i) + W / 2 - 16;
    const spread = (items, a, b) => items.forEach((e, k) => {
      e.x = items.length === 1 ? (a + b) / 2 : a + (k * (b - a)) / (items.length - 1);
    });
    if (!hasLoop && (!left.length || !right.length)) {
      spread(left.length ? left : right, x0, x1);
    } else {
      const gap = hasLoop ? 30 : 8;
      spread(left, x0, cx(i) - gap);
      spread(right, cx(i) + gap, x1);
    }
  }

  /* Vertical room: arcs of a longer span go further out, one lane per distinct span. */
  function geometry(plan, loops) {
    const lanes = (kind) => [...new Set(plan.edges.filter((e) => e.kind === kind).map((e) => Math.abs(e.i - e.j)))]
      .sort((a, b) => a - b);
    const overLanes = lanes("over"), underLanes = lanes("under");
    const lift = (span) => 46 + overLanes.indexOf(span) * 28;
    const sink = (span) => 30 + underLanes.indexOf(span) * 24;
    const topRoom = Math.max(loops.size ? 50 : 14, overLanes.length ? lift(overLanes[overLanes.length - 1]) + 8 : 0);
    const underDeep = underLanes.length ? sink(underLanes[underLanes.length - 1]) + 12 : 0;
    const top = PAD + topRoom;
    const bottom = top + H;
    const busY = plan.bus ? bottom + underDeep + 26 : 0;
    const height = (busY ? busY + 22 : bottom + Math.max(underDeep + 6, 10)) + PAD;
    const width = PAD * 2 + plan.states.length * W + (plan.states.length - 1) * GAP;
    return { top, bottom, busY, height, width, lift, sink };
  }

  // ---- drawing ----------------------------------------------------------------------------------
  function draw(machine, current, before, fired) {
    const plan = layout(machine, current);
    const loops = placePorts(plan);
    const g = geometry(plan, loops);
    const root = svg("svg", { viewBox: `0 0 ${g.width} ${g.height}`, class: "machine-svg", role: "img",
      "aria-label": "State machine, current state " + current });
    root.appendChild(markers());
    const lines = svg("g", { class: "edges" });
    const labels = svg("g", { class: "edge-labels" });
    const add = (d, hot, cls, triggers, lx, ly, arrow = true) => {     // a line, its label, or both
      if (d) {
        const path = svg("path", { d, class: "edge " + cls + (hot ? " fired" : "") });
        if (arrow) path.setAttribute("marker-end", `url(#${hot ? "arrow-fired" : "arrow"})`);
        lines.appendChild(path);
      }
      if (triggers) labels.appendChild(edgeLabel(triggers, lx, ly, hot));
    };
    for (const e of plan.edges) {
      const hot = e.triggers.some((t) => fired.has(e.from + ">" + e.to + ":" + t));
      const { d, lx, ly } = edgePath(e, g);
      add(d, hot, e.kind, e.triggers, lx, ly);
    }
    if (plan.bus) drawBus(plan, g, fired, add);
    root.appendChild(lines);
    plan.states.forEach((state, i) => root.appendChild(stateNode(state, cx(i) - W / 2, g.top,
      state === current, state === before && before !== current)));
    root.appendChild(labels);
    return root;
  }

  function edgePath(e, g) {
    if (e.kind === "loop") {
      const x = cx(e.i), y = g.top;
      return { d: `M${x - 18},${y} C${x - 30},${y - 44} ${x + 30},${y - 44} ${x + 18},${y}`, lx: x, ly: y - 39 };
    }
    if (e.kind === "step") {
      const y = g.top + H / 2;
      return { d: `M${cx(e.i) + W / 2},${y} L${cx(e.j) - W / 2 - 1},${y}`, lx: (cx(e.i) + cx(e.j)) / 2, ly: y - 8 };
    }
    const over = e.kind === "over";
    const span = Math.abs(e.i - e.j);
    const dy = over ? -g.lift(span) : g.sink(span);
    const y = over ? g.top : g.bottom;
    const [a, b] = [e.ends[0].x, e.ends[1].x];
    const c = y + (dy * 4) / 3;                     // a cubic's control points 4/3 out reach dy at the middle
    return { d: `M${a},${y} C${a},${c} ${b},${c} ${b},${y}`, lx: (a + b) / 2, ly: over ? y + dy - 5 : y + dy + 13 };
  }

  /* One trigger from many states to one: a drop from each source joins a line under the row. */
  function drawBus(plan, g, fired, add) {
    const bus = plan.bus, y = g.busY, r = 8;
    const dest = bus.arrive.x;
    const far = Math.max(dest, ...bus.ends.map((end) => end.x));
    const rise = (from) => `M${from},${y} L${dest + r},${y} Q${dest},${y} ${dest},${y - r} L${dest},${g.bottom + 1}`;
    let anyHot = false;
    bus.sources.forEach((source, k) => {
      const x = bus.ends[k].x;
      const hot = fired.has(source + ">" + bus.to + ":" + bus.trigger);
      anyHot = anyHot || hot;
      add(`M${x},${g.bottom} L${x},${y - r} Q${x},${y} ${x - r},${y}`, hot, "bus", null, 0, 0, false);
      if (hot) add(rise(x - r), true, "bus");
    });
    if (!anyHot) add(rise(far - r), false, "bus");
    const every = bus.sources.length === plan.states.length - 1;
    const from = every ? "from any state" : "from " + bus.sources.length + " states";
    add(null, anyHot, "", [bus.trigger + " (" + from + ")"], (dest + far) / 2, y + 15);
  }

  function markers() {
    const defs = svg("defs");
    for (const [id, cls] of [["arrow", "arrow"], ["arrow-fired", "arrow fired"]]) {
      const marker = svg("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
        orient: "auto-start-reverse" });
      marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", class: cls }));
      defs.appendChild(marker);
    }
    return defs;
  }

  function edgeLabel(triggers, x, y, hot) {
    const text = svg("text", { x, y, class: "edge-label" + (hot ? " fired" : ""), "text-anchor": "middle" });
    const rows = wrapTriggers(triggers);
    rows.forEach((row, k) => {
      const span = svg("tspan", { x, dy: k === 0 ? -(rows.length - 1) * 12 : 12 });
      span.textContent = row;
      text.appendChild(span);
    });
    return text;
  }

  /* Labels between two states have about 16 characters of room: longer ones take two lines. */
  function wrapTriggers(triggers) {
    const joined = triggers.join(" \u00b7 ");
    if (joined.length <= 16) return [joined];
    if (triggers.length > 2) return [triggers.slice(0, 2).join(" \u00b7 "), triggers.slice(2).join(" \u00b7 ")];
    if (triggers.length === 2) return triggers.slice();
    const cut = joined.indexOf("_");
    return cut > 0 ? [joined.slice(0, cut + 1), joined.slice(cut + 1)] : [joined];
  }

  function stateNode(state, x, y, isCurrent, isBefore) {
    const group = svg("g", { class: "state" + (isCurrent ? " current" : "") + (isBefore ? " before" : "") });
    group.dataset.state = state;
    if (isCurrent) group.setAttribute("aria-current", "true");
    group.appendChild(svg("rect", { x, y, width: W, height: H, rx: 12, ry: 12 }));
    const label = svg("text", { x: x + W / 2, y: y + H / 2 + 4.5, "text-anchor": "middle", class: "state-label" });
    label.textContent = state;
    group.appendChild(label);
    return group;
  }

  return { draw, firedEdges };
})();
