"""拍照识别 on the referee's pad (issue 31): a photo of the bowl fills the pad with its faces, each
die's box drawn over the photo; a tap on a die and a face key correct it, and only the 组长's
confirm throws — with the corrected faces. On a 360 px phone, in the user's language."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from e2etools import Browser, Server, call, goto_with_tokens, root_conftest, wait_throws
from playwright.sync_api import Page, expect
from test_accessibility import AXE, violations

from bobing.vision import read_dice
from bobing.vision.render import render_bowl

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dice-photos"
SMALL_PHONE = {"width": 360, "height": 740}
BOWL_SEED = 4
"""A drawn 博饼 bowl (bobing/vision/render.py) of six dice that the reader reads exactly."""


def referee_pad(
    browser: Browser,
    server: Server,
    locale: str = "zh-CN",
    table: dict[str, Any] | None = None,
    **options: Any,
) -> tuple[Page, str]:
    """A started referee table (``table``: more of its creation body) with the 组长's phone on
    its pad."""
    body = {"name": "拍照", "mode": "referee", **(table or {})}
    created = call(server, "POST", "/api/tables", body)
    code, host = created["code"], created["host_token"]
    for name in ("甲", "乙", "丙"):
        call(server, "POST", f"/api/tables/{code}/join", {"name": name}, host)
    call(server, "POST", f"/api/tables/{code}/commands", {"type": "start", "starter": "甲"}, host)
    page = browser.page(name="leader", viewport=SMALL_PHONE, locale=locale, **options)
    goto_with_tokens(page, server.url, code, hostToken=host)
    expect(page.locator(".ref-pad")).to_be_visible()
    return page, code


def slot_faces(page: Page) -> list[int]:
    faces = page.locator(".ref-slot").evaluate_all("els => els.map((e) => e.dataset.face)")
    return [int(f) for f in faces if f]


def test_a_photo_fills_the_pad_and_the_corrected_faces_are_thrown(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    photo = tmp_path / "bowl.jpg"
    rendered = render_bowl(random.Random(BOWL_SEED))
    photo.write_bytes(rendered.jpeg)
    read = list(read_dice(rendered.jpeg).faces)
    assert sorted(read) == sorted(rendered.faces)  # the reader reads this bowl exactly
    page, code = referee_pad(browser, server)
    button = page.locator(".ref-photo-btn")
    expect(button).to_contain_text("拍照识别")
    box = button.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SMALL_PHONE["width"]
    file_input = page.locator("input.ref-photo-input")
    assert file_input.get_attribute("accept") == "image/*"
    assert file_input.get_attribute("capture") == "environment"

    file_input.set_input_files(str(photo))
    marks = page.locator(".ref-photo-die")
    expect(marks).to_have_count(6)
    expect(page.locator(".ref-photo-img")).to_be_visible()
    assert slot_faces(page) == read  # the pad is filled, in the reader's order
    assert [int(t) for t in page.locator(".ref-photo-face").all_inner_texts()] == read
    # every box lies on the photo, inside the 360 px screen
    frame = page.locator(".ref-photo-frame").bounding_box()
    assert frame is not None and frame["width"] <= SMALL_PHONE["width"]
    for mark in marks.all():
        b = mark.bounding_box()
        assert b is not None
        assert frame["x"] - 1 <= b["x"] and b["x"] + b["width"] <= frame["x"] + frame["width"] + 33
    browser.shot(page, "read-dice-pad")
    # Nothing is thrown yet: the pad waits for the 组长.
    assert call(server, "GET", f"/api/tables/{code}")["throw_count"] == 0
    expect(page.locator(".ref-confirm")).to_be_enabled()

    # The 组长 sees the first die differently: tap it on the photo, then its face.
    corrected = read.copy()
    corrected[0] = 6 if read[0] != 6 else 5
    marks.nth(0).click()
    expect(marks.nth(0)).to_have_class(re.compile(r"\bis-selected\b"))
    page.locator(f'.ref-key[data-face="{corrected[0]}"]').click()
    assert slot_faces(page) == corrected
    expect(page.locator(".ref-photo-face").nth(0)).to_have_text(str(corrected[0]))

    page.locator(".ref-confirm").click()
    wait_throws(page, 1)
    state: dict[str, Any] = call(server, "GET", f"/api/tables/{code}")
    assert state["last_throw"]["dice"] == "".join(map(str, corrected))
    logged = call(server, "GET", f"/api/tables/{code}/events")["events"]
    thrown = [e for e in logged if e["type"] == "thrown"]
    assert len(thrown) == 1 and thrown[0]["dice"] == state["last_throw"]["dice"], thrown
    # The next throw's pad starts empty, without the photo.
    expect(page.locator(".ref-photo-img")).to_have_count(0)
    browser.assert_clean()


def test_a_kept_photo_is_the_confirmed_throws_and_opens_from_the_log(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    """A table created with ``keep_photos``: the photo the faces were read from goes with the
    confirm, and the log's 📷 of that throw opens it (the JPEG the server kept)."""
    photo = tmp_path / "bowl.jpg"
    rendered = render_bowl(random.Random(BOWL_SEED))
    photo.write_bytes(rendered.jpeg)
    page, code = referee_pad(browser, server, locale="en-US", table={"keep_photos": True})
    page.locator("input.ref-photo-input").set_input_files(str(photo))
    expect(page.locator(".ref-photo-die")).to_have_count(6)
    page.locator(".ref-confirm").click()
    wait_throws(page, 1)
    events = call(server, "GET", f"/api/tables/{code}/events")["events"]
    (dice,) = [e for e in events if e["type"] == "dice"]
    assert isinstance(dice["photo"], str)  # the photo_id read-dice answered
    record = call(server, "GET", f"/api/tables/{code}/record")
    assert record["photos"]["throws"] == [{"throw": 1, "seq": dice["seq"]}]

    link = page.locator(".log-photo")
    expect(link).to_have_count(1)
    expect(link).to_have_attribute("aria-label", "the photo of throw 1")
    assert link.get_attribute("href") == f"/api/tables/{code}/photos/{dice['seq']}"
    with page.context.expect_page() as opened:
        link.click()
    shown = opened.value
    shown.wait_for_load_state()
    size = shown.evaluate("() => [document.images[0].naturalWidth, document.contentType]")
    assert size[0] > 0 and size[1] == "image/jpeg"
    shown.close()
    browser.assert_clean()


def test_the_form_offers_keeping_photos_and_the_lobby_tells_the_guests(
    browser: Browser, server: Server
) -> None:
    host = browser.page(name="host", viewport=SMALL_PHONE)
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    keep = host.get_by_label("保留每一掷的照片作为凭证", exact=False)
    expect(keep).to_be_hidden()  # an online table rolls its own dice: there is no photo
    host.get_by_label("桌名").fill("留照片")
    host.get_by_label("真骰子裁判").check()
    keep.check()
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    code = host.url.rsplit("/", 1)[1]
    assert call(server, "GET", f"/api/tables/{code}")["keep_photos"] is True
    guest = browser.page(name="guest", viewport=SMALL_PHONE, locale="zh-TW")
    guest.goto(f"{server.url}/t/{code}")
    expect(guest.locator(".photos-line")).to_have_text("📷 每一擲的照片都會保留作為憑證")
    browser.assert_clean()


def test_fewer_than_six_dice_ask_for_a_retake_or_the_rest(browser: Browser, server: Server) -> None:
    page, _ = referee_pad(browser, server, locale="en-US")
    expect(page.locator(".ref-photo-btn")).to_contain_text("Read from photo")
    page.locator("input.ref-photo-input").set_input_files(str(FIXTURES / "valid_50.jpg"))
    expect(page.locator(".ref-photo-die")).to_have_count(4)
    expect(page.locator(".ref-photo-note")).to_contain_text("Only 4 dice found, not six")
    assert sorted(slot_faces(page)) == [2, 3, 5, 6]
    expect(page.locator(".ref-confirm")).to_be_disabled()
    page.locator('.ref-key[data-face="1"]').click()
    page.locator('.ref-key[data-face="1"]').click()
    assert len(slot_faces(page)) == 6
    expect(page.locator(".ref-confirm")).to_be_enabled()
    expect(page.locator(".ref-photo-btn")).to_contain_text("Retake photo")
    browser.assert_clean()


def test_a_photo_that_is_not_read_says_why_in_the_users_language(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    heic = tmp_path / "IMG_0001.heic"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64)
    page, _ = referee_pad(browser, server)
    with browser.allow(r"415"):
        page.locator("input.ref-photo-input").set_input_files(
            {"name": "IMG_0001.heic", "mimeType": "image/heic", "buffer": heic.read_bytes()}
        )
        expect(page.locator(".ref-photo-note")).to_contain_text("请选 JPEG")
    assert slot_faces(page) == []
    browser.assert_clean()


def test_unsure_dice_are_marked_until_the_referee_looks(browser: Browser, server: Server) -> None:
    """The reader is sure of every fixture photo, so its answer is replayed with one die made
    unsure (under ``photo_unsure_below`` of ``GET /api/limits``) and three more dice seen."""
    photo = FIXTURES / "valid_50.jpg"
    reading = read_dice(photo.read_bytes()).as_json()
    dice: list[dict[str, Any]] = reading["dice"]  # type: ignore[assignment]
    dice[1]["confidence"] = 0.4
    limits = call(server, "GET", "/api/limits")
    assert (
        0.4 < limits["photo_unsure_below"] < min(d["confidence"] for d in dice if d is not dice[1])
    )
    # three more, less sure still: seven dice are said, the six surest kept, the seventh dimmed
    extra = [{**dice[0], "box": [10 + 60 * i, 10, 40, 40], "confidence": 0.3} for i in range(3)]
    reading["dice"] = [*dice, *extra]
    page, _ = referee_pad(browser, server, locale="en-US")
    page.route(
        "**/read-dice",
        lambda route: route.fulfill(json=reading, status=200),
    )
    page.locator("input.ref-photo-input").set_input_files(str(photo))
    expect(page.locator(".ref-photo-die")).to_have_count(7)
    expect(page.locator(".ref-photo-die.is-extra")).to_have_count(1)
    expect(page.locator(".ref-photo-note")).to_contain_text("7 dice found, more than six")
    # unsure: the second die and the two extra kept
    unsure = page.locator(".ref-photo-die.is-unsure")
    expect(unsure).to_have_count(3)
    expect(page.locator('.ref-photo-die[data-slot="1"]')).to_have_attribute(
        "aria-label", re.compile("unsure")
    )
    expect(page.locator('.ref-slot[data-slot="1"]')).to_have_class(re.compile(r"\bis-unsure\b"))
    page.locator('.ref-slot[data-slot="1"]').click()  # a tap on the slot picks the die too
    expect(page.locator(".ref-photo-note")).to_contain_text("Die 2: tap its right face")
    page.locator('.ref-key[data-face="4"]').click()
    expect(page.locator('.ref-slot[data-slot="1"]')).not_to_have_class(re.compile(r"\bis-unsure\b"))
    expect(page.locator(".ref-photo-die.is-unsure")).to_have_count(2)
    assert slot_faces(page)[1] == 4
    browser.assert_clean()


def test_the_read_pad_has_no_accessibility_violation(browser: Browser, server: Server) -> None:
    root_conftest().need_node_module(AXE, "the accessibility test (axe-core)")
    # axe is injected as an inline script, which the page's policy refuses (test_accessibility)
    page, _ = referee_pad(browser, server, bypass_csp=True)
    page.locator("input.ref-photo-input").set_input_files(str(FIXTURES / "valid_50.jpg"))
    expect(page.locator(".ref-photo-die")).to_have_count(4)
    page.locator(".ref-photo-die").nth(0).click()  # one picked, as the 组长 corrects it
    found = violations(page)
    assert not found, "\n".join(found)


def test_a_big_photo_is_sent_as_a_smaller_jpeg(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    from PIL import Image

    big = tmp_path / "big.png"
    Image.open(FIXTURES / "valid_50.jpg").resize((4000, 3000)).save(big)  # a 12-MP PNG
    page, _ = referee_pad(browser, server, locale="en-US")
    with page.expect_request("**/read-dice") as sent:
        page.locator("input.ref-photo-input").set_input_files(str(big))
    assert sent.value.headers["content-type"] == "image/jpeg"
    expect(page.locator(".ref-photo-die")).to_have_count(4)
    # the photo shown is the one sent (the boxes are in its pixels): 1600 px on its long side
    shown = page.locator(".ref-photo-img").evaluate("i => [i.naturalWidth, i.naturalHeight]")
    assert shown == [1600, 1200]
    assert sorted(slot_faces(page)) == [2, 3, 5, 6]
    browser.assert_clean()
