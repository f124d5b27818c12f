"""The support bot with an OpenAI-compatible server for understanding: a zh and an en conversation.

    python examples/llm_bot.py --scripted                       # offline: a scripted local server
    OPENAI_API_KEY=sk-... python examples/llm_bot.py --model gpt-4o-mini
    python examples/llm_bot.py --base-url http://127.0.0.1:8000/v1 --model local   # llama.cpp
    python examples/llm_bot.py --base-url http://localhost:11434/v1 --model qwen2.5:7b   # Ollama
    python examples/llm_bot.py --base-url http://localhost:8000/v1 --model Qwen/Qwen2.5-7B-Instruct  # vLLM

The LLM proposes (flow to start, slot values, yes/no); the rules validate every value, and any
LLM failure falls back to the rules, so the conversation goes on either way. The way of asking
for JSON is negotiated with the server (``structured_output: auto``); the mode it settled on is
printed with what the LLM cost. A local server needs no key: any string will do. The test suite
runs the same conversations against llama.cpp's server (tests/llm/test_real_server.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dialogkit import Bot  # noqa: E402
from dialogkit.testing.llm_server import ScriptedLLMServer  # noqa: E402

CONVERSATIONS = {
    "zh": ["我那台手机摔坏了，订单号是一二三四五六", "好的，就这么办吧，麻烦你们了", "订单 67890 到哪了"],
    "en": ["my laptop never arrived", "the order number is 654321", "yes please", "where is my order 67890"],
}
"""The support conversations the example and the real-server test hold, one per language."""

ACTIONS = {"create_ticket": {"ticket_id": "T-1001"}, "order_status": {"status": "shipped"}}


def scripted_answer(body: dict[str, Any]) -> Any:
    """Stand-in for a real model: understands the demo's messages, rephrases by echoing."""
    messages = body.get("messages") or []
    last = str(messages[-1]["content"]) if messages else ""
    if "response_format" not in body:  # a rephrase or summary request: answer with the text itself
        return last
    if "一二三四五六" in last:
        return {"commands": [{"command": "start_flow", "flow": "report_issue"},
                             {"command": "set_slot", "slot": "order_id", "value": "123456"},
                             {"command": "set_slot", "slot": "product", "value": "phone"},
                             {"command": "set_slot", "slot": "issue_type", "value": "damaged"}]}
    if any(word in last for word in ("就这么办", "yes")):
        return {"commands": [{"command": "confirm"}]}
    order = next((word for word in last.replace("？", " ").split() if word.isdigit()), None)
    if order is None:
        return {"commands": [{"command": "start_flow", "flow": "report_issue"}]}
    return {"commands": [{"command": "set_slot", "slot": "order_id", "value": order}]}


def run(bot: Bot, languages: list[str]) -> dict[str, Any]:
    """Hold each language's conversation in its own session, printing every turn; what it cost."""
    started = time.monotonic()
    report: dict[str, Any] = {}
    for lang in languages:
        for text in CONVERSATIONS[lang]:
            reply = bot.handle(f"demo-{lang}", text, user_id=f"alice-{lang}")
            print(f"you> {text}\nbot> {reply.text}\n     [{reply.state}] slots={reply.slots}")
        stats = bot.stats(f"demo-{lang}")
        report[lang] = {k: stats[k] for k in ("full_tokens", "sent_tokens", "saved_pct", "llm")}
    report["mode"] = bot.llm.mode if bot.llm is not None else None
    report["seconds"] = round(time.monotonic() - started, 1)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"), help="the server's /v1 URL")
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY"), help="default: OPENAI_API_KEY")
    parser.add_argument("--structured-output", default="auto",
                        choices=["auto", "json_schema", "json_object", "tools", "text"])
    parser.add_argument("--max-tokens", type=int, default=None, help="cap each answer (small local models)")
    parser.add_argument("--lang", choices=["zh", "en", "both"], default="both")
    parser.add_argument("--scripted", action="store_true", help="run against a local scripted server")
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        base_url, key = args.base_url, args.api_key or ("local" if args.base_url else None)
        if args.scripted:
            server = stack.enter_context(ScriptedLLMServer(scripted_answer))
            base_url, key = server.base_url, "sk-scripted"
        llm = {"model": args.model, "base_url": base_url, "api_key": key, "use_for": ["understanding"],
               "timeout_s": 60, "structured_output": args.structured_output, "max_tokens": args.max_tokens}
        bot = stack.enter_context(Bot.from_file(ROOT / "flows" / "support_ticket.yaml", store="memory://",
                                                actions=ACTIONS, llm=llm))
        if bot.llm is None:
            print("no API key: set OPENAI_API_KEY, pass --base-url for a local server, or --scripted")
            return 1
        languages = ["zh", "en"] if args.lang == "both" else [args.lang]
        print(json.dumps(run(bot, languages), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
