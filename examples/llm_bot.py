"""Embedding the support bot with an OpenAI-compatible server for understanding and rephrasing.

    OPENAI_API_KEY=... python examples/llm_bot.py [--base-url URL] [--model NAME]
    python examples/llm_bot.py --scripted      # offline: a scripted local server stands in

The LLM proposes (flow to start, slot values, yes/no); the rules validate every value, and any
LLM failure falls back to the rules, so the conversation goes on either way. ``bot.stats`` shows
what the LLM cost and how much the context window saved.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dialogkit import Bot  # noqa: E402
from dialogkit.spec.schema import LLMSpec  # noqa: E402
from dialogkit.testing.llm_server import ScriptedLLMServer  # noqa: E402

CONVERSATION = ["我那台手机摔坏了，订单号是一二三四五六", "就这么办吧", "where is my order 67890"]


def scripted_answer(body: dict[str, object]) -> object:
    """Stand-in for a real model: understands the demo's three messages, rephrases by echoing."""
    messages = body.get("messages") or []
    last = str(messages[-1]["content"]) if messages else ""  # type: ignore[index]
    if "response_format" not in body:  # a rephrase or summary request: answer with the text itself
        return last
    if "一二三四五六" in last:
        return {"commands": [{"command": "start_flow", "flow": "report_issue"},
                             {"command": "set_slot", "slot": "order_id", "value": "123456"},
                             {"command": "set_slot", "slot": "product", "value": "phone"},
                             {"command": "set_slot", "slot": "issue_type", "value": "damaged"}]}
    if "就这么办" in last:
        return {"commands": [{"command": "confirm"}]}
    return {"commands": [{"command": "start_flow", "flow": "check_status"},
                         {"command": "set_slot", "slot": "order_id", "value": "67890"}]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"))
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--scripted", action="store_true", help="run against a local scripted server")
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        base_url, key = args.base_url, os.environ.get("OPENAI_API_KEY")
        if args.scripted:
            server = stack.enter_context(ScriptedLLMServer(scripted_answer))
            base_url, key = server.base_url, "sk-scripted"
        spec = LLMSpec(model=args.model, base_url=base_url, api_key=key,
                       use_for=["understanding", "summaries", "rephrase"], timeout_s=20)
        bot = stack.enter_context(Bot.from_file(ROOT / "flows" / "support_ticket.yaml", store="memory://", llm=spec))
        if bot.llm is None:
            print("no API key: set OPENAI_API_KEY or pass --scripted (the bot would be rule-based)")
            return 1
        for text in CONVERSATION:
            reply = bot.handle("demo", text, user_id="alice")
            print(f"you> {text}\nbot> {reply.text}\n     [{reply.state}] slots={reply.slots}")
        stats = bot.stats("demo")
        print(json.dumps({k: stats[k] for k in ("full_tokens", "sent_tokens", "saved_pct", "llm")}, ensure_ascii=False))
        bot.llm.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
