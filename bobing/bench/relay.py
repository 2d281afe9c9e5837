"""The floor of ``bobing bench server --floor``: a bare WebSocket relay of dice throws.

What any live dice table must do at the least, on the same WebSocket library, event loop and
machine as the real server: take a throw from the phone whose turn it is, roll six dice, fill
one prebuilt frame (a template with the table's names encoded once, at join) and write the same
bytes to every phone at the table (no per-message deflate: the server has none either). No dict
built or encoded a throw, no log, no commit, no rules, no fairness, no state. The real server's
CPU per throw divided by this one's, measured in the same run, says what the game costs above
the transport (docs/benchmarks.md).

    python -m bobing.bench.relay [--port 0]     prints "relay serving on ws://HOST:PORT"

A phone connects to ``/relay/TABLE?name=NAME&players=N``; once the table's N phones are in,
each gets ``{"type":"ready","next":FIRST,"turn":1}``. A throw frame from the phone whose turn
it is is answered to everyone with ``{"type":"thrown","at":…,"throw":T,"dice":[…],
"state":{"next":…,"turn":T+1}}`` — the shape the bench client reads from the real server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bobing.engine.switches import MAX_PLAYERS, MIN_PLAYERS
from bobing.process.heartbeat import WS_PING_INTERVAL, WS_PING_TIMEOUT

FRAME = '{"type":"thrown","at":"%.3f","throw":%d,"dice":[%s],"state":{"next":%s,"turn":%d}}'
"""The one frame a throw sends, filled in place (the shape the bench client reads)."""
FACES = "123456"


@dataclass
class _Table:
    players: int
    names: list[str] = field(default_factory=list)
    encoded: list[str] = field(default_factory=list)
    """Each name as JSON, encoded once."""
    sockets: list[Any] = field(default_factory=list)
    turn: int = 1


class Relay:
    """Tables of phones relaying throws (one process, one event loop)."""

    def __init__(self, seed: int = 1) -> None:
        self.tables: dict[str, _Table] = {}
        self.rng = random.Random(seed)

    async def handle(self, ws: Any) -> None:
        """One phone: join its table, then relay the throws it sends on its turn."""
        import websockets

        parts = urlsplit(ws.request.path)
        query = parse_qs(parts.query)
        code = parts.path.rsplit("/", 1)[-1]
        name = query.get("name", [""])[0]
        try:
            players = int(query.get("players", ["0"])[0])
        except ValueError:
            players = 0
        if not code or not name or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            usage = f"expected /relay/TABLE?name=NAME&players=N ({MIN_PLAYERS}-{MAX_PLAYERS})"
            await ws.close(1008, usage)
            return
        table = self.tables.setdefault(code, _Table(players))
        table.names.append(name)
        table.encoded.append(json.dumps(name))
        table.sockets.append(ws)
        if len(table.sockets) == table.players:
            ready = json.dumps({"type": "ready", "next": table.names[0], "turn": 1})
            websockets.broadcast(table.sockets, ready)
        seat = len(table.names) - 1
        try:
            async for message in ws:
                command = json.loads(message)
                if command.get("type") != "throw" or command.get("turn") != table.turn:
                    continue
                if (table.turn - 1) % table.players != seat:
                    continue  # not this phone's turn
                throw = table.turn
                table.turn += 1
                frame = FRAME % (
                    time.time(),
                    throw,
                    ",".join(self.rng.choices(FACES, k=6)),
                    table.encoded[(table.turn - 1) % table.players],
                    table.turn,
                )
                websockets.broadcast(table.sockets, frame)  # encoded once, the same bytes
        finally:
            table.sockets = [s for s in table.sockets if s is not ws]
            if not table.sockets:
                self.tables.pop(code, None)


async def serve(host: str, port: int) -> None:
    """Serve until cancelled, printing the address (and "Ctrl+C") when listening."""
    from websockets.asyncio.server import serve as ws_serve

    relay = Relay()
    # No per-message deflate, as `bobing serve` (web/serve.py): compressed, each socket's frame
    # would be its own bytes, deflated a socket a throw (a fifth of the relay's CPU). The same
    # heartbeat as the server's: a socket is pinged after 25 s and let go when it does not
    # answer (the server pings only silent sockets, this library every socket: at a human pace
    # every socket of either is silent that long between its throws).
    options: dict[str, Any] = {
        "ping_interval": WS_PING_INTERVAL,
        "ping_timeout": WS_PING_TIMEOUT,
        "max_size": 4096,
        "compression": None,
    }
    async with ws_serve(relay.handle, host, port, **options) as server:
        bound = next(iter(server.sockets)).getsockname()
        print(f"relay serving on ws://{bound[0]}:{bound[1]}", flush=True)
        print("Ctrl+C to stop", flush=True)
        await asyncio.Future()


def main(argv: list[str] | None = None) -> int:
    """Run the relay (the floor process of ``bobing bench server --floor``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    from bobing.process.loop import loop_factory

    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(serve(args.host, args.port))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
