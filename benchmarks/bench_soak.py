"""A bounded soak: honest players' throw latency beside misbehaving clients, against a baseline.

    .venv/bin/python benchmarks/bench_soak.py [--seconds 15] [--tables 8] [--rounds 3] [--json]

Every phase starts its own ``bobing serve`` process on a fresh SQLite file, sets up ``--tables``
tables of 4 honest players (one WebSocket each, throwing every ``--pace`` seconds), and measures
the latency of their throws (send → ack) for ``--seconds``:

- ``quiet``: the honest players alone (the baseline, measured in this run);
- ``attack``: the same, while another process floods the server — exact odds of ever new
  rule objects, game lengths it abandons at once, table creation, joins, and silent sockets
  that never send a byte — with the server's default limits;
- ``attack, limits off`` (with ``--unlimited``): the same attack against a server started with
  every per-address limit and the analysis queue lifted, to show what the limits buy.

With ``--rounds N`` the phases alternate N times and the medians are reported (a shared machine
has busy moments; alternating spreads them over every phase). Prints p50/p99 per phase, the
ratio of the attack's p99 to the quiet p99 (the goal: within 2x), and what the misbehaving
clients got back (how many 429 and 503 answers). The attacker process runs at a lower priority
(``--attacker-nice``, default 10) to stand for a client on another machine, whose CPU is not
the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.typing import Subprotocol

from bobing.tables.protocol import offered_subprotocols

BOBING = Path(sys.executable).with_name("bobing")
ATTACKER = "127.0.0.99"
"""The misbehaving client's address (every 127.x address is this machine)."""
UNLIMITED = (
    "create_per_minute=0",
    "join_per_minute=0",
    "analysis_per_minute=0",
    "simulations_per_minute=0",
    "open_tables_per_address=0",
    "analysis_queue=100000",
    "tarpit_seconds=0",
)


@contextlib.contextmanager
def server(folder: Path, limits: tuple[str, ...]) -> Any:
    """``bobing serve`` on a free port; yields its URL."""
    log_path = folder / "server.log"
    command = [str(BOBING), "serve", "--host", "127.0.0.1", "--port", "0"]
    command += ["--db", f"sqlite+aiosqlite:///{folder / 'soak.sqlite3'}"]
    for option in limits:
        command += ["--limit", option]
    with log_path.open("w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(r"serving on (http://\S+)", log_path.read_text())
            if found:
                break
            if proc.poll() is not None:
                raise RuntimeError(log_path.read_text())
            time.sleep(0.05)
        else:
            raise RuntimeError("bobing serve did not start")
        yield found.group(1)
    finally:
        proc.terminate()
        proc.wait(30)


# -- honest players -----------------------------------------------------------------------------


async def honest(
    url: str, tables: int, seconds: float, pace: float, ready: Any = None
) -> list[float]:
    """Latencies (ms) of the honest players' throws during ``seconds`` (``ready()`` is called
    once the tables are set up, before the clock starts)."""
    sockets = []
    for index in range(tables):
        # Each honest table is a household of its own (its own loopback address), as on a
        # real network; the misbehaving client has another.
        address = f"127.0.0.{10 + index}"
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(base_url=url, timeout=60, transport=transport) as http:
            created = (
                await http.post("/api/tables", json={"name": f"soak {index}", "mode": "online"})
            ).json()
            code = created["code"]
            tokens = [created["host_token"]]
            for name in ("甲", "乙", "丙", "丁"):
                joined = await http.post(f"/api/tables/{code}/join", json={"name": name})
                tokens.append(joined.json()["player_token"])
            ws = await websockets.connect(
                f"{url.replace('http', 'ws')}/ws/tables/{code}",
                subprotocols=[Subprotocol(p) for p in offered_subprotocols(tokens)],
                max_size=None,
                local_addr=(address, 0),
            )
            sockets.append(ws)
    if ready is not None:
        await asyncio.to_thread(ready)
    if True:
        latencies: list[float] = []
        stop = time.monotonic() + seconds

        async def table(ws: Any, index: int) -> None:
            pending: dict[str, float] = {}
            reader = asyncio.create_task(read(ws, pending))
            await ws.send(json.dumps({"type": "start", "id": f"s{index}"}))
            await asyncio.sleep(0.2)
            count = 0
            while time.monotonic() < stop and not reader.done():
                count += 1
                command_id = f"t{index}-{count}"
                pending[command_id] = time.perf_counter()
                await ws.send(json.dumps({"type": "throw", "id": command_id}))
                await asyncio.sleep(pace)
            reader.cancel()

        async def read(ws: Any, pending: dict[str, float]) -> None:
            async for text in ws:
                frame = json.loads(text)
                if frame["type"] in ("ack", "error") and frame.get("id") in pending:
                    sent = pending.pop(frame["id"])
                    if frame["type"] == "ack":
                        latencies.append((time.perf_counter() - sent) * 1000)

        await asyncio.gather(*(table(ws, i) for i, ws in enumerate(sockets)))
        for ws in sockets:
            await ws.close()
        return latencies


# -- misbehaving clients (another process) ------------------------------------------------------


def attacker(url: str, seconds: float, counts: Any, nice: int) -> None:
    """Flood ``url`` for ``seconds``; counts answers by kind into the shared dict.

    On one machine the attacker's own CPU would be taken from the server, which a remote
    attacker's is not: ``--attacker-nice`` (default 10) lowers its priority to model that.
    """
    if nice:
        os.nice(nice)
    asyncio.run(_attack(url, seconds, counts))


async def _attack(url: str, seconds: float, counts: Any) -> None:
    stop = time.monotonic() + seconds
    tally: dict[str, int] = {}

    def note(kind: str, status: int) -> None:
        key = f"{kind} {status}"
        tally[key] = tally.get(key, 0) + 1

    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(base_url=url, timeout=2, transport=transport) as http:

        async def odds(worker: int) -> None:
            n = 0
            while time.monotonic() < stop:
                n += 1
                rules = {"preset": "modern", "prizes": {"yixiu": 1 + (worker * 100_000 + n) % 90}}
                rules["prizes"]["erju"] = 1 + n % 50
                with contextlib.suppress(httpx.HTTPError):
                    note("odds", (await http.post("/api/odds", json=rules)).status_code)

        async def lengths(worker: int) -> None:
            n = 0
            while time.monotonic() < stop:
                n += 1
                # Ever new rules: every request is a simulation nobody has cached.
                rules = {"preset": "jinhua", "prizes": {"yixiu": 1 + (worker * 100_000 + n) % 60}}
                params = {"players": 2 + (worker + n) % 29, "rules": json.dumps(rules)}
                try:
                    # abandoned after 50 ms, like a client that gave up
                    response = await http.get("/api/game-length", params=params, timeout=0.05)
                    note("game-length", response.status_code)
                except httpx.HTTPError:
                    note("game-length", 0)

        async def creator() -> None:
            while time.monotonic() < stop:
                with contextlib.suppress(httpx.HTTPError):
                    response = await http.post("/api/tables", json={"name": "spam"})
                    note("create", response.status_code)
                    if response.status_code == 201:
                        code = response.json()["code"]
                        for i in range(12):
                            joined = await http.post(
                                f"/api/tables/{code}/join", json={"name": f"s{i}"}
                            )
                            note("join", joined.status_code)

        async def silent() -> None:
            host, port = url.removeprefix("http://").split(":")
            held = []
            for _ in range(200):
                with contextlib.suppress(OSError):
                    _, writer = await asyncio.open_connection(
                        host, int(port), local_addr=(ATTACKER, 0)
                    )
                    writer.write(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")  # never finished
                    held.append(writer)
            note("silent sockets", len(held))
            while time.monotonic() < stop:
                await asyncio.sleep(0.2)
            for writer in held:
                writer.close()

        await asyncio.gather(
            *(odds(i) for i in range(4)),
            *(lengths(i) for i in range(4)),
            creator(),
            silent(),
        )
    counts.update(tally)


# -- phases -------------------------------------------------------------------------------------


def phase(name: str, limits: tuple[str, ...], args: argparse.Namespace, attack: bool) -> Any:
    with (
        tempfile.TemporaryDirectory(prefix="bobing-soak-") as folder,
        server(Path(folder), limits) as url,
    ):
        if True:
            counts: dict[str, int] = {}
            process = None
            manager = multiprocessing.Manager() if attack else None
            shared = manager.dict() if manager is not None else None

            def start_attack() -> None:
                nonlocal process
                if attack:
                    process = multiprocessing.get_context("spawn").Process(
                        target=attacker, args=(url, args.seconds + 5, shared, args.attacker_nice)
                    )
                    process.start()
                    time.sleep(3)  # the flood is under way before the clock starts

            try:
                latencies = asyncio.run(
                    honest(url, args.tables, args.seconds, args.pace, start_attack)
                )
                if process is not None:
                    process.join(60)
                    counts = dict(shared or {})
            finally:
                if process is not None and process.is_alive():
                    process.kill()
                if manager is not None:
                    manager.shutdown()
    ordered = sorted(latencies)
    return {
        "phase": name,
        "throws": len(ordered),
        "p50_ms": statistics.median(ordered) if ordered else None,
        "p99_ms": ordered[int(0.99 * (len(ordered) - 1))] if ordered else None,
        "attacker": counts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--pace", type=float, default=0.1, help="seconds between a table's throws")
    parser.add_argument("--rounds", type=int, default=1, help="alternate the phases this often")
    parser.add_argument("--unlimited", action="store_true", help="also attack with limits off")
    parser.add_argument("--attacker-nice", type=int, default=10, help="0: same priority")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    honest_only = ("create_per_minute=0", "join_per_minute=0", "open_tables_per_address=0")
    plan = [("quiet", honest_only, False), ("attack", (), True)]
    if args.unlimited:
        plan.append(("attack, limits off", UNLIMITED, True))
    # Alternated, so that a busy moment of the machine falls on every phase alike.
    runs: dict[str, list[Any]] = {name: [] for name, _, _ in plan}
    for _ in range(max(1, args.rounds)):
        for name, limits, attack in plan:
            runs[name].append(phase(name, limits, args, attack))
    results = []
    for name, found in runs.items():
        results.append(
            {
                "phase": name,
                "throws": sum(r["throws"] for r in found),
                "p50_ms": statistics.median(r["p50_ms"] for r in found),
                "p99_ms": statistics.median(r["p99_ms"] for r in found),
                "p99_each_ms": [round(r["p99_ms"], 1) for r in found],
                "attacker": found[-1]["attacker"],
            }
        )
    quiet = results[0]["p99_ms"]
    for result in results:
        result["p99_vs_quiet"] = result["p99_ms"] / quiet if quiet else None
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"cpus: {os.cpu_count()}; {args.tables} tables x 4 players, a throw per table "
          f"every {args.pace:g} s, {args.seconds:g} s per phase, {args.rounds} round(s) "
          "(medians)")  # fmt: skip
    for r in results:
        print(
            f"{r['phase']:>20}: {r['throws']:5d} throws, p50 {r['p50_ms']:7.1f} ms, "
            f"p99 {r['p99_ms']:7.1f} ms ({r['p99_vs_quiet']:.2f}x quiet; each round "
            f"{', '.join(str(p) for p in r['p99_each_ms'])})"
        )
        if r["attacker"]:
            print("{:>20}  attacker got (last round): {}".format("", ", ".join(
                f"{k}: {v}" for k, v in sorted(r["attacker"].items()))))  # fmt: skip


if __name__ == "__main__":
    main()
