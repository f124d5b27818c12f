"""What the SQLite store's commit writes: a turn's ``PendingWrite`` as rows, in the fewest statements.

Runs inside the commit's ``BEGIN IMMEDIATE``, under the session's turn lock (``dialogkit.store.sqlite``).
"""

from __future__ import annotations

import sqlite3
import time
from functools import lru_cache

from dialogkit.store.staging import PendingWrite

__all__ = ["write_pending"]

_UPDATE_SESSION = "UPDATE sessions SET updated_at = ?, history_count = ?, rev = ?, data = ? WHERE id = ?"
_UPDATE_SESSION_USER = ("UPDATE sessions SET user_id = ?, updated_at = ?, history_count = ?, rev = ?, data = ? "
                        "WHERE id = ?")
_INSERT_SESSION = "INSERT INTO sessions (user_id, updated_at, history_count, rev, data, id) VALUES (?, ?, ?, ?, ?, ?)"


def write_pending(conn: sqlite3.Cursor, pending: PendingWrite, rev: int | None) -> None:
    """Every row of one turn's commit, inside the caller's ``BEGIN IMMEDIATE``, through the store's
    turn cursor ``conn``; ``rev`` is the session row's new revision (None when the session was not
    saved)."""
    sid = pending.session_id
    if pending.blob is not None:
        # A session loaded from a row is UPDATEd (measured a little cheaper per turn than one
        # INSERT ... ON CONFLICT DO UPDATE, which first tries and fails the insert); one that
        # no row held when the turn loaded it under its lock (its first turn) is INSERTed,
        # without first missing an UPDATE. INSERT only after a missed UPDATE too: inside BEGIN
        # IMMEDIATE nobody can add the row in between.
        row = (pending.user_id, pending.updated_at, pending.history_count, rev, pending.blob, sid)
        if pending.previous_user is None:
            _insert_session(conn, row)
        elif pending.user_changed:
            if not conn.execute(_UPDATE_SESSION_USER, row).rowcount:
                conn.execute(_INSERT_SESSION, row)
        elif not conn.execute(_UPDATE_SESSION, row[1:]).rowcount:
            conn.execute(_INSERT_SESSION, row)
        # No "DELETE ... WHERE idx >= first_index" first: first_index is the stored count read
        # under the turn lock, and rows are only ever written together with that count in one
        # transaction (deleted with it too), so no row at or past it exists. The one way to get
        # one is editing the file by hand (deleting a sessions row but not its messages):
        # OR REPLACE overwrites such leftovers instead of failing, at no extra statement.
        _insert_messages(conn, sid, pending.first_index, pending.appended)
    if pending.rewritten:
        conn.executemany("UPDATE messages SET data = ? WHERE session_id = ? AND idx = ?",
                         [(data, sid, index) for index, data in pending.rewritten.items()])
    if pending.slots:
        _write_slots(conn, pending.slots)


def _write_slots(conn: sqlite3.Cursor, slots: dict[tuple[str, str], str | None]) -> None:
    """The turn's persisted values; apart, so a turn that stages none (most) pays nothing for them."""
    now = time.time()
    for (user_id, name), raw in slots.items():
        if raw is None:
            conn.execute("DELETE FROM user_slots WHERE user_id = ? AND name = ?", (user_id, name))
        else:
            conn.execute(
                "INSERT INTO user_slots (user_id, name, data, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (user_id, name) DO UPDATE SET data = excluded.data, "
                "updated_at = excluded.updated_at", (user_id, name, raw, now))


def _insert_session(conn: sqlite3.Cursor, row: tuple[object, ...]) -> None:
    """A new session's row. No row was there when the turn loaded it under its lock, and every
    writer of this version takes that lock; a row that appeared anyway (a hand edit, a writer
    without the lock) is updated instead, as a turn that had loaded it would have."""
    try:
        conn.execute(_INSERT_SESSION, row)
    except sqlite3.IntegrityError:
        conn.execute(_UPDATE_SESSION_USER, row)


_MESSAGES_AT_ONCE = 8       # rows of one multi-row INSERT; a longer list (a history imported) uses executemany
_INSERT_MESSAGES = "INSERT OR REPLACE INTO messages (session_id, idx, data) VALUES "


@lru_cache(maxsize=_MESSAGES_AT_ONCE)
def _insert_messages_sql(rows: int) -> str:
    return _INSERT_MESSAGES + ", ".join(["(?, ?, ?)"] * rows)


def _insert_messages(conn: sqlite3.Cursor, session_id: str, first: int, rows: list[str]) -> None:
    """A turn's new history rows (two, usually: the user's and the bot's) in one statement rather
    than one execution each."""
    if not rows:
        return
    if len(rows) > _MESSAGES_AT_ONCE:
        conn.executemany(_insert_messages_sql(1), [(session_id, first + i, data) for i, data in enumerate(rows)])
        return
    params: list[object] = []
    for i, data in enumerate(rows):
        params += (session_id, first + i, data)
    conn.execute(_insert_messages_sql(len(rows)), params)
