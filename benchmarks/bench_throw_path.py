"""The CPU of a throw inside the server, stage by stage, without the socket or the database.

    .venv/bin/python benchmarks/bench_throw_path.py [--tables 100] [--throws 15] [--repeat 7]

``--tables`` online tables of ten are created, joined and started through the table service
(SQLite in a temporary folder). Then, ``--repeat`` times, every table in turn throws
``--throws`` times through the service's own steps of a command, each timed apart
(``time.perf_counter``), with nothing written and nothing sent:

- ``roles``: who the thrower's token makes them, and the command's sender hash;
- ``digest``: the command's digest (kept with its id);
- ``plan``: deciding the throw (``commands.plan_throw``: server dice, the engine's throw);
- ``rows``: the events as the store numbers them (``event_store._stored``);
- ``committed``: the runtime brought up to them (``TableService._committed``: the fold, the
  state and its patch);
- ``frame``: the ``events`` frame every phone gets.

Round robin over many tables, as a busy server goes, so each table's objects are cold when its
turn comes. The baseline, measured in the same run on the same games: the engine's own throw
(``Game.throw`` on a copy, given the dice). Printed: each stage's CPU per throw in µs (the best
repeat), the total, and the total ÷ the engine's throw. Run it against another checkout with
``PYTHONPATH=that/checkout`` (from outside this one) for a before/after.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from service_here import temporary_service

from bobing.engine.fairness import derive_faces
from bobing.storage.event_store import Append, _stored
from bobing.tables.commands import PLANS
from bobing.tables.frames import events_frame
from bobing.tables.outcomes import command_digest, sender_of
from bobing.tables.protocol import Command
from bobing.tables.runtime import Runtime
from bobing.tables.service import TableService
from bobing.tables.tokens import hash_token

STAGES = ("roles", "digest", "plan", "rows", "committed", "frame")
PLAYERS = 10


async def _tables(
    service: TableService, count: int
) -> list[tuple[Runtime, dict[str, tuple[str, ...]]]]:
    tables = []
    for index in range(count):
        created = await service.create_table(name=f"桌{index}", mode="online")
        tokens: dict[str, tuple[str, ...]] = {}
        for seat in range(PLAYERS):
            joined = await service.join(created.code, f"p{seat}")
            tokens[f"p{seat}"] = (hash_token(joined["player_token"]),)
        host = [hash_token(created.host_token)]
        await service.execute(created.code, Command("start", f"s{index}", {"starter": "p0"}), host)
        tables.append((await service.runtime(created.code), tokens))
    return tables


def _pass(
    service: TableService,
    tables: list[tuple[Runtime, dict[str, tuple[str, ...]]]],
    throws: int,
    tag: str,
) -> tuple[dict[str, float], float, int]:
    """One repeat: the stages' seconds, the engine's seconds, and the throws made."""
    decide = PLANS["throw"]
    clock = time.perf_counter
    spent = dict.fromkeys(STAGES, 0.0)
    engine = 0.0
    made = 0
    for turn in range(throws):
        for runtime, tokens in tables:
            game = runtime.game
            if runtime.status != "playing" or game is None or game.next_player is None:
                continue
            expected = game.throw_count + 1
            command = Command("throw", f"{tag}-{turn}", {"turn": expected})
            hashes = tokens[game.next_player]
            # The baseline first, on a copy: the engine alone, its dice given.
            faces = derive_faces(runtime.info.server_seed, runtime.code, expected, "baseline")
            draft = game.copy()
            a = clock()
            draft.throw(faces)
            engine += clock() - a
            a = clock()
            roles = runtime.roles(hashes)
            sender = sender_of(hashes, runtime)
            b = clock()
            digest = command_digest(command)
            c = clock()
            plan = decide(runtime, roles, command.args)
            d = clock()
            request = Append(
                runtime.code,
                runtime.last_seq,
                plan.events,
                command_id=command.id,
                status=plan.status,
                seats=plan.seats,
                sender=sender,
                digest=digest,
            )
            stored = _stored(request)
            e = clock()
            logged = service._committed(runtime, plan, stored)
            f = clock()
            patch = runtime.patch
            assert patch is not None
            events_frame(logged, after=logged[0]["seq"] - 1, patch_json=patch[1])
            g = clock()
            steps = (b - a, c - b, d - c, e - d, f - e, g - f)
            for stage, seconds in zip(STAGES, steps, strict=True):
                spent[stage] += seconds
            made += 1
    return spent, engine, made


async def main(tables: int, throws: int, repeat: int) -> None:
    best: dict[str, float] = {}
    totals: list[float] = []
    engines: list[float] = []
    async with temporary_service(TableService) as service:
        playing = await _tables(service, tables)
        for round_ in range(repeat):
            spent, engine, made = _pass(service, playing, throws, f"r{round_}")
            if not made:
                break
            per = {stage: spent[stage] / made * 1e6 for stage in STAGES}
            for stage, value in per.items():
                best[stage] = min(best.get(stage, value), value)
            totals.append(sum(per.values()))
            engines.append(engine / made * 1e6)
    if not totals:
        raise SystemExit("every game ended before a throw was timed: use fewer --throws")
    print(f"{tables} tables of {PLAYERS}, {throws} throws a table a repeat, {len(totals)} repeats")
    print("  ".join(f"{stage} {best[stage]:.1f}" for stage in STAGES), "(µs a throw, best)")
    total, engine = min(totals), min(engines)
    print(
        f"total {total:.1f} µs a throw (median {statistics.median(totals):.1f}); "
        f"the engine's throw alone {engine:.1f} µs; total ÷ engine {total / engine:.1f}×"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--throws", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(main(args.tables, args.throws, args.repeat))
