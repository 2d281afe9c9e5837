"""An event's tables keep each throw's photo as evidence when the organiser ticks it on the
event form (issue 31, docs/vision.md): offered for real dice (referee tables) only, sent as
``keep_photos`` and held by every table the event makes."""

from __future__ import annotations

import re

import pytest
from e2etools import Browser, Server
from playwright.sync_api import expect
from test_organiser_hits import get

pytestmark = pytest.mark.browser

PEOPLE = [f"同学{n:02d}" for n in range(1, 9)]


def test_the_event_form_keeps_photos_for_referee_tables(browser: Browser, server: Server) -> None:
    page = browser.page(name="organiser")
    page.goto(server.url + "/e/new")
    page.get_by_label("活动名称").fill("留照片的活动")
    page.locator("#ev-people").fill("\n".join(PEOPLE))
    keep = page.locator("#ev-keep-photos")
    expect(keep).to_be_visible()  # real dice, the 组长 records: the default
    page.get_by_label("每人用手机").check()
    expect(keep).to_be_hidden()  # phones throw on the server: no photo to keep
    page.get_by_label("真骰子，组长记录").check()
    expect(keep).to_be_visible()
    page.get_by_label("每桌保留每一掷的照片作为凭证（拍照识别的照片；宾客会看到提示）").check()
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    event = get(server, f"/api/events/{code}")
    assert event["keep_photos"] is True
    assert event["tables"], event
    for table in event["tables"]:
        assert get(server, f"/api/tables/{table['code']}")["keep_photos"] is True
