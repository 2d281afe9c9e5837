"""Transport limits on a real ``bobing serve`` process (issue 9): raw sockets for half-sent and
silent requests and the per-address cap, real WebSocket clients for odd frames.

The server runs with small limits (1 s timeouts, 8 connections per address) so that every
case ends quickly; each wait is bounded by a socket timeout, and a test fails if the server
does not act before it runs out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from securitytools import Serve

CAP = 8
WAIT = 20.0
"""Upper bound of any wait: far above the 1 s limits, so only a server that never acts fails."""
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    server = Serve(
        tmp_path_factory.mktemp("transport"),
        "--header-timeout",
        "1",
        "--idle-timeout",
        "1",
        "--max-connections-per-address",
        str(CAP),
        "--max-frame-bytes",
        "4096",
        env={"BOBING_MAX_BODY_BYTES": "65536"},  # the variable works as well as the option
    )
    try:
        yield server
    finally:
        server.stop()
    assert "Traceback" not in server.log(), server.log()


def raw(served: Serve) -> socket.socket:
    sock = socket.create_connection((served.host, served.port), timeout=WAIT)
    sock.settimeout(WAIT)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or WAIT passes: a failure)."""
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def response(data: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    return status, json.loads(body) if body.startswith(b"{") else {}


def request(
    served: Serve,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(served.url + path, data=body, method=method)
    for name, value in (headers or {"Content-Type": "application/json"}).items():
        req.add_header(name, value)
    try:
        with OPENER.open(req, timeout=WAIT) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def new_table(served: Serve) -> dict[str, Any]:
    status, created = request(served, "POST", "/api/tables", b'{"name": "limits"}')
    assert status == 201, created
    return created


def test_a_half_sent_request_is_answered_408_and_closed(served: Serve) -> None:
    with raw(served) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        status, problem = response(read_all(sock))  # read_all returns only once it is closed
    assert status == 408 and problem["code"] == "request_timeout"
    assert problem["params"] == {"seconds": "1"}


def test_a_silent_connection_is_closed(served: Serve) -> None:
    with raw(served) as sock:
        status, problem = response(read_all(sock))
    assert status == 408 and problem["code"] == "request_timeout"


def test_a_stalled_body_is_answered_408(served: Serve) -> None:
    with raw(served) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"name": '
        )
        status, problem = response(read_all(sock))
    assert status == 408 and problem["code"] == "request_timeout"


def test_a_chunked_body_over_the_limit_is_413(served: Serve) -> None:
    with raw(served) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        )
        chunk = b"[" * 8192
        with contextlib.suppress(OSError):  # the server may answer and close mid-way
            for _ in range(10):
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sock.sendall(b"0\r\n\r\n")
        status, problem = response(read_all(sock))
    assert status == 413 and problem["code"] == "too_large"
    assert problem["params"]["limit"] == 65536


def test_headers_over_the_limit_are_431(served: Serve) -> None:
    with raw(served) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000)
        status, problem = response(read_all(sock))
    assert status == 431 and problem["code"] == "headers_too_large"


def test_silent_sockets_cannot_lock_out_new_clients(served: Serve) -> None:
    """The issue's lock-out, scaled down: three times the cap of silent sockets from one
    address. Those over the cap are refused at once (429); the rest are closed by the header
    timeout; then a new client is served."""
    socks = [raw(served) for _ in range(3 * CAP)]
    try:
        answers = [response(read_all(sock)) for sock in socks]
    finally:
        for sock in socks:
            sock.close()
    codes = [problem["code"] for _, problem in answers]
    assert codes.count("too_many_connections") >= 2 * CAP
    assert set(codes) == {"too_many_connections", "request_timeout"}
    refused = next(a for a in answers if a[0] == 429)
    assert refused[1]["params"] == {"limit": CAP}
    assert request(served, "GET", "/api/health")[0] == 200


def test_the_issue_s_lock_out_is_gone(tmp_path: Path) -> None:
    """The issue's numbers: 1,100 silent sockets against a server limited to 1,024 open files
    (the common default), at the default connection cap. They come from 127.0.0.2; a player
    at 127.0.0.3 is served while they are all still open, and every silent one is closed by
    the server (refused at once over the cap, or after the header timeout)."""
    server = Serve(tmp_path, "--header-timeout", "2", max_files=1024)
    attackers: list[socket.socket] = []
    try:
        for _ in range(1100):
            sock = socket.socket()
            sock.settimeout(WAIT)
            sock.bind(("127.0.0.2", 0))
            sock.connect((server.host, server.port))
            attackers.append(sock)
        player = socket.socket()
        player.settimeout(WAIT)
        player.bind(("127.0.0.3", 0))
        player.connect((server.host, server.port))
        with player:
            player.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            status, body = response(read_all(player))
        assert (status, body) == (200, {"status": "ok"})
        codes = Counter(response(read_all(sock))[1]["code"] for sock in attackers)
        assert codes == {"too_many_connections": 1000, "request_timeout": 100}
    finally:
        for sock in attackers:
            sock.close()
        server.stop()
    assert "Traceback" not in server.log()


async def test_websockets_count_against_the_cap(served: Serve) -> None:
    code = new_table(served)["code"]
    url = f"ws://{served.host}:{served.port}/ws/tables/{code}"
    sockets = []
    try:
        for _ in range(CAP):
            ws = await websockets.connect(url, open_timeout=WAIT, close_timeout=1)
            sockets.append(ws)
            await asyncio.wait_for(ws.recv(), WAIT)  # welcome
        # the address is full: neither HTTP nor another WebSocket gets in
        status, problem = await asyncio.to_thread(request, served, "GET", "/api/health")
        assert status == 429 and problem["code"] == "too_many_connections"
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            await websockets.connect(url, open_timeout=WAIT)
        assert refused.value.response.status_code == 429
        # one closes; one more may come in
        await sockets.pop().close()
        for _ in range(100):
            status, _ = await asyncio.to_thread(request, served, "GET", "/api/health")
            if status == 200:
                break
            await asyncio.sleep(0.05)
        assert status == 200
    finally:
        for ws in sockets:
            await ws.close()


async def frames(served: Serve, *sent: str | bytes) -> list[dict[str, Any]]:
    """Send frames to a fresh spectator socket; return the reply to each (then a pong)."""
    code = new_table(served)["code"]
    url = f"ws://{served.host}:{served.port}/ws/tables/{code}"
    async with websockets.connect(url, open_timeout=WAIT, close_timeout=1) as ws:
        for _ in range(2):  # welcome, then the first events frame
            await asyncio.wait_for(ws.recv(), WAIT)
        replies = []
        for frame in (*sent, json.dumps({"type": "ping", "id": "still-open"})):
            await ws.send(frame)
            replies.append(json.loads(await asyncio.wait_for(ws.recv(), WAIT)))
    pong = replies[-1]
    assert (pong["type"], pong["id"]) == ("pong", "still-open"), "the socket stays usable"
    return replies[:-1]


async def test_odd_websocket_frames_get_clean_error_frames(served: Serve) -> None:
    deep = "[" * 2000 + "]" * 2000
    surrogate = '{"type": "\\ud800", "id": "s-1"}'
    name = '{"type": "throw", "id": "s-2", "player": "\\udfff"}'
    replies = await frames(served, deep, surrogate, name, "x" * 5000, "not json", "[1]")
    assert [(r["type"], r["code"], r["status"]) for r in replies] == [
        ("error", "too_deep", 400),
        ("error", "bad_text", 400),
        ("error", "bad_text", 400),
        ("error", "too_large", 413),
        ("error", "malformed", 400),
        ("error", "malformed", 400),
    ]
    assert replies[1]["params"] == {"char": "\\ud800"}
    assert replies[3]["params"] == {"size": 5000, "limit": 4096}


async def test_a_frame_far_over_the_limit_closes_the_socket(served: Serve) -> None:
    code = new_table(served)["code"]
    url = f"ws://{served.host}:{served.port}/ws/tables/{code}"
    async with websockets.connect(url, open_timeout=WAIT, close_timeout=1) as ws:
        for _ in range(2):
            await asyncio.wait_for(ws.recv(), WAIT)
        await ws.send("x" * (16 * 4096 + 1))
        with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), WAIT)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"name": "\\ud800"}', "bad_text"),
        (b'{"name": "x", "rules": {"\\udc00": 1}}', "bad_text"),
        (b'{"name": ' + b"[" * 2000 + b"]" * 2000 + b"}", "too_deep"),
        (b'{"name": "x", "prizes": ' + b'{"a": ' * 40 + b"1" + b"}" * 40 + b"}", "too_deep"),
        (b'{"name": "x"', "malformed"),
    ],
)
def test_odd_rest_bodies_are_400_and_change_nothing(served: Serve, body: bytes, code: str) -> None:
    created = new_table(served)
    for path in ("/api/tables", f"/api/tables/{created['code']}/join"):
        status, problem = request(served, "POST", path, body)
        assert (status, problem["code"]) == (400, code), problem
        assert problem["title"] and problem["detail"]
    status, state = request(served, "GET", f"/api/tables/{created['code']}")
    assert status == 200 and state["players"] == []
    # a well-formed surrogate pair is text, and welcome
    status, joined = request(
        served, "POST", f"/api/tables/{created['code']}/join", b'{"name": "\\ud83c\\udf15"}'
    )
    assert status == 201 and joined["name"] == "🌕"


def test_translated_problems(served: Serve) -> None:
    for lang, title, detail in (
        ("zh-Hans", "不是有效的 Unicode 文字", "消息里有一个落单的代理码位（\\ud800），"),
        ("zh-Hant", "不是有效的 Unicode 文字", "訊息裡有一個落單的代理碼位（\\ud800），"),
        ("en", "Not Unicode text", "The message holds a lone surrogate (\\ud800)"),
    ):
        status, problem = request(
            served, "POST", f"/api/tables?lang={lang}", b'{"name": "\\ud800"}'
        )
        assert status == 400 and problem["title"] == title
        assert problem["detail"].startswith(detail), problem["detail"]


@pytest.mark.parametrize(
    "path",
    [
        b"/api/tables/AB%0D%0AX/results.csv",
        b"/api/tables/%0aK7Q2MX/results.csv",
        b"/api/tables/K7Q2MX%00/record",
    ],
)
def test_control_characters_in_a_path_are_404(served: Serve, path: bytes) -> None:
    with raw(served) as sock:
        sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, problem = response(read_all(sock))
    assert status == 404 and problem["code"] == "bad_path"


def test_the_limits_are_documented() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text()
    for name in (
        "--header-timeout",
        "BOBING_HEADER_TIMEOUT",
        "--idle-timeout",
        "BOBING_IDLE_TIMEOUT",
        "--max-connections-per-address",
        "BOBING_MAX_CONNECTIONS_PER_ADDRESS",
        "--max-header-bytes",
        "BOBING_MAX_HEADER_BYTES",
        "--max-body-bytes",
        "BOBING_MAX_BODY_BYTES",
        "--max-frame-bytes",
        "BOBING_MAX_FRAME_BYTES",
    ):
        assert f"`{name}`" in doc, name


async def test_non_finite_and_huge_numbers_in_frames_get_clean_error_frames(served: Serve) -> None:
    # Issue 16: the one JSON parser refuses them for frames as for REST bodies.
    sent = [
        f'{{"type": "throw", "id": "n-{i}", "dice": {number}}}'
        for i, number in enumerate(["NaN", "Infinity", "-Infinity", "1e400", "9" * 4000])
    ]
    replies = await frames(served, *sent)
    assert [(r["type"], r["code"], r["status"]) for r in replies] == [
        ("error", "bad_number", 400)
    ] * 5
    assert replies[4]["params"]["limit"] == 30
