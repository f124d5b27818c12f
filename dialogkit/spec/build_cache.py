"""A built bot kept beside its bot file, so a catalogue of 50,000 values loads from one pickle.

Loading such a bot spends most of its time on per-value Python work: reading the values file,
checking every alias, building the understanding's automatons. After a load that found no
problem, those parts are pickled to ``.dialogkit/cache/<bot file name>-<key>.pickle`` in the bot
file's folder; the next load with the same files reads them back instead (docs/bot-file.md,
"Loading a large catalogue fast").

The key hashes the bot file's bytes, dialogkit's version and code, pydantic's and Python's
versions; the entry's header holds the digest of every values file, checked again on each read.
An entry that is missing, stale, truncated or corrupt is a miss, never an error: the bot loads the
slow way and the entry is written again, to a temporary file renamed over the old one, so two
processes starting at once each load a whole bot and leave a whole entry. A bot file with
problems is never cached: it is loaded the slow way, which positions them. ``DIALOGKIT_CACHE=0``
(or ``Bot.from_file(..., cache=False)``) turns caching off.

Objects that cannot be pickled as they are ("live" ones: the bot's clock, a closure) are written
as a name and given back by the loading process (``Live``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import io
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import FunctionType
from typing import Any

import pydantic

from dialogkit.logging import get_logger

ENV = "DIALOGKIT_CACHE"
OFF = frozenset({"0", "off", "false", "no"})
FOLDER = Path(".dialogkit") / "cache"
FORMAT = 1
MIN_BYTES = 256 * 1024
"""Bot files (with their values files) smaller than this are not cached: they build in a few
milliseconds, which is what writing and reading a pickle costs. ``DIALOGKIT_CACHE_MIN_BYTES``
overrides it (0 caches every bot)."""

log = get_logger("dialogkit.spec.build_cache")
_current: ContextVar[BuildCache | None] = ContextVar("dialogkit_build_cache", default=None)


def enabled(requested: bool = True) -> bool:
    """Caching is on unless the caller or the environment (``DIALOGKIT_CACHE=0``) turned it off."""
    return requested and os.environ.get(ENV, "").strip().lower() not in OFF


@dataclass
class Live:
    """What a pickle refers to by name: ``objects`` (the clock) and closures rebuilt by the
    ``factories`` that made them (``qualname of the closure -> factory``), from their cells."""

    objects: dict[str, Any] = field(default_factory=dict)
    factories: dict[str, Callable[..., Any]] = field(default_factory=dict)


@dataclass
class BuildCache:
    """One bot file's cache entry during one load: the parts read back (``found``, empty on a
    miss) and the parts to write once the whole load has succeeded (``built``)."""

    bot_file: Path
    text: bytes
    entry: Path
    live: Live
    found: dict[str, Any] = field(default_factory=dict)
    built: dict[str, Any] = field(default_factory=dict)
    values_files: dict[str, str] = field(default_factory=dict)   # path relative to the bot file -> sha256

    def serves(self, path: str | Path) -> bool:
        return Path(path) == self.bot_file

    def save(self) -> None:
        """Write ``built`` (after a miss): to a temporary file beside the entry, then renamed."""
        if self.found or not self.built or self._input_bytes() < _min_bytes():
            return
        try:
            self.entry.parent.mkdir(parents=True, exist_ok=True)
            body = io.BytesIO()
            header = {"format": FORMAT, "values_files": self.values_files}
            pickle.dump(header, body, protocol=pickle.HIGHEST_PROTOCOL)
            _Pickler(body, self.live).dump(self.built)
            with tempfile.NamedTemporaryFile(dir=self.entry.parent, prefix=self.entry.name, suffix=".tmp",
                                             delete=False) as out:
                out.write(body.getbuffer())
            os.replace(out.name, self.entry)
        except Exception as error:      # an unwritable folder or an unpicklable part: no cache, same bot
            log.info("build_cache_not_written", path=str(self.entry), error=repr(error))
            return
        self._forget_older()

    def _input_bytes(self) -> int:
        folder = self.bot_file.parent
        try:
            return len(self.text) + sum((folder / name).stat().st_size for name in self.values_files)
        except OSError:
            return 0

    def _forget_older(self) -> None:
        """Entries this bot file left under other keys: they can never be read again."""
        for old in self.entry.parent.glob(f"{self.bot_file.name}-*.pickle"):
            if old != self.entry:
                old.unlink(missing_ok=True)

    def read(self) -> None:
        """Fill ``found`` from the entry when it is there, whole, and made from these files."""
        try:
            with self.entry.open("rb") as source:
                header = pickle.load(source)
                if header.get("format") != FORMAT or not self._same_values(header.get("values_files")):
                    return
                found = _Unpickler(source, self.live).load()
        except FileNotFoundError:
            return
        except Exception as error:      # truncated, corrupt, or written by other code: rebuilt
            log.info("build_cache_ignored", path=str(self.entry), error=repr(error))
            return
        if isinstance(found, dict):
            self.found = found

    def _same_values(self, recorded: Any) -> bool:
        if not isinstance(recorded, dict):
            return False
        folder = self.bot_file.parent
        try:
            return all(hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest
                       for name, digest in recorded.items())
        except OSError:
            return False


def _min_bytes() -> int:
    try:
        return int(os.environ.get("DIALOGKIT_CACHE_MIN_BYTES", MIN_BYTES))
    except ValueError:
        return MIN_BYTES


@contextmanager
def caching(bot_file: str | Path, live: Live, *, requested: bool = True) -> Iterator[BuildCache | None]:
    """The cache entry of ``bot_file`` (None when caching is off or the file unreadable), seen by
    ``current()`` inside the block."""
    build = _open(Path(bot_file), live) if enabled(requested) else None
    token = _current.set(build)
    try:
        yield build
    finally:
        _current.reset(token)


def current(path: str | Path) -> BuildCache | None:
    """The entry of the bot file at ``path`` being loaded now, if caching is on for it."""
    build = _current.get()
    return build if build is not None and build.serves(path) else None


def _open(bot_file: Path, live: Live) -> BuildCache | None:
    try:
        text = bot_file.read_bytes()
        folder = bot_file.resolve().parent / FOLDER
    except OSError:
        return None           # loading reports the unreadable file
    key = hashlib.sha256(text + b"\0" + _environment()).hexdigest()[:32]
    build = BuildCache(bot_file, text, folder / f"{bot_file.name}-{key}.pickle", live)
    build.read()
    return build


@cache
def _environment() -> bytes:
    """What an entry was built with besides the files: versions, and dialogkit's own code (an
    edited checkout keeps its version number)."""
    package = Path(__file__).resolve().parent.parent
    code = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        code.update(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    try:
        version = importlib.metadata.version("dialogkit")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    return f"{version}|{code.hexdigest()}|{pydantic.VERSION}|{sys.version}".encode()


_PLAIN = frozenset({str, int, float, bool, bytes, tuple, list, dict, set, frozenset, type(None)})


class _Pickler(pickle.Pickler):
    def __init__(self, out: io.BytesIO, live: Live) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self._names = {id(obj): name for name, obj in live.objects.items()}
        self._factories = live.factories

    def persistent_id(self, obj: Any) -> Any:
        """Called for every object written (millions for a catalogue): plain data leaves first."""
        if type(obj) in _PLAIN:
            return None
        name = self._names.get(id(obj))
        if name is not None:
            return ("object", name)
        qualname = getattr(obj, "__qualname__", None)
        if type(obj) is FunctionType and qualname in self._factories:
            cells = dict(zip(obj.__code__.co_freevars, (c.cell_contents for c in obj.__closure__ or ()), strict=True))
            if set(cells) != set(inspect.signature(self._factories[qualname]).parameters):
                raise pickle.PicklingError(f"{qualname} no longer closes over its factory's parameters")
            return ("closure", qualname, cells)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, source: Any, live: Live) -> None:
        super().__init__(source)
        self._live = live

    def persistent_load(self, pid: Any) -> Any:
        if pid[0] == "object":
            return self._live.objects[pid[1]]
        return self._live.factories[pid[1]](**pid[2])
