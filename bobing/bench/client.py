"""``bobing bench server``: T tables x N players over real WebSockets against real servers.

Each table is played by its N simulated phones: the player whose turn it is throws, and
latency is the time from sending the throw to the moment the last of the table's N sockets
received its ``thrown`` event. Two ways to pace the tables:

- ``pace=0`` (closed loop): the next throw goes out as soon as this one reached everybody,
  so the server is always saturated and latency is tables ÷ throughput;
- ``pace=P``: each table throws about every P seconds (a random phase, then P ± 20 %), as
  people do; throughput is tables ÷ P and latency shows what a phone waits at that load.

The servers run as separate ``bobing serve`` processes (``instances`` of them, on one
PostgreSQL database with a Redis broker when there are several; tables and phones spread
over them), unless ``url`` points at one already running. To measure how throughput scales
with instances, each can be given the same CPU budget (:mod:`bobing.bench.cpu`): a core of
its own (``pin``) or a cgroup quota (``cpu_limit``).

The offered load is the same whatever answers it: ``rate`` throws a second over all tables
(a throw every ``tables / rate`` seconds a table), so the server and the floor relay are
measured doing the same work. The phones can be spread over ``clients`` processes; each
reports its own CPU over the window, and a client that used more than
:data:`CLIENT_BUSY` of a core is named in the result's ``warnings``: its figures then say
more about the client than about the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from bobing.bench import cpu
from bobing.engine.errors import InputError
from bobing.process.loop import loop_factory, raise_open_files
from bobing.tables.frames import StaleBase, decode_events
from bobing.tables.protocol import offered_subprotocols

BENCH_RULES: dict[str, Any] = {
    # Nothing ends the game during a run: both 六勃 are plain 状元 hands, and 999 cakes a tier.
    "preset": "modern",
    "liubohong": "zhuangyuan",
    "liubohei": "zhuangyuan",
    "prizes": {
        "zhuangyuan": 1,
        **dict.fromkeys(("duitang", "sanhong", "sijin", "erju", "yixiu"), 999),
    },
}
WARMUP_SECONDS = 1.0
CLIENT_BUSY = 0.5
"""Share of one core above which a client process may be what holds the run back."""
MAX_CLIENTS = 16
START_MARGIN = 0.5
"""Seconds between the go and the start, for every client process to hear it."""
SPREADS = ("phones", "tables")
"""How clients are spread over several instances: each table's phones round-robin over the
instances (every throw crosses the broker: the worst case), or each table whole on one
instance (what the shipped nginx configuration does)."""
SPARE_FILES = 256
CLIENT_KINDS = ("python", "node")
"""What plays the phones: this package's Python client, or :data:`NODE_SCRIPT` on Node's
built-in WebSocket (the same protocol and loop; a client that is not Python)."""
NODE_SCRIPT = Path(__file__).with_name("phones.mjs")
NODE_LEAST = (20, 10)
"""The oldest Node.js with a WebSocket (behind ``--experimental-websocket`` before 22)."""
NODE_SETUP_TIMEOUT = 180.0
FLOOR_KEYS = (
    "server_cpu_ms_per_throw",
    "server_cpu_cores",
    "server_rss_mb",
    "throws_per_s",
    "p50_ms",
    "p99_ms",
    "bytes_per_throw",
    "frames_per_throw",
    "client_cpu_cores_max",
    "client_cpu_cores_each",
)
"""What ``--floor`` reports of the relay's run (the same keys as the server's)."""


@dataclass
class TableRun:
    """One table's loop."""

    code: str
    sockets: dict[str, Any] = field(default_factory=dict)
    pending: dict[int, list[float]] = field(default_factory=dict)  # throw -> [t0, left, last]
    next_player: str | None = None
    turn: int = 1
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (sent, ms)
    failed: str | None = None
    state: dict[str, Any] | None = None
    """The table state as the first phone holds it (the frames' patches applied)."""


@dataclass
class Traffic:
    """Bytes and frames the phones received from the first throw to the last."""

    measuring: bool = False
    bytes_in: int = 0
    frames_in: int = 0


@dataclass(frozen=True)
class ServerProcess:
    """One started (or given) server."""

    url: str
    pid: int | None


def run_bench(
    *,
    tables: int,
    players: int,
    seconds: float,
    db: str | None = None,
    url: str | None = None,
    pace: float = 0.0,
    instances: int = 1,
    broker: str | None = None,
    spread: str = "phones",
    floor: bool = False,
    pin: bool = False,
    cpu_limit: float | None = None,
    rate: float | None = None,
    clients: int = 1,
    client: str = "python",
) -> dict[str, Any]:
    """Run the benchmark and return its measurements.

    ``rate`` (throws a second over all tables) sets the pace: ``tables / rate`` seconds
    between a table's throws. ``clients`` spreads the tables over that many client processes,
    of ``client`` (:data:`CLIENT_KINDS`): Python, or Node (the tables created over REST here).

    With ``floor``, the same tables, players, pace and duration are then played against a bare
    WebSocket relay (:mod:`bobing.bench.relay`) started the same way, and the result gains
    ``floor`` (its measurements) and ``cpu_ratio_to_floor`` (server CPU per throw, ours ÷ the
    relay's): what the game costs above the transport, on this machine, in this run.

    With ``pin``, server ``i`` (and the relay) runs on core ``i`` and the client on the cores
    left; with ``cpu_limit``, each gets that share of one core. The result then says so
    (``pinned``, ``cpu_limit``).
    """
    _check_options(db=db, url=url, instances=instances, broker=broker, spread=spread, pace=pace)
    pace = _offered_pace(tables, pace, rate)
    _check_clients(clients, tables)
    node = _node_command() if _check_client(client) == "node" else None
    if (pin or cpu_limit is not None) and url is not None:
        raise InputError(
            "--pin and --cpu-limit apply to the servers the benchmark starts, not to --url",
            code="bench_url_alone",
        )
    if pin and cpu_limit is not None:
        raise InputError("give --pin or --cpu-limit, not both", code="bench_pin_and_limit")
    server_cores, client_cores = cpu.plan_pins(instances) if pin else ([], [])
    if cpu_limit is not None:
        cpu.check_cpu_limit(cpu_limit)

    def confine(index: int) -> Any:
        """How the ``index``-th started process is held to its budget (None: not at all)."""
        if pin:
            return lambda pid: _pinned(pid, [server_cores[index]])
        if cpu_limit is not None:
            return lambda pid: cpu.cpu_limited(pid, cpu_limit, cpu.group_name(str(index)))
        return None

    sockets = tables * players
    limit = raise_open_files(sockets + SPARE_FILES)
    if limit < sockets + SPARE_FILES:
        raise InputError(
            f"{sockets} WebSockets need {sockets + SPARE_FILES} open files, but this process "
            f"may open only {limit}: raise the limit (e.g. ulimit -n {sockets + SPARE_FILES}; "
            "the hard limit needs root or LimitNOFILE=) or bench fewer tables",
            code="bench_open_files",
            needed=sockets + SPARE_FILES,
            limit=limit,
        )
    with contextlib.ExitStack() as stack:
        db_label = "external server"
        if url is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="bobing-bench-"))
            db = db or f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
            db_label = "postgresql" if db.startswith("postgres") else "sqlite"
            schema = None
            if db_label == "postgresql":
                # A schema of its own, dropped afterwards: reruns start clean.
                schema = f"bobing_bench_{os.getpid()}_{int(time.time())}"
                stack.callback(_drop_schema, db, schema)
            servers = [
                stack.enter_context(
                    _server(db, Path(folder), index, schema, broker, confine(index))
                )
                for index in range(instances)
            ]
        else:
            servers = [ServerProcess(url.rstrip("/"), None)]
        if pin:
            stack.enter_context(_pinned(0, client_cores))
        result = _measure(
            servers,
            tables,
            players,
            seconds,
            pace=pace,
            spread=spread,
            clients=clients,
            node=node,
        )
        result["db"] = db_label
        result["broker"] = (broker or "memory://").split("://", 1)[0]
        result["client"] = client
        result["open_files_limit"] = limit
    if pin:
        result["pinned"] = {"servers": server_cores, "client": client_cores}
    if cpu_limit is not None:
        result["cpu_limit"] = cpu_limit
    if floor:
        # The servers have stopped: the relay gets the machine (and the budget) the server had.
        with (
            _relay_process(confine(0)) as relay,
            _pinned(0, client_cores) if pin else contextlib.nullcontext(),
        ):
            base = _measure(
                [relay], tables, players, seconds, pace=pace, clients=clients, relay=True, node=node
            )
        result["floor"] = {key: base[key] for key in FLOOR_KEYS}
        ours, bare = result["server_cpu_ms_per_throw"], base["server_cpu_ms_per_throw"]
        result["cpu_ratio_to_floor"] = round(ours / bare, 2) if ours and bare else None
        result["warnings"] += [f"floor: {w}" for w in base["warnings"]]
    return result


def _offered_pace(tables: int, pace: float, rate: float | None) -> float:
    """A table's seconds between throws: ``pace`` as given, or ``tables / rate``."""
    if rate is None:
        return pace
    if pace:
        raise InputError("give --pace or --rate, not both", code="bench_pace_and_rate")
    if not rate > 0:
        raise InputError(f"rate must be > 0 throws/s, not {rate!r}", code="bench_rate", value=rate)
    return tables / rate


def _check_clients(clients: int, tables: int) -> None:
    if not 1 <= clients <= min(MAX_CLIENTS, tables):
        raise InputError(
            f"--clients {clients}: give 1 to {min(MAX_CLIENTS, tables)} client processes "
            f"(at most one a table, at most {MAX_CLIENTS})",
            code="bench_clients",
            clients=clients,
        )


def _check_client(client: str) -> str:
    _one_of(client, CLIENT_KINDS, "client")
    return client


def _one_of(value: str, allowed: tuple[str, ...], what: str) -> None:
    """An input error naming the choices when ``value`` (of option ``what``) is none of them."""
    if value not in allowed:
        raise InputError(
            f"unknown {what} {value!r}; allowed: " + ", ".join(allowed),
            code=f"bench_{what}",
            value=value,
            allowed=list(allowed),
        )


def _node_command() -> list[str]:
    """How to run :data:`NODE_SCRIPT`: the ``node`` on PATH, with the flags its version needs
    (a WebSocket before 22, ES module syntax in ``.js`` files before 22.7), or an input error
    naming what to install."""
    import shutil

    node = shutil.which("node")
    least = ".".join(map(str, NODE_LEAST))
    install = f"install Node.js {least} or newer (https://nodejs.org, or apt-get install nodejs)"
    if node is None:
        raise InputError(f"--client node needs node on PATH: {install}", code="bench_node")
    try:
        said = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"--client node: {node} does not run ({exc}): {install}") from None
    found = re.fullmatch(r"v(\d+)\.(\d+)\.\d+.*", said)
    version = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    if version < NODE_LEAST:
        raise InputError(
            f"--client node: {node} is {said or 'of no known version'}: {install}",
            code="bench_node",
        )
    flags = ["--experimental-websocket"] if version < (22, 0) else []
    flags += ["--experimental-detect-module"] if version < (22, 7) else []
    return [node, "--no-warnings", *flags, str(NODE_SCRIPT)]


def _check_options(
    *, db: str | None, url: str | None, instances: int, broker: str | None, spread: str, pace: float
) -> None:
    _one_of(spread, SPREADS, "spread")
    if pace < 0:
        raise InputError(f"pace must be >= 0 seconds, not {pace!r}", code="bench_pace", value=pace)
    if url is not None and (instances != 1 or broker is not None or db is not None):
        raise InputError(
            "--url benches one running server: --instances, --broker and --db do not apply",
            code="bench_url_alone",
        )
    if instances > 1 and not (db or "").startswith("postgres"):
        raise InputError(
            f"--instances {instances} share one database: give --db postgresql+asyncpg://…",
            code="bench_instances_db",
            instances=instances,
        )
    if instances > 1 and not (broker or "").startswith(("redis://", "rediss://")):
        raise InputError(
            f"--instances {instances} tell each other through Redis: give --broker "
            "redis://HOST:PORT/DB",
            code="bench_instances_broker",
            instances=instances,
        )
    if broker is not None:
        from bobing.realtime.broker import broker_scheme

        broker_scheme(broker)


@contextlib.contextmanager
def _server(
    db: str,
    folder: Path,
    index: int,
    schema: str | None = None,
    broker: str | None = None,
    confine: Any = None,
) -> Any:
    bobing = Path(sys.executable).with_name("bobing")
    # Every simulated phone connects from 127.0.0.1: lift the per-address connection cap.
    command = [str(bobing), "serve", "--host", "127.0.0.1", "--port", "0", "--db", db]
    command += ["--max-connections-per-address", "0"]
    # Every bench table comes from this one address: the per-address limits would stop it.
    for name in ("create_per_minute", "join_per_minute", "open_tables_per_address"):
        command += ["--limit", f"{name}=0"]
    if schema is not None:
        command += ["--schema", schema]
    if broker is not None:
        command += ["--broker", broker]
    log = folder / f"server{index}.log"
    with _process(command, log, "serving on (http://\\S+)", confine) as found:
        yield found


@contextlib.contextmanager
def _pinned(pid: int, core_ids: list[int]) -> Any:
    """Process ``pid`` (0: this one) runs on ``core_ids`` until the block ends."""
    before = os.sched_getaffinity(pid)
    cpu.pin(pid, core_ids)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # a server has ended by now
            cpu.pin(pid, sorted(before))


@contextlib.contextmanager
def _process(command: list[str], log_path: Path, pattern: str, confine: Any = None) -> Any:
    """A server process of the bench (``bobing serve`` or the relay), until the block ends:
    its address (``pattern``'s group in what it prints, up to "Ctrl+C") and its pid.
    ``confine(pid)``, when given, is the context that holds it to its CPU budget (left after
    the process has stopped)."""
    with log_path.open("w") as log, contextlib.ExitStack() as budget:
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        try:
            if confine is not None:
                budget.enter_context(confine(proc.pid))
            assert proc.stdout is not None
            found = None
            for line in proc.stdout:
                match = re.search(pattern, line)
                if match:
                    found = match.group(1)
                if "Ctrl+C" in line:
                    break
            if found is None:
                log.flush()
                raise InputError(
                    f"the benchmark's {Path(command[0]).name} process did not start: "
                    + log_path.read_text()[-500:].strip()
                )
            yield ServerProcess(found, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
            if proc.stdout is not None:
                proc.stdout.close()


def _drop_schema(db: str, schema: str) -> None:
    from bobing.storage.db import Database

    async def drop() -> None:
        database = Database(db, schema=schema)
        try:
            await database.drop_schema()
        finally:
            await database.dispose()

    asyncio.run(drop())


def _cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process (Linux /proc), for the server's cost per throw."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int | None) -> float | None:
    """Resident memory of a process in MiB (Linux /proc)."""
    try:
        status = Path(f"/proc/{pid if pid is not None else 'self'}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return round(int(found.group(1)) / 1024, 1) if found else None


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


@dataclass
class Part:
    """What one client process measured of its tables over the window."""

    window: list[float]
    """Latencies (ms) of the throws sent inside the window."""
    completed: int
    """Throws that reached every phone, over the whole run (bytes and frames are per these)."""
    bytes_in: int
    frames_in: int
    cpu_seconds: float
    """This process's CPU over the window."""
    rss_mb: float | None
    setup_seconds: float
    failures: list[str]


@dataclass(frozen=True)
class Window:
    """When the tables start throwing, and the measured window after the warm-up
    (``time.monotonic()``: one clock for every process on the machine)."""

    start: float
    measure_from: float
    stop_at: float

    @classmethod
    def after(cls, start: float, seconds: float, pace: float) -> Window:
        # With a pace, every table must have made its first throw before the window opens.
        measure_from = start + max(WARMUP_SECONDS, pace * 1.2)
        return cls(start, measure_from, measure_from + seconds)


@dataclass(frozen=True)
class RunPlan:
    """What every client process of one run plays: the same servers, table size, length,
    pace, spread of phones and kind of table (sent whole to a spawned client process)."""

    servers: list[ServerProcess]
    players: int
    seconds: float
    pace: float
    spread: str
    relay: bool


def _measure(
    servers: list[ServerProcess],
    tables: int,
    players: int,
    seconds: float,
    *,
    pace: float,
    spread: str = "phones",
    clients: int = 1,
    relay: bool = False,
    node: list[str] | None = None,
) -> dict[str, Any]:
    """Play the run from ``clients`` processes (this one when 1, unless ``node``: the command
    of a Node client process) while this process reads the servers' CPU over the same
    window; return the measurements."""
    shares = [list(range(k, tables, clients)) for k in range(clients)]
    plan = RunPlan(servers, players, seconds, pace, spread, relay)
    try:
        if node is not None:
            parts, sample = _play_node(plan, shares, node)
        elif clients == 1:
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                part, sample = runner.run(_play_here(plan, shares[0]))
            parts = [part]
        else:
            parts, sample = _play_apart(plan, shares)
    except (OSError, TimeoutError, EOFError) as exc:
        raise InputError(f"benchmark against {servers[0].url} failed: {exc}") from None
    except Exception as exc:
        if type(exc).__module__.split(".")[0] == "websockets":
            raise InputError(f"benchmark against {servers[0].url} failed: {exc}") from None
        raise
    failures = [f for part in parts for f in part.failures]
    if failures:
        raise InputError(f"benchmark failed at {len(failures)} tables: {failures[0]}")
    return _summary(servers, parts, sample, tables, players, seconds, pace, spread)


@dataclass
class Sample:
    """The servers and the machine, read at both ends of the window."""

    cpu_start: list[float | None]
    cpu_end: list[float | None]
    rss: list[float | None]
    load: list[float | None]


def _sample_servers(servers: list[ServerProcess], window: Window) -> Sample:
    """Sleep to the window's start, read the servers' CPU, sleep to its end, read again."""
    time.sleep(max(0.0, window.measure_from - time.monotonic()))
    cpu_start = [_cpu_seconds(s.pid) for s in servers]
    load_start = _load_average()
    time.sleep(max(0.0, window.stop_at - time.monotonic()))
    cpu_end = [_cpu_seconds(s.pid) for s in servers]
    rss = [_rss_mb(s.pid) for s in servers]
    return Sample(cpu_start, cpu_end, rss, [load_start, _load_average()])


async def _play_here(plan: RunPlan, indices: list[int]) -> tuple[Part, Sample]:
    """The run from this process: the servers are read by a thread that sleeps meanwhile."""
    sampler: asyncio.Future[Sample] | None = None

    async def go() -> Window:
        nonlocal sampler
        window = Window.after(time.monotonic(), plan.seconds, plan.pace)
        sampler = asyncio.ensure_future(asyncio.to_thread(_sample_servers, plan.servers, window))
        return window

    part = await _play(plan, indices, go)
    assert sampler is not None
    return part, await sampler


def _play_apart(plan: RunPlan, shares: list[list[int]]) -> tuple[list[Part], Sample]:
    """The run from one process a share of the tables (spawned: nothing of this process's
    state goes with them); each sets up its tables, says so, and starts at the same go."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    links = []
    processes = []
    for k, indices in enumerate(shares):
        mine, theirs = context.Pipe()
        process = context.Process(
            target=_client_process,
            args=(theirs, plan, indices, k),
            daemon=True,
        )
        process.start()
        theirs.close()
        links.append(mine)
        processes.append(process)
    try:
        for link in links:  # every process has set up its tables (or failed to)
            said = link.recv()
            if said[0] == "error":
                raise InputError(said[1])
        window = Window.after(time.monotonic() + START_MARGIN, plan.seconds, plan.pace)
        for link in links:
            link.send(window)
        sample = _sample_servers(plan.servers, window)
        parts = []
        for link in links:
            said = link.recv()
            if said[0] == "error":
                raise InputError(said[1])
            parts.append(said[1])
        return parts, sample
    finally:
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.kill()


def _client_process(link: Any, plan: RunPlan, indices: list[int], seed: int) -> None:
    """A client process of :func:`_play_apart`: its tables played, its part sent back."""
    raise_open_files(len(indices) * plan.players + SPARE_FILES)

    async def go() -> Window:
        link.send(("ready", None))
        window: Window = await asyncio.to_thread(link.recv)
        return window

    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            part = runner.run(_play(plan, indices, go, seed=seed))
    except Exception as exc:  # the parent reports it (a child's traceback helps no one)
        link.send(("error", f"client process {seed}: {type(exc).__name__}: {exc}"))
        return
    link.send(("part", part))


def _play_node(
    plan: RunPlan, shares: list[list[int]], command: list[str]
) -> tuple[list[Part], Sample]:
    """The run from one Node process a share of the tables (:data:`NODE_SCRIPT`): the tables
    are created, joined and started here over REST, each process connects its phones, says so,
    and plays the window it is sent."""
    started = time.monotonic()
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        plans = runner.run(_node_plans(plan, shares))
    setup_seconds = time.monotonic() - started
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bobing-node-")))
        phones = [
            stack.enter_context(_NodeClient(command, folder / f"client{k}.log", k))
            for k in range(len(plans))
        ]
        for phone, share in zip(phones, plans, strict=True):
            phone.send(share)
        for phone in phones:
            phone.receive("ready", NODE_SETUP_TIMEOUT)
        window = Window.after(time.monotonic() + START_MARGIN, plan.seconds, plan.pace)
        for phone in phones:
            phone.send(
                {
                    "now": time.monotonic(),
                    "start": window.start,
                    "measure_from": window.measure_from,
                    "stop_at": window.stop_at,
                }
            )
        sample = _sample_servers(plan.servers, window)
        parts = []
        for phone in phones:
            said = phone.receive("part", 60.0 + 35.0)
            said["setup_seconds"] += setup_seconds
            parts.append(Part(**said))
    return parts, sample


async def _node_plans(plan: RunPlan, shares: list[list[int]]) -> list[dict[str, Any]]:
    """Each Node process's plan: its tables (created, joined and started here unless they are
    the relay's) and each phone's address and subprotocols."""
    tables = [i for share in shares for i in share]
    phones: dict[int, list[dict[str, Any]]]
    if plan.relay:
        phones = {
            i: [
                {"name": name, "url": _relay_url(plan.servers, f"t{i}", name, plan.players)}
                for name in (f"p{seat + 1}" for seat in range(plan.players))
            ]
            for i in tables
        }
        codes = {i: f"t{i}" for i in tables}
    else:

        async def open_table(index: int) -> OpenTable:
            http = _Http(plan.servers[index % len(plan.servers)].url)
            table = await _create_table(http, index, plan.players)
            await _start_table(http, table)
            return table

        made = await _gather_limited([open_table(i) for i in tables], 32)
        opened = dict(zip(tables, made, strict=True))
        codes = {i: table.code for i, table in opened.items()}
        phones = {
            i: [
                {
                    "name": name,
                    "url": _phone_url(plan.servers, i, seat, plan.spread, table.code),
                    "protocols": offered_subprotocols([token]),
                }
                for seat, (name, token) in enumerate(table.tokens.items())
            ]
            for i, table in opened.items()
        }
    return [
        {
            "relay": plan.relay,
            "pace": plan.pace,
            "seed": k,
            "tables": [
                {"code": codes[i], "phones": [{"protocols": [], **p} for p in phones[i]]}
                for i in share
            ],
        }
        for k, share in enumerate(shares)
    ]


class _NodeClient:
    """One Node client process: JSON lines to its stdin, JSON lines read from its stdout by a
    thread (so a silent process times out), its stderr in a log for the error."""

    def __init__(self, command: list[str], log: Path, index: int) -> None:
        self.command, self.log_path, self.index = command, log, index

    def __enter__(self) -> _NodeClient:
        import queue
        import threading

        self.log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.put(line)
            self.lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        self.log.close()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except OSError:
            self.fail("ended before it was told what to play")

    def receive(self, key: str, timeout: float) -> Any:
        """The ``key`` of the next line, or an input error with what the process said."""
        import queue

        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.fail(f"said nothing for {timeout:g} s")
        if line is None:
            self.fail("ended")
        try:
            said = json.loads(line)
        except ValueError:
            self.fail(f"said {line[:200]!r}")
        if not isinstance(said, dict) or key not in said:
            self.fail(f"failed: {said.get('error', line.strip())}")
        return said[key]

    def fail(self, what: str) -> NoReturn:
        self.log.flush()
        told = self.log_path.read_text()[-500:].strip()
        raise InputError(
            f"node client process {self.index + 1} {what}" + (f": {told}" if told else ""),
            code="bench_node_client",
        )


async def _play(plan: RunPlan, indices: list[int], go: Any, *, seed: int = 0) -> Part:
    """Set up tables ``indices``, await ``go()`` for the window, play them through it."""
    import websockets

    setup_started = time.monotonic()
    traffic = Traffic()
    make = _setup_relay_table if plan.relay else _setup_table
    runs = await _gather_limited(
        [make(websockets, plan.servers, i, plan.players, plan.spread) for i in indices], 32
    )
    setup_seconds = time.monotonic() - setup_started
    # The client's own collector pauses would count as latency: freeze the set-up heap.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)
    readers = [
        asyncio.create_task(_reader(run, ws, index == 0, traffic))
        for run in runs
        for index, ws in enumerate(run.sockets.values())
    ]
    window: Window = await go()
    rng = random.Random((len(indices) * 7919 + plan.players) * (MAX_CLIENTS + 1) + seed)
    await asyncio.sleep(max(0.0, window.start - time.monotonic()))
    traffic.measuring = True  # over every throw of the run: no edge effects at the window
    drivers = [asyncio.create_task(_drive(run, window.stop_at, plan.pace, rng)) for run in runs]
    await asyncio.sleep(max(0.0, window.measure_from - time.monotonic()))
    own_start = time.process_time()
    await asyncio.sleep(max(0.0, window.stop_at - time.monotonic()))
    own_end = time.process_time()
    rss = _rss_mb(None)
    await asyncio.gather(*drivers)
    await asyncio.sleep(0.2)  # the last acks
    traffic.measuring = False
    for task in readers:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    await _gather_limited([ws.close() for run in runs for ws in run.sockets.values()], 200)
    return Part(
        window=[
            ms
            for run in runs
            for sent, ms in run.latencies
            if window.measure_from <= sent < window.stop_at
        ],
        completed=sum(len(run.latencies) for run in runs),
        bytes_in=traffic.bytes_in,
        frames_in=traffic.frames_in,
        cpu_seconds=own_end - own_start,
        rss_mb=rss,
        setup_seconds=setup_seconds,
        failures=[run.failed for run in runs if run.failed],
    )


def _summary(
    servers: list[ServerProcess],
    parts: list[Part],
    sample: Sample,
    tables: int,
    players: int,
    seconds: float,
    pace: float,
    spread: str,
) -> dict[str, Any]:
    window = sorted(ms for part in parts for ms in part.window)
    count = len(window)
    completed = sum(part.completed for part in parts)

    def pct(p: float) -> float:
        return round(window[min(count - 1, int(p * count))], 2) if count else 0.0

    per_server: list[dict[str, Any]] = []
    cores: list[float] = []
    memory: list[float] = []
    for server, before, after, resident in zip(
        servers, sample.cpu_start, sample.cpu_end, sample.rss, strict=True
    ):
        used = None if before is None or after is None else (after - before) / seconds
        per_server.append(
            {
                "url": server.url,
                "cpu_cores": None if used is None else round(used, 3),
                "rss_mb": resident,
            }
        )
        if used is not None:
            cores.append(used)
        if resident is not None:
            memory.append(resident)
    server_cpu = sum(cores) * seconds if len(cores) == len(servers) else None
    client_cores = [part.cpu_seconds / seconds for part in parts]
    client_rss = [part.rss_mb for part in parts if part.rss_mb is not None]
    warnings = [
        f"client process {k + 1} of {len(parts)} used {used:.2f} of a core (over "
        f"{CLIENT_BUSY:g}): it may be what holds the run back; give --clients "
        f"{min(MAX_CLIENTS, tables, 2 * len(parts))}"
        for k, used in enumerate(client_cores)
        if used > CLIENT_BUSY
    ]
    return {
        "server_cpu_ms_per_throw": None
        if server_cpu is None or not count
        else round(server_cpu / count * 1000, 3),
        "server_cpu_cores": None if server_cpu is None else round(server_cpu / seconds, 2),
        "server_rss_mb": round(sum(memory), 1) if len(memory) == len(servers) else None,
        "client_cpu_ms_per_throw": round(sum(client_cores) * seconds / count * 1000, 3)
        if count
        else None,
        "client_cpu_cores": round(sum(client_cores), 2),
        "client_cpu_cores_max": round(max(client_cores), 2),
        "client_cpu_cores_each": [round(used, 2) for used in client_cores],
        "client_processes": len(parts),
        "client_rss_mb": round(sum(client_rss), 1) if len(client_rss) == len(parts) else None,
        "throws_per_s": round(count / seconds, 1),
        "offered_throws_per_s": round(tables / pace, 1) if pace else None,
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
        "max_ms": round(window[-1], 2) if count else 0.0,
        "bytes_per_throw": round(sum(p.bytes_in for p in parts) / completed) if completed else None,
        "frames_per_throw": round(sum(p.frames_in for p in parts) / completed, 2)
        if completed
        else None,
        "tables": tables,
        "players": players,
        "connections": tables * players,
        "pace_s": pace,
        "instances": len(servers),
        "spread": spread,
        "servers": per_server,
        "throws": count,
        "seconds": seconds,
        "setup_s": round(max(part.setup_seconds for part in parts), 1),
        "load_average": sample.load,
        "warnings": warnings,
    }


class _Http:
    """A minimal JSON-over-HTTP client on the standard library, for the set-up requests.

    The benchmark measures WebSocket throws; its set-up calls (create, join, start) need no
    connection pool, so ``urllib`` in worker threads does, and a plain install (no dev
    extras) can run ``bobing bench server``. Proxies are ignored: the server is local or
    named by ``--url``.
    """

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    async def request(
        self, method: str, path: str, body: Any = None, *, token: str | None = None
    ) -> tuple[int, Any]:
        """Send one request; return the status and the decoded JSON body (text if not JSON)."""
        return await asyncio.to_thread(self._request, method, path, body, token)

    def _request(self, method: str, path: str, body: Any, token: str | None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with self.opener.open(request, timeout=60) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode("utf-8", "replace")


async def _gather_limited(coros: list[Any], limit: int) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coro: Any) -> Any:
        async with gate:
            return await coro

    return list(await asyncio.gather(*(one(c) for c in coros)))


@dataclass(frozen=True)
class OpenTable:
    """A bench table created and joined over REST: its code, the host's token and each
    phone's name and token."""

    code: str
    host_token: str
    tokens: dict[str, str]


async def _create_table(http: _Http, index: int, players: int) -> OpenTable:
    """Create table ``index`` and join its ``players`` phones (``p1``…) over REST."""
    status, created = await http.request(
        "POST",
        "/api/tables",
        {"name": f"bench {index}", "mode": "online", "rules": BENCH_RULES},
    )
    if status != 201:
        raise InputError(f"could not create a bench table: {str(created)[:300]}")
    code = created["code"]
    tokens = {}
    for seat in range(players):
        name = f"p{seat + 1}"
        status, joined = await http.request("POST", f"/api/tables/{code}/join", {"name": name})
        if status != 201:
            raise InputError(f"could not join bench table {code}: {str(joined)[:300]}")
        tokens[name] = joined["player_token"]
    return OpenTable(code, created["host_token"], tokens)


async def _start_table(http: _Http, table: OpenTable) -> None:
    status, reply = await http.request(
        "POST", f"/api/tables/{table.code}/commands", {"type": "start"}, token=table.host_token
    )
    if status != 200:
        raise InputError(f"could not start bench table {table.code}: {str(reply)[:300]}")


def _phone_url(servers: list[ServerProcess], index: int, seat: int, spread: str, code: str) -> str:
    """Where seat ``seat`` of table ``index`` connects: with ``phones``, seat s of table i on
    instance (i + s) mod N; with ``tables``, every seat on instance i mod N."""
    where = index + (seat if spread == "phones" else 0)
    base = servers[where % len(servers)].url
    ws_base = base.replace("http://", "ws://").replace("https://", "wss://")
    return f"{ws_base}/ws/tables/{code}"


def _relay_url(servers: list[ServerProcess], code: str, name: str, players: int) -> str:
    return f"{servers[0].url}/relay/{code}?name={name}&players={players}"


async def _setup_table(
    websockets: Any, servers: list[ServerProcess], index: int, players: int, spread: str
) -> TableRun:
    http = _Http(servers[index % len(servers)].url)
    table = await _create_table(http, index, players)
    run = TableRun(table.code)
    for seat, (name, token) in enumerate(table.tokens.items()):
        ws = await websockets.connect(
            _phone_url(servers, index, seat, spread, table.code),
            # the token rides in the handshake, never in the URL (docs/protocol.md)
            subprotocols=offered_subprotocols([token]),
            max_size=None,
            # The server pings every socket; 10,000 client-side pings would only add load.
            ping_interval=None,
            open_timeout=60,
        )
        await ws.recv()  # welcome
        backlog = await ws.recv()  # the backlog and the state
        if not run.sockets:
            run.state = decode_events(json.loads(backlog), None)[1]
        run.sockets[name] = ws
    await _start_table(http, table)
    _, state = await http.request("GET", f"/api/tables/{table.code}")
    run.next_player = state["next"]
    run.turn = state["turn"]
    # Drain the 'started' frame every socket receives (the first phone's state follows it).
    for index, ws in enumerate(run.sockets.values()):
        started = await ws.recv()
        if index == 0:
            run.state = decode_events(json.loads(started), run.state)[1]
    return run


async def _setup_relay_table(
    websockets: Any, servers: list[ServerProcess], index: int, players: int, spread: str
) -> TableRun:
    """A table of the floor: its phones connect to the relay, which says when all are in."""
    del spread  # one relay process
    run = TableRun(f"t{index}")
    for seat in range(players):
        name = f"p{seat + 1}"
        url = _relay_url(servers, run.code, name, players)
        run.sockets[name] = await websockets.connect(url, ping_interval=None, open_timeout=60)
    for ws in run.sockets.values():
        ready = json.loads(await ws.recv())
    run.next_player, run.turn = ready["next"], ready["turn"]
    return run


@contextlib.contextmanager
def _relay_process(confine: Any = None) -> Any:
    """The bare relay (:mod:`bobing.bench.relay`) in a process of its own, like a server."""
    with tempfile.TemporaryDirectory(prefix="bobing-relay-") as folder:
        command = [sys.executable, "-m", "bobing.bench.relay", "--port", "0"]
        log = Path(folder) / "relay.log"
        with _process(command, log, "relay serving on (ws://\\S+)", confine) as relay:
            yield relay


_THROW = re.compile(r'"throw":(\d+)')
"""A throw's number in a frame that tells of a ``thrown`` event (all its events are that
throw's: the frame's ``common`` or its first event carries it first)."""


def _thrown(run: TableRun, message: str, observer: bool) -> int | None:
    """The throw a frame tells of (None if none); the observer also follows the state. The
    other phones only look for the throw's number (the client shares the machine with the
    server: parsing every phone's frames would take the server's CPU)."""
    if not observer:
        found = _THROW.search(message)
        return None if found is None else int(found.group(1))
    frame = json.loads(message)
    if frame["type"] == "thrown":  # the relay's frame
        throw: int | None = frame["throw"]
        state = frame["state"]
    else:
        try:
            events, state = decode_events(frame, run.state)
        except StaleBase as exc:
            run.failed = f"table {run.code}: {exc}"
            return None
        throw = next((e["throw"] for e in events if e["type"] == "thrown"), None)
    if observer and state is not None:
        run.state = state
        run.next_player = state["next"]
        run.turn = state["turn"]
    return throw


async def _reader(run: TableRun, ws: Any, observer: bool, traffic: Traffic) -> None:
    async for message in ws:
        if traffic.measuring:
            # bytes, not characters (the bench's names are ASCII: no encoding needed then)
            traffic.bytes_in += len(message) if message.isascii() else len(message.encode())
            traffic.frames_in += 1
        if message.startswith('{"type":"ack"'):
            continue
        if message.startswith('{"type":"error"'):
            run.failed = message[:300]
            run.ready.set()
            continue
        if not observer and '"thrown"' not in message:
            continue  # the observer reads every frame: each patch follows the one before
        throw = _thrown(run, message, observer)
        if run.failed is not None:
            run.ready.set()
            continue
        now = time.monotonic()
        entry = None if throw is None else run.pending.get(throw)
        if throw is None or entry is None:
            continue
        entry[1] -= 1
        entry[2] = max(entry[2], now)
        if entry[1] == 0:
            del run.pending[throw]
            run.latencies.append((entry[0], (entry[2] - entry[0]) * 1000))
            run.ready.set()


async def _drive(run: TableRun, stop_at: float, pace: float, rng: random.Random) -> None:
    players = len(run.sockets)
    if pace:
        await asyncio.sleep(rng.uniform(0, pace))  # tables do not throw in step
    slot = time.monotonic()
    while time.monotonic() < stop_at and run.failed is None:
        player = run.next_player
        if player is None:
            run.failed = f"table {run.code} has no next player (game over?)"
            return
        throw = run.turn
        run.ready.clear()
        run.pending[throw] = [time.monotonic(), players, 0.0]
        await run.sockets[player].send(
            json.dumps({"type": "throw", "turn": throw, "nonce": f"{run.code}-{throw}"})
        )
        try:
            await asyncio.wait_for(run.ready.wait(), 30)
        except TimeoutError:
            run.failed = f"table {run.code}: throw {throw} did not reach every player in 30 s"
            return
        if pace:
            slot += pace * rng.uniform(0.8, 1.2)
            delay = slot - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            else:  # behind (a slow server): go on now rather than bursting to catch up
                slot = time.monotonic()
