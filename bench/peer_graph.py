"""The support bot's report_issue flow written as a LangGraph 1.x ``StateGraph``: the peer of bench/peer.py.

Written the way a competent LangGraph user would write it for a rule-driven slot-filling bot: the
slots live in the graph state, the history in an ``add_messages`` channel, three rule nodes read
the user's message in turn (regex order id; keyword product, issue and language; yes/no while a
confirmation is pending), one asks for the next missing slot or for confirmation, one settles the
confirmation. ``SqliteSaver`` on a file
persists every thread; one ``invoke`` per turn with the session's ``thread_id``.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

ORDER_ID = re.compile(r"(?<!\d)\d{5,12}(?!\d)")
CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")
PRODUCTS = {
    "phone": ("手机", "电话", "phone", "iphone", "mobile"),
    "laptop": ("笔记本", "电脑", "laptop", "notebook"),
    "headphones": ("耳机", "headphones", "earbuds", "earphones"),
    "tablet": ("平板", "ipad", "tablet"),
}
ISSUES = {
    "damaged": ("碎了", "坏了", "裂了", "摔坏", "损坏", "broken", "cracked", "damaged"),
    "missing": ("没收到", "没到", "丢了", "未收到", "never arrived", "not arrived", "missing", "lost"),
}
LABELS = {"phone": "手机", "laptop": "笔记本电脑", "headphones": "耳机", "tablet": "平板电脑",
          "damaged": "损坏", "missing": "未收到"}          # zh labels; en shows the value itself
YES = ("确认", "是的", "好的", "可以", "对", "yes", "sure", "ok", "go ahead")
NO = ("不用", "取消", "算了", "不", "no", "cancel")
ASK = {
    "order_id": {"zh": "请提供您的订单号。", "en": "What is your order number?"},
    "product": {"zh": "是哪件商品？", "en": "Which product is it?"},
    "issue_type": {"zh": "请描述问题：损坏还是未收到？", "en": "Is it damaged or missing?"},
}
CONFIRM = {"zh": "将为订单 {order_id}（{product}，{issue_type}）创建工单，确认吗？",
           "en": "I'll open a ticket for order {order_id} ({product}, {issue_type}). Shall I go ahead?"}
DONE = {"zh": "已创建工单 {ticket_id}。", "en": "Ticket {ticket_id} has been created."}
CANCELLED = {"zh": "好的，已取消。", "en": "OK, cancelled."}
SLOTS = ("order_id", "product", "issue_type")


class State(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    lang: str
    order_id: str | None
    product: str | None
    issue_type: str | None
    awaiting_confirm: bool
    answer: str | None


def _keyword(text: str, table: dict[str, tuple[str, ...]]) -> str | None:
    return next((value for value, words in table.items() if any(w in text for w in words)), None)


def _text(state: State) -> str:
    return str(state["messages"][-1].content)


def read_order_id(state: State) -> dict[str, Any]:
    """Rule node: a 5-12 digit order number anywhere in the last user message."""
    match = ORDER_ID.search(_text(state))
    return {"order_id": match.group()} if match else {}


def read_keywords(state: State) -> dict[str, Any]:
    """Rule node: product and issue keywords, and the language (kept for a bare number)."""
    text = _text(state)
    low = text.lower()
    lang = "zh" if CJK.search(text) else "en" if LATIN.search(text) else state.get("lang", "en")
    update: dict[str, Any] = {"lang": lang}
    for slot, table in (("product", PRODUCTS), ("issue_type", ISSUES)):
        if found := _keyword(low, table):
            update[slot] = found
    return update


def read_yes_no(state: State) -> dict[str, Any]:
    """Rule node: yes or no, only while a confirmation is pending."""
    if not state.get("awaiting_confirm"):
        return {"answer": None}
    low = _text(state).lower()
    return {"answer": "yes" if any(w in low for w in YES) else "no" if any(w in low for w in NO) else None}


def route(state: State) -> Literal["ask", "settle"]:
    return "settle" if state.get("awaiting_confirm") and state.get("answer") else "ask"


def ask(state: State) -> dict[str, Any]:
    """The next missing slot's question, or the confirmation once all are filled."""
    lang = state.get("lang", "en")
    missing = next((slot for slot in SLOTS if not state.get(slot)), None)
    if missing is not None:
        return {"messages": [AIMessage(ASK[missing][lang])]}
    values = {slot: str(state.get(slot)) for slot in SLOTS}
    if lang == "zh":
        values = {slot: LABELS.get(value, value) for slot, value in values.items()}
    text = CONFIRM[lang].format(**values)
    return {"messages": [AIMessage(text)], "awaiting_confirm": True}


def settle(state: State, config: RunnableConfig) -> dict[str, Any]:
    """Open the ticket on yes (id derived from the thread and order, as the shipped action does)."""
    lang = state.get("lang", "en")
    cleared: dict[str, Any] = {slot: None for slot in SLOTS} | {"awaiting_confirm": False, "answer": None}
    if state.get("answer") != "yes":
        return {"messages": [AIMessage(CANCELLED[lang])], **cleared}
    key = f"{config.get('configurable', {}).get('thread_id')}:{state.get('order_id')}"
    ticket = f"T-{int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) % 900000 + 100000}"
    return {"messages": [AIMessage(DONE[lang].format(ticket_id=ticket))], **cleared}


def connect(path: Path) -> sqlite3.Connection:
    """The checkpointer's connection: WAL (SqliteSaver sets it) and synchronous=NORMAL like dialogkit's store."""
    conn = sqlite3.connect(path, check_same_thread=False)
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def build(path: Path) -> Any:
    """The compiled graph, checkpointed by ``SqliteSaver`` in the file at ``path``."""
    graph = StateGraph(State)
    graph.add_node("read_order_id", read_order_id)
    graph.add_node("read_keywords", read_keywords)
    graph.add_node("read_yes_no", read_yes_no)
    graph.add_node("ask", ask)
    graph.add_node("settle", settle)
    graph.add_edge(START, "read_order_id")
    graph.add_edge("read_order_id", "read_keywords")
    graph.add_edge("read_keywords", "read_yes_no")
    graph.add_conditional_edges("read_yes_no", route)
    graph.add_edge("ask", END)
    graph.add_edge("settle", END)
    return graph.compile(checkpointer=SqliteSaver(connect(path)))


class PeerBot:
    """One LangGraph ``invoke`` per turn; ``durability`` is LangGraph's own (None = stock, "sync")."""

    def __init__(self, path: Path, durability: str | None = None) -> None:
        self.graph = build(path)
        self._durability = durability

    def handle(self, session_id: str, text: str) -> str:
        config = {"configurable": {"thread_id": session_id}}
        out = self.graph.invoke({"messages": [HumanMessage(text)]}, config, durability=self._durability)
        return str(out["messages"][-1].content)

    def fill(self, session_id: str, messages: list[tuple[str, str]]) -> None:
        """Give a thread ``messages`` of history in one state update (quicker than replaying turns)."""
        made: list[AnyMessage] = [HumanMessage(t) if role == "user" else AIMessage(t) for role, t in messages]
        self.graph.update_state({"configurable": {"thread_id": session_id}}, {"messages": made}, as_node="ask")

    def stored_messages(self, session_id: str) -> int:
        state = self.graph.get_state({"configurable": {"thread_id": session_id}})
        return len(state.values.get("messages", []))

    def close(self) -> None:
        self.graph.checkpointer.conn.close()
