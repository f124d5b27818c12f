"""Several workers on one port, each listening on a socket of its own (``SO_REUSEPORT``): the kernel
spreads connections over them, whichever worker is awake when they arrive (docs/serving.md)."""

from __future__ import annotations

import pickle
import socket
from collections.abc import Iterator

import pytest

from dialogkit.service.listeners import WorkerSocket, reuse_port_works

pytestmark = pytest.mark.skipif(not reuse_port_works(), reason="SO_REUSEPORT spreads connections on Linux only")

CONNECTIONS = 64


@pytest.fixture
def parent() -> Iterator[WorkerSocket]:
    sock = WorkerSocket.bound(socket.AF_INET, ("127.0.0.1", 0))
    yield sock
    sock.close()


def in_worker(parent: WorkerSocket) -> socket.socket:
    """What a worker process gets: the parent's socket, pickled and unpickled as ``multiprocessing`` does."""
    return pickle.loads(pickle.dumps(parent))


def test_a_worker_gets_a_socket_of_its_own_on_the_same_address(parent: WorkerSocket) -> None:
    own = in_worker(parent)
    try:
        assert own.fileno() != parent.fileno()
        assert own.getsockname() == parent.getsockname()
        assert own.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) == 1
    finally:
        own.close()


def test_connections_spread_over_the_workers_sockets(parent: WorkerSocket) -> None:
    workers = [in_worker(parent) for _ in range(2)]
    clients: list[socket.socket] = []
    try:
        for sock in workers:
            sock.listen(CONNECTIONS)
            sock.setblocking(False)
        clients = [socket.create_connection(parent.getsockname(), timeout=5) for _ in range(CONNECTIONS)]
        accepted = [_accept_all(sock) for sock in workers]
    finally:
        for sock in workers + clients:
            sock.close()
    assert sum(accepted) == CONNECTIONS
    assert min(accepted) >= CONNECTIONS // 8          # both get a share (all 64 on one: odds of 2 in 2**64)


def test_the_parents_socket_takes_no_connection(parent: WorkerSocket) -> None:
    with pytest.raises(OSError):
        socket.create_connection(parent.getsockname(), timeout=5).close()     # nothing listens: refused


def _accept_all(sock: socket.socket) -> int:
    accepted = 0
    while True:
        try:
            connection, _ = sock.accept()
        except BlockingIOError:
            return accepted
        connection.close()
        accepted += 1
