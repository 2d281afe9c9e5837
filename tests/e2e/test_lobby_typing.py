"""What a host is typing in the lobby stays when the words around it are painted again: the
rulebook of the table's rules arriving late (a slow network, a busy server) once re-created
the lobby, and the name being typed was gone before 添加 was pressed."""

from __future__ import annotations

import re

import pytest
from e2etools import Browser, Server, create_table
from playwright.sync_api import Page, Route, expect

pytestmark = pytest.mark.browser


class Held:
    """The requests of ``page`` matching ``pattern``, held back until :meth:`release`."""

    def __init__(self, page: Page, pattern: str) -> None:
        self.page, self.pattern = page, re.compile(pattern)
        self.routes: list[Route] = []
        page.route(self.pattern, self.hold)

    def hold(self, route: Route) -> None:
        self.routes.append(route)

    def wait(self, what: str) -> None:
        """Until a request is held (``what``: the assertion's message when none comes)."""
        for _ in range(250):
            if self.routes:
                break
            self.page.wait_for_timeout(20)
        assert self.routes, what

    def release(self) -> None:
        for route in self.routes:
            route.continue_()
        self.page.unroute(self.pattern, self.hold)


def test_a_name_typed_as_the_rulebook_arrives_is_kept(browser: Browser, server: Server) -> None:
    maker = browser.page(name="maker")
    code = create_table(maker, server.url, mode="referee", name="慢网")
    host_token = maker.evaluate(
        "code => JSON.parse(localStorage.getItem('bobing.t.' + code)).hostToken", code
    )
    host = browser.page(name="host")  # a new device: no rulebook kept yet
    held = Held(host, r"/api/rulebook")
    host.goto(f"{server.url}/t/{code}#host={host_token}")
    expect(host.locator(".order-line")).to_contain_text("…")  # the rulebook is on its way
    held.wait("the lobby asks for its rulebook")
    field = host.get_by_label("玩家名字")
    field.fill("甲")
    held.release()
    expect(host.locator(".order-line")).not_to_contain_text("…")  # painted in its words
    expect(field).to_have_value("甲")
    expect(field).to_be_focused()
    host.get_by_role("button", name="添加").click()
    expect(host.locator(".seat-name")).to_have_text(["甲"])


def test_a_guest_typing_a_name_as_the_invite_address_arrives_keeps_the_focus(
    browser: Browser, server: Server
) -> None:
    # The lobby repaints once /api/invite answers (the LAN address for the QR code); on a
    # loaded CI box it answered while test_keyboard_only_join typed, and the keys were lost.
    maker = browser.page(name="maker")
    code = create_table(maker, server.url, name="慢邀请")
    guest = browser.page(name="guest")
    held = Held(guest, r"/api/invite")
    guest.goto(f"{server.url}/t/{code}")
    field = guest.get_by_label("你的名字")
    field.focus()
    guest.keyboard.type("丁")
    held.wait("the lobby asks for the invite address")
    guest.evaluate(
        "() => new MutationObserver(() => (window.repainted = true))"
        ".observe(document.querySelector('.lobby'), {childList: true, subtree: true})"
    )
    held.release()
    guest.wait_for_function("() => window.repainted")  # the lobby was painted again
    guest.keyboard.type("丁")  # still typing into the name box
    expect(field).to_have_value("丁丁")
    expect(field).to_be_focused()
    guest.keyboard.press("Enter")
    expect(guest.get_by_text("你已入座：丁丁")).to_be_visible()
