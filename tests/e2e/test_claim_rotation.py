"""Issue 29: a card whose claim key the organiser replaced (a release, "new key"). The phone
that scans the old QR is told, in its language, that the card was replaced; the new QR claims
the seat. (The API side: ``tests/security/test_seats.py``.)"""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import expect

REPLACED = {
    "zh-CN": "这个二维码已被组织者作废，请找组织者要新的桌卡",
    "zh-TW": "這個二維碼已被組織者作廢，請找組織者要新的桌卡",
    "en-US": "This QR was replaced by the organiser; ask them for your new table card.",
}


@pytest.mark.parametrize("locale", list(REPLACED))
def test_the_old_card_s_qr_says_it_was_replaced(
    browser: Browser, server: Server, locale: str
) -> None:
    people = ["阿明", "阿华", "阿芳", "阿强"]
    body = {"name": "换卡", "people": people, "tables": 1, "seating": "in_order"}
    created = call(server, "POST", "/api/events", body)
    code, organiser = created["code"], created["organizer_token"]
    old = call(server, "GET", f"/api/events/{code}/seats", token=organiser)
    old_key = old["tables"][0]["seats"][0]["claim_key"]
    name = old["tables"][0]["seats"][0]["name"]
    renewed = call(
        server, "POST", f"/api/events/{code}/tables/1/new_key", {"name": name}, token=organiser
    )
    phone = browser.page(browser.context(locale=locale), name="phone")
    with browser.allow(r"403"):  # the refused claim's request
        # a card printed before the key moved to the fragment: its query still claims
        phone.goto(f"{server.url}/e/{code}/t/1?name={name}&key={old_key}")
        phone.locator(f'.ev-claim-name[data-name="{name}"]').click()
        expect(phone.locator("#toasts")).to_contain_text(REPLACED[locale])
    phone.goto(f"{server.url}/e/{code}/t/1#name={name}&key={renewed['claim_key']}")
    phone.locator(f'.ev-claim-name[data-name="{name}"]').click()
    phone.wait_for_url(f"**/t/{created['tables'][0]['code']}")
