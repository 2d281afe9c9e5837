"""Every link an event screen shows or prints reaches a phone: an organiser who opened the
server on 127.0.0.1 still gets table cards, hall tiles, 组长 QR codes and the organiser link on
the LAN address (or the ``--public-url`` behind a proxy), and is told so before printing; a
server only this machine can reach is a warning on the cards page."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2etools import Browser, Server, running_server
from playwright.sync_api import Page, expect

from bobing.web.edge.invite import lan_addresses

pytestmark = pytest.mark.browser

PEOPLE = ["甲", "乙", "丙", "丁", "戊", "己"]
PRIZES = {
    "zhuangyuan": [{"name": "公仔", "count": 1, "value": 65}],
    "duitang": [{"name": "洗发水", "count": 1, "value": 40}],
    "sanhong": [{"name": "杯子", "count": 1, "value": 20}],
    "sijin": [{"name": "毛巾", "count": 1, "value": 5}],
    "erju": [{"name": "饼干", "count": 1, "value": 3}],
    "yixiu": [{"name": "可乐", "count": 2, "value": 2}],
}
PUBLIC = "https://bobing.example"


def create_event(server: Server) -> dict[str, Any]:
    body = {
        "name": "中秋博饼",
        "rules": "traditional",
        "mode": "referee",
        "people": PEOPLE,
        "tables": 2,
        "seating": "in_order",
        "prizes": PRIZES,
    }
    request = urllib.request.Request(
        server.url + "/api/events", data=json.dumps(body).encode(), method="POST"
    )
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        created: dict[str, Any] = json.loads(response.read())
    return created


def organiser_page(browser: Browser, server: Server, created: dict[str, Any]) -> Page:
    """The organiser's browser on 127.0.0.1 with the tokens the create form would keep."""
    ctx = browser.context(
        viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    page = browser.page(ctx, name="organiser")
    page.goto(server.url + "/")
    page.evaluate(
        """c => {
          const organiser = {organizerToken: c.organizer_token};
          localStorage.setItem('bobing.e.' + c.code, JSON.stringify(organiser));
          for (const t of c.tables)
            localStorage.setItem('bobing.t.' + t.code, JSON.stringify({hostToken: t.host_token}));
        }""",
        created,
    )
    return page


@pytest.fixture(params=["lan", "public_url"])
def reachable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Server, str]]:
    """A server opened on loopback and the base its links must carry."""
    if request.param == "lan":
        lan = lan_addresses()
        if not lan:
            pytest.skip("this machine has no LAN address")
        with running_server(tmp_path, host="0.0.0.0") as server:
            yield server, f"http://{lan[0]}:{server.port}"
    else:
        with running_server(tmp_path, extra=["--public-url", PUBLIC + "/"]) as server:
            yield server, PUBLIC


def test_event_links_carry_the_public_address(
    browser: Browser, reachable: tuple[Server, str]
) -> None:
    server, base = reachable
    created = create_event(server)
    code = created["code"]
    tables = {t["number"]: t["code"] for t in created["tables"]}
    page = organiser_page(browser, server, created)

    # the dashboard: the 组长 QR and 复制组织者链接
    page.goto(f"{server.url}/e/{code}")
    expect(page.locator(".invite-note")).to_contain_text(base)
    for number, table_code in tables.items():
        expect(
            page.locator(f'.ev-table[data-table="{number}"] .ev-leader-link .qr')
        ).to_have_attribute(
            "data-payload",
            f"{base}/t/{table_code}#host={created['tables'][number - 1]['host_token']}",
        )
    page.get_by_role("button", name="复制组织者链接").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{base}/e/{code}#o={created['organizer_token']}"

    # the hall's tiles
    page.goto(f"{server.url}/e/{code}/hall")
    for number in tables:
        expect(page.locator(f'.ev-tile[data-table="{number}"] .qr')).to_have_attribute(
            "data-payload", f"{base}/e/{code}/t/{number}"
        )

    # the TV view of a table: one invite-address rule for every QR (issue 30)
    page.goto(f"{server.url}/t/{tables[1]}/tv")
    expect(page.locator(".tv-qr .qr")).to_have_attribute("data-payload", f"{base}/t/{tables[1]}")

    # the table cards: the note comes before the cards, and every card's QR and address
    page.goto(f"{server.url}/e/{code}/cards")
    note = page.locator(".invite-note")
    expect(note).to_contain_text(server.url)
    expect(note).to_contain_text(base)
    for number in tables:
        card = page.locator(f'.ev-card[data-table="{number}"]')
        # the table's QR, then one beside each name (the seat's own claim link)
        expect(card.locator(".qr").first).to_have_attribute(
            "data-payload", f"{base}/e/{code}/t/{number}"
        )
        seat_qr = card.locator(".ev-card-seat-qr .qr").first
        expect(seat_qr).to_have_attribute(
            # the name and key in the fragment, which no server log sees (issue 29)
            "data-payload",
            re.compile("^" + re.escape(f"{base}/e/{code}/t/{number}#name=")),
        )
        expect(card.locator(".ev-card-url")).to_have_text(f"{base}/e/{code}/t/{number}")
        # the card says what the table plays for (its 组长 hands the goods out)
        expect(card.locator(".ev-card-goods")).to_contain_text("状元 公仔 · 对堂 洗发水")
        expect(card.locator(".ev-card-goods")).to_contain_text("一秀 可乐×2")


def test_cards_warn_when_no_phone_can_reach_the_server(browser: Browser, server: Server) -> None:
    created = create_event(server)
    page = organiser_page(browser, server, created)
    page.goto(f"{server.url}/e/{created['code']}/cards")
    expect(page.locator(".ev-card")).to_have_count(2)
    # the e2e server listens on 127.0.0.1 only: the cards page says so above the print button
    warning = page.locator(".no-print .invite-warning")
    expect(warning).to_contain_text("只在本机监听")
