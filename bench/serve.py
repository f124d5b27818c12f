"""Scale-out proof: `dialogkit serve` under 64 concurrent users, on Redis (2 workers) then SQLite (1).

Starts a redis-server of its own on a free loopback port, then the server (`dialogkit serve
flows/support_ticket.yaml --workers 2 --store redis://...`), and drives USERS simulated users of
TURNS turns each, all at once, each with its own async httpx client over loopback (bounded: one
request in flight per user, a timeout per request and one for the whole run). Then the same
against one worker on a SQLite file. Each user files tickets in Chinese or English with an order
number of its own, so at the end every session must hold exactly its TURNS turns (none lost) and
only its own order number (no leak between sessions).

Reported per run: turns/s, client-side p50/p99 latency, 5xx answers, lost turns, leaked
sessions; and where the time goes: CPU seconds per turn of the server workers, of Redis and of
this client, and the turn latency the server itself measured. Targets for the Redis run:
0 lost, 0 leaked, 0 5xx, >= 1,000 turns/s, p99 <= 50 ms.

    python bench/serve.py [--users 64] [--turns 20] [--only redis|sqlite]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from common import percentile, report

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "flows" / "support_ticket.yaml"
RUN_LIMIT_S = 300.0            # the whole drive of one run
REQUEST_TIMEOUT_S = 30.0
TICKS = os.sysconf("SC_CLK_TCK")
SCRIPTS = {
    "zh": ["我上周买的手机屏幕碎了", "{order}", "确认", "我的笔记本电脑坏了", "订单号是{order}", "算了"],
    "en": ["my phone arrived broken", "{order}", "yes", "my laptop is damaged", "the order is {order}", "never mind"],
}
CLOSING = {"zh": ["我的耳机坏了", "{order}"], "en": ["my headphones are broken", "{order}"]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def script(user: int, turns: int) -> list[str]:
    """The user's turns: tickets opened and cancelled, ending with a confirmation pending on the
    user's own order number (what the leak check reads back)."""
    language = "zh" if user % 2 else "en"
    order = str(5_000_000 + user)
    body = [SCRIPTS[language][i % len(SCRIPTS[language])] for i in range(max(0, turns - 2))]
    return [text.format(order=order) for text in [*body, *CLOSING[language]]][-turns:]


# ---- processes --------------------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS        # utime + stime


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                found.append(int(entry.name))
    return found


def start_redis(directory: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", str(directory)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, port
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("redis-server did not start")


def start_server(store: str, workers: int, cwd: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-m", "dialogkit.cli", "serve", str(BOT), "--store", store, "--port", str(port),
               "--workers", str(workers), "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            if httpx.get(url + "/readyz", timeout=1).status_code == 200 and len(children(process.pid)) >= workers - 1:
                return process, url
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not become ready")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# ---- the drive --------------------------------------------------------------------------------------

@dataclass
class Drive:
    latencies: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    errors_5xx: int = 0
    failures: int = 0            # no answer at all (timeout, connection)
    seconds: float = 0.0


async def user_turns(url: str, prefix: str, user: int, turns: int, drive: Drive) -> None:
    """One user: its own connection (as a browser has), one turn in flight at a time.

    Requests go straight to httpx's transport, with fixed headers: the client's own machinery
    (URL merging, cookies, auth, redirects) costs CPU on the cores the server needs. Plain HTTP
    on loopback needs no TLS context: building one per user (loading the CA bundle) cost about
    30 ms each, 1.5 ms a turn of this run, and was most of what the client's CPU used to be."""
    transport = httpx.AsyncHTTPTransport(verify=False,
                                         limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))
    target = f"{url}/v1/sessions/{prefix}{user}/turns"
    headers = {"content-type": "application/json"}
    timeout = {"connect": REQUEST_TIMEOUT_S, "read": REQUEST_TIMEOUT_S, "write": REQUEST_TIMEOUT_S,
               "pool": REQUEST_TIMEOUT_S}
    async with transport:
        for text in script(user, turns):
            body = json.dumps({"text": text, "user_id": f"{prefix}user{user}"}, ensure_ascii=False).encode()
            request = httpx.Request("POST", target, headers=headers, content=body, extensions={"timeout": timeout})
            started = time.perf_counter()
            try:
                response = await transport.handle_async_request(request)
                data = await response.aread()
            except httpx.HTTPError:
                drive.failures += 1
                continue
            drive.latencies.append(time.perf_counter() - started)
            if response.status_code >= 500:
                drive.errors_5xx += 1
            elif response.status_code == 200:
                drive.server_ms.append(json.loads(data)["latency_ms"])


async def drive_users(url: str, prefix: str, users: int, turns: int) -> Drive:
    """Every user at once, bounded by ``RUN_LIMIT_S`` for the whole run.

    One client per user rather than one pool of ``users`` connections: httpx's pool looks at
    every connection for every request, which with 64 of them made the client itself the
    bottleneck (about 4 ms of CPU a request instead of about 1)."""
    drive = Drive()
    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(user_turns(url, prefix, n, turns, drive) for n in range(users))),
                           RUN_LIMIT_S)
    drive.seconds = time.perf_counter() - started
    return drive


def check_sessions(url: str, prefix: str, users: int, turns: int) -> tuple[int, int]:
    """(turns lost, sessions leaked): stored user messages against those sent; each session's
    order number and history against the user's own."""
    lost = leaked = 0
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as client:
        for n in range(users):
            body = client.get(f"/v1/sessions/{prefix}{n}").json()
            said = [m["content"] for m in body.get("history", []) if m["role"] == "user"]
            lost += turns - min(turns, body.get("turn", 0), len(said))
            own = str(5_000_000 + n)
            foreign = any(str(5_000_000 + k) in text for text in said for k in range(users) if k != n)
            if body.get("slots", {}).get("order_id") != own or foreign:
                leaked += 1
    return lost, leaked


@dataclass
class Run:
    name: str
    workers: int
    drive: Drive
    lost: int
    leaked: int
    cpu: dict[str, float]        # component -> CPU seconds over the drive


def run(name: str, store: str, workers: int, users: int, turns: int, cwd: Path,
        redis_pid: int | None = None) -> Run:
    server, url = start_server(store, workers, cwd)
    try:
        asyncio.run(drive_users(url, "warm", min(users, 16), 2))            # workers and connections warm
        pids = {"server": [server.pid, *children(server.pid)], "redis": [redis_pid] if redis_pid else []}
        before = {k: sum(cpu_seconds(p) for p in v) for k, v in pids.items()}
        client_before = time.process_time()
        drive = asyncio.run(drive_users(url, "u", users, turns))
        cpu = {k: sum(cpu_seconds(p) for p in v) - before[k] for k, v in pids.items()}
        cpu["client"] = time.process_time() - client_before
        lost, leaked = check_sessions(url, "u", users, turns)
    finally:
        stop(server)
    return Run(name, workers, drive, lost, leaked, cpu)


def lines_for(runs: list[Run], users: int, turns: int) -> list[str]:
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0]
    lines = [f"{users} users x {turns} turns, all at once, an httpx async transport per user (one keep-alive connection each) on loopback; support bot, "
             f"rule understanding, `--log-level warning`; {cores} cores, load average {load:.1f} at the end", "",
             "| run | turns/s | p50 ms | p99 ms | 5xx | no answer | lost | leaked |", "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        d = r.drive
        rate = len(d.latencies) / d.seconds if d.seconds else 0.0
        lines.append(f"| {r.name} | **{rate:,.0f}** | {percentile(d.latencies, 50) * 1000:.1f} | "
                     f"{percentile(d.latencies, 99) * 1000:.1f} | {d.errors_5xx} | {d.failures} | {r.lost} | {r.leaked} |")
    lines += ["", "where the time goes, per turn: CPU ms of each process, the server's own turn latency, the share "
              "of the machine the run got, and the ceiling its CPU per turn allows with every core free:", "",
              "| run | workers CPU | redis CPU | client CPU | server turn p50 / p99 ms | machine share | ceiling turns/s |",
              "|---|---|---|---|---|---|---|"]
    for r in runs:
        n = max(1, len(r.drive.latencies))
        total = sum(r.cpu.values())
        share = total / (r.drive.seconds * cores) if r.drive.seconds else 0.0
        ceiling = cores / (total / n) if total else 0.0
        lines.append(f"| {r.name} | {r.cpu['server'] / n * 1000:.2f} | {r.cpu['redis'] / n * 1000:.2f} | "
                     f"{r.cpu['client'] / n * 1000:.2f} | {percentile(r.drive.server_ms, 50):.1f} / "
                     f"{percentile(r.drive.server_ms, 99):.1f} | {share:.0%} | {ceiling:,.0f} |")
    lines += ["", f"Each of the {users} users sends its next turn as soon as the last is answered, so the mean latency "
              f"is {users} / (turns/s) (Little's law): {users / 1000 * 1000:.0f} ms at 1,000 turns/s. A p99 of 50 ms "
              f"at that rate needs fewer users in flight at once (or think time between turns), not only a faster "
              f"server."]
    return lines


def main(argv: list[str] | None = None) -> list[Run]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=64)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--only", choices=["redis", "sqlite"], default=None)
    args = parser.parse_args(argv)
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="dialogkit-bench-serve-") as tmp:
        folder = Path(tmp)
        if args.only != "sqlite":
            if shutil.which("redis-server") is None:
                print("redis-server is not installed: the Redis run is skipped (apt-get install redis-server)")
            else:
                redis, port = start_redis(folder)
                try:
                    runs.append(run("Redis, 2 workers", f"redis://127.0.0.1:{port}/0", 2, args.users, args.turns,
                                    folder, redis.pid))
                finally:
                    stop(redis)
        if args.only != "redis":
            runs.append(run("SQLite, 1 worker", f"sqlite:///{folder / 'sessions.db'}", 1, args.users, args.turns,
                            folder))
    report("Serving (bench/serve.py)", lines_for(runs, args.users, args.turns))
    return runs


if __name__ == "__main__":
    main()
