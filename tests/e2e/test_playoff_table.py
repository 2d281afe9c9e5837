"""The 状元王中王 as its table shows it (issue 19): the dashboard starts it and opens it in
play with the table winners seated — no lobby, no second start — its page leads back to the
event, a real-dice throw's preview names the one prize and no cake, the seals rise in once
however often their screen is painted, and the phone's history names the 王中王."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

PEOPLE = ["甲", "乙", "丙", "丁", "戊", "己"]

# Counts the entrances the seals play: every CSS animation of a `.seal` seen running (a seal
# painted again — re-created or re-inserted — would start its entrance anew).
COUNT_ENTRANCES = """() => {
  const seen = new WeakSet();
  window.entrances = [];
  const check = () => {
    for (const el of document.querySelectorAll(".seal")) {
      for (const a of el.getAnimations()) {
        if (seen.has(a) || a.playState !== "running") continue;
        seen.add(a);
        window.entrances.push(el.textContent);
      }
    }
  };
  window.paints = 0;
  new MutationObserver(() => {
    window.paints += 1;
    check();
  }).observe(document.body, { childList: true, subtree: true });
  check();
}"""

SEAL_AT_REST = """sel => {
  const el = document.querySelector(sel);
  return Boolean(el) && el.getAnimations().every(a => a.playState !== "running");
}"""


def entrances(page: Page) -> list[str]:
    found: list[str] = page.evaluate("window.entrances")
    return found


def type_dice(page: Page, dice: str) -> None:
    for face in dice:
        page.keyboard.press(face)


def test_the_playoff_opens_in_play_and_leads_back(browser: Browser, server: Server) -> None:
    created = call(
        server,
        "POST",
        "/api/events",
        {"name": "中秋博饼", "rules": "traditional", "mode": "referee", "people": PEOPLE}
        | {"tables": 2, "seating": "in_order"},
    )
    code, organizer = created["code"], created["organizer_token"]
    call(server, "POST", f"/api/events/{code}/control", {"action": "start"}, organizer)
    winners = []
    for table in created["tables"]:
        state = call(server, "GET", f"/api/tables/{table['code']}")
        winners.append(state["next"])
        call(
            server,
            "POST",
            f"/api/tables/{table['code']}/commands",
            {"type": "throw", "turn": state["turn"], "dice": "444444"},
            table["host_token"],
        )

    hall = browser.page(
        browser.context(viewport={"width": 1280, "height": 720}, reduced_motion=False),
        name="hall",
    )
    hall.goto(f"{server.url}/e/{code}/hall")
    expect(hall.locator(".ev-tile")).to_have_count(2)
    organiser = browser.page(browser.context(reduced_motion=False), name="organiser")
    organiser.goto(f"{server.url}/e/{code}#o={organizer}")
    organiser.locator("#ev-playoff-start").click()
    organiser.locator(".ev-playoff a", has_text="进入王中王").click()

    # in play at once, the winners seated in table order: no lobby, nothing to start, nobody
    # can be added
    expect(organiser.locator(".ref-pad")).to_be_visible()
    assert organiser.evaluate("document.body.dataset.screen") == "play"
    expect(organiser.locator(".lobby")).to_have_count(0)
    state = call(server, "GET", f"/api/events/{code}")["playoff"]
    assert state["players"] == winners and state["status"] == "playing"
    table = call(server, "GET", f"/api/tables/{state['code']}")
    assert table["lobby_locked"] and table["next"] == winners[0]
    back = organiser.locator(f'#topbar a.table-event-link[href="/e/{code}"]')
    expect(back).to_have_attribute("title", "总控台")

    # the hall shows the field under its seal; from here on no seal plays its entrance again
    expect(hall.locator(".ev-playoff-panel li")).to_have_count(2)
    hall.wait_for_function(SEAL_AT_REST, arg=".ev-playoff-panel .seal")
    hall.evaluate(COUNT_ENTRANCES)

    # a real-dice throw's preview: where it ranks and the one prize, never a cake
    type_dice(organiser, "444456")
    preview = organiser.locator(".ref-preview")
    expect(preview).to_contain_text("四红带十一")
    expect(preview).to_contain_text("只有一份奖「状元王中王」，归最好的一把")
    assert "饼" not in preview.inner_text()
    organiser.keyboard.press("Enter")
    expect(hall.locator(".ev-playoff-panel li").first).to_contain_text("四红带十一")
    assert entrances(hall) == []  # the hall was painted again, its seal did not rise again

    # the last throw: the 王中王's ceremony rises in once, and stays put when the hall is
    # painted again (a seat claimed at table 1 changes the event)
    type_dice(organiser, "123456")
    organiser.keyboard.press("Enter")
    expect(hall.locator(".ev-ceremony .winner-name")).to_have_text(winners[0])
    hall.wait_for_function(SEAL_AT_REST, arg=".ev-ceremony .seal")
    assert entrances(hall) == ["状元王中王"]
    paints = hall.evaluate("window.paints")
    seat = created["tables"][1]["players"][1]
    call(server, "POST", f"/api/events/{code}/tables/2/claim", {"name": seat}, organizer)
    hall.wait_for_function("n => window.paints > n", arg=paints)
    expect(hall.locator(".ev-ceremony .seal")).to_have_text("状元王中王")
    assert entrances(hall) == ["状元王中王"]

    # the table's own prize-giving: its seal rises in once, not again at every reaction
    expect(organiser.locator(".prize-ceremony .seal")).to_be_visible()
    organiser.wait_for_function(SEAL_AT_REST, arg=".prize-ceremony .seal")
    organiser.evaluate(COUNT_ENTRANCES)
    organiser.evaluate("document.querySelector('.history-card').dataset.before = 'yes'")
    organiser.locator(".reaction-btn").first.click()
    # the end screen was built again (its history card is a new one)
    expect(organiser.locator(".history-card")).not_to_have_attribute("data-before", "yes")
    assert entrances(organiser) == []

    # this phone's history names the 王中王, not "无状元"
    line = organiser.locator(".history-item.is-current .history-winner")
    expect(line).to_have_text(f"状元王中王：{winners[0]} · 四红带十一")
    expect(organiser.locator(".history-card")).not_to_contain_text("无状元")

    # and the way back to the event
    back.click()
    organiser.wait_for_url(f"**/e/{code}")
    expect(organiser.locator(".ev-playoff")).to_contain_text(winners[0])
