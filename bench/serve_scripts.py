"""What bench/serve.py's simulated users say: support tickets in Chinese or English, each on an order
number of its own, so the sessions read back afterwards show any turn lost or mixed up."""

from __future__ import annotations

SCRIPTS = {
    "zh": ["我上周买的手机屏幕碎了", "{order}", "确认", "我的笔记本电脑坏了", "订单号是{order}", "算了"],
    "en": ["my phone arrived broken", "{order}", "yes", "my laptop is damaged", "the order is {order}", "never mind"],
}
CLOSING = {"zh": ["我的耳机坏了", "{order}"], "en": ["my headphones are broken", "{order}"]}
FIRST_ORDER = 5_000_000


def language_of(user: int) -> str:
    return "zh" if user % 2 else "en"


def order_of(user: int) -> str:
    return str(FIRST_ORDER + user)


def utterance(user: int, k: int) -> str:
    """The user's ``k``-th turn of an endless conversation: tickets opened, filed and cancelled."""
    lines = SCRIPTS[language_of(user)]
    return lines[k % len(lines)].format(order=order_of(user))


def script(user: int, turns: int) -> list[str]:
    """The user's ``turns`` turns, ending with a confirmation pending on the user's own order number
    (what the closed-loop leak check reads back)."""
    body = [utterance(user, k) for k in range(max(0, turns - 2))]
    closing = [text.format(order=order_of(user)) for text in CLOSING[language_of(user)]]
    return [*body, *closing][-turns:]
