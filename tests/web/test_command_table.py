"""Issue 17, bug 5: every command is declared once (``bobing.tables.protocol.TABLE``).

The parser's checks, the state-changing set, the service's plans, the OpenAPI document and
the browser's constants all come from that table, or are held equal to it here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from bobing.tables import protocol
from bobing.tables.commands import PLANS
from bobing.tables.problems import ApiError
from bobing.web.app import create_app

PROTOCOL_JS = Path(protocol.__file__).parents[1] / "web" / "static" / "js" / "protocol.js"


def _js_constant(name: str) -> str:
    found = re.search(rf"export const {name} = Object\.freeze\((.*?)\);", PROTOCOL_JS.read_text(
        "utf-8"), re.S)  # fmt: skip
    assert found is not None, f"{name} is not in {PROTOCOL_JS}"
    return found.group(1)


def test_every_state_changing_command_has_one_decider() -> None:
    assert set(protocol.TableCommand.__subclasses__()) == set(protocol.TABLE)
    assert set(PLANS) | protocol.BY_SERVICE == protocol.STATE_CHANGING
    assert not set(PLANS) & protocol.BY_SERVICE
    assert protocol.COMMANDS == protocol.STATE_CHANGING | protocol.CONNECTION_COMMANDS
    assert {"auth", "ping"} == protocol.CONNECTION_COMMANDS


def test_the_browsers_constants_equal_the_table() -> None:
    values = set(re.findall(r':\s*"([a-z_]+)"', _js_constant("COMMAND")))
    assert values == protocol.COMMANDS
    assert tuple(json.loads(_js_constant("REACTIONS"))) == protocol.REACTIONS
    frames = set(re.findall(r':\s*"([a-z_]+)"', _js_constant("FRAME")))
    assert frames == set(protocol.FRAMES)


def test_the_openapi_command_body_is_the_table() -> None:
    document = create_app().openapi()
    body = document["paths"]["/api/tables/{code}/commands"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    assert set(schema["discriminator"]["mapping"]) == protocol.COMMANDS
    components = document["components"]["schemas"]
    for ref in schema["discriminator"]["mapping"].values():
        assert ref.rsplit("/", 1)[-1] in components


def test_event_bodies_are_typed_in_the_openapi_document() -> None:
    components = create_app().openapi()["components"]["schemas"]
    for model in ("CreateEvent", "Control", "Playoff", "Claim"):
        for name, field in components[model]["properties"].items():
            assert field.get("type") or field.get("anyOf") or field.get("enum"), (model, name)


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5000),
    st.sampled_from(["甲", "k1", "x" * 70, "", "444412", "👏", "nope"]),
    st.lists(st.integers(1, 6), max_size=7),
    st.lists(st.sampled_from(["甲", "乙"]), max_size=3),
    st.just({"甲": {"yixiu": 1}}),
)
"""JSON values: dice and allocations only as the engine would read them (it checks those
further, with its own messages; the table's schema describes the readable shape)."""


@given(
    kind=st.sampled_from(sorted(protocol.COMMANDS)),
    data=st.data(),
)
def test_what_the_parser_accepts_the_model_accepts(kind: str, data: st.DataObject) -> None:
    names = sorted(protocol.FIELDS[kind])
    chosen = data.draw(st.lists(st.sampled_from(names), unique=True) if names else st.just([]))
    frame: dict[str, Any] = {"type": kind, **{n: data.draw(VALUES) for n in chosen}}
    try:
        command = protocol.parse_command(frame)
    except ApiError:
        return
    given_fields = {k: v for k, v in frame.items() if v is not None}
    try:
        model = TypeAdapter(protocol.ClientFrame).validate_python(given_fields)
    except ValidationError as exc:  # pragma: no cover - the failure this test is for
        pytest.fail(f"{frame!r} parses as {command!r} but not by the table's model: {exc}")
    assert model.type == kind
