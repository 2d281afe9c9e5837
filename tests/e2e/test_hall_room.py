"""The hall view designed for a room (issue 19): at 1280×720, 1920×1080 and 3840×2160, with 1,
4, 12 and 30 tables playing, the tiles fill the screen, nothing scrolls, no text overflows its
tile or is cut, text is readable from 10 m (≥ 28 px at 1080p for 4 tables, in proportion on the
other screens) and the QR codes scan from 3 m (≥ 220 px at 1080p for up to 8 tables); a
one-table party has its leaderboard beside the tile and a prize-giving filling the screen."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, call
from hallmeasure import measure
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SCREENS = {"720p": (1280, 720), "1080p": (1920, 1080), "4k": (3840, 2160)}
PRIZES = {
    "zhuangyuan": [{"name": "公仔", "count": 1, "value": 65}],
    "duitang": [{"name": "洗发水", "count": 1, "value": 40}],
    "sanhong": [{"name": "杯子", "count": 1, "value": 20}],
    "sijin": [{"name": "毛巾", "count": 2, "value": 5}],
    "erju": [{"name": "饼干", "count": 3, "value": 3}],
    "yixiu": [{"name": "可乐", "count": 4, "value": 2}],
}
PARTY_PRIZES = [
    {"name": "一等奖 漫步者音响", "count": 1, "value": 498},
    {"name": "二等奖 飞利浦电饭煲", "count": 1, "value": 199},
    {"name": "三等奖 行李车", "count": 1, "value": 89},
    {"name": "七等奖 雪莲水壶／决明子枕头", "count": 10, "value": 27},
]


def playing_event(server: Server, tables: int) -> str:
    """An event of ``tables`` tables of 11 (names as long as a class's), each a few throws in."""
    people = [f"同学{i:02d}" for i in range(1, 11 * tables + 1)]
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "三年二班中秋博饼",
            "rules": "traditional",
            "mode": "referee",
            "people": people,
            "tables": tables,
            "seating": "in_order",
            "prizes": PRIZES,
        },
    )
    call(
        server,
        "POST",
        f"/api/events/{created['code']}/control",
        {"action": "start"},
        created["organizer_token"],
    )
    for table in created["tables"]:
        for dice in ("123456", "441256"):  # 对堂 (a line in the feed), then 四红带三
            state = call(server, "GET", f"/api/tables/{table['code']}")
            call(
                server,
                "POST",
                f"/api/tables/{table['code']}/commands",
                {"type": "throw", "turn": state["turn"], "dice": dice},
                table["host_token"],
            )
    code: str = created["code"]
    return code


@pytest.fixture(scope="module")
def events(server: Server) -> dict[int, str]:
    return {n: playing_event(server, n) for n in (1, 4, 12, 30)}


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_hall_fills_the_room(
    browser: Browser, server: Server, events: dict[int, str], screen: str
) -> None:
    width, height = SCREENS[screen]
    scale = height / 1080
    page = browser.page(
        browser.context(viewport={"width": width, "height": height}, device_scale_factor=1),
        name=f"hall-{screen}",
    )
    report = []
    for tables, code in events.items():
        page.goto(f"{server.url}/e/{code}/hall")
        expect(page.locator(".ev-tile")).to_have_count(tables)
        expect(page.locator('.ev-tile[data-table="1"] .ev-tile-leader')).to_contain_text("状元")
        if tables == 1:
            expect(page.locator(".ev-board .ev-board-row")).to_have_count(11)
        got = measure(
            page,
            ".ev-room",
            box=".ev-tile, .ev-board, .ev-hall-head, .ev-hall-feed",
            area=".ev-tile, .ev-board",
        )
        report.append((tables, got["minFont"], got["smallest"], got["qrMin"], got["covered"]))
        where = f"{tables} tables at {screen}"
        assert not got["scrolls"], where
        assert got["cut"] == [], f"{where}: text cut or overflowing: {got['cut']}"
        assert got["covered"] > 0.5, f"{where}: the tiles cover {got['covered']:.0%}"
        assert got["qrCount"] == tables
        if tables <= 8:
            assert got["qrMin"] >= 220 * scale, f"{where}: QR {got['qrMin']} px"
        if tables <= 4:
            assert got["minFont"] >= 28 * scale - 0.5, (
                f"{where}: {got['minFont']} px ({got['smallest']!r})"
            )
        if screen == "1080p" and tables in (4, 30):
            browser.shot(page, f"event-hall-{tables}")
    print(screen, report)


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_hall_in_english_fits_its_wrapped_lines(
    browser: Browser, server: Server, events: dict[int, str], screen: str
) -> None:
    """English lines are longer than the 12 em a tile's line is given and wrap: the tiles are
    fitted for the text as wrapped (the 4-table hall at 4K cut 40 px of it when only the
    unwrapped text was measured)."""
    width, height = SCREENS[screen]
    page = browser.page(
        browser.context(
            locale="en-US", viewport={"width": width, "height": height}, device_scale_factor=1
        ),
        name=f"hall-en-{screen}",
    )
    for tables in (4, 12, 30):
        page.goto(f"{server.url}/e/{events[tables]}/hall")
        expect(page.locator(".ev-tile")).to_have_count(tables)
        expect(page.locator('.ev-tile[data-table="1"] .ev-tile-status')).to_contain_text("throw")
        got = measure(
            page, ".ev-room", box=".ev-tile, .ev-hall-head, .ev-hall-feed", area=".ev-tile"
        )
        where = f"{tables} tables at {screen} in English"
        assert not got["scrolls"], where
        assert got["cut"] == [], f"{where}: text cut or overflowing: {got['cut']}"


def over_party(server: Server) -> str:
    """The 2013 party: 13 at one table, ranked prizes, one round, every throw made."""
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "公司中秋博饼",
            "rules": {
                "preset": "traditional",
                "award": "ranked",
                "rounds": 1,
                "ranked_prizes": PARTY_PRIZES,
                "max_players": 13,
            },
            "mode": "pass_and_play",
            "people": [f"员工{i}" for i in range(1, 14)],
            "tables": 1,
            "seating": "in_order",
        },
    )
    call(
        server,
        "POST",
        f"/api/events/{created['code']}/control",
        {"action": "start"},
        created["organizer_token"],
    )
    (table,) = created["tables"]
    for _ in range(13):
        state = call(server, "GET", f"/api/tables/{table['code']}")
        call(
            server,
            "POST",
            f"/api/tables/{table['code']}/commands",
            {"type": "throw", "turn": state["turn"]},
            table["play_token"],
        )
    code: str = created["code"]
    return code


@pytest.mark.parametrize("screen", list(SCREENS))
def test_a_one_table_party_gets_its_prize_giving(
    browser: Browser, server: Server, screen: str
) -> None:
    width, height = SCREENS[screen]
    code = over_party(server)
    page = browser.page(
        browser.context(viewport={"width": width, "height": height}, device_scale_factor=1),
        name="party",
    )
    page.goto(f"{server.url}/e/{code}/hall")
    expect(page.locator(".ev-prize-giving .ev-board-row")).to_have_count(13)
    expect(page.locator(".ev-prize-giving .ev-board-row").first).to_contain_text(
        "一等奖 漫步者音响"
    )
    got = measure(page, ".ev-room", box=".ev-board, .ev-hall-head", area=".ev-board")
    assert not got["scrolls"] and got["cut"] == [], got["cut"]
    assert got["covered"] > 0.6, got["covered"]
    assert got["minFont"] >= 28 * height / 1080 - 0.5, (got["minFont"], got["smallest"])
    if screen == "1080p":
        browser.shot(page, "event-hall-prize-giving")


def crowned_event(server: Server) -> str:
    """Four tables over (a 六勃红 each), the 状元王中王 played to its end."""
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "三年二班中秋博饼",
            "rules": "traditional",
            "mode": "referee",
            "people": [f"同学{i:02d}" for i in range(1, 45)],
            "tables": 4,
            "seating": "in_order",
            "prizes": PRIZES,
        },
    )
    code, organiser = created["code"], created["organizer_token"]
    call(server, "POST", f"/api/events/{code}/control", {"action": "start"}, organiser)
    for table in created["tables"]:
        state = call(server, "GET", f"/api/tables/{table['code']}")
        call(
            server,
            "POST",
            f"/api/tables/{table['code']}/commands",
            {"type": "throw", "turn": state["turn"], "dice": "444444"},
            table["host_token"],
        )
    playoff = call(server, "POST", f"/api/events/{code}/playoff", {"throws": 1}, organiser)
    host = playoff["host_token"]  # the playoff starts with the winners seated
    for dice in ("444456", "123456", "444411", "441122"):
        state = call(server, "GET", f"/api/tables/{playoff['code']}")
        call(
            server,
            "POST",
            f"/api/tables/{playoff['code']}/commands",
            {"type": "throw", "turn": state["turn"], "dice": dice},
            host,
        )
    return str(code)


@pytest.mark.parametrize("screen", ["720p", "1080p"])
def test_the_wangzhongwang_fills_the_screen(browser: Browser, server: Server, screen: str) -> None:
    width, height = SCREENS[screen]
    code = crowned_event(server)
    page = browser.page(
        browser.context(viewport={"width": width, "height": height}, device_scale_factor=1),
        name="crowned",
    )
    page.goto(f"{server.url}/e/{code}/hall")
    expect(page.locator(".ev-ceremony .winner-hand")).to_have_text("状元插金花")
    got = measure(page, ".ev-room", area=".ev-ceremony")
    assert not got["scrolls"] and got["cut"] == [], got["cut"]
    assert got["covered"] > 0.6, got["covered"]
    assert got["minFont"] >= 28 * height / 1080 - 0.5, (got["minFont"], got["smallest"])
    if screen == "1080p":
        browser.shot(page, "event-hall-wangzhongwang")
