"""Session stores: ``memory://``, ``sqlite:///path`` (the default) and ``redis://host:port/db``.

Open one with ``open_store(url)``; run a turn with ``with store.transaction(session_id) as txn``.
``RedisStore`` is not imported here so that the optional ``redis`` package is needed only when a
``redis://`` URL is used.
"""

from dialogkit.store.memory import MemoryStore
from dialogkit.store.protocol import SessionStore, StoreTxn
from dialogkit.store.schemes import open_store
from dialogkit.store.sqlite import SqliteStore
from dialogkit.store.urls import DEFAULT_STORE_URL

__all__ = [
    "DEFAULT_STORE_URL",
    "MemoryStore",
    "SessionStore",
    "SqliteStore",
    "StoreTxn",
    "open_store",
]
