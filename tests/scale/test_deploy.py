"""deploy/: the nginx configuration carries WebSockets to several instances and fails over
when one dies; compose.yaml and the systemd unit start instances the way the docs say."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import ssl
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import websockets
import yaml
from scaletools import DEPLOY, Cluster, Nginx
from test_instances import NAMES, logged_events, throw_once
from webtools import SMALL_PRIZES, TIMEOUT, Client, create_table, join, running_server

from bobing.web.serve import KEEP_ALIVE
from bobing.web.settings import Settings

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "deploy.md").read_text(encoding="utf-8")
BOBING = str(Path(sys.executable).with_name("bobing"))


def need_nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else "")
    if not found:
        pytest.skip("the proxy tests need nginx (apt-get install nginx-light)")
    return found


def test_nginx_sets_the_client_address_itself() -> None:
    conf = (DEPLOY / "nginx" / "nginx.conf").read_text()
    # Replaced, never appended: a phone cannot pretend to be another address.
    assert "X-Forwarded-For $remote_addr;" in conf
    assert "$proxy_add_x_forwarded_for" not in conf
    assert re.search(r"limit_conn per_address \d+;", conf)


def test_an_httpx_client_closes_an_idle_connection_before_the_server_does() -> None:
    """With both at 5 s (Uvicorn's default then), a request sent after a pause of just under
    5 s met the server closing the connection: "Server disconnected without sending a
    response" (tests/web/test_event_programme.py in CI, after two `bobing verify` runs)."""
    assert httpx.Limits().keepalive_expiry is not None
    assert httpx.Limits().keepalive_expiry < KEEP_ALIVE


def test_the_proxy_closes_an_idle_upstream_connection_before_the_instance_does() -> None:
    """Else a request nginx sends on a connection the instance is closing is lost (a POST,
    which nginx does not retry, comes back 502)."""
    conf = (DEPLOY / "nginx" / "nginx.conf").read_text()
    upstreams = re.findall(r"upstream \w+ \{(.*?)\}", conf, re.S)
    assert len(upstreams) == 2
    for block in upstreams:
        assert "keepalive " in block  # idle connections are kept, so their timeout matters
        found = re.search(r"keepalive_timeout (\d+)s;", block)
        assert found, "nginx's default keepalive_timeout (60 s) outlives the instance's"
        assert int(found.group(1)) < KEEP_ALIVE
    caddy = (DEPLOY / "Caddyfile").read_text()
    found = re.search(r"transport http \{[^}]*keepalive (\d+)s", caddy)
    assert found, "Caddy's default keep-alive (2 min) outlives the instance's"
    assert int(found.group(1)) < KEEP_ALIVE


def test_nginx_config_is_valid(tmp_path: Path) -> None:
    proxy = Nginx(need_nginx(), tmp_path, ["127.0.0.1:8001", "127.0.0.1:8002"])
    checked = proxy.check()
    assert checked.returncode == 0, checked.stderr
    assert "syntax is ok" in checked.stderr


def test_nginx_config_with_tls_is_valid(tmp_path: Path) -> None:
    proxy = Nginx(need_nginx(), tmp_path, ["127.0.0.1:8001"], tls=True)
    checked = proxy.check()
    assert checked.returncode == 0, checked.stderr
    shipped = (DEPLOY / "nginx" / "nginx.conf").read_text()
    # HTTPS and compression are on as shipped, not left in a comment
    assert re.search(r"^\s+listen 443 ssl", shipped, re.M)
    assert re.search(r"^\s+gzip on;", shipped, re.M)
    assert re.search(r"^\s+return 301 https://", shipped, re.M)


async def test_nginx_serves_https_compressed_and_sends_http_there(tmp_path: Path) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}"
    async with running_server(Settings(db_url=database)) as upstream:
        proxy = Nginx(need_nginx(), tmp_path, [upstream], tls=True)
        proxy.start()
        try:
            async with httpx.AsyncClient(verify=False, timeout=TIMEOUT) as http:
                page = await http.get(proxy.url + "/", headers={"Accept-Encoding": "br"})
                assert page.status_code == 200
                assert page.headers["strict-transport-security"].startswith("max-age=")
                module = re.search(r'<script type="module" src="([^"]+)"', page.text)
                assert module
                js = await http.get(proxy.url + module.group(1), headers={"Accept-Encoding": "br"})
                assert js.headers["content-encoding"] == "br"
                assert "immutable" in js.headers["cache-control"]
                api = await http.get(proxy.url + "/openapi.json")
                assert api.headers["content-encoding"] == "gzip"
                async with httpx.AsyncClient(
                    base_url=proxy.url, verify=False, timeout=TIMEOUT
                ) as through:
                    created = await create_table(through)
                moved = await http.get(proxy.plain_url + f"/t/{created['code']}")
                assert moved.status_code == 301
                assert moved.headers["location"] == f"https://127.0.0.1/t/{created['code']}"
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            wss = proxy.url.replace("https://", "wss://") + f"/ws/tables/{created['code']}"
            async with websockets.connect(wss, ssl=context) as socket:
                welcome = json.loads(await asyncio.wait_for(socket.recv(), TIMEOUT))
                assert welcome["type"] == "welcome"
        finally:
            proxy.stop()


async def test_nginx_logs_no_token_and_no_claim_key(tmp_path: Path) -> None:
    """Issue 29: a claim link's key and a socket's tokens were in request lines, so in
    nginx's access log. Through the shipped nginx: an old card's page (its key still in the
    query), a claim (the key in its body), a host's and a seat's socket (their tokens in the
    handshake's Sec-WebSocket-Protocol) and an old page's socket (``?token=``) all work, and
    the access log names each path and no secret."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}"
    async with running_server(Settings(db_url=database)) as upstream:
        proxy = Nginx(need_nginx(), tmp_path, [upstream])
        proxy.start()
        try:
            async with httpx.AsyncClient(base_url=proxy.url, timeout=TIMEOUT) as http:
                people = ["阿明", "阿华", "阿芳", "阿强"]
                body = {"name": "日志", "people": people, "tables": 1, "seating": "in_order"}
                event = (await http.post("/api/events", json=body)).json()
                code, organiser = event["code"], event["organizer_token"]
                seats = await http.get(
                    f"/api/events/{code}/seats", headers={"Authorization": f"Bearer {organiser}"}
                )
                seat = seats.json()["tables"][0]["seats"][0]
                card = await http.get(
                    f"/e/{code}/t/1", params={"name": seat["name"], "key": seat["claim_key"]}
                )
                assert card.status_code == 200
                claim = await http.post(
                    f"/api/events/{code}/tables/1/claim",
                    json={"name": seat["name"], "key": seat["claim_key"]},
                )
                assert claim.status_code == 201, claim.text
                player_token = claim.json()["player_token"]
                table = event["tables"][0]
                secrets = [organiser, seat["claim_key"], player_token, table["host_token"]]
            host = await Client.connect(proxy.url, table["code"], [table["host_token"]])
            player = await Client.connect(proxy.url, table["code"], [player_token])
            assert host.welcome is not None and host.welcome["roles"] == ["host"]
            assert player.welcome is not None and player.welcome["player"] == seat["name"]
            old_page = proxy.url.replace("http://", "ws://") + (
                f"/ws/tables/{table['code']}?token={table['host_token']}&after=0"
            )
            async with websockets.connect(old_page) as legacy:
                assert json.loads(await legacy.recv())["roles"] == ["host"]
            await host.close()
            await player.close()
            log = proxy.folder / "bobing.access.log"
            wanted = [f"/e/{code}/t/1 ", "/claim ", f"/ws/tables/{table['code']} "]
            deadline = asyncio.get_running_loop().time() + TIMEOUT
            # a socket's line is written when it closes
            while asyncio.get_running_loop().time() < deadline:
                text = log.read_text() if log.exists() else ""
                if all(text.count(w) >= (3 if "/ws/" in w else 1) for w in wanted):
                    break
                await asyncio.sleep(0.05)
        finally:
            proxy.stop()
    text = log.read_text()
    for want in wanted:
        assert want in text, (want, text)
    for secret in secrets:
        assert secret not in text, text
    assert "key=" not in text and "token" not in text and "?" not in text, text


def test_compose_runs_instances_on_postgres_and_redis_behind_the_proxy() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    apps = sorted(name for name in services if re.fullmatch(r"app\d+", name))
    assert len(apps) >= 2
    for name in apps:
        env = services[name]["environment"]
        assert env["BOBING_DB"].startswith("postgresql+asyncpg://")
        assert env["BOBING_BROKER"].startswith("redis://redis:")
        assert services[name]["ulimits"]["nofile"]["soft"] >= 20_000
        # Behind the proxy: its X-Forwarded-For is believed, the per-address cap is its job.
        assert (
            env["BOBING_FORWARDED_ALLOW_IPS"] and env["BOBING_MAX_CONNECTIONS_PER_ADDRESS"] == "0"
        )
    upstream = (DEPLOY / "nginx" / "upstream.compose.conf").read_text()
    assert sorted(re.findall(r"^server (app\d+):8000", upstream, re.M)) == apps
    mounted = " ".join(services["proxy"]["volumes"])
    assert "nginx.conf:/etc/nginx/nginx.conf" in mounted
    assert "upstream.compose.conf:/etc/nginx/bobing-upstream.conf" in mounted
    assert {"postgres", "redis"} <= set(services)
    caddy = (DEPLOY / "Caddyfile").read_text()
    assert all(f"{name}:8000" in caddy for name in apps)


def test_systemd_unit_uses_real_options_and_documented_settings() -> None:
    unit = (DEPLOY / "systemd" / "bobing@.service").read_text()
    start = re.search(r"^ExecStart=\S+/bobing (serve .*)$", unit, re.M)
    assert start is not None
    help_text = subprocess.run(
        [BOBING, "serve", "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    for option in re.findall(r"--[a-z-]+", start.group(1)):
        assert option in help_text, option
    env_names = re.findall(
        r"^(BOBING_[A-Z_]+)=", (DEPLOY / "systemd" / "bobing.env").read_text(), re.M
    )
    assert {"BOBING_DB", "BOBING_BROKER"} <= set(env_names)
    for name in env_names:
        assert name in DOCS, f"{name} is not described in docs/deploy.md"
    for path in ("compose.yaml", "nginx/nginx.conf", "Caddyfile", "systemd/bobing@.service"):
        assert f"deploy/{path}" in DOCS, path


async def test_phones_behind_nginx_survive_an_instance_kill(
    cluster: Cluster, redis_url: str, tmp_path: Path
) -> None:
    first, second = cluster(2, redis_url)
    proxy = Nginx(need_nginx(), tmp_path, [first.url, second.url])
    proxy.start()
    try:
        base = proxy.url
        async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as http:
            created = await create_table(http, mode="online", prizes=SMALL_PRIZES)
            code = created["code"]
            tokens = {n: (await join(http, code, n))["player_token"] for n in NAMES}
        host = await Client.connect(base, code, [created["host_token"]], name="host")
        players = {n: await Client.connect(base, code, [t], name=n) for n, t in tokens.items()}
        everyone = {"host": host, **players}
        reply = await host.command("start")
        for client in everyone.values():
            await client.reach(reply["last_seq"])
        for _ in range(3):
            reply = await throw_once(players, host)
            for client in everyone.values():
                await client.reach(reply["last_seq"])
        # nginx keeps a table's sockets on one instance (a consistent hash of its code):
        # kill that one. Which one it is shows when it is gone.
        dropped = await dropped_after(first.kill, everyone)
        survivor = second
        if not dropped:  # the table was on the other instance: bring this one back, kill that
            first.start()
            dropped = await dropped_after(second.kill, everyone)
            survivor = first
        assert sorted(dropped) == sorted(everyone), "a table's sockets were split"
        # The dropped phones reconnect to the same address (the proxy) and resume.
        tokens_of = {"host": created["host_token"], **tokens}
        for name in dropped:
            everyone[name] = await Client.connect(
                base, code, [tokens_of[name]], history=everyone[name].events, name=name
            )
        host = everyone["host"]
        players = {n: everyone[n] for n in NAMES}
        for _ in range(3):
            await host.reach(host.last_seq)
            reply = await throw_once(players, host)
            for client in everyone.values():
                await client.reach(reply["last_seq"])
        logged = await logged_events(survivor.url, code)
        for client in everyone.values():
            assert client.events == logged, client.name
    finally:
        proxy.stop()


async def dropped_after(kill: Callable[[], None], clients: dict[str, Client]) -> list[str]:
    """Run ``kill``; the names of the clients whose socket it closed."""
    kill()
    dropped = []
    for name, client in clients.items():
        try:
            await client.recv(timeout=2)
        except websockets.ConnectionClosed:
            dropped.append(name)
        except TimeoutError:
            pass
    return dropped


async def test_nginx_body_limits_match_the_app_s_per_route(tmp_path: Path) -> None:
    """Issue 16: ``client_max_body_size 64k`` everywhere turned a 107 KB CSV roster (which the
    app reads) into nginx's HTML 413. The roster route now allows what the app allows; every
    other route the app's 64 KiB, refused by nginx as the app's own problem."""
    from webtools import ServeProcess

    from bobing.organizer import MAX_ROSTER_BYTES

    app = ServeProcess(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}", tmp_path / "serve.log")
    proxy = Nginx(need_nginx(), tmp_path, [app.start()])
    proxy.start()
    try:
        async with httpx.AsyncClient(base_url=proxy.url, timeout=TIMEOUT) as http:
            note = "备注" * 35  # a column the roster does not read, as real sheets have
            roster = "".join(f"人{i:04d},组{i % 5},{note}\n" for i in range(500)).encode()
            assert 100_000 < len(roster) < MAX_ROSTER_BYTES
            read = await http.post("/api/events/roster?format=csv", content=roster)
            assert read.status_code == 200, read.text[:200]
            assert len(read.json()["people"]) == 500
            # Over the app's roster limit, under nginx's: the app's own problem.
            over = await http.post("/api/events/roster", content=b"x" * (MAX_ROSTER_BYTES + 1))
            assert over.status_code == 413
            assert over.headers["content-type"].startswith("application/problem+json")
            assert over.json()["code"] == "too_large"
            # Everywhere else 64 KiB: the app's limit, and nginx answers in the app's shape.
            for path in ("/api/tables", "/api/events/preview", "/api/odds"):
                big = await http.post(path, content=b"{" + b" " * 70_000 + b"}")
                assert big.status_code == 413, path
                assert big.headers["content-type"].startswith("application/problem+json")
                assert big.json()["code"] == "too_large"
    finally:
        proxy.stop()
        app.stop()
