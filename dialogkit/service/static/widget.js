/* dialogkit's chat widget: one script tag puts a chat box on any page (docs/serving.md, "Web chat widget").

     <script src="SERVER/static/widget.js" data-dialogkit-key="KEY"
             data-title="Support" data-lang="zh" defer></script>

   It talks to the server it was loaded from, over the /v1/ws WebSocket. The session id is kept in
   localStorage, so a reload goes on with the same conversation (the server sends its history back);
   a closed socket is opened again with a growing delay. The widget lives in its own shadow root, so
   the page's styles and its own never mix, and it writes every text as text (textContent), never HTML.
   Plain DOM, no framework, nothing loaded from anywhere else. */
(function () {
  "use strict";

  const script = document.currentScript || document.querySelector("script[data-dialogkit-key], script[src*='widget.js']");
  if (!script || window.dialogkitWidget) return;

  const STRINGS = {
    zh: {title: "在线客服", placeholder: "输入消息…", send: "发送", open: "打开聊天", close: "关闭",
         restart: "新对话", typing: "正在输入…", connecting: "正在连接…",
         reconnecting: "连接已断开，正在重新连接…", refused: "无法连接：", failed: "出错了："},
    en: {title: "Chat with us", placeholder: "Type a message…", send: "Send", open: "Open the chat", close: "Close",
         restart: "New conversation", typing: "Typing…", connecting: "Connecting…",
         reconnecting: "Disconnected, reconnecting…", refused: "Cannot connect: ", failed: "Something went wrong: "},
  };
  const FINAL = ["unauthorized", "insufficient_scope", "origin_not_allowed", "user_id_not_allowed"];
  const MAX_DELAY_MS = 10000;

  const server = new URL(script.src, document.baseURI);
  const socketUrl = server.origin.replace(/^http/, "ws") + "/v1/ws";
  const key = script.dataset.dialogkitKey || null;
  const storageKey = "dialogkit:" + server.origin + server.pathname;
  const stored = load();
  let lang = pickLanguage(script.dataset.lang) || stored.lang || pickLanguage(document.documentElement.lang) ||
             pickLanguage(navigator.language) || "en";

  let socket = null;          // the open (or opening) WebSocket
  let ready = false;          // the server said ready on it
  let attempts = 0;           // reconnections since the last ready
  let timer = null;
  let stopped = false;        // refused for good (key, origin): no reconnecting
  let pending = null;         // the text of the turn in flight
  let turnId = 0;

  // ---- the DOM --------------------------------------------------------------------------------------
  const host = document.createElement("div");
  host.id = "dialogkit-widget";
  const root = host.attachShadow({mode: "open"});
  addStyle(root);
  const launcher = el("button", "dk-launcher", {type: "button"});
  launcher.appendChild(bubbleIcon());
  const panel = el("section", "dk-panel", {role: "dialog"});
  panel.hidden = true;
  const header = el("header", "dk-header");
  const title = el("span", "dk-title");
  const restart = el("button", "dk-icon dk-restart", {type: "button"});
  restart.textContent = "↺";
  const close = el("button", "dk-icon dk-close", {type: "button"});
  close.textContent = "×";
  header.append(title, restart, close);
  const status = el("div", "dk-status", {role: "status"});
  status.hidden = true;
  const messages = el("ol", "dk-messages", {"aria-live": "polite"});
  const options = el("div", "dk-options");
  const form = el("form", "dk-form");
  const input = el("input", "dk-input", {type: "text", maxlength: "2000", autocomplete: "off"});
  const send = el("button", "dk-send", {type: "submit"});
  form.append(input, send);
  panel.append(header, status, messages, options, form);
  root.append(launcher, panel);

  launcher.addEventListener("click", () => setOpen(true));
  close.addEventListener("click", () => setOpen(false));
  restart.addEventListener("click", startOver);
  form.addEventListener("submit", (event) => { event.preventDefault(); say(input.value); });

  window.dialogkitWidget = {open: () => setOpen(true), close: () => setOpen(false)};
  if (document.body) mount(); else document.addEventListener("DOMContentLoaded", mount);

  function mount() {
    document.body.appendChild(host);
    setLanguage(lang);
    setConnection("closed");
    showOptions(stored.options || []);
    if (stored.open || script.hasAttribute("data-open")) setOpen(true);
  }

  // ---- the conversation -----------------------------------------------------------------------------
  function connect() {
    clearTimeout(timer);
    timer = null;
    ready = false;
    setConnection(attempts ? "reconnecting" : "connecting");
    const ws = new WebSocket(socketUrl);
    socket = ws;
    ws.addEventListener("open", () => {
      const hello = {type: "hello"};
      if (key) hello.key = key;
      if (stored.session) hello.session_id = stored.session;
      ws.send(JSON.stringify(hello));
    });
    ws.addEventListener("message", (event) => {
      if (socket !== ws) return;
      let message;
      try { message = JSON.parse(event.data); } catch (error) { return; }
      receive(message);
    });
    ws.addEventListener("close", () => {
      if (socket !== ws) return;
      socket = null;
      ready = false;
      if (pending !== null) {            // no reply came: the text goes back in the box, to send again
        if (!input.value) input.value = pending;
        pending = null;
        setBusy(false);
      }
      if (stopped) return;
      const delay = Math.min(MAX_DELAY_MS, 500 * 2 ** attempts) * (0.75 + Math.random() / 2);
      attempts += 1;
      setConnection("reconnecting");
      timer = setTimeout(connect, delay);
    });
  }

  function receive(message) {
    if (message.type === "ready") {
      ready = true;
      attempts = 0;
      stored.session = message.session_id;
      save();
      if (message.language) setLanguage(message.language);
      else if (pickLanguage(message.bot && message.bot.language)) setLanguage(message.bot.language);
      showHistory(message.history || []);
      setConnection("open");
    } else if (message.type === "reply") {
      const reply = message.reply;
      pending = null;
      setBusy(false);
      if (pickLanguage(reply.language)) setLanguage(reply.language);
      if (reply.text) addMessage("bot", reply.text);
      stored.options = reply.options || [];
      save();
      showOptions(stored.options);
    } else if (message.type === "error") {
      const error = message.error || {};
      if (FINAL.includes(error.code)) {
        stopped = true;
        setConnection("refused", error.message || error.code);
        return;
      }
      if (pending !== null) {
        pending = null;
        setBusy(false);
      }
      addMessage("error", STRINGS[lang].failed + (error.message || error.code));
    }
  }

  function say(raw) {
    const text = raw.trim();
    if (!text || !ready || pending !== null) return;
    addMessage("user", text);
    input.value = "";
    showOptions([]);
    pending = text;
    setBusy(true);
    turnId += 1;
    socket.send(JSON.stringify({type: "turn", text: text, id: turnId}));
  }

  function startOver() {
    stored.session = null;
    stored.options = [];
    save();
    clear(messages);
    showOptions([]);
    pending = null;
    setBusy(false);
    const old = socket;
    socket = null;
    if (old) old.close();
    attempts = 0;
    if (!stopped) connect();
  }

  // ---- drawing --------------------------------------------------------------------------------------
  function setOpen(open) {
    panel.hidden = !open;
    launcher.hidden = open;
    stored.open = open;
    save();
    if (open) {
      if (!socket && !timer && !stopped) connect();
      input.focus();
    }
  }

  function showHistory(history) {
    clear(messages);
    for (const item of history) {
      if (item.role === "user" || item.role === "assistant") addMessage(item.role === "user" ? "user" : "bot", item.content);
    }
    if (!history.length) showOptions([]);
    if (pending !== null) setBusy(true);
  }

  function addMessage(who, text) {
    const item = el("li", "dk-msg dk-" + who);
    const bubble = el("div", "dk-bubble");
    bubble.textContent = text;
    item.appendChild(bubble);
    const typing = messages.querySelector(".dk-typing");
    messages.insertBefore(item, typing);
    messages.scrollTop = messages.scrollHeight;
  }

  function showOptions(list) {
    clear(options);
    for (const option of list) {
      const button = el("button", "dk-option", {type: "button"});
      button.textContent = option;
      button.addEventListener("click", () => say(option));
      options.appendChild(button);
    }
    options.hidden = !list.length;
  }

  function setBusy(busy) {
    const typing = messages.querySelector(".dk-typing");
    if (busy && !typing) {
      const item = el("li", "dk-msg dk-bot dk-typing", {"aria-label": STRINGS[lang].typing});
      const dots = el("div", "dk-bubble");
      for (let i = 0; i < 3; i += 1) dots.appendChild(el("span", "dk-dot"));
      item.appendChild(dots);
      messages.appendChild(item);
      messages.scrollTop = messages.scrollHeight;
    } else if (!busy && typing) {
      typing.remove();
    }
    send.disabled = busy || !ready;
    for (const button of options.querySelectorAll("button")) button.disabled = busy;
  }

  function setConnection(state, reason) {
    host.dataset.connection = state;
    const words = STRINGS[lang];
    const shown = {connecting: words.connecting, reconnecting: words.reconnecting,
                   refused: words.refused + (reason || "")}[state];
    status.textContent = shown || "";
    status.hidden = !shown;
    status.className = "dk-status dk-" + state;
    status.dataset.reason = reason || "";
    send.disabled = state !== "open" || pending !== null;
  }

  function setLanguage(next) {
    lang = pickLanguage(next) || lang;
    host.dataset.lang = lang;
    stored.lang = lang;
    save();
    const words = STRINGS[lang];
    title.textContent = script.dataset.title || words.title;
    input.placeholder = words.placeholder;
    send.textContent = words.send;
    launcher.setAttribute("aria-label", words.open);
    launcher.title = words.open;
    close.setAttribute("aria-label", words.close);
    close.title = words.close;
    restart.setAttribute("aria-label", words.restart);
    restart.title = words.restart;
    const typing = messages.querySelector(".dk-typing");
    if (typing) typing.setAttribute("aria-label", words.typing);
    if (host.dataset.connection) setConnection(host.dataset.connection, status.dataset.reason);
  }

  // ---- helpers --------------------------------------------------------------------------------------
  function pickLanguage(value) {
    if (!value) return null;
    const lower = String(value).toLowerCase();
    return lower.startsWith("zh") ? "zh" : lower.startsWith("en") ? "en" : null;
  }

  function load() {
    try {
      const value = JSON.parse(window.localStorage.getItem(storageKey) || "{}");
      return value && typeof value === "object" ? value : {};
    } catch (error) {
      return {};                         // storage off or unreadable: a conversation per page view
    }
  }

  function save() {
    try { window.localStorage.setItem(storageKey, JSON.stringify(stored)); } catch (error) { /* storage off */ }
  }

  function el(tag, className, attributes) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function bubbleIcon() {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z");
    svg.appendChild(path);
    return svg;
  }

  function addStyle(shadow) {
    if ("adoptedStyleSheets" in shadow && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css());
      shadow.adoptedStyleSheets = [sheet];
    } else {
      const style = document.createElement("style");
      style.textContent = css();
      shadow.appendChild(style);
    }
  }

  // A constructed style sheet, so a page whose Content Security Policy forbids inline styles still
  // shows the widget as drawn.
  function css() {
    return `
:host { all: initial; position: fixed; right: 20px; bottom: 20px; z-index: 2147483000;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif;
  color: #1f2933; }
button { font: inherit; cursor: pointer; }
button:disabled { cursor: default; opacity: .55; }
[hidden] { display: none !important; }
.dk-launcher { width: 56px; height: 56px; border-radius: 50%; border: 0; background: #2563eb; color: #fff;
  box-shadow: 0 6px 20px rgba(15, 23, 42, .25); display: grid; place-items: center; }
.dk-launcher svg { width: 26px; height: 26px; fill: currentColor; }
.dk-panel { width: 360px; max-width: calc(100vw - 40px); height: 520px; max-height: calc(100vh - 40px);
  display: flex; flex-direction: column; background: #fff; border-radius: 14px; overflow: hidden;
  box-shadow: 0 12px 40px rgba(15, 23, 42, .25); border: 1px solid #e4e7eb; }
.dk-header { display: flex; align-items: center; gap: 4px; padding: 12px 12px 12px 16px; background: #2563eb; color: #fff; }
.dk-title { flex: 1; font-weight: 600; font-size: 15px; }
.dk-icon { border: 0; background: transparent; color: inherit; font-size: 18px; width: 30px; height: 30px;
  border-radius: 6px; line-height: 1; }
.dk-icon:hover { background: rgba(255, 255, 255, .18); }
.dk-status { padding: 6px 14px; font-size: 12px; background: #fff7e6; color: #8a5a00; border-bottom: 1px solid #f5e0b3; }
.dk-status.dk-refused { background: #fdecec; color: #a61b1b; border-color: #f5c2c2; }
.dk-messages { flex: 1; overflow-y: auto; margin: 0; padding: 14px; list-style: none; background: #f7f8fa;
  display: flex; flex-direction: column; gap: 8px; }
.dk-msg { display: flex; }
.dk-user { justify-content: flex-end; }
.dk-bubble { max-width: 80%; padding: 8px 12px; border-radius: 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.dk-bot .dk-bubble { background: #fff; border: 1px solid #e4e7eb; border-bottom-left-radius: 4px; }
.dk-user .dk-bubble { background: #2563eb; color: #fff; border-bottom-right-radius: 4px; }
.dk-error .dk-bubble { background: #fdecec; color: #a61b1b; font-size: 12px; }
.dk-typing .dk-bubble { display: flex; gap: 4px; padding: 12px; }
.dk-dot { width: 7px; height: 7px; border-radius: 50%; background: #9aa5b1; animation: dk-blink 1.2s infinite; }
.dk-dot:nth-child(2) { animation-delay: .2s; }
.dk-dot:nth-child(3) { animation-delay: .4s; }
@keyframes dk-blink { 0%, 80%, 100% { opacity: .3; } 40% { opacity: 1; } }
.dk-options { display: flex; flex-wrap: wrap; gap: 6px; padding: 8px 12px 0; background: #fff; }
.dk-option { border: 1px solid #2563eb; color: #2563eb; background: #fff; border-radius: 16px; padding: 4px 12px; }
.dk-option:hover:not(:disabled) { background: #eff4ff; }
.dk-form { display: flex; gap: 8px; padding: 10px 12px 12px; background: #fff; border-top: 1px solid #eef0f2; }
.dk-options:not([hidden]) + .dk-form { border-top: 0; }
.dk-input { flex: 1; min-width: 0; font: inherit; padding: 8px 10px; border: 1px solid #cbd2d9; border-radius: 8px; outline: none; }
.dk-input:focus { border-color: #2563eb; }
.dk-send { border: 0; background: #2563eb; color: #fff; border-radius: 8px; padding: 0 14px; }
`;
  }
})();
