"""Notice that a bot file changed, cheaply: ``dialogkit chat --reload`` asks between turns and
``dialogkit serve --reload`` once a second.

One ``stat`` a look: only when the modification time or the size moved are the bytes read and
hashed, and only different bytes count, so touching the file or saving it unchanged does nothing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["FileWatch"]


class FileWatch:
    """Notices that a file's bytes changed since the last look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stamp = self._stamp()
        self.digest = self._digest()

    def _stamp(self) -> tuple[int, int] | None:
        try:
            info = self.path.stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def _digest(self) -> str | None:
        try:
            return hashlib.sha256(self.path.read_bytes()).hexdigest()
        except OSError:
            return None

    def changed(self) -> bool:
        stamp = self._stamp()
        if stamp == self.stamp:
            return False
        self.stamp = stamp
        digest = self._digest()
        if digest == self.digest:
            return False
        self.digest = digest
        return True
