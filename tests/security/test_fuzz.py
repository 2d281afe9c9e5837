"""A bounded fuzz run of the REST API, generated from its own ``/openapi.json``, and of
WebSocket frames, against a real ``bobing serve`` process.

Every answer must be below 500 (or the documented ``503 busy`` of a simulation that outlasts
``analysis_timeout``) and, when refused, an RFC 9457 problem with a code; the server
must not log a traceback; afterwards every table's log is contiguous from 1 to its head and
its cakes are conserved (held + left in the pool = the rules' prizes). Hypothesis draws the
inputs from the schema (types, ranges, required fields), mixed with values that break it
(out-of-range numbers, wrong types, hostile text, unknown fields, real and made-up codes).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from sectools import NO_LIMITS, TIMEOUT, _start  # noqa: E402
from websockets.sync.client import connect  # noqa: E402
from websockets.typing import Subprotocol  # noqa: E402

from bobing.tables import protocol  # noqa: E402

# The fuzz asks for many codes that do not exist and reacts freely: with the miss and
# reaction rates on, what a request gets back would depend on the requests before it.
FUZZ_LIMITS = (
    "misses_per_minute=0",
    "lookups_per_minute=0",
    "reactions_per_minute=0",
    "open_events_per_address=0",
)
EXAMPLES_REST = 500
EXAMPLES_WS = 200
HOSTILE_TEXT = [
    "", " ", "/dev/stdin", "../../etc/passwd", "<script>", "%00", "\u200d", "\u2800", "A\u0301",
    "９", "²", "١", "𝟙", "NaN", "-1", "1e309", "{}", "[]", "null", "x" * 300, "通行", "modern",
]  # fmt: skip


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One server for the module, with a few real tables of every mode to aim at."""
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "cwd").mkdir()
    log_path = folder / "server.log"
    proc, url = _start(
        folder / "bobing.sqlite3",
        folder / "cwd",
        (*NO_LIMITS, *FUZZ_LIMITS, "analysis_timeout=8"),
        log_path,
    )
    http = httpx.Client(base_url=url, timeout=TIMEOUT)
    tables: list[dict[str, Any]] = []
    try:
        for mode in ("online", "pass_and_play", "referee"):
            created = http.post("/api/tables", json={"name": f"fuzz {mode}", "mode": mode}).json()
            tokens = [
                http.post(f"/api/tables/{created['code']}/join", json={"name": n}).json()[
                    "player_token"
                ]
                for n in ("甲", "乙", "丙")
            ]
            tables.append({**created, "player_tokens": tokens})
        started = tables[0]
        http.post(
            f"/api/tables/{started['code']}/commands",
            json={"type": "start", "id": "fuzz-start"},
            headers={"Authorization": f"Bearer {started['host_token']}"},
        )
        schema = http.get("/openapi.json").json()
        yield {"url": url, "http": http, "tables": tables, "schema": schema}
    finally:
        http.close()
        proc.terminate()
        proc.wait(TIMEOUT)
        if proc.stdin is not None:
            proc.stdin.close()
        log = log_path.read_text("utf-8", "replace")
        assert "Traceback" not in log, log


# -- strategies from the schema ---------------------------------------------------------------

FLOATS = st.floats(allow_nan=False, allow_infinity=False)
"""JSON has no NaN or infinity (the client library refuses to send them)."""
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | FLOATS | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)  # fmt: skip
TEXT = st.sampled_from(HOSTILE_TEXT) | st.text(max_size=50)


def from_schema(schema: dict[str, Any], components: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values that fit ``schema`` (often) or break it (sometimes)."""
    if "$ref" in schema:
        return from_schema(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    if "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema.get("oneOf") or []
        return st.one_of([from_schema(o, components) for o in options])
    kind = schema.get("type")
    examples = [*schema.get("examples", [])]
    fitting: st.SearchStrategy[Any]
    if "const" in schema:
        fitting = st.just(schema["const"])
    elif "enum" in schema:
        fitting = st.sampled_from(schema["enum"])
    elif kind == "string":
        fitting = TEXT
    elif kind == "integer":
        low, high = schema.get("minimum", -(10**6)), schema.get("maximum", 10**6)
        fitting = st.integers(low, high) | st.sampled_from([low - 1, high + 1, 10**20])
    elif kind == "number":
        fitting = FLOATS
    elif kind == "boolean":
        fitting = st.booleans()
    elif kind == "null":
        fitting = st.none()
    elif kind == "array":
        fitting = st.lists(from_schema(schema.get("items", {}), components), max_size=5)
    elif kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        fitting = st.fixed_dictionaries(
            {k: from_schema(v, components) for k, v in properties.items() if k in required},
            optional={
                **{
                    k: from_schema(v, components)
                    for k, v in properties.items()
                    if k not in required
                },
                "surprise": JSON,
            },
        )  # fmt: skip
    else:
        fitting = JSON
    if examples:
        fitting = st.sampled_from(examples) | fitting
    return st.one_of(fitting, fitting, fitting, JSON)


HEAVY = ("/api/game-length", "/api/charts/{kind}.svg")
"""Each new (rules, players) is a simulation: aimed at a few cheap, cacheable ones."""


@st.composite
def requests(draw: st.DrawFn, live: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    schema = live["schema"]
    components = schema["components"]["schemas"]
    operations = [(p, m, op) for p, ops in schema["paths"].items() for m, op in ops.items()]
    path, method, op = draw(st.sampled_from(operations))
    table = draw(st.sampled_from(live["tables"]))
    params: dict[str, Any] = {}
    headers: dict[str, str] = {}
    for parameter in op.get("parameters", []):
        name, where = parameter["name"], parameter["in"]
        if path in HEAVY and name in ("players", "rules", "table"):
            value = {
                "players": draw(st.sampled_from([2, 3, 1, 31, -5])),
                "rules": draw(st.sampled_from([None, "modern", "jinhua", "/etc/passwd", "{"])),
                "table": draw(st.sampled_from([None, "ZZZZZZ", "x" * 200])),
            }[name]
        elif name == "code":
            value = draw(st.sampled_from([table["code"], table["code"].lower()]) | TEXT)
        elif name == "authorization":
            token = draw(st.sampled_from([table["host_token"], *table["player_tokens"]]) | TEXT)
            value = draw(st.sampled_from(["Bearer ", "bearer ", "Basic ", ""])) + token
        else:
            value = draw(from_schema(parameter.get("schema", {}), components))
        if value is None:
            continue
        if where == "path":
            path = path.replace("{" + name + "}", quote(str(value), safe="") or "_")
        elif where == "header":
            # HTTP itself has no room for edge spaces or controls; a header is text
            value = (value if isinstance(value, str) else json.dumps(value)).strip()
            if value and value.isascii() and value.isprintable():
                headers[name] = value
        else:
            params[name] = value if isinstance(value, str | int) else json.dumps(value)
    body: Any = None
    content = (op.get("requestBody") or {}).get("content", {}).get("application/json")
    if path.endswith("/commands") and draw(st.booleans()):
        body = draw(frames())
    elif content is not None:
        body = draw(from_schema(content["schema"], components))
    return method.upper(), path, {"params": params, "headers": headers, "json": body}


COMMANDS = [*sorted(protocol.COMMANDS), "nope", ""]
"""Every command of the protocol's one table (so a new command is fuzzed by construction),
and two that are none."""
FIELDS = [*sorted({f for fields in protocol.FIELDS.values() for f in fields}), "id", "extra"]
"""Every field of the table, the id, and one no command has."""


@st.composite
def frames(draw: st.DrawFn) -> Any:
    """A command-shaped frame, sometimes anything at all."""
    frame = {"type": draw(st.sampled_from(COMMANDS) | TEXT)}
    if draw(st.booleans()):
        frame["id"] = draw(st.sampled_from(["k1", "k2", "k1" * 40]) | TEXT)
    for key in draw(st.lists(st.sampled_from(FIELDS), max_size=3, unique=True)):
        frame[key] = draw(
            JSON | TEXT | st.sampled_from(["444412", [4, 4, 4, 4, 1, 2], "甲", "34", 1, 2, True])
        )
    return draw(st.sampled_from([frame, frame, frame]) | JSON)


def check_answer(response: httpx.Response) -> None:
    if response.status_code == 503:
        # a simulation that takes longer than analysis_timeout: the documented refusal (it
        # goes on and is cached), not a server error
        assert response.json()["code"] == "busy", response.text[:500]
        assert int(response.headers["Retry-After"]) > 0
    else:
        assert response.status_code < 500, (response.status_code, response.text[:500])
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/problem+json")
        assert isinstance(response.json()["code"], str)


def check_invariants(live: dict[str, Any]) -> None:
    """Logs contiguous from 1 to the head; cakes conserved; states agree with logs."""
    http: httpx.Client = live["http"]
    for table in live["tables"]:
        code = table["code"]
        state = http.get(f"/api/tables/{code}").json()
        events: list[dict[str, Any]] = []
        while True:
            after = events[-1]["seq"] if events else 0
            page = http.get(f"/api/tables/{code}/events", params={"after": after}).json()
            if not page["events"]:
                break
            events.extend(page["events"])
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert state["last_seq"] == len(events)
        result = state["result"]
        if result is not None:
            prizes = state["rules"]["prizes"]
            for tier, count in prizes.items():
                held = sum(h.get(tier, 0) for h in result["holdings"].values())
                assert held + result["pool"].get(tier, 0) == count, (code, tier)


@settings(
    max_examples=EXAMPLES_REST,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_rest_fuzz_from_the_openapi_schema(live: dict[str, Any], data: st.DataObject) -> None:
    method, path, options = data.draw(requests(live))
    if options["json"] is None:
        options.pop("json")
    response = live["http"].request(method, path, **options)
    check_answer(response)


@settings(
    max_examples=EXAMPLES_WS,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_websocket_frame_fuzz(live: dict[str, Any], data: st.DataObject) -> None:
    table = data.draw(st.sampled_from(live["tables"]))
    token = data.draw(st.sampled_from([table["host_token"], *table["player_tokens"]]))
    url = live["url"].replace("http://", "ws://") + f"/ws/tables/{table['code']}"
    sent = data.draw(st.lists(frames(), min_size=1, max_size=5))
    offered = [Subprotocol(p) for p in protocol.offered_subprotocols([token])]
    with connect(url, subprotocols=offered, open_timeout=TIMEOUT, close_timeout=1) as ws:
        assert json.loads(ws.recv(TIMEOUT))["type"] == "welcome"
        for frame in sent:
            ws.send(json.dumps(frame))
        replies = 0
        deadline = time.monotonic() + TIMEOUT
        while replies < len(sent) and time.monotonic() < deadline:
            reply = json.loads(ws.recv(TIMEOUT))
            if reply["type"] in ("ack", "error", "pong"):
                replies += 1
                if reply["type"] == "error":
                    assert reply["status"] < 500, reply
            elif reply["type"] == "welcome":
                replies += 1  # an auth command answers with a welcome
        assert replies == len(sent)
        # A well-formed frame still works after all that.
        ws.send(json.dumps({"type": "ping", "id": "still-there"}))
        while (reply := json.loads(ws.recv(TIMEOUT)))["type"] != "pong":
            pass


def test_the_fuzz_draws_every_command_of_the_table(live: dict[str, Any]) -> None:
    """Issue 17, bug 5: the fuzz's copy of the command list once missed seven commands."""
    assert set(COMMANDS) - {"nope", ""} == protocol.COMMANDS
    for kind in ("dispute", "hand_seat", "claim_seat", "set_auto_throw", "rematch", "react"):
        assert kind in COMMANDS
    assert "claim_rematch" in COMMANDS
    # The REST fuzz draws from the OpenAPI document, whose command body is the same table.
    body = live["schema"]["paths"]["/api/tables/{code}/commands"]["post"]["requestBody"]
    mapping = body["content"]["application/json"]["schema"]["discriminator"]["mapping"]
    assert set(mapping) == protocol.COMMANDS


def test_state_invariants_hold_after_the_fuzz(live: dict[str, Any]) -> None:
    check_invariants(live)
    assert live["http"].get("/api/health").json() == {"status": "ok"}


def test_numbers_past_the_databases_integers_are_a_422(live: dict[str, Any]) -> None:
    """Found by this fuzz: ``?after=10**20`` reached SQLite and came back as a 500."""
    code = live["tables"][0]["code"]
    for after in (10**20, 2**31, 2**63):
        response = live["http"].get(f"/api/tables/{code}/events", params={"after": after})
        assert response.status_code == 422
        assert response.json()["code"] == "invalid_field"
