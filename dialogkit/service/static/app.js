/* dialogkit inspector: a chat box and live panels over the serving API (docs/serving.md, "Inspector").
 *
 * Every piece of text that came from a user, the bot or the store is put on the page with
 * textContent or createTextNode, never parsed as HTML: what a user typed shows literally and
 * never runs. The page needs nothing but the files next to this one and the API: no CDN, no
 * build step. machine.js draws the state machine.
 */
"use strict";

(() => {
  const POLL_MS = 4000;
  const STATE_ORDER = ["IDLE", "TASK_INIT", "PARAM_COLLECT", "CONFIRMATION", "EXECUTION"];
  const SUMMARY_SECTIONS = [
    ["facts", "Stated by the user"],
    ["confirmed", "Confirmed"],
    ["pending", "Pending"],
  ];
  const PART_LABELS = {
    system: "System prompt", flow: "Flow & slots", summary: "Ticket summary", pinned: "Pinned",
    entity_memory: "Entity memory", recent: "Recent rounds", round_summary: "Round summaries",
    older: "Older rounds", current: "Current message",
  };

  const ui = {};
  const app = {
    sessionId: "",
    userId: "",
    token: sessionStorage.getItem("dialogkit.token") || "",
    busy: false,
    snapshot: null,        // the last session document, normalised
    previous: null,        // the one just before its last turn, when this page saw it (to show what changed)
    shownTurn: 0,          // the last turn whose messages the chat shows
    machine: null,         // the last state machine drawn (kept when the session goes back to IDLE)
    pendingRetry: null,    // the request a 401 interrupted, run again once a token is given
    epoch: 0,              // counts messages sent and sessions opened: a refresh begun before is stale
    timer: 0,
  };

  // ---- small DOM helpers: text only -------------------------------------------------------------
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function emptyNote(text) {
    return el("p", "empty", text);
  }

  function display(value) {
    if (value === null || value === undefined) return "—";
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    try { return JSON.stringify(value); } catch (_) { return String(value); }
  }

  function list(value) {
    return Array.isArray(value) ? value : [];
  }

  function num(value) {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }

  // ---- the API ----------------------------------------------------------------------------------
  function sessionPath(suffix) {
    return "v1/sessions/" + encodeURIComponent(app.sessionId) + (suffix || "");
  }

  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (app.token) headers.Authorization = "Bearer " + app.token;
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      setConn("down", "server unreachable");
      throw new ApiError(0, "unreachable", "The server cannot be reached.");
    }
    let data = null;
    const text = await response.text();
    if (text) {
      try { data = JSON.parse(text); } catch (_) { data = null; }
    }
    if (response.status === 401) {
      askForToken();
      throw new ApiError(401, "unauthorized", app.token ? "That token was refused." : "This server needs a token.");
    }
    if (!response.ok) {
      const err = (data && (data.error || data.detail)) || {};
      const code = typeof err === "object" ? err.code || "" : "";
      const message = typeof err === "string" ? err : err.message || response.statusText;
      throw new ApiError(response.status, code, message);
    }
    setConn("ok", "connected");
    return data;
  }

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  function setConn(status, text) {
    ui.conn.dataset.status = status;
    ui.connText.textContent = text;
    ui.conn.title = text;
  }

  function askForToken() {
    ui.tokenForm.hidden = false;
    ui.tokenInput.focus();
  }

  // ---- normalising the session document (docs/serving.md, "A session") -------------------------
  function normalise(doc) {
    doc = doc || {};
    const sensitive = new Set(list(doc.sensitive));
    const stack = list(doc.stack).map((task) => ({ flow: task.flow, state: task.state || null,
      asking: task.asking || null }));
    stack.reverse();                                     // the document is bottom first; panels show the top first
    return {
      id: doc.id || app.sessionId,
      userId: doc.user_id || null,
      turn: num(doc.turn),
      state: doc.state || "IDLE",
      flow: doc.flow || null,
      language: doc.language || null,
      stack,
      slots: Object.entries(doc.slots || {}).map(([name, value]) => ({ name, value, sensitive: sensitive.has(name) })),
      clarification: doc.clarification || null,
      summary: normaliseSummary(doc.summary),
      entities: list(doc.entities).map(normaliseEntity),
      machine: normaliseMachine(doc.machine, doc),
      context: normaliseContext(doc.context),
      lastTurn: normaliseTurn(doc.last_turn),
      history: Array.isArray(doc.history) ? doc.history : null,
    };
  }

  function normaliseSummary(summary) {
    const sections = { facts: [], confirmed: [], pending: [] };
    if (!summary || typeof summary !== "object") return sections;
    for (const [key] of SUMMARY_SECTIONS) sections[key] = list(summary[key]).map(display);
    return sections;
  }

  function normaliseEntity(entity) {
    const aliases = list(entity.aliases).map(display).filter((a) => a !== display(entity.value));
    return {
      id: entity.id || "",
      type: entity.type || "",
      value: entity.value,
      aliases,
      mentions: num(entity.mentions),
      salience: num(entity.salience) || 0,
    };
  }

  function normaliseMachine(machine, doc) {
    if (!machine || typeof machine !== "object") return null;
    const transitions = list(machine.transitions).map((t) => ({
      trigger: t.trigger,
      sources: Array.isArray(t.sources) ? t.sources : [t.source],
      dest: t.dest,
    }));
    let states = list(machine.states).map(String);
    if (!states.length) states = STATE_ORDER.slice();
    return { flow: machine.flow || null, description: machine.description || "", states, transitions,
      current: machine.current || doc.state || "IDLE" };
  }

  function normaliseContext(ctx) {
    if (!ctx || typeof ctx !== "object") return null;
    return {
      budget: num(ctx.budget),
      used: num(ctx.used),
      full: num(ctx.full_tokens),
      sent: num(ctx.sent_tokens),
      saved: num(ctx.saved_tokens),
      savedPct: num(ctx.saved_pct),
      encoding: ctx.encoding || "",
      dropped: list(ctx.dropped),
      truncated: list(ctx.truncated),
      summarized: list(ctx.summarized),
      parts: list(ctx.parts).map((p) => ({ name: p.part, tokens: num(p.tokens) || 0, priority: num(p.priority) })),
    };
  }

  function normaliseTurn(turn) {
    if (!turn || typeof turn !== "object") return null;
    return {
      trigger: turn.trigger || null,
      transitions: list(turn.transitions),
      memoryActions: list(turn.memory_actions),
      actions: list(turn.actions),
      explain: list(turn.explain).filter((r) => r && typeof r === "object"),
      latencyMs: num(turn.latency_ms),
      state: turn.state || null,
    };
  }

  // ---- chat -------------------------------------------------------------------------------------
  function addMessage(role, text, meta) {
    ui.emptyChat.hidden = true;
    const item = el("li", "msg msg-" + role);
    item.dataset.role = role;
    item.appendChild(el("div", "bubble", text));
    if (meta) item.appendChild(el("div", "msg-meta", meta));
    ui.messages.appendChild(item);
    ui.messages.scrollTop = ui.messages.scrollHeight;
    return item;
  }

  function showOptions(options) {
    clear(ui.options);
    for (const option of list(options)) {
      const label = typeof option === "string" ? option : option.title || option.text || display(option);
      const value = typeof option === "string" ? option : option.payload || option.text || label;
      const button = el("button", "chip", label);
      button.type = "button";
      button.dataset.option = value;
      button.addEventListener("click", () => send(value));
      ui.options.appendChild(button);
    }
  }

  function showError(text) {
    ui.error.textContent = text || "";
    ui.error.hidden = !text;
  }

  async function send(text) {
    text = String(text || "").trim();
    if (!text || app.busy) return;
    app.busy = true;
    app.epoch += 1;
    ui.send.disabled = true;
    showError("");
    showOptions([]);
    const mine = addMessage("user", text);
    ui.text.value = "";
    autosize();
    const typing = addMessage("bot typing", "…");
    const body = { text };
    if (app.userId) body.user_id = app.userId;
    const started = performance.now();
    let reply = null, roundTrip = 0;
    try {
      reply = await api("POST", sessionPath("/turns"), body);
      roundTrip = performance.now() - started;
      const bits = [reply.state || "", Math.round(roundTrip) + " ms"];
      addMessage("bot", reply.text || "", bits.filter(Boolean).join(" \u00b7 "));
      showOptions(reply.options);
    } catch (err) {
      if (err.status === 401) {              // not sent: it goes back in the box, and out once a token is given
        mine.remove();
        ui.emptyChat.hidden = Boolean(ui.messages.querySelector(".msg:not(.typing)"));
        ui.text.value = text;
        app.pendingRetry = () => send(text);
      }
      showError(err.message + (err.code ? " (" + err.code + ")" : ""));
    } finally {
      typing.remove();
      app.busy = false;                      // the next message may go while the panels catch up
      ui.send.disabled = false;
      ui.text.focus();
    }
    if (reply) await refresh(reply, roundTrip);
  }

  function autosize() {
    ui.text.style.height = "auto";
    ui.text.style.height = Math.min(ui.text.scrollHeight, 140) + "px";
  }

  // ---- refreshing the panels --------------------------------------------------------------------
  async function refresh(reply, roundTrip) {
    const epoch = app.epoch;
    let doc;
    try {
      doc = await api("GET", sessionPath());
      if (epoch !== app.epoch || (!reply && app.busy)) return;   // a message went meanwhile: its refresh follows
    } catch (err) {
      if (err.status === 404 && !app.snapshot) render(null);
      else if (err.status !== 401) showError(err.message);
      return;
    }
    const snapshot = normalise(doc);
    const last = app.snapshot;
    if (last && snapshot.id === last.id && snapshot.turn !== null && snapshot.turn < last.turn) return;   // overtaken
    if (!snapshot.lastTurn && reply) {            // another worker kept last_turn: the reply says the same
      snapshot.lastTurn = normaliseTurn(reply);
    }
    if (snapshot.lastTurn) {
      if (roundTrip !== undefined) snapshot.lastTurn.roundTripMs = roundTrip;
      else if (last && last.lastTurn && last.turn === snapshot.turn) {    // the same turn, seen again
        snapshot.lastTurn.roundTripMs = last.lastTurn.roundTripMs;
      }
    }
    // What the session looked like before its last turn: known when this page saw the turn before.
    const moved = !last || last.turn !== snapshot.turn;
    if (moved) {
      app.previous = last && last.turn === snapshot.turn - 1 ? last
        : snapshot.turn === 1 ? { state: "IDLE", slots: [], turn: 0 } : null;
    }
    snapshot.before = app.previous ? app.previous.state : null;
    showHistory(snapshot.history, reply !== undefined);
    app.snapshot = snapshot;
    render(snapshot);
  }

  /* Messages this page did not send itself (an existing session opened, or turns that came in
   * through another channel) are shown from the stored history, once each. */
  function showHistory(history, sentHere) {
    if (!history) return;
    const newest = history.reduce((n, m) => Math.max(n, num(m.turn) || 0), 0);
    if (!sentHere) {
      for (const message of history) {
        if ((num(message.turn) || 0) <= app.shownTurn) continue;
        if (message.role === "user") addMessage("user", message.content);
        else if (message.role === "assistant") addMessage("bot", message.content);
      }
    }
    app.shownTurn = Math.max(app.shownTurn, newest);
  }

  function render(snapshot) {
    const state = snapshot ? snapshot.state : "IDLE";
    ui.stateBadge.textContent = state;
    ui.stateBadge.dataset.state = state;
    renderMachine(snapshot);
    renderSlots(snapshot);
    renderTurn(snapshot);
    renderSummary(snapshot);
    renderEntities(snapshot);
    renderStack(snapshot);
    renderContext(snapshot);
  }

  // ---- state machine ----------------------------------------------------------------------------
  function renderMachine(snapshot) {
    // The server sends the last flow's machine while IDLE; this keeps it too across a page's own resets.
    if (snapshot && snapshot.machine && snapshot.machine.transitions.length) app.machine = snapshot.machine;
    const state = snapshot ? snapshot.state : "IDLE";
    const machine = app.machine || { states: STATE_ORDER.slice(), transitions: [], flow: null, description: "" };
    const flow = snapshot && snapshot.flow;
    ui.machineFlow.textContent = flow ? flow + (machine.description ? " \u2014 " + machine.description : "")
      : machine.flow ? "idle \u00b7 last flow: " + machine.flow : "no flow has run yet";
    ui.machineFlow.title = ui.machineFlow.textContent;
    const before = snapshot ? snapshot.before : null;
    const triggers = snapshot && snapshot.lastTurn && before ? snapshot.lastTurn.transitions : [];
    const fired = DialogkitMachine.firedEdges(machine, before, triggers);
    clear(ui.machine).appendChild(DialogkitMachine.draw(machine, state, before, fired));
  }

  // ---- panels -----------------------------------------------------------------------------------
  function renderSlots(snapshot) {
    clear(ui.slots);
    const slots = snapshot ? snapshot.slots : [];
    const asking = snapshot && snapshot.stack.length ? snapshot.stack[0].asking : null;
    ui.slotsNote.textContent = slots.length ? slots.length + (slots.length === 1 ? " value" : " values") : "";
    if (!slots.length && !asking) { ui.slots.appendChild(emptyNote("No slot filled yet.")); return; }
    const before = app.previous ? new Map(app.previous.slots.map((s) => [s.name, display(s.value)])) : null;
    const table = el("table", "kv");
    for (const slot of slots) {
      const shown = display(slot.value);
      const pills = [];
      if (slot.sensitive) pills.push(["pill-muted", "sensitive"]);
      if (before && !before.has(slot.name)) pills.push(["pill-new", "new"]);
      else if (before && before.get(slot.name) !== shown) pills.push(["pill-new", "changed"]);
      table.appendChild(slotRow(slot.name, el("span", "slot-value" + (slot.sensitive ? " masked" : ""), shown), pills));
    }
    if (asking && !slots.some((s) => s.name === asking)) {
      table.appendChild(slotRow(asking, el("span", "muted", "\u2014"), [["pill-ask", "asking"]]));
    }
    ui.slots.appendChild(table);
  }

  function slotRow(name, value, pills) {
    const row = el("tr");
    row.dataset.slot = name;
    const head = el("th");
    head.appendChild(el("span", "slot-name", name));
    const cell = el("td");
    cell.appendChild(value);
    for (const [cls, text] of pills) cell.appendChild(el("span", "pill " + cls, text));
    row.append(head, cell);
    return row;
  }

  function renderTurn(snapshot) {
    clear(ui.turn);
    const turn = snapshot && snapshot.lastTurn;
    // last_turn is the last one this server process ran: the session's turn number fits it only
    // when this page sent that turn itself
    ui.turnNote.textContent = turn && turn.roundTripMs !== undefined && snapshot.turn ? "turn " + snapshot.turn : "";
    if (!turn) {
      ui.turn.appendChild(emptyNote(snapshot ? "This server has not run a turn of this session yet." : "No turn yet."));
      return;
    }
    const stats = el("div", "turn-stats");
    stats.appendChild(stat("trigger", turn.trigger || "none", "trigger"));
    if (turn.latencyMs !== null) stats.appendChild(stat("latency", fmtMs(turn.latencyMs), "latency"));
    if (turn.roundTripMs !== undefined) stats.appendChild(stat("round trip", fmtMs(turn.roundTripMs), "roundtrip"));
    ui.turn.appendChild(stats);
    ui.turn.appendChild(el("h3", null, "Transitions"));
    ui.turn.appendChild(chips(turn.transitions, "chip-trans", "none", "\u2192"));
    ui.turn.appendChild(el("h3", null, "Memory actions"));
    ui.turn.appendChild(chips(turn.memoryActions, "chip-mem", "none"));
    if (turn.actions.length) {
      ui.turn.appendChild(el("h3", null, "Actions"));
      const row = el("div", "chip-row");
      for (const action of turn.actions) {
        const name = typeof action === "string" ? action : action.name;
        const failed = typeof action === "object" && action && action.error;
        const tag = el("span", "tag " + (failed ? "chip-fail" : "chip-act"), name + (failed ? " \u2717" : " \u2713"));
        if (failed) tag.title = String(action.error);
        row.appendChild(tag);
      }
      ui.turn.appendChild(row);
    }
    ui.turn.appendChild(el("h3", null, "Why"));
    ui.turn.appendChild(explanation(turn.explain));
    const clarification = snapshot.clarification;
    if (clarification) {
      ui.turn.appendChild(el("h3", null, "Waiting for a choice"));
      const expression = clarification.expression ? "\u201c" + clarification.expression + "\u201d: " : "";
      const labels = list(clarification.candidates).map((c) => display(c.label || c.value));
      ui.turn.appendChild(el("p", "clarification", expression + labels.join(" / ")));
    }
  }

  /* The turn's decisions, in order: the rule that decided, what it did, and the user's words. */
  function explanation(records) {
    if (!records.length) return emptyNote("no decision recorded");
    const items = el("ol", "explain");
    items.dataset.testid = "explain";
    for (const record of records) {
      const item = el("li", "explain-item");
      item.appendChild(el("span", "tag chip-rule", display(record.rule)));
      item.appendChild(el("span", "explain-did", " " + display(record.did)));
      if (record.words) item.appendChild(el("span", "explain-words", " (" + display(record.words) + ")"));
      items.appendChild(item);
    }
    return items;
  }

  function fmtMs(ms) {
    return ms < 10 ? ms.toFixed(2) + " ms" : ms < 100 ? ms.toFixed(1) + " ms" : Math.round(ms) + " ms";
  }

  function stat(label, value, id) {
    const box = el("div", "stat");
    box.dataset.stat = id;
    box.append(el("span", "stat-value", value), el("span", "stat-label", label));
    return box;
  }

  function chips(items, cls, empty, joiner) {
    const row = el("div", "chip-row");
    if (!items.length) { row.appendChild(el("span", "muted", empty)); return row; }
    items.forEach((item, k) => {
      if (joiner && k) row.appendChild(el("span", "joiner", joiner));
      row.appendChild(el("span", "tag " + cls, display(item)));
    });
    return row;
  }

  function renderSummary(snapshot) {
    clear(ui.summary);
    const summary = snapshot ? snapshot.summary : { facts: [], confirmed: [], pending: [] };
    for (const [key, title] of SUMMARY_SECTIONS) {
      const section = el("section", "summary-section summary-" + key);
      section.dataset.section = key;
      section.appendChild(el("h3", null, title));
      if (!summary[key].length) section.appendChild(el("p", "empty", "—"));
      else {
        const ul = el("ul");
        for (const item of summary[key]) ul.appendChild(el("li", null, item));
        section.appendChild(ul);
      }
      ui.summary.appendChild(section);
    }
  }

  function renderEntities(snapshot) {
    clear(ui.entities);
    const entities = snapshot ? snapshot.entities.slice() : [];
    if (!entities.length) { ui.entities.appendChild(emptyNote("No entity mentioned yet.")); return; }
    entities.sort((a, b) => b.salience - a.salience);
    const top = Math.max(...entities.map((e) => e.salience), 1e-9);
    const ul = el("ul", "entity-list");
    for (const entity of entities) {
      const li = el("li", "entity");
      li.dataset.entity = entity.id || entity.type;
      const head = el("div", "entity-head");
      head.append(el("span", "tag chip-type", entity.type), el("span", "entity-value", display(entity.value)));
      const aliases = entity.aliases.slice(0, 3).join(" \u00b7 ");
      if (aliases) head.appendChild(el("span", "muted small", aliases));
      const meter = el("div", "meter");
      const fill = el("div", "meter-fill");
      fill.style.width = Math.max(3, (entity.salience / top) * 100).toFixed(1) + "%";
      meter.appendChild(fill);
      const foot = el("div", "entity-foot");
      foot.append(meter, el("span", "num", entity.salience.toFixed(2)));
      if (entity.mentions !== null) foot.appendChild(el("span", "muted small", "×" + entity.mentions));
      li.append(head, foot);
      ul.appendChild(li);
    }
    ui.entities.appendChild(ul);
  }

  function renderStack(snapshot) {
    clear(ui.stack);
    const stack = snapshot ? snapshot.stack : [];
    if (!stack.length) { ui.stack.appendChild(emptyNote("No open task: the bot is idle.")); return; }
    const ol = el("ol", "stack-list");
    stack.forEach((task, k) => {
      const li = el("li", "stack-item" + (k === 0 ? " active" : ""));
      li.append(el("span", "stack-flow", task.flow));
      if (task.state) {
        const badge = el("span", "state-badge small", task.state);
        badge.dataset.state = task.state;
        li.appendChild(badge);
      }
      if (task.asking) li.appendChild(el("span", "muted small", "asking " + task.asking));
      if (k === 0) li.appendChild(el("span", "pill pill-new", "active"));
      ol.appendChild(li);
    });
    ui.stack.appendChild(ol);
  }

  function renderContext(snapshot) {
    clear(ui.context);
    const ctx = snapshot && snapshot.context;
    ui.contextNote.textContent = "";
    if (!ctx) { ui.context.appendChild(emptyNote("Nothing built yet.")); return; }
    const budget = ctx.budget || Math.max(1, ...ctx.parts.map((p) => p.tokens));
    const used = ctx.used !== null ? ctx.used : ctx.parts.reduce((n, p) => n + p.tokens, 0);
    ui.contextNote.textContent = used + " / " + budget + " tokens";
    const share = (tokens) => Math.min(100, (tokens / budget) * 100).toFixed(2) + "%";
    const total = el("div", "budget-bar");
    total.title = used + " of " + budget + " tokens";
    for (const part of ctx.parts.filter((p) => p.tokens)) {
      const seg = el("div", "budget-seg " + partColour(part.name));
      seg.style.width = share(part.tokens);
      seg.title = partLabel(part.name) + ": " + part.tokens;
      total.appendChild(seg);
    }
    const saved = ctx.saved === null ? null
      : ctx.saved + (ctx.savedPct !== null ? " (" + ctx.savedPct.toFixed(1) + "%)" : "");
    const figures = el("div", "ctx-figures");
    figures.append(figure("sent", ctx.sent !== null ? ctx.sent : used), figure("full history", ctx.full),
      figure("saved", saved), figure("budget", budget));
    ui.context.append(total, figures, partsTable(ctx, share));
    const notes = [];
    if (ctx.summarized.length) notes.push("summaries stand in for " + ctx.summarized.join(", "));
    if (ctx.encoding) notes.push("token counts: " + ctx.encoding);
    if (notes.length) ui.context.appendChild(el("p", "muted small", notes.join(" \u00b7 ")));
  }

  function partsTable(ctx, share) {
    const table = el("table", "parts");
    for (const part of ctx.parts) {
      const row = el("tr");
      row.dataset.part = part.name;
      const name = el("td", "part-name");
      name.append(el("i", "sw " + partColour(part.name)), document.createTextNode(partLabel(part.name)));
      if (ctx.truncated.includes(part.name)) name.appendChild(el("span", "pill pill-warn", "truncated"));
      const meter = el("div", "meter");
      const fill = el("div", "meter-fill " + partColour(part.name));
      fill.style.width = share(part.tokens);
      meter.appendChild(fill);
      const bar = el("td", "part-bar");
      bar.appendChild(meter);
      row.append(name, bar, el("td", "num", part.tokens));
      table.appendChild(row);
    }
    for (const name of ctx.dropped) {
      const row = el("tr", "dropped");
      row.dataset.part = name;
      row.append(el("td", "part-name", partLabel(name)), el("td", "part-bar muted", "dropped to fit the budget"),
        el("td", "num", "0"));
      table.appendChild(row);
    }
    return table;
  }

  /* One colour per part, the same on every turn. */
  function partColour(name) {
    const k = Object.keys(PART_LABELS).indexOf(name);
    return "c" + (k < 0 ? 8 : k % 9);
  }

  function partLabel(name) {
    return PART_LABELS[name] || name;
  }

  function figure(label, value) {
    const box = el("div", "figure");
    box.append(el("span", "figure-value", value === null || value === undefined ? "—" : value),
      el("span", "figure-label", label));
    return box;
  }

  // ---- sessions ---------------------------------------------------------------------------------
  function newSessionId() {
    const bytes = new Uint8Array(5);
    crypto.getRandomValues(bytes);
    return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function openSession(id, user) {
    app.epoch += 1;                        // whatever was on its way is about the session before
    app.sessionId = id;
    app.userId = user || "";
    app.snapshot = null;
    app.previous = null;
    app.machine = null;
    ui.sessionId.value = id;
    ui.userId.value = app.userId;
    const url = new URL(window.location.href);
    url.searchParams.set("session", id);
    if (app.userId) url.searchParams.set("user", app.userId); else url.searchParams.delete("user");
    window.history.replaceState(null, "", url);
    clear(ui.messages).appendChild(ui.emptyChat);
    ui.emptyChat.hidden = false;
    showOptions([]);
    showError("");
    app.shownTurn = 0;
    render(null);
    refresh();
  }

  function poll() {
    window.clearTimeout(app.timer);
    app.timer = window.setTimeout(async () => {
      if (!app.busy && document.visibilityState === "visible" && app.snapshot) await refresh();
      poll();
    }, POLL_MS);
  }

  function bind() {
    for (const [key, id] of Object.entries({
      conn: "conn", connText: "conn-text", botName: "bot-name", sessionForm: "session-form", sessionId: "session-id",
      userId: "user-id", newSession: "new-session", tokenForm: "token-form", tokenInput: "token-input",
      stateBadge: "state-badge",
      messages: "messages", emptyChat: "empty-chat", options: "options", error: "error", composer: "composer",
      text: "text", send: "send", machine: "machine", machineFlow: "machine-flow", slots: "slots",
      slotsNote: "slots-note", turn: "turn", turnNote: "turn-note", summary: "summary", entities: "entities",
      stack: "stack", context: "context", contextNote: "context-note",
    })) ui[key] = document.getElementById(id);

    ui.composer.addEventListener("submit", (event) => { event.preventDefault(); send(ui.text.value); });
    ui.text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        send(ui.text.value);
      }
    });
    ui.text.addEventListener("input", autosize);
    ui.sessionForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const id = ui.sessionId.value.trim();
      if (id) openSession(id, ui.userId.value.trim());
    });
    ui.newSession.addEventListener("click", () => openSession(newSessionId(), ui.userId.value.trim()));
    ui.tokenForm.addEventListener("submit", (event) => {
      event.preventDefault();
      app.token = ui.tokenInput.value.trim();
      sessionStorage.setItem("dialogkit.token", app.token);
      ui.tokenInput.value = "";
      ui.tokenForm.hidden = true;
      showError("");
      const retry = app.pendingRetry;
      app.pendingRetry = null;
      showBot();
      if (retry) retry(); else refresh();
    });
  }

  async function showBot() {
    try {
      const bot = await api("GET", "v1/bot");
      if (!bot) return;
      ui.botName.textContent = bot.name || "";
      const version = bot.version ? "version " + bot.version : "";
      ui.botName.title = [bot.description, version].filter(Boolean).join(" \u00b7 ");
      ui.botName.hidden = !bot.name;
    } catch (_) {
      // a refused token is asked for by api(); the name is fetched again once one is given
    }
  }

  function start() {
    bind();
    showBot();
    const params = new URLSearchParams(window.location.search);
    openSession(params.get("session") || newSessionId(), params.get("user") || "");
    ui.text.focus();
    poll();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
