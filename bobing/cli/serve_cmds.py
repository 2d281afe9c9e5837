"""``bobing serve``, ``bobing verify`` and ``bobing bench server``: the table server's commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from bobing.cli.render import LangOption, lang_from_option
from bobing.i18n import lang_from_env, t

_LANG = lang_from_env()


def _h(key: str) -> str:
    return t(key, _LANG)


bench_app = typer.Typer(
    name="bench",
    help=_h("bench.help"),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def serve(
    host: Annotated[str, typer.Option(help=_h("serve.opt.host"))] = "0.0.0.0",
    port: Annotated[int, typer.Option(help=_h("serve.opt.port"), min=0, max=65535)] = 8000,
    db: Annotated[
        str | None,
        typer.Option(help=_h("serve.opt.db"), envvar="BOBING_DB"),
    ] = None,
    schema: Annotated[
        str | None,
        typer.Option(help=_h("serve.opt.schema")),
    ] = None,
    header_timeout: Annotated[
        float,
        typer.Option(
            help=_h("serve.opt.header_timeout"),
            min=0,
            max=3600,
            envvar="BOBING_HEADER_TIMEOUT",
            metavar="SECONDS",
        ),
    ] = 10.0,
    idle_timeout: Annotated[
        float,
        typer.Option(
            help=_h("serve.opt.idle_timeout"),
            min=0,
            max=3600,
            envvar="BOBING_IDLE_TIMEOUT",
            metavar="SECONDS",
        ),
    ] = 30.0,
    max_connections_per_address: Annotated[
        int,
        typer.Option(
            help=_h("serve.opt.max_connections"),
            min=0,
            max=1_000_000,
            envvar="BOBING_MAX_CONNECTIONS_PER_ADDRESS",
            metavar="N",
        ),
    ] = 100,
    max_header_bytes: Annotated[
        int,
        typer.Option(
            help=_h("serve.opt.max_header_bytes"),
            min=1024,
            max=1 << 20,
            envvar="BOBING_MAX_HEADER_BYTES",
            metavar="BYTES",
        ),
    ] = 16 * 1024,
    max_body_bytes: Annotated[
        int,
        typer.Option(
            help=_h("serve.opt.max_body_bytes"),
            min=1024,
            max=16 << 20,
            envvar="BOBING_MAX_BODY_BYTES",
            metavar="BYTES",
        ),
    ] = 64 * 1024,
    max_frame_bytes: Annotated[
        int,
        typer.Option(
            help=_h("serve.opt.max_frame_bytes"),
            min=512,
            max=1 << 20,
            envvar="BOBING_MAX_FRAME_BYTES",
            metavar="BYTES",
        ),
    ] = 4096,
    broker: Annotated[
        str,
        typer.Option(help=_h("serve.opt.broker"), envvar="BOBING_BROKER"),
    ] = "memory://",
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(help=_h("serve.opt.forwarded"), envvar="BOBING_FORWARDED_ALLOW_IPS"),
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option(help=_h("serve.opt.public_url"), envvar="BOBING_PUBLIC_URL", metavar="URL"),
    ] = None,
    limit: Annotated[
        list[str] | None,
        typer.Option("--limit", metavar="NAME=VALUE", help=_h("serve.opt.limit")),
    ] = None,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-origin",
            metavar="ORIGIN",
            help=_h("serve.opt.allow_origin"),
            envvar="BOBING_ALLOW_ORIGINS",
        ),
    ] = None,
) -> None:
    """Run the table server: the browser UI, REST under /api, WebSockets under /ws."""
    import os

    from bobing.realtime.broker import broker_scheme
    from bobing.tables.limits import Limits
    from bobing.web.limits_transport import TransportLimits
    from bobing.web.serve import public_base, run_server
    from bobing.web.settings import Settings

    broker_scheme(broker)  # a bad URL fails before anything starts
    transport = TransportLimits(
        header_timeout=header_timeout,
        idle_timeout=idle_timeout,
        max_connections_per_address=max_connections_per_address,
        max_header_bytes=max_header_bytes,
        max_body_bytes=max_body_bytes,
        max_frame_bytes=max_frame_bytes,
    )
    limits = Limits.from_env(os.environ, limit or ())
    settings = Settings(
        db_url=db,
        db_schema=schema,
        broker_url=broker,
        forwarded_allow_ips=forwarded_allow_ips,
        public_url=None if not public_url else public_base(public_url),
        limits=limits,
        transport=transport,
        allowed_origins=tuple(allow_origin or ()),
    )
    run_server(settings, host, port)


def verify(
    record: Annotated[Path, typer.Argument(help=_h("verify.arg.record"))],
    seen: Annotated[
        Path | None, typer.Option("--seen", metavar="SEEN.json", help=_h("verify.opt.seen"))
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help=_h("verify.opt.json"))] = False,
    lang: LangOption = None,
) -> None:
    """Check that every server-rolled throw of a record follows from the revealed seed."""
    from bobing.engine.fairness import verify as verify_fairness

    language = lang_from_option(lang)
    data = _load(record)
    from bobing.organizer.verify import is_event_record

    if is_event_record(data):
        _verify_event(data, as_json)
        return
    result = verify_fairness(data, None if seen is None else _load(seen))
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "ok": True,
                    "mode": result.mode,
                    "referee": result.referee,
                    "commitment": result.commitment,
                    "table_id": result.table_id,
                    "start": None
                    if result.start is None
                    else {"nonce": result.start.nonce, "dice": result.start.expected},
                    "checked": [
                        {"throw": c.throw, "nonce": c.nonce, "dice": c.expected}
                        for c in result.throws
                    ],
                    "seen": None
                    if seen is None
                    else {"sent": result.seen_sent, "throws": result.seen_throws},
                },
                ensure_ascii=False,
            )
        )
        return
    table = result.table_id
    if result.referee:
        typer.echo(t("verify.referee", language, table=table))
        return
    key = "verify.ok.start" if result.start is not None else "verify.ok"
    typer.echo(
        t(key, language, count=len(result.throws), table=table, commitment=result.commitment)
    )
    if seen is not None:
        typer.echo(t("verify.seen", language, sent=result.seen_sent, seen=result.seen_throws))


def _verify_event(data: dict[str, object], as_json: bool) -> None:
    from bobing.organizer.verify import verify_event

    tables = verify_event(data)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "ok": True,
                    "event": data["event"],
                    "tables": [
                        {
                            "number": c.number,
                            "code": c.code,
                            "winner": c.winner,
                            "checked": len(c.checks),
                        }
                        for c in tables
                    ],
                },
                ensure_ascii=False,
            )
        )
        return
    throws = sum(1 for c in tables for check in c.checks if check.throw > 0)
    playoff = (
        " and the playoff between the table winners"
        if tables[-1:] and tables[-1].number == 0
        else ""
    )
    typer.echo(
        f"ok: {len([c for c in tables if c.number])} tables{playoff} replay under the engine; "
        f"{throws} server throws follow from their revealed seeds"
    )


def _load(path: Path) -> dict[str, Any]:
    from bobing.engine.record import load_record, parse_record

    if str(path) == "-":
        return parse_record(sys.stdin.read(), "-")
    return load_record(path)


@bench_app.command("server", help=_h("bench.server.help"))
def bench_server(
    tables: Annotated[int, typer.Option(help=_h("bench.opt.tables"), min=1, max=5000)] = 100,
    players: Annotated[int, typer.Option(help=_h("bench.opt.players"), min=2, max=12)] = 10,
    seconds: Annotated[float, typer.Option(help=_h("bench.opt.seconds"), min=1.0)] = 10.0,
    pace: Annotated[float, typer.Option(help=_h("bench.opt.pace"), min=0.0, max=600.0)] = 0.0,
    db: Annotated[
        str | None,
        typer.Option(help=_h("bench.opt.db")),
    ] = None,
    instances: Annotated[int, typer.Option(help=_h("bench.opt.instances"), min=1, max=16)] = 1,
    broker: Annotated[str | None, typer.Option(help=_h("bench.opt.broker"))] = None,
    spread: Annotated[str, typer.Option(help=_h("bench.opt.spread"))] = "phones",
    url: Annotated[str | None, typer.Option(help=_h("bench.opt.url"))] = None,
    as_json: Annotated[bool, typer.Option("--json", help=_h("bench.opt.json"))] = False,
    floor: Annotated[bool, typer.Option("--floor", help=_h("bench.opt.floor"))] = False,
    pin: Annotated[bool, typer.Option("--pin", help=_h("bench.opt.pin"))] = False,
    cpu_limit: Annotated[
        float | None, typer.Option("--cpu-limit", help=_h("bench.opt.cpu_limit"), min=0.01)
    ] = None,
    rate: Annotated[float | None, typer.Option(help=_h("bench.opt.rate"), min=0.001)] = None,
    clients: Annotated[int, typer.Option(help=_h("bench.opt.clients"), min=1, max=16)] = 1,
    client: Annotated[str, typer.Option(help=_h("bench.opt.client"))] = "python",
) -> None:
    """Drive TABLES x PLAYERS simulated players over WebSockets; report throws/s and latency."""
    from bobing.bench.client import CLIENT_BUSY, MAX_CLIENTS, run_bench

    result = run_bench(
        tables=tables,
        players=players,
        seconds=seconds,
        db=db,
        url=url,
        pace=pace,
        instances=instances,
        broker=broker,
        spread=spread,
        floor=floor,
        pin=pin,
        cpu_limit=cpu_limit,
        rate=rate,
        clients=clients,
        client=client,
    )
    if as_json:
        typer.echo(json.dumps(result))
        return
    pace = result["pace_s"]
    paced = (
        f"offered {result['offered_throws_per_s']:g} throws/s, a throw every {pace:g} s per table"
        if pace
        else "closed loop"
    )
    cpu = result["server_cpu_cores"]
    memory = result["server_rss_mb"]
    typer.echo(
        f"{result['throws']} throws in {result['seconds']:.1f} s: "
        f"{result['throws_per_s']:.0f} throws/s; latency p50 {result['p50_ms']:.1f} ms, "
        f"p99 {result['p99_ms']:.1f} ms ({result['tables']} tables x {players} players, "
        f"{result['connections']} WebSockets, {paced}, {result['instances']} instance(s), "
        f"{result['db']})"
    )
    if cpu is not None:
        typer.echo(
            f"server: {cpu:.2f} cores, {result['server_cpu_ms_per_throw']:.3f} ms CPU per "
            f"throw, {memory} MiB resident"
        )
    lang = lang_from_env()
    typer.echo(
        t(
            "bench.client.line",
            lang,
            processes=result["client_processes"],
            cores=f"{result['client_cpu_cores']:.2f}",
            busiest=f"{result['client_cpu_cores_max']:.2f}",
        )
    )
    if pin:
        pinned = result["pinned"]
        typer.echo(
            t("bench.pin.line", lang_from_env(), servers=pinned["servers"], client=pinned["client"])
        )
    if cpu_limit is not None:
        typer.echo(t("bench.cpu_limit.line", lang_from_env(), share=f"{cpu_limit:g}"))
    if floor:
        bare = result["floor"]
        typer.echo(
            t(
                "bench.floor.line",
                lang_from_env(),
                cpu=bare["server_cpu_ms_per_throw"],
                rate=f"{bare['throws_per_s']:.0f}",
                p99=bare["p99_ms"],
                ratio=result["cpu_ratio_to_floor"],
            )
        )
    runs = [("", result)] + ([(t("bench.floor.which", lang), result["floor"])] if floor else [])
    for which, run in runs:
        each = run["client_cpu_cores_each"]
        for k, used in enumerate(each, 1):
            if used > CLIENT_BUSY:
                more = min(MAX_CLIENTS, tables, 2 * len(each))
                line = t(
                    "bench.client_busy.line",
                    lang,
                    which=which,
                    k=k,
                    n=len(each),
                    cores=f"{used:.2f}",
                    busy=f"{CLIENT_BUSY:g}",
                    more=more,
                )
                typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("serve", help=_h("serve.help"), short_help=_h("serve.help.short"))(serve)
    app.command("verify", help=_h("verify.help"), short_help=_h("verify.help.short"))(verify)
    app.add_typer(bench_app, name="bench")
