"""The session blob: a session stored by an earlier version reads back as it was written."""

from __future__ import annotations

import pytest

from dialogkit.memory.summary import render_summary
from dialogkit.model.session import SummaryItem
from dialogkit.store.codec import decode_session, encode_session
from tests.store.factories import make_session


class TestSummaryLanguages:
    def test_a_spanish_summary_keeps_its_spanish_texts_and_a_zh_en_one_stores_as_before(self) -> None:
        session = make_session("s1", messages=0)
        session.summary.confirmed.append(SummaryItem(key="t:done", zh="订单号 1", en="order number 1", turn=1))
        blob = encode_session(session)
        assert b'"en":"order number 1","turn":1}' in blob and b'"others":null' in blob
        session.summary.others = {"es": {"order number 1": "número de pedido 1"}}
        loaded = decode_session("s1", encode_session(session), [], 0)
        assert loaded.summary.others == {"es": {"order number 1": "número de pedido 1"}}
        assert render_summary(loaded.summary, "es") == "Confirmado: número de pedido 1."


class TestEarlierVersions:
    @pytest.mark.parametrize(("language", "expected"), [
        ("zh", "用户陈述：查询订单状态（订单号 12345）"),
        ("en", "User stated: Check an order's status (order number 12345)."),
        ("es", "El usuario indicó: Check an order's status (order number 12345)."),
    ])
    def test_summary_items_kept_only_in_zh_and_en_still_read(self, language: str, expected: str) -> None:
        """Items saved before they kept the bot's own language (es) hold zh and en only; a
        Spanish session reads them in en."""
        session = make_session("s1", messages=0)
        session.language = language
        session.summary.facts += [SummaryItem(key="check_status#t1", zh="查询订单状态", en="Check an order's status", turn=1),
                                  SummaryItem(key="check_status#t1.order_id", zh="订单号 12345",
                                              en="order number 12345", turn=1)]
        blob = encode_session(session).replace(b',"others":null', b"")     # as an earlier version wrote it
        loaded = decode_session("s1", blob, [], 0)
        assert loaded.summary.facts == session.summary.facts and loaded.summary.others is None
        assert render_summary(loaded.summary, language) == expected
