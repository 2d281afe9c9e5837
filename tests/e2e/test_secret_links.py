"""Issue 29: no secret in a request line. A seat's claim key was in its card's link
(``/e/CODE/t/N?name=…&key=…``) and a table's tokens in the page's socket URL (``?token=…``),
so both reached every access log. Now the card's QR carries the key in the fragment, which a
browser never sends; a card printed before that still claims (its query is moved into the
fragment at once); and the table page's socket offers its tokens in the handshake's
``Sec-WebSocket-Protocol``. No request the phone makes names the key or a token in its URL."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import Page, WebSocket, expect

pytestmark = pytest.mark.browser

PEOPLE = ["阿明", "阿华", "阿芳", "阿强"]


class Watched:
    """Every URL a page asks for, and what its table sockets were told when they opened."""

    def __init__(self, page: Page) -> None:
        self.urls: list[str] = []
        self.welcomes: list[dict[str, Any]] = []
        page.on("request", lambda request: self.urls.append(request.url))
        page.on("websocket", self._socket)

    def _socket(self, socket: WebSocket) -> None:
        self.urls.append(socket.url)

        def received(payload: str | bytes) -> None:
            frame = json.loads(payload)
            if frame.get("type") == "welcome":
                self.welcomes.append(frame)

        socket.on("framereceived", received)


def test_a_card_s_qr_claims_with_the_key_in_the_fragment(browser: Browser, server: Server) -> None:
    body = {"name": "桌卡", "people": PEOPLE, "tables": 1, "seating": "in_order"}
    created = call(server, "POST", "/api/events", body)
    code, organiser = created["code"], created["organizer_token"]
    table_code = created["tables"][0]["code"]
    seats = {
        s["name"]: s["claim_key"]
        for s in call(server, "GET", f"/api/events/{code}/seats", token=organiser)["tables"][0][
            "seats"
        ]
    }

    # the organiser's cards: each seat's QR names the seat and its key after "#", nothing in
    # the query
    desk = browser.page(browser.context(viewport={"width": 1100, "height": 900}), name="desk")
    # one page load with the token in its fragment: the app stores it only once its language
    # and limits are loaded, after the page's load event, so a second goto straight after
    # could leave before it did (CI's failure: the cards drawn without the organiser's QRs)
    desk.goto(f"{server.url}/e/{code}/cards#o={organiser}")
    qr = desk.locator(".ev-card-seat-qr .qr").first
    expect(qr).to_have_attribute("data-payload", re.compile(r"#name="))
    link = urlsplit(qr.get_attribute("data-payload") or "")
    assert link.path == f"/e/{code}/t/1" and link.query == ""
    fragment = {k: v[0] for k, v in parse_qs(link.fragment).items()}
    assert fragment == {"name": PEOPLE[0], "key": seats[PEOPLE[0]]}

    # a phone scans it: the claim takes the key from the fragment, and the table page's
    # socket opens as that seat with its token in the handshake
    phone = browser.page(name="phone")
    watched = Watched(phone)
    phone.goto(f"{server.url}{link.path}#{link.fragment}")
    phone.locator(f'.ev-claim-name[data-name="{PEOPLE[0]}"]').click()
    phone.wait_for_url(f"**/t/{table_code}")
    token = phone.evaluate(
        "c => JSON.parse(localStorage.getItem('bobing.t.' + c)).playerToken", table_code
    )
    assert token
    # the server knew the token: the socket's welcome names this seat
    phone.wait_for_function("() => window.bobing.roles.includes('player')")
    assert [w["player"] for w in watched.welcomes if w["roles"]] == [PEOPLE[0]]
    sockets = [u for u in watched.urls if "/ws/tables/" in u]
    assert sockets, watched.urls
    for url in watched.urls:
        assert seats[PEOPLE[0]] not in url and token not in url, url

    # a card printed before the key moved: its query still claims, and is moved into the
    # fragment at once, so nothing the page asks for afterwards names the key
    old = browser.page(name="old card")
    watched = Watched(old)
    old.goto(f"{server.url}/e/{code}/t/1?name={PEOPLE[1]}&key={seats[PEOPLE[1]]}")
    expect(old.locator(f'.ev-claim-name[data-name="{PEOPLE[1]}"]')).to_be_enabled()
    moved = urlsplit(old.url)
    assert moved.query == "" and parse_qs(moved.fragment)["key"] == [seats[PEOPLE[1]]]
    old.locator(f'.ev-claim-name[data-name="{PEOPLE[1]}"]').click()
    old.wait_for_url(f"**/t/{table_code}")
    assert urlsplit(old.url).fragment == ""
    after_load = watched.urls[1:]  # the first is the card's own page, with its query
    assert after_load
    for url in after_load:
        assert seats[PEOPLE[1]] not in url, url
