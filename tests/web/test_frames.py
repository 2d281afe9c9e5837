"""The ``events`` frame on the wire (``bobing/tables/frames.py``, docs/protocol.md): compact
events and a patch in place of the state, the same bytes for every phone of a table, the
whole state only on joining and resyncing; the browser's decoder (``static/js/frames.js``)
gives what the Python one gives."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import given
from hypothesis import strategies as st
from webtools import (
    SMALL_PRIZES,
    TIMEOUT,
    Client,
    command_over_http,
    create_table,
    join,
    root_conftest,
    running_server,
    subprotocols,
    ws_url,
)

from bobing.tables.frames import (
    StaleBase,
    apply_patch,
    compact_events,
    decode_events,
    expand_events,
    implied_state,
    state_patch,
)
from bobing.web.app import create_app
from bobing.web.hub import text_frame
from bobing.web.serve import uvicorn_options as serve_uvicorn_options
from bobing.web.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
FRAMES_JS = ROOT / "bobing" / "web" / "static" / "js" / "frames.js"
NAMES = ["张三丰", "李四", "王五", "赵六", "钱七", "孙八", "周九", "吴十", "郑一", "冯二"]

scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "乙", ""])
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "甲", "c.d"]), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = ["next", "turn", "result", "players", "last_seq"]


@given(
    st.fixed_dictionaries(dict.fromkeys(KEYS, values)),
    st.fixed_dictionaries(dict.fromkeys(KEYS, values)),
)
def test_a_patch_turns_the_old_state_into_the_new(old: dict[str, Any], new: dict[str, Any]) -> None:
    patched = copy.deepcopy(old)
    apply_patch(patched, state_patch(old, new))
    assert json.dumps(patched, sort_keys=True) == json.dumps(new, sort_keys=True)


def test_a_patch_names_only_what_changed() -> None:
    old = {"next": "甲", "result": {"pool": {"yixiu": 32, "erju": 16}, "holdings": {"甲": {}}}}
    new = {"next": "乙", "result": {"pool": {"yixiu": 31, "erju": 16}, "holdings": {"甲": {}}}}
    assert state_patch(old, new) == [["next", "乙"], ["result", "pool", "yixiu", 31]]
    # True is not 1, and an object that lost a key is sent whole
    assert state_patch({"a": 1}, {"a": True}) == [["a", True]]
    assert state_patch({"a": {"x": False}}, {"a": {"x": 0}}) == [["a", "x", 0]]
    assert state_patch({"a": [1, 2]}, {"a": [1, 2.0]}) == [["a", [1, 2.0]]]
    assert state_patch({"a": {"x": 1, "y": 2}}, {"a": {"x": 1}}) == [["a", {"x": 1}]]


events_lists = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["dice", "thrown", "awarded"]),
            "at": st.sampled_from(["t1", "t2"]),
        },
        optional={
            "throw": st.integers(1, 3),
            "player": st.sampled_from(["甲", "乙"]),
            "dice": st.sampled_from(["444412", None]),
        },
    ),
    max_size=5,
)


@given(events_lists, st.integers(0, 50))
def test_compact_events_expand_to_the_log(events: list[dict[str, Any]], after: int) -> None:
    logged = [{"seq": after + 1 + i, **e} for i, e in enumerate(events)]
    common, rest = compact_events(logged)
    frame = {"type": "events", "seq": after + 1, "common": common, "events": rest}
    assert expand_events(frame) == logged
    assert all("seq" not in e and not common.keys() & e.keys() for e in rest)


def test_a_thrown_event_says_the_last_throw_and_the_turn() -> None:
    state = {"last_seq": 4, "turn": 1, "throw_count": 0, "last_throw": None, "next": "甲"}
    events = [
        {"seq": 5, "type": "dice", "throw": 1, "player": "甲"},
        {"seq": 6, "type": "thrown", "throw": 1, "player": "甲", "dice": "123456", "hand": "x"},
    ]
    implied = implied_state(state, events)
    assert implied == {
        "last_seq": 6,
        "turn": 2,
        "throw_count": 1,
        "last_throw": {"throw": 1, "player": "甲", "dice": "123456", "hand": "x"},
        "next": "甲",
    }
    assert state["last_seq"] == 4  # a new object


def test_a_patch_on_another_state_asks_for_a_resync() -> None:
    frame = {"type": "events", "seq": 8, "events": [{"type": "paused"}], "patch": []}
    with pytest.raises(StaleBase):
        decode_events(frame, {"last_seq": 6})
    with pytest.raises(StaleBase):
        decode_events(frame, None)
    events, state = decode_events(frame, {"last_seq": 7})
    assert events == [{"seq": 8, "type": "paused"}] and state == {"last_seq": 8}


async def _frames(ws: Any) -> dict[str, Any]:
    """The next ``events`` frame's text and its parse."""
    while True:
        text = await asyncio.wait_for(ws.recv(), TIMEOUT)
        frame = json.loads(text)
        if frame["type"] == "events":
            return {"text": text, "frame": frame}


async def test_every_phone_gets_the_same_small_frame_and_holds_the_servers_state(
    http: httpx.AsyncClient, server: str, tmp_path: Path
) -> None:
    """A whole game at a table of ten: after each throw every socket receives the same bytes,
    with a patch and no state, and the decoded state equals the server's; the browser's
    decoder, fed the same frames, holds the same states."""
    created = await create_table(http, mode="online", prizes=SMALL_PRIZES)
    code = created["code"]
    tokens = {name: (await join(http, code, name))["player_token"] for name in NAMES}
    sockets = [
        await websockets.connect(ws_url(server, code), subprotocols=subprotocols([tokens[n]]))
        for n in NAMES[:3]
    ]
    try:
        first = [await _frames(ws) for ws in sockets]
        assert all("state" in f["frame"] for f in first)
        events, state = decode_events(first[0]["frame"], None)
        texts = [first[0]["text"]]
        states = [state]
        await command_over_http(http, code, created["host_token"], {"type": "start"})
        while True:
            got = [await _frames(ws) for ws in sockets]
            assert len({g["text"] for g in got}) == 1, "one encoding for every socket"
            frame = got[0]["frame"]
            assert "state" not in frame and "patch" in frame
            more, state = decode_events(frame, state)
            assert state is not None
            events += more
            texts.append(got[0]["text"])
            states.append(state)
            server_state = (await http.get(f"/api/tables/{code}")).json()
            assert state == server_state, f"after seq {state['last_seq']}"
            if state["status"] == "over":
                break
            if any(e["type"] == "thrown" for e in more):
                assert len(got[0]["text"].encode()) < 1000, got[0]["text"]
            player = state["next"]
            await command_over_http(
                http, code, tokens[player], {"type": "throw", "turn": state["turn"]}
            )
        logged = (await http.get(f"/api/tables/{code}/events")).json()["events"]
        assert events == logged
    finally:
        for ws in sockets:
            await ws.close()
    assert [s["last_seq"] for s in states] == sorted({s["last_seq"] for s in states})
    assert_browser_decodes_alike(texts, states, tmp_path)


def assert_browser_decodes_alike(
    texts: list[str], states: list[dict[str, Any]], tmp_path: Path
) -> None:
    """``frames.js`` decodes the frames one after another into the same states (and refuses a
    patch on a state it does not hold)."""
    node = root_conftest().need_node()
    (tmp_path / "frames.json").write_text(json.dumps(texts), encoding="utf-8")
    script = f"""
import {{ readFileSync }} from "node:fs";
import {{ decodeEvents }} from {json.dumps(FRAMES_JS.as_uri())};
const texts = JSON.parse(readFileSync({json.dumps(str(tmp_path / "frames.json"))}, "utf8"));
let base = null;
const out = [];
for (const text of texts) {{
  const decoded = decodeEvents(JSON.parse(text), base);
  base = decoded.base;
  out.push(decoded.state);
}}
const stale = decodeEvents(JSON.parse(texts[texts.length - 1]), {{ last_seq: -5 }});
console.log(JSON.stringify({{ out, stale }}));
"""
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["stale"] is None
    assert result["out"] == states


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70000])
def test_a_frame_is_framed_as_rfc_6455_says(size: int) -> None:
    payload = b"x" * size
    framed = text_frame(payload)
    assert framed[0] == 0x81  # FIN, text
    length, rest = framed[1], framed[2:]
    assert length & 0x80 == 0  # a server's frames are not masked
    if size < 126:
        assert length == size
    elif size < 65536:
        assert length == 126 and int.from_bytes(rest[:2], "big") == size
        rest = rest[2:]
    else:
        assert length == 127 and int.from_bytes(rest[:8], "big") == size
        rest = rest[8:]
    assert rest == payload


async def test_table_frames_are_written_once_framed_to_every_socket(db_url: str) -> None:
    """Under Uvicorn as ``bobing serve`` runs it, a table socket writes the table's framed
    frame to its transport directly, and the phones read what they would have read."""
    settings = Settings(db_url=db_url)
    app = create_app(settings)
    async with (
        running_server(settings, app=app, **serve_uvicorn_options(settings)) as base,
        httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as http,
    ):
        created = await create_table(http, mode="online")
        code = created["code"]
        phones = [await Client.connect(base, code, name=f"phone {i}") for i in range(3)]
        connections = app.state.hub.tables[code]
        assert len(connections) == 3
        assert all(c.writer is not None for c in connections), "the direct path is not taken"
        for name in ("甲", "乙"):
            await join(http, code, name)
        state = (await http.get(f"/api/tables/{code}")).json()
        for phone in phones:
            await phone.reach(state["last_seq"])
            assert phone.state == state
