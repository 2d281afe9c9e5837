"""axe-core (npm, pinned in package.json) over every screen a guest, a host or an organiser sees,
in both colour schemes and the three languages: no WCAG 2.1 A/AA violation (issue 20), and no
serious one of any rule, best practice and axe's experimental label-in-name included (issue 30:
the brand link, the keyboard-unreachable log and feed, the play page's missing h1, /e/new's
heading order)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2etools import Browser, Server, call, root_conftest
from playwright.sync_api import Page

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SERIOUS = ("serious", "critical")
HELD = ("heading-order", "page-has-heading-one", "scrollable-region-focusable")
"""Moderate best-practice rules the screens are held to as well (each was reported once)."""
LANGS = {"zh-Hans": "zh-CN", "zh-Hant": "zh-TW", "en": "en-GB"}
BOOTED = "() => !document.querySelector('#main .boot-moon') && document.querySelector('#main > *')"


def screens(server: Server) -> dict[str, tuple[str, str]]:
    """Every screen: its URL (tokens in the fragment) and what shows it is drawn."""
    lobby = call(server, "POST", "/api/tables", {"name": "中秋桌", "mode": "online"})
    played = call(server, "POST", "/api/tables", {"name": "中秋桌", "mode": "online"})
    for name in ("甲", "乙"):
        call(server, "POST", f"/api/tables/{played['code']}/join", {"name": name})
    call(
        server,
        "POST",
        f"/api/tables/{played['code']}/commands",
        {"type": "start"},
        played["host_token"],
    )
    people = [{"name": f"同学{i:02d}", "group": "一组"} for i in range(1, 9)]
    event = call(
        server, "POST", "/api/events", {"name": "三年二班中秋博饼", "people": people, "tables": 2}
    )
    organiser = event["organizer_token"]
    call(server, "POST", f"/api/events/{event['code']}/control", {"action": "start"}, organiser)
    referee, ended = event["tables"]
    call(
        server,
        "POST",
        f"/api/tables/{ended['code']}/commands",
        {"type": "end"},
        ended["host_token"],
    )
    e = event["code"]
    return {
        "home": ("/", ".order-statement .label"),
        "lobby": (f"/t/{lobby['code']}#host={lobby['host_token']}", ".lobby"),
        "table": (f"/t/{played['code']}", ".play"),
        "referee": (f"/t/{referee['code']}#host={referee['host_token']}", ".ref-pad"),
        "end": (f"/t/{ended['code']}", ".end"),
        "tv": (f"/t/{played['code']}/tv", "#main .card"),
        "event dashboard": (f"/e/{e}#o={organiser}", ".ev-grid"),
        "hall": (f"/e/{e}/hall", ".ev-tiles"),
        "results": (f"/e/{e}/results", "#main .card, #main table"),
        "event form": ("/e/new", "#ev-people"),
        "cards": (f"/e/{e}/cards#o={organiser}", ".ev-card"),
    }


def violations(page: Page) -> list[str]:
    """axe's violations on the page as it is, one line per element: every WCAG A/AA one, and
    of every other rule (experimental ones too) the serious and critical ones and :data:`HELD`."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        """() => axe.run(document, {rules: {'label-content-name-mismatch': {enabled: true}}})
          .then(r => r.violations)"""
    )
    return [
        f"{v['id']} ({v['impact']}): {node['target']} — "
        f"{node.get('failureSummary', '').splitlines()[-1:]}"
        for v in found
        if set(v["tags"]) & set(WCAG) or v["impact"] in SERIOUS or v["id"] in HELD
        for node in v["nodes"]
    ]


SCREENS = (
    "home",
    "lobby",
    "table",
    "referee",
    "end",
    "tv",
    "event dashboard",
    "hall",
    "results",
    "event form",
    "cards",
)


@pytest.fixture(scope="module")
def urls(server: Server) -> dict[str, tuple[str, str]]:
    """The screens' tables and event, made once for the module's tests (which only look)."""
    made = screens(server)
    assert set(made) == set(SCREENS)
    return made


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", list(LANGS))
def test_no_screen_has_an_accessibility_violation(
    browser: Browser,
    server: Server,
    urls: dict[str, tuple[str, str]],
    lang: str,
    scheme: str,
    screen: str,
) -> None:
    root_conftest().need_node_module(AXE, "the accessibility test (axe-core)")
    # axe is injected as an inline script, which the app's Content-Security-Policy refuses (as
    # it should); the other browser tests check the pages under the policy.
    page = browser.page(
        name=f"{lang}-{scheme}", locale=LANGS[lang], color_scheme=scheme, bypass_csp=True
    )
    url, ready = urls[screen]
    path, _, fragment = url.partition("#")
    page.goto(f"{server.url}{path}?lang={lang}" + (f"#{fragment}" if fragment else ""))
    page.wait_for_function(BOOTED)
    page.wait_for_selector(ready)
    page.evaluate("document.fonts.ready")
    found = violations(page)
    assert not found, f"{screen} ({lang}, {scheme}):\n  " + "\n  ".join(found)
