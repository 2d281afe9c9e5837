"""What a host is typing in the lobby stays when the words around it are painted again: the
rulebook of the table's rules arriving late (a slow network, a busy server) once re-created
the lobby, and the name being typed was gone before 添加 was pressed."""

from __future__ import annotations

import re
from collections.abc import Sized

import pytest
from e2etools import Browser, Server, create_table
from playwright.sync_api import Page, Route, WebSocketRoute, expect

pytestmark = pytest.mark.browser


def wait_for_one(page: Page, held: Sized, what: str) -> None:
    """Until ``held`` holds something (5 s of the page's time at most), else fail with ``what``."""
    for _ in range(250):
        if held:
            break
        page.wait_for_timeout(20)
    assert held, what


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
        wait_for_one(self.page, self.routes, what)

    def release(self) -> None:
        for route in self.routes:
            route.continue_()
        self.page.unroute(self.pattern, self.hold)


class HeldSocket:
    """What the server sends to ``page``'s WebSocket matching ``pattern``, held back until
    :meth:`release` (the page's own messages go through)."""

    def __init__(self, page: Page, pattern: str) -> None:
        self.page = page
        self.messages: list[str | bytes] = []
        self.released = False
        self.socket: WebSocketRoute | None = None
        page.route_web_socket(re.compile(pattern), self.hold)

    def hold(self, ws: WebSocketRoute) -> None:
        def down(message: str | bytes) -> None:
            if self.released:
                ws.send(message)
            else:
                self.messages.append(message)
                self.socket = ws

        ws.connect_to_server().on_message(down)

    def wait(self, what: str) -> None:
        """Until a message is held (``what``: the assertion's message when none comes)."""
        wait_for_one(self.page, self.messages, what)

    def release(self) -> None:
        assert self.socket is not None, "a message was held"
        self.released = True
        for message in self.messages:
            self.socket.send(message)


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


def test_a_host_typing_a_name_as_the_table_connects_keeps_the_focus(
    browser: Browser, server: Server
) -> None:
    # The connection said it was open a moment before the session took its welcome's roles: for
    # that moment a pass-and-play host was no host, the lobby put "the host seats everyone" in
    # place of the name box, and the focus left it. Keys typed then were lost (seen as a flaky
    # browser test on a loaded machine: the name box was empty when 添加 was pressed).
    page = browser.page(name="host")
    held = HeldSocket(page, r"/ws/tables/")
    create_table(page, server.url, mode="pass_and_play")
    held.wait("the server welcomes the table's socket")
    field = page.get_by_label("玩家名字")
    field.focus()
    page.keyboard.type("甲")
    held.release()  # the welcome, and what follows it
    expect(page.get_by_role("img", name="已连接")).to_be_visible()
    page.keyboard.type("乙")  # still typing into the name box
    expect(field).to_have_value("甲乙")
    expect(field).to_be_focused()
    page.get_by_role("button", name="添加").click()
    expect(page.locator(".seat-name")).to_have_text(["甲乙"])
