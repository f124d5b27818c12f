"""Sessions, history messages and user slots to and from the bytes and text every store writes.

One codec for all stores, so a session saved by one reads back the same from any other, and
every failure is a ``StoreError`` that names the session or user: an unserialisable value fails
inside the turn that set it, and a corrupt row or a blob of another schema version tells an
operator what to delete, never a raw pydantic traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from dialogkit.errors import StoreError
from dialogkit.model.session import READABLE_VERSIONS, SCHEMA_VERSION, Message, PersistedValue, Session
from dialogkit.store.secrets import PREFIX, box, open_row, seal_bytes, seal_text

__all__ = [
    "decode_messages",
    "decode_session",
    "decode_slot",
    "decode_slots",
    "encode_message",
    "encode_session",
    "encode_slot",
    "older_prefix",
    "written_before",
]

_MESSAGES = TypeAdapter(list[Message])
_SESSION = TypeAdapter(Session)
_MESSAGE_JSON = Message.__pydantic_serializer__
_SESSION_JSON = Session.__pydantic_validator__
_NOT_IN_BLOB: set[str] = {"history"}      # read-only; a set because that is what pydantic's stubs take


def encode_session(session: Session) -> bytes:
    """The session blob: everything but ``history``, which is stored message by message.

    UTF-8 bytes, as the serializer produces them: ``model_dump_json`` would decode them into a
    ``str`` that the store then encodes back to UTF-8 to write it (about 12 µs a turn for a 7 KB
    session with Chinese text). Every store and ``decode_session`` take the bytes as they are.
    """
    try:
        return seal_bytes(_SESSION.dump_json(session, exclude=_NOT_IN_BLOB))     # sealed with a key set
    except PydanticSerializationError as exc:
        raise StoreError(f"session {session.id!r} holds a value that cannot be saved: {exc}") from exc


def encode_message(session_id: str, message: Message) -> str:
    """A history row: the JSON ``message.model_dump_json()`` writes, made by the model's serializer
    directly (the method's Python wrapper passes fifteen defaults on, for two rows a turn)."""
    try:
        return seal_text(_MESSAGE_JSON.to_json(message).decode())
    except PydanticSerializationError as exc:
        raise StoreError(f"session {session_id!r}: a history message cannot be saved: {exc}") from exc


def encode_slot(user_id: str, name: str, value: PersistedValue) -> str:
    try:
        return seal_text(value.model_dump_json())
    except PydanticSerializationError as exc:
        raise StoreError(f"user {user_id!r}: slot {name!r} holds a value that cannot be saved: {exc}") from exc


def decode_session(session_id: str, blob: str | bytes, messages: list[str], offset: int) -> Session:
    """Rebuild a session from its blob and a tail of message rows starting at ``offset``."""
    try:
        session: Session = _SESSION_JSON.validate_json(open_row(blob))     # Session.model_validate_json, unwrapped
    except ValidationError as exc:
        raise StoreError(f"session {session_id!r} is corrupt in the store and cannot be loaded: "
                         f"{_first_error(exc)}") from exc
    if session.version not in READABLE_VERSIONS:
        raise StoreError(f"session {session_id!r} was saved with schema version {session.version}; "
                         f"this dialogkit reads version {SCHEMA_VERSION}")
    session.history = decode_messages(session_id, messages)
    session.history_offset = offset
    return session


def decode_messages(session_id: str, rows: list[str]) -> list[Message]:
    """Parse message rows in one pydantic call: one call for 200 rows is far cheaper than 200."""
    if not rows:
        return []
    try:
        if box() is not None or rows[-1].startswith(PREFIX):      # sealed rows: a key is set (or missing)
            rows = [_text(open_row(r)) for r in rows]
        return _MESSAGES.validate_json("[" + ",".join(rows) + "]")
    except ValidationError as exc:
        raise StoreError(f"session {session_id!r} has a corrupt history message: "
                         f"{_first_error(exc)}") from exc


def decode_slot(user_id: str, name: str, raw: str | bytes) -> PersistedValue:
    try:
        return PersistedValue.model_validate_json(open_row(raw))
    except ValidationError as exc:
        raise StoreError(f"user {user_id!r}: stored slot {name!r} is corrupt: {_first_error(exc)}") from exc


def decode_slots(user_id: str, rows: Iterable[tuple[str, str | bytes]]) -> dict[str, PersistedValue]:
    """A user's stored slots from (name, row) pairs."""
    return {name: decode_slot(user_id, name, raw) for name, raw in rows}


def written_before(row: str | bytes, older_than: float) -> bool:
    """Whether a stored message or persisted value was written (its ``at``) before ``older_than``,
    read without building the model. A corrupt row is not: the load that meets it reports it."""
    try:
        at = json.loads(open_row(row)).get("at")
    except (ValueError, AttributeError, StoreError):
        return False
    return isinstance(at, (int, float)) and at < older_than


def older_prefix(rows: list[str], older_than: float) -> int:
    """How many leading message rows retention deletes: through the last one written before
    ``older_than``. A history loses only a prefix, so the messages kept stay contiguous and keep
    their indexes; one older message after a newer one (a clock set back) takes the newer with it."""
    cut = 0
    for index, row in enumerate(rows):
        if written_before(row, older_than):
            cut = index + 1
    return cut


def _text(row: str | bytes) -> str:
    return row.decode("utf-8") if isinstance(row, bytes) else row


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "invalid data"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "document"
    return f"{where}: {first.get('msg', 'invalid')}"
