"""Whether per-message deflate (RFC 7692) pays for its CPU on the table's frames.

    .venv/bin/python benchmarks/bench_deflate.py [--players 10] [--throws 300]

A real game is played through the table service (SQLite in a temporary folder; a table of
``--players`` at server dice, the frames captured from the broker exactly as every socket gets
them). Then, in the same run:

- **plain** — what ``bobing serve`` does: each frame is framed once for the table and written
  to every socket (the bytes are counted; the CPU is one ``text_frame`` per frame);
- **deflate** — what per-message deflate would do, as Uvicorn configures it (window bits 12,
  memory level 5, context takeover): one compressor *per socket*, since each connection's
  compression context is its own, so a frame is compressed once for every phone.

It prints bytes per throw for the table (all phones) and the CPU per throw of each, and their
ratios: the bytes deflate saves against the CPU it costs (docs/benchmarks.md, "Frames").
"""

from __future__ import annotations

import argparse
import asyncio
import time
import tracemalloc
import zlib

from service_here import play, temporary_service

from bobing.realtime.broker import table_channel
from bobing.tables.service import TableService
from bobing.tables.tokens import hash_token
from bobing.web.hub import text_frame

LONG_GAME = {"zhuangyuan": 1, "duitang": 50, "sanhong": 50, "sijin": 50, "erju": 99, "yixiu": 99}


async def game_frames(players: int, throws: int) -> list[str]:
    """The live frames of a game of ``throws`` throws at a table of ``players``."""
    frames: list[str] = []
    async with temporary_service(TableService) as service:
        created = await service.create_table(name="deflate", prizes=LONG_GAME)
        code = created.code
        host = [hash_token(created.host_token)]
        service.broker.subscribe(
            table_channel(code), lambda message: frames.append(message.split(" ", 2)[2])
        )
        await play(service, code, host, players, throws)
    return frames[1:]  # the throws' frames (not the start)


def plain(frames: list[str], players: int) -> tuple[int, float]:
    """Bytes and CPU seconds of framing each frame once and writing it to every phone."""
    started = time.process_time()
    sent = 0
    for frame in frames:
        sent += len(text_frame(frame.encode("utf-8"))) * players
    return sent, time.process_time() - started


def deflate(frames: list[str], players: int) -> tuple[int, float]:
    """Bytes and CPU seconds of compressing each frame once per phone (one context each)."""
    contexts = [zlib.compressobj(6, zlib.DEFLATED, -12, 5) for _ in range(players)]
    started = time.process_time()
    sent = 0
    for frame in frames:
        data = frame.encode("utf-8")
        for context in contexts:
            body = context.compress(data) + context.flush(zlib.Z_SYNC_FLUSH)
            sent += len(text_frame(body[:-4]))  # RFC 7692 §7.2.1: the tail is dropped
    return sent, time.process_time() - started


def memory_per_socket(frame: str, sockets: int = 200) -> float:
    """Bytes one socket's compression context holds once it has compressed a frame."""
    data = frame.encode("utf-8")
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    contexts = [zlib.compressobj(6, zlib.DEFLATED, -12, 5) for _ in range(sockets)]
    for context in contexts:
        context.compress(data)
        context.flush(zlib.Z_SYNC_FLUSH)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del contexts
    return held / sockets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--throws", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=20, help="passes over the frames")
    args = parser.parse_args()
    frames = asyncio.run(game_frames(args.players, args.throws))
    throws = len(frames)
    best: dict[str, tuple[int, float]] = {}
    for _ in range(args.repeat):
        for name, way in (("plain", plain), ("deflate", deflate)):
            sent, cpu = way(frames, args.players)
            if name not in best or cpu < best[name][1]:
                best[name] = (sent, cpu)
    print(f"{throws} throws at a table of {args.players} (best of {args.repeat} passes)")
    for name, (sent, cpu) in best.items():
        print(
            f"{name:8} {sent / throws:8.0f} bytes per throw (all phones)"
            f" {cpu / throws * 1e6:8.1f} µs CPU per throw"
        )
    (plain_bytes, plain_cpu), (deflate_bytes, deflate_cpu) = best["plain"], best["deflate"]
    print(f"deflate saves {1 - deflate_bytes / plain_bytes:.0%} of the bytes")
    print(f"deflate costs {(deflate_cpu - plain_cpu) / throws * 1e6:.1f} µs more CPU per throw")
    held = memory_per_socket(frames[-1])
    crowd = held * 10_000 / 2**20
    print(f"deflate holds {held / 1024:.1f} KiB per socket ({crowd:.0f} MiB for 10,000)")


if __name__ == "__main__":
    main()
