"""What a request's key lets it do: the scopes each route needs, and whether a turn may name a user
(docs/serving.md, "Keys and scopes").

The guard finds the request's key and refuses a route outside its scopes before the body is read;
it leaves the key in the request's scope, where a turn route asks ``check_user_naming`` whether
the ``user_id`` in its body may be honoured. A user is named only by a key with the ``users``
scope: anything else (a widget's key, the Rasa channel's ``sender``, an open server) could be
chosen freely by whoever sends the request.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.types import Scope

from dialogkit.service.errors import ApiError
from dialogkit.service.keys import KEYS_ENV, SCOPES, ApiKey

__all__ = ["check_user_naming", "key_of", "remember_key", "scopes_for"]

_KEY = "dialogkit.api_key"          # where the guard leaves the request's key (None: an open server)
_ANY = frozenset(SCOPES)
_CHAT = frozenset({"chat"})
_TURN = frozenset({"chat", "inspector"})
_READ = frozenset({"admin", "inspector"})
_ADMIN = frozenset({"admin"})


def scopes_for(method: str, path: str) -> frozenset[str]:
    """The scopes of which a key needs one for ``method path``; any key for the rest (the bot's
    description, and routes that do not exist, which answer 404)."""
    if path.startswith("/webhooks/"):
        return _CHAT
    if path.startswith("/v1/sessions/"):
        if method == "POST" and path.endswith("/turns"):
            return _TURN
        return _ADMIN if method == "DELETE" else _READ
    if path.startswith("/v1/users/") or path == "/metrics":
        return _ADMIN
    return _ANY


def remember_key(scope: Scope, key: ApiKey | None) -> None:
    scope[_KEY] = key


def key_of(request: HTTPConnection) -> ApiKey | None:
    """The key the request came with; None on a server with no keys."""
    key = request.scope.get(_KEY)
    return key if isinstance(key, ApiKey) else None


def check_user_naming(request: HTTPConnection) -> None:
    """Raise 403 ``user_id_not_allowed`` unless the request's key may name users."""
    key = key_of(request)
    if key is None:
        raise ApiError(403, "user_id_not_allowed",
                       "this server has no API keys, so a turn cannot name a user: anyone could name any user",
                       hint=f"start the server with --keys FILE (or {KEYS_ENV}) holding a key with the 'users' "
                            "scope, and send that key; or send the turn without user_id (an anonymous session)")
    if not key.may("users"):
        raise ApiError(403, "user_id_not_allowed",
                       f"the key {key.name!r} may not name a user: that needs the 'users' scope",
                       hint="send the turn without user_id (an anonymous session), or with a key that has the "
                            "'users' scope (a backend that knows who the user is)")
