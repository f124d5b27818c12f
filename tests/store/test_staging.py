"""What every store shares for a turn: staged writes, and the protocols the runtime relies on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dialogkit.model.session import PersistedValue
from dialogkit.store.memory import MemoryStore
from dialogkit.store.protocol import SessionStore, StoreTxn
from dialogkit.store.sqlite import SqliteStore
from dialogkit.store.staging import StagedTxn
from tests.store.factories import add_messages, make_session


class TestStagedTxn:
    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_save_stages_only_messages_past_the_stored_count(self, language: str) -> None:
        """With 5 stored and a tail of 2 loaded (offset 3), two new messages are the only ones staged."""
        session = make_session("s1", language=language, messages=5)
        session.history = session.history[3:]
        session.history_offset = 3
        add_messages(session, 2, language)
        txn = StagedTxn("s1", session, stored_count=5, read_user_slots=lambda _user: {})
        txn.save(session)
        assert txn.pending.first_index == 5 and txn.pending.history_count == 7
        assert [json.loads(m)["content"].rsplit("#", 1)[1] for m in txn.pending.appended] == ["5", "6"]
        assert b'"history":' not in (txn.pending.blob or b"")

    def test_a_staged_delete_hides_a_stored_slot(self) -> None:
        """Reads inside the turn apply its staged deletes over what is stored."""
        stored = {"order_id": PersistedValue(value="12345")}
        txn = StagedTxn("s1", None, 0, read_user_slots=lambda _user: dict(stored))
        txn.delete_user_slot("alice", "order_id")
        assert txn.user_slots("alice") == {}
        assert txn.pending.slots == {("alice", "order_id"): None}

    def test_every_store_satisfies_the_protocols(self, tmp_path: Path) -> None:
        """The stores and their transactions are what the runtime's type hints promise."""
        memory = MemoryStore()
        assert isinstance(memory, SessionStore)
        with memory.transaction("s1") as txn:
            assert isinstance(txn, StoreTxn)
        sqlite = SqliteStore(tmp_path / "s.db")
        try:
            assert isinstance(sqlite, SessionStore)
        finally:
            sqlite.close()
