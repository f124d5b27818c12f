"""Serving under load, measured two ways: closed-loop (the maximum throughput) and open-loop (latency
at a given rate, as a deployment sees it), on Redis with 2 workers; closed-loop on SQLite too.

Starts a redis-server of its own on a free loopback port (`--save '' --appendonly no`), then the
server (`dialogkit serve flows/support_ticket.yaml --workers 2 --store redis://...`), and drives it
from this process over loopback, with a plain keep-alive HTTP/1.1 client (bench/loopback.py) on
the same 2 cores.

Closed loop: USERS users of TURNS turns each, all at once, each sending its next turn as soon as
the last is answered: the server runs flat out, so turns/s is the maximum throughput (and the
latency is USERS / throughput, Little's law). Open loop (bench/open_loop.py): turns arrive at each
RATE, Poisson-spaced, from SESSIONS sessions that think THINK seconds between a reply and their
next turn; latency counts from the arrival, queueing included. Above the server's capacity the
workers shed turns with 503 `overloaded` (`--max-turns-in-flight`, docs/serving.md).

Each user files tickets in Chinese or English with an order number of its own; afterwards every
session is read back: a turn answered 200 that the session does not hold is lost, an order number
of another session in it is a leak.

Reported: turns/s, latency p50/p95/p99, answers by status, no answer, lost and leaked, CPU per turn
of the workers, of Redis and of this client, the workers' wake-ups a turn (how batched their turns
were: a turn alone costs more) and the ceiling those allow, and the cores every other process used
meanwhile;
bench/serve.png plots latency against offered load. A run during which other processes used more
than half a core is printed, not recorded: on a shared machine its figures measure the neighbours.
Targets (issue 29): p99 <= 50 ms at 500 turns/s; >= 1,500 turns/s closed-loop; no 5xx and no lost
turn below the maximum; 503 with Retry-After above it.

    python bench/serve.py [--mode both|closed|open] [--rates 250,500,1000,1500,2500] [--seconds 10]
                          [--sessions 1000] [--think 0.2] [--users 64] [--turns 20]
                          [--only redis|sqlite] [--no-record]
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
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from common import percentile, record
from loopback import Connection
from open_loop import Outcome, open_loop
from serve_scripts import order_of, script

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "flows" / "support_ticket.yaml"
PLOT = Path(__file__).with_name("serve.png")
RUN_LIMIT_S = 300.0            # the whole drive of one run
REQUEST_TIMEOUT_S = 30.0
TICKS = os.sysconf("SC_CLK_TCK")
SHOWN_TURNS = 25               # user turns a session's JSON shows (its last 50 messages)
QUIET_CORES = 0.5              # other processes may use this much of the machine for a run to be recorded
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_async(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """On uvloop when installed (the serve extra has it): the client's own CPU a turn is lower."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main())
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())


# ---- processes --------------------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS        # utime + stime


def wakeups(pid: int) -> int:
    """Times the threads of ``pid`` have gone to sleep and been woken (voluntary context switches):
    a worker sleeps whenever it has nothing to run, so the fewer a turn, the more turns it ran at each
    wake-up (docs/serving.md, "What a turn costs below the maximum")."""
    total = 0
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return 0
    for task in tasks:
        try:
            status = (task / "status").read_text()
        except OSError:
            continue
        total += sum(int(line.split()[1]) for line in status.splitlines() if line.startswith("voluntary_ctxt_switches"))
    return total


def machine_busy() -> float:
    """CPU seconds every process of the machine has spent so far (all cores, from /proc/stat)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / TICKS


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


def start_server(store: str, workers: int, cwd: Path) -> tuple[subprocess.Popen[bytes], str, int]:
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
            if httpx.get(url + "/readyz", timeout=1).status_code == 200 and workers_up(process.pid, port, workers):
                return process, url, port
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not become ready")


def workers_up(pid: int, port: int, workers: int) -> bool:
    """Whether every worker process has started and listens (uvicorn's supervisor also runs a resource
    tracker). One worker answers ``/readyz`` before the other listens; connections opened then would
    all go to the first, and keep-alive ones stay there for the whole run."""
    if workers == 1:
        return True
    return sum(is_worker(child) for child in children(pid)) >= workers and listening(port) >= workers


def listening(port: int) -> int:
    """Sockets listening on ``port`` (each worker has one of its own: docs/serving.md)."""
    found = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            found += fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port     # 0A: LISTEN
    return found


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# ---- the closed loop --------------------------------------------------------------------------------

@dataclass
class Drive:
    latencies: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    failures: int = 0            # no answer at all (timeout, connection)
    seconds: float = 0.0


async def user_turns(port: int, prefix: str, user: int, turns: int, drive: Drive) -> None:
    """One user: its own keep-alive connection (as a browser has), one turn in flight at a time."""
    connection = Connection("127.0.0.1", port)
    target = f"/v1/sessions/{prefix}{user}/turns"
    for text in script(user, turns):
        body = json.dumps({"text": text}, ensure_ascii=False).encode()
        started = time.perf_counter()
        try:
            answer = await connection.post(target, body, REQUEST_TIMEOUT_S)
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            connection.close()
            drive.failures += 1
            continue
        drive.latencies.append(time.perf_counter() - started)
        drive.statuses[answer.status] += 1
        if answer.status == 200:
            drive.server_ms.append(json.loads(answer.body)["latency_ms"])
    connection.close()


async def drive_users(port: int, prefix: str, users: int, turns: int) -> Drive:
    """Every user at once, bounded by ``RUN_LIMIT_S`` for the whole run."""
    drive = Drive()
    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(user_turns(port, prefix, n, turns, drive) for n in range(users))),
                           RUN_LIMIT_S)
    drive.seconds = time.perf_counter() - started
    return drive


# ---- what the sessions hold -------------------------------------------------------------------------

def check_sessions(url: str, prefix: str, answered: dict[int, int], *, closing: bool) -> tuple[int, int]:
    """(turns lost, sessions leaked): each session's stored turns against those answered 200; an
    order number of another session in its history, or (``closing``: the closed loop's script) its
    pending order number not its own."""
    lost = leaked = 0
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as client:
        for n, expected in answered.items():
            body = client.get(f"/v1/sessions/{prefix}{n}").json()
            said = [m["content"] for m in body.get("history", []) if m["role"] == "user"]
            shown = len(said) if expected <= SHOWN_TURNS else expected
            lost += expected - min(expected, body.get("turn", 0), shown)
            own = order_of(n)
            foreign = any(order_of(k) in text for text in said for k in answered if k != n)
            pending = body.get("slots", {}).get("order_id")
            if foreign or (pending != own if closing else pending not in (None, own)):
                leaked += 1
    return lost, leaked


# ---- runs -------------------------------------------------------------------------------------------

@dataclass
class Cpu:
    """CPU seconds of the server's processes, Redis and this client over one measured stretch; and
    the cores every other process of the machine used meanwhile (``others``: what makes a run noise)."""

    pids: dict[str, list[int]]
    before: dict[str, float] = field(default_factory=dict)
    spent: dict[str, float] = field(default_factory=dict)
    workers: list[int] = field(default_factory=list)           # the server's worker processes
    worker_before: list[float] = field(default_factory=list)
    worker_spent: list[float] = field(default_factory=list)
    wakeups_before: int = 0

    def start(self) -> None:
        self.before = {k: sum(cpu_seconds(p) for p in v) for k, v in self.pids.items()}
        self.before.update(client=time.process_time(), machine=machine_busy(), wall=time.monotonic())
        self.worker_before = [cpu_seconds(p) for p in self.workers]
        self.wakeups_before = sum(wakeups(p) for p in self.workers)

    def stop(self) -> dict[str, float]:
        self.worker_spent = [cpu_seconds(p) - b for p, b in zip(self.workers, self.worker_before, strict=True)]
        woken = sum(wakeups(p) for p in self.workers) - self.wakeups_before
        self.spent = {k: sum(cpu_seconds(p) for p in v) - self.before[k] for k, v in self.pids.items()}
        self.spent["client"] = time.process_time() - self.before["client"]
        own = sum(self.spent.values())
        wall = time.monotonic() - self.before["wall"]
        self.spent["others"] = max(0.0, machine_busy() - self.before["machine"] - own) / wall if wall else 0.0
        self.spent["wakeups"] = float(woken)       # a count, not seconds: kept apart from ``own`` above
        return self.spent


@dataclass
class Run:
    name: str
    drive: Drive
    lost: int
    leaked: int
    cpu: dict[str, float]
    split: list[float] = field(default_factory=list)          # each worker's share of the workers' CPU

    def split_text(self) -> str:
        return "/".join(f"{share:.0%}" for share in self.split) if len(self.split) > 1 else "—"


@dataclass
class OpenRun:
    outcome: Outcome
    lost: int
    leaked: int
    cpu: dict[str, float]


def measured(server: subprocess.Popen[bytes], redis_pid: int | None,
             drive: Callable[[], Coroutine[Any, Any, T]]) -> tuple[T, Cpu]:
    processes = children(server.pid)
    cpu = Cpu({"server": [server.pid, *processes], "redis": [redis_pid] if redis_pid else []},
              workers=[p for p in processes if is_worker(p)])
    cpu.start()
    result = run_async(drive)
    cpu.stop()
    return result, cpu


def is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def closed_run(name: str, store: str, workers: int, users: int, turns: int, cwd: Path,
               redis_pid: int | None = None) -> Run:
    server, url, port = start_server(store, workers, cwd)
    try:
        run_async(lambda: drive_users(port, "warm", min(users, 16), 2))       # workers and connections warm
        drive, cpu = measured(server, redis_pid, lambda: drive_users(port, "u", users, turns))
        lost, leaked = check_sessions(url, "u", {n: turns for n in range(users)}, closing=True)
    finally:
        stop(server)
    total = sum(cpu.worker_spent)
    return Run(name, drive, lost, leaked, cpu.spent, [spent / total for spent in cpu.worker_spent] if total else [])


def open_runs(store: str, rates: list[float], args: argparse.Namespace, cwd: Path, redis_pid: int) -> list[OpenRun]:
    server, url, port = start_server(store, 2, cwd)
    runs = []
    try:
        run_async(lambda: drive_users(port, "warm", 16, 2))
        for index, rate in enumerate(rates):
            prefix = f"r{index}-"
            offer = partial(open_loop, "127.0.0.1", port, prefix, rate, args.seconds, sessions=args.sessions,
                            think_s=args.think, timeout_s=REQUEST_TIMEOUT_S)
            outcome, cpu = measured(server, redis_pid, offer)
            lost, leaked = check_sessions(url, prefix, outcome.answered, closing=False)
            runs.append(OpenRun(outcome, lost, leaked, cpu.spent))
            print(open_row(runs[-1]), flush=True)
    finally:
        stop(server)
    return runs


# ---- report -----------------------------------------------------------------------------------------

def ms(samples: list[float], pct: float) -> str:
    return f"{percentile(samples, pct) * 1000:.1f}"


def statuses(counts: Counter[int]) -> str:
    return ", ".join(f"{status}: {n:,}" for status, n in sorted(counts.items()) if status != 200) or "none"


def open_row(run: OpenRun) -> str:
    o = run.outcome
    n = max(1, len(o.latencies))
    return (f"| {o.rate:,.0f} | {o.achieved:,.0f} | {ms(o.latencies, 50)} | {ms(o.latencies, 95)} | "
            f"{ms(o.latencies, 99)} | {percentile(o.server_ms, 50):.1f} / {percentile(o.server_ms, 99):.1f} | "
            f"{statuses(o.statuses)} | {o.no_answer} | {run.lost} | {run.leaked} | "
            f"{o.waited} | {run.cpu['server'] / n * 1000:.2f} / {run.cpu['client'] / n * 1000:.2f} | "
            f"{run.cpu['wakeups'] / n:.1f} | {ceiling(run.cpu, n):,.0f} | {run.cpu['others']:.2f} |")


def ceiling(cpu: dict[str, float], turns: int) -> float:
    """The turns a second this run's CPU per turn (the server's, Redis's and the client's) allows with
    every core of the machine free."""
    total = cpu["server"] + cpu["redis"] + cpu["client"]
    return (os.cpu_count() or 1) * turns / total if total else 0.0


def closed_lines(runs: list[Run], users: int, turns: int) -> list[str]:
    cores = os.cpu_count() or 1
    lines = [f"**Closed loop**: {users} users x {turns} turns, all at once, each sending its next turn as soon as "
             "the last is answered (one keep-alive connection each): the maximum throughput.", "",
             "| run | turns/s | p50 ms | p99 ms | errors by status | no answer | lost | leaked |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        d = r.drive
        rate = len(d.latencies) / d.seconds if d.seconds else 0.0
        lines.append(f"| {r.name} | **{rate:,.0f}** | {ms(d.latencies, 50)} | {ms(d.latencies, 99)} | "
                     f"{statuses(d.statuses)} | {d.failures} | {r.lost} | {r.leaked} |")
    lines += ["", "where the time goes, per turn: CPU ms of each process, how the workers' CPU was split between "
              "them, how often the workers' threads slept and woke, the server's own turn latency, the share of the "
              "machine the run got, and the ceiling its CPU per turn allows with every core free:", "",
              "| run | workers CPU | workers' split | workers' wake-ups | redis CPU | client CPU | server turn p50 / p99 ms "
              "| machine share | ceiling turns/s | other processes, cores |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        n = max(1, len(r.drive.latencies))
        total = r.cpu["server"] + r.cpu["redis"] + r.cpu["client"]
        share = total / (r.drive.seconds * cores) if r.drive.seconds else 0.0
        lines.append(f"| {r.name} | {r.cpu['server'] / n * 1000:.2f} | {r.split_text()} | {r.cpu['wakeups'] / n:.1f} | "
                     f"{r.cpu['redis'] / n * 1000:.2f} | {r.cpu['client'] / n * 1000:.2f} | "
                     f"{percentile(r.drive.server_ms, 50):.1f} / {percentile(r.drive.server_ms, 99):.1f} | {share:.0%} | "
                     f"{ceiling(r.cpu, n):,.0f} | {r.cpu['others']:.2f} |")
    return lines


OPEN_HEADER = ["| offered turns/s | achieved | p50 ms | p95 ms | p99 ms | server turn p50 / p99 ms | errors by status | "
               "no answer | lost | leaked | waited for a session | CPU ms/turn workers / client | workers' wake-ups "
               "a turn | ceiling turns/s | other processes, cores |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def open_lines(runs: list[OpenRun], args: argparse.Namespace) -> list[str]:
    return [f"**Open loop**, Redis, 2 workers: turns arrive at each rate for {args.seconds:g} s, Poisson-spaced, "
            f"from {args.sessions:,} sessions, each thinking {args.think:g} s between a reply and its next turn; "
            "latency from the arrival to the answer (queueing and the client's own lag included), of turns "
            "answered 200. `--max-turns-in-flight` at its default (64 a worker, then a queue of what it finishes "
            "in 0.5 s). bench/serve.png plots it.", "",
            *OPEN_HEADER, *(open_row(r) for r in runs), "",
            "A worker's CPU per turn depends on how many turns it finds at each wake-up (\"wake-ups\": its threads' "
            "voluntary context switches): the closed loop keeps dozens of turns in flight on each worker, arrivals "
            "spread out in time find it idle and are run one by one, at a higher cost each; the ceiling is what that "
            "cost allows. docs/serving.md, \"What a turn costs below the maximum\", has the profile."]


def target_lines(closed: list[Run], opened: list[OpenRun]) -> list[str]:
    """Each target of issue 29, met or not, from this run's figures."""
    redis = [r for r in closed if r.name.startswith("Redis")]
    maximum = len(redis[0].drive.latencies) / redis[0].drive.seconds if redis and redis[0].drive.seconds else None
    lines = []
    if maximum is not None:
        lines.append(f"- maximum throughput >= 1,500 turns/s (closed loop, Redis): {maximum:,.0f}, "
                     f"**{'met' if maximum >= 1500 else 'missed'}**")
    at_500 = [r for r in opened if r.outcome.rate == 500]
    if at_500:
        p99 = percentile(at_500[0].outcome.latencies, 99) * 1000
        lines.append(f"- p99 <= 50 ms at 500 turns/s (open loop): {p99:.1f} ms, **{'met' if p99 <= 50 else 'missed'}**")
    below = [r for r in opened if maximum is None or r.outcome.rate < maximum]
    if below:
        bad = sum(n for r in below for status, n in r.outcome.statuses.items() if status >= 500)
        lost = sum(r.lost + r.outcome.no_answer for r in below)
        lines.append(f"- no 5xx and no lost turn below the maximum ({len(below)} rates): {bad} 5xx, {lost} lost or "
                     f"unanswered, **{'met' if bad == lost == 0 else 'missed'}**")
        lines += [f"  - {r.outcome.rate:,.0f} turns/s offered: {n:,} 5xx; that rate's own ceiling (its CPU a turn) "
                  f"{ceiling(r.cpu, max(1, len(r.outcome.latencies))):,.0f} turns/s" for r in below
                  if (n := sum(k for status, k in r.outcome.statuses.items() if status >= 500))]
    above = [r for r in opened if maximum is not None and r.outcome.rate >= maximum]
    if above:
        refused = sum(r.outcome.statuses.get(503, 0) for r in above)
        other = sum(n for r in above for status, n in r.outcome.statuses.items() if status > 503 or 500 <= status < 503)
        lines.append(f"- above the maximum: {refused:,} turns refused with 503 `overloaded` and Retry-After, "
                     f"{other} other 5xx, {sum(r.outcome.no_answer for r in above)} unanswered, "
                     f"{sum(r.lost for r in above)} lost")
    return ["Targets (issue 29):", "", *lines] if lines else []


def plot(runs: list[OpenRun], closed: float | None, path: Path) -> None:
    """Latency percentiles against offered load, log scale, with the 50 ms target and the closed-loop
    maximum; the share of turns refused (503) on a second axis."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = [r.outcome.rate for r in runs]
    figure, axis = plt.subplots(figsize=(7, 4.2), dpi=110)
    for pct, style in ((50, "o-"), (95, "s-"), (99, "^-")):
        axis.plot(rates, [max(percentile(r.outcome.latencies, pct) * 1000, 0.1) for r in runs], style, label=f"p{pct}")
    axis.axhline(50, color="grey", linestyle="--", linewidth=1, label="50 ms target")
    if closed:
        axis.axvline(closed, color="tab:red", linestyle=":", linewidth=1, label=f"closed-loop max {closed:,.0f}/s")
    axis.set_yscale("log")
    axis.set_xlabel("offered load, turns/s (open loop, Poisson arrivals)")
    axis.set_ylabel("latency, ms")
    axis.set_title("dialogkit serve: 2 workers on Redis, support bot, 2 cores shared with the client")
    refused = axis.twinx()
    refused.bar(rates, [100 * r.outcome.statuses.get(503, 0) / max(1, r.outcome.offered) for r in runs],
                width=max(rates) / 40, color="tab:grey", alpha=0.3, label="refused 503, %")
    refused.set_ylabel("turns refused with 503, %")
    refused.set_ylim(0, 100)
    handles, labels = axis.get_legend_handles_labels()
    more, more_labels = refused.get_legend_handles_labels()
    axis.legend(handles + more, labels + more_labels, loc="upper left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv: list[str] | None = None) -> tuple[list[Run], list[OpenRun]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["both", "closed", "open"], default="both")
    parser.add_argument("--rates", default="250,500,1000,1500,2500", help="offered turns/s, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each rate is offered")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--think", type=float, default=0.2, help="seconds between a reply and the next turn")
    parser.add_argument("--users", type=int, default=64)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--only", choices=["redis", "sqlite"], default=None)
    parser.add_argument("--no-record", action="store_true", help="print only: no bench/RESULTS.md, no plot")
    args = parser.parse_args(argv)
    rates = [float(r) for r in args.rates.split(",") if r.strip()]
    closed: list[Run] = []
    opened: list[OpenRun] = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="dialogkit-bench-serve-") as tmp:
        folder = Path(tmp)
        if args.only != "sqlite":
            if shutil.which("redis-server") is None:
                print("redis-server is not installed: the Redis runs are skipped (apt-get install redis-server)")
            else:
                redis, port = start_redis(folder)
                store = f"redis://127.0.0.1:{port}/0"
                try:
                    if args.mode != "open":
                        closed.append(closed_run("Redis, 2 workers", store, 2, args.users, args.turns, folder,
                                                 redis.pid))
                    if args.mode != "closed":
                        opened = open_runs(store, rates, args, folder, redis.pid)
                finally:
                    stop(redis)
        if args.only != "redis" and args.mode != "open":
            closed.append(closed_run("SQLite, 1 worker", f"sqlite:///{folder / 'sessions.db'}", 1, args.users,
                                     args.turns, folder))
    lines = [f"support bot, rule understanding, `--log-level warning`; {os.cpu_count()} cores shared by server, Redis "
             f"and this client; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after", ""]
    if closed:
        lines += [*closed_lines(closed, args.users, args.turns), ""]
    if opened:
        lines += [*open_lines(opened, args), ""]
    lines += target_lines(closed, opened)
    print("\n".join(lines))
    others = max([r.cpu["others"] for r in closed] + [r.cpu["others"] for r in opened], default=0.0)
    if others > QUIET_CORES and not args.no_record:
        print(f"not recorded: other processes used up to {others:.2f} cores during a run (at most {QUIET_CORES} for a "
              "figure to mean anything); run it again on a quiet machine")
    elif not args.no_record:
        record("Serving (bench/serve.py)", lines)
        if opened:
            redis_closed = next((len(r.drive.latencies) / r.drive.seconds for r in closed if r.name.startswith("Redis")),
                                None)
            plot(opened, redis_closed, PLOT)
    return closed, opened


if __name__ == "__main__":
    main()
