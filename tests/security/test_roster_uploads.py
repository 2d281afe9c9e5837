"""Issue 16: a roster upload can take neither the memory nor the event loop, and never a 500.

Before the fix a 1,120-byte XLSX with ``<row r="20000000">`` cost +1,380 MB, 4,998 rows with one
cell in column ZZZ cost +1.44 GB and 5.8 s on the event loop, a CRC failure, deflate64 or a
5,000-digit row number was a 500, and uploads had neither a rate limit nor a cap. Each upload
here goes to a real ``bobing serve``, whose peak resident memory (``VmHWM``) is read before and
after; the gate is also driven in-process with a reader held open, to see the cap and the free
event loop without timing.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

import pytest
from sectools import NO_LIMITS, problem_of, served

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "organizer"))
from xlsxtools import MAIN, inline, workbook

from bobing.organizer import Person
from bobing.tables.limits import Limits
from bobing.tables.problems import ApiError
from bobing.web.routes import events

UPLOAD = "/api/events/roster?format=xlsx&lang=en"
READABLE = ("the file is not a readable XLSX workbook", "the roster is too large")
"""The English details of ``bad_xlsx`` and ``roster_too_large``: a clear refusal, not a 500."""
MEMORY_BOUND = 60_000_000
"""Bytes the server's peak resident memory may grow by over all the hostile uploads."""


def peak_rss(pid: int) -> int:
    """The process's peak resident set (``VmHWM``), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def crc_failure() -> bytes:
    data = bytearray(workbook(f"<row>{inline('A1', '张三' * 50)}</row>"))
    at = data.index(b"xl/worksheets/sheet1.xml") + len("xl/worksheets/sheet1.xml") + 10
    data[at] ^= 0xFF
    return bytes(data)


def deflate64() -> bytes:
    data = bytearray(workbook(f'<row r="1">{inline("A1", "张三")}</row>'))
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(signature)
        while at >= 0:
            data[at + offset : at + offset + 2] = (9).to_bytes(2, "little")
            at = data.find(signature, at + 4)
    return bytes(data)


def utf16_entity() -> bytes:
    return workbook(
        (
            '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE worksheet [<!ENTITY x "ZhangSan">]>'
            f'<worksheet xmlns="{MAIN}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is>'
            "<t>&x;</t></is></c></row></sheetData></worksheet>"
        ).encode("utf-16")
    )


HOSTILE = {
    "far row": workbook(f'<row r="20000000">{inline("A20000000", "张三")}</row>'),
    "billion row": workbook(f'<row r="1000000000">{inline("A1000000000", "张三")}</row>'),
    "5000-digit row": workbook(f'<row r="{"9" * 5000}">{inline("A1", "张三")}</row>'),
    "non-numeric row": workbook(f'<row r="x">{inline("A1", "张三")}</row>'),
    "column ZZZ": workbook(
        "".join(f'<row r="{r}">{inline(f"ZZZ{r}", "x")}</row>' for r in range(1, 4999))
    ),
    "column past XFD": workbook(f'<row r="1">{inline("ZZZZ1", "张三")}</row>'),
    "crc": crc_failure(),
    "deflate64": deflate64(),
    "utf-16 entity": utf16_entity(),
    "not a zip": b"PK\x03\x04" + b"\x00" * 200,
}


async def test_hostile_workbooks_are_a_422_with_the_memory_bounded(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS, "roster_per_minute=0") as server:
        await server.http.get("/api/health")
        before = peak_rss(server.proc.pid)
        for what, data in HOSTILE.items():
            response = await server.http.post(
                "/api/events/roster?format=xlsx&lang=en", content=data
            )
            problem = problem_of(response, 422, "invalid_event")
            assert problem["detail"] in READABLE, (what, problem)
            assert response.headers.get("connection") != "close", what
        grown = peak_rss(server.proc.pid) - before
        assert grown < MEMORY_BOUND, f"+{grown / 1e6:.0f} MB"
        # Names from phonetic-annotated shared strings stay the names.
        shared = (
            f'<sst xmlns="{MAIN}"><si><t>张三</t><rPh sb="0" eb="2"><t>ZhangSan</t></rPh></si>'
            "</sst>"
        )
        good = workbook('<row r="1"><c r="A1" t="s"><v>0</v></c></row>', shared)
        response = await server.http.post("/api/events/roster?format=xlsx", content=good)
        assert response.json()["people"] == [{"name": "张三", "group": None}]


async def test_roster_uploads_have_a_rate_limit(tmp_path: Path) -> None:
    async with served(tmp_path, "roster_per_minute=2", "tarpit_seconds=0") as server:
        for _ in range(2):
            ok = await server.http.post("/api/events/roster?format=text", content="张三\n李四")
            assert ok.status_code == 200, ok.text
        response = await server.http.post("/api/events/roster?format=text", content="张三")
        problem = problem_of(response, 429, "rate_limited")
        assert problem["params"]["action"] == "roster"
        assert int(response.headers["retry-after"]) >= 1


async def test_the_gate_caps_readers_and_keeps_the_loop_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    started = threading.Semaphore(0)

    def slow_reader(data: bytes, fmt: str) -> tuple[Person, ...]:
        started.release()
        assert release.wait(30)
        return (Person("张三"),)

    monkeypatch.setattr(events, "read_roster", slow_reader)
    gate = events.RosterGate(Limits(roster_workers=1, roster_queue=1))
    first = asyncio.ensure_future(gate.read(b"x", "text"))
    second = asyncio.ensure_future(gate.read(b"x", "text"))
    await asyncio.to_thread(started.acquire)  # the first is being read, in a thread
    # The event loop is free meanwhile, and a third upload is refused at once.
    with pytest.raises(ApiError) as refused:
        await gate.read(b"x", "text")
    assert refused.value.code == "busy" and refused.value.params["retry_after"] >= 1
    release.set()
    assert await first == (Person("张三"),) and await second == (Person("张三"),)
    assert gate._admitted == 0


async def test_a_roster_is_a_file_not_json(tmp_path: Path) -> None:
    # The JSON checks are for JSON bodies: a text roster naming "Infinity" is a roster.
    async with served(tmp_path, *NO_LIMITS) as server:
        for body in (b"Infinity", b"NaN", b"1e400"):
            response = await server.http.post("/api/events/roster?format=text", content=body)
            assert response.status_code == 200, response.text
            assert response.json()["people"] == [{"name": body.decode(), "group": None}]
