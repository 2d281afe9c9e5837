"""The TV's end screen (/t/CODE/tv) fits the screen: nobody scrolls a TV. A 13- and a 30-person
ranked session at 1080p show every prize and every row on the screen, nothing cut, the type
still readable across a room; a 30-person cakes session too."""

from __future__ import annotations

from typing import Any

import pytest
from e2etools import Browser, Server, call
from hallmeasure import measure
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

DICE = ["444456", "123456", "441122", "444412", "112233", "412356", "445566", "123345"]


def finished_table(server: Server, people: int, *, ranked: bool) -> str:
    """A referee table of ``people`` (one round when ranked), played to its end."""
    rules: dict[str, Any] = {"preset": "traditional", "max_players": max(12, people)}
    if ranked:
        rules |= {
            "award": "ranked",
            "rounds": 1,
            "ranked_prizes": [
                {"name": "一等奖 漫步者音响", "count": 1, "value": 498},
                {"name": "二等奖 飞利浦电饭煲", "count": 1, "value": 199},
                {"name": "三等奖 行李车", "count": 1, "value": 89},
                {"name": "四等奖 手提锅", "count": 2, "value": 79},
                {"name": "七等奖 雪莲水壶／决明子枕头", "count": people - 5, "value": 27},
            ],
        }
    created = call(
        server, "POST", "/api/tables", {"name": "公司中秋博饼", "mode": "referee", "rules": rules}
    )
    code, host = created["code"], created["host_token"]
    names = [f"员工{i:02d}" for i in range(1, people + 1)]
    for name in names:
        call(server, "POST", f"/api/tables/{code}/join", {"name": name})
    call(
        server, "POST", f"/api/tables/{code}/commands", {"type": "start", "starter": names[0]}, host
    )
    throws = 0
    while True:
        state = call(server, "GET", f"/api/tables/{code}")
        if state["status"] == "over":
            break
        dice = "444444" if not ranked and throws >= people else DICE[throws % len(DICE)]
        call(
            server,
            "POST",
            f"/api/tables/{code}/commands",
            {"type": "throw", "turn": state["turn"], "dice": dice},
            host,
        )
        throws += 1
    return str(code)


@pytest.mark.parametrize(("people", "ranked"), [(13, True), (30, True), (30, False)])
def test_the_end_screen_fits_1080p(
    browser: Browser, server: Server, people: int, ranked: bool
) -> None:
    code = finished_table(server, people, ranked=ranked)
    page = browser.page(
        browser.context(viewport={"width": 1920, "height": 1080}, device_scale_factor=1),
        name="tv",
    )
    page.goto(f"{server.url}/t/{code}/tv")
    rows = page.locator(".tv-over .results tbody tr")
    expect(rows).to_have_count(people)
    if ranked:
        expect(page.locator(".prize-call.is-shown")).to_have_count(people)
    page.wait_for_function("() => document.querySelector('.tv-over').dataset.fitted === 'yes'")
    if people == 13 or not ranked:
        browser.shot(page, f"tv-end-{'ranked' if ranked else 'cakes'}-{people}")
    got = measure(page, ".tv-over", area=".tv-over > *")
    print(people, ranked, got["minFont"], got["smallest"], got["covered"])
    assert not got["scrolls"], "the end screen scrolls"
    assert got["cut"] == [], f"off the screen: {got['cut']}"
    # the rows (names, prizes) are read across the room; the smallest notes still exist
    names = measure(page, ".tv-over .results tbody", area="tr", skip=".seat-no, .rank-no")
    assert names["minFont"] >= (20 if people <= 13 else 12), (names["minFont"], names["smallest"])
    assert got["minFont"] >= 6, (got["minFont"], got["smallest"])
