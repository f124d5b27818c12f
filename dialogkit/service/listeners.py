"""Several workers on one port: each listens on a socket of its own, so connections spread evenly.

uvicorn's workers share one listening socket, and whichever worker wakes first accepts every
connection waiting: a burst of connections (clients starting together, a load balancer opening its
keep-alive pool) can all land on one worker while the other idles, and a keep-alive connection
stays where it landed. bench/serve.py's 64 users were split anywhere from 36/28 to 64/0 between two
workers, and the maximum throughput with them. With ``SO_REUSEPORT`` every worker binds a socket of
its own to the same address, and the kernel hashes each new connection to one of the sockets
listening, whatever the workers are doing at that moment: an even split, give or take chance.

The parent binds the address once (so a port already taken is reported once, before any worker
starts) and never listens on that socket, so no connection waits on it. What it hands each worker
process is not that socket but the address: unpickled in the worker, a ``WorkerSocket`` is a new
socket bound there, which uvicorn's server then listens on. A worker that is replaced gets a new one
the same way.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

__all__ = ["WorkerSocket", "reuse_port_works"]


def reuse_port_works() -> bool:
    """Whether the kernel spreads connections over sockets sharing a port (Linux: since 3.9). Other
    systems either lack ``SO_REUSEPORT`` or let only the last socket bound have the connections."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


class WorkerSocket(socket.socket):
    """A socket bound to ``address`` with ``SO_REUSEPORT``; pickled (to a worker process) it is the
    address, and unpickled a new socket of the same kind bound to it."""

    @classmethod
    def bound(cls, family: int, address: Any) -> WorkerSocket:
        sock = cls(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(address)
        except OSError:
            sock.close()
            raise
        return sock

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return WorkerSocket.bound, (int(self.family), self.getsockname())
