"""axe-core (npm, pinned in package.json) over every screen a guest, a host or an organiser sees,
in both colour schemes and the three languages: no WCAG 2.1 A/AA violation (issue 20), and no
serious one of any rule, best practice and axe's experimental label-in-name included (issue 30:
the brand link, the keyboard-unreachable log and feed, the play page's missing h1, /e/new's
heading order; the claim, rules and odds pages too: the odds page's game length, computing,
was at half opacity)."""

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


LENGTH_DRAWN = ".odds-length-body:not(.is-busy) .stat-mean"
"""The odds page once its game length is drawn, as well as its table."""


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
    finished = call(server, "POST", "/api/tables", {"name": "中秋桌", "mode": "online"})
    for name in ("甲", "乙"):
        call(server, "POST", f"/api/tables/{finished['code']}/join", {"name": name})
    for command in ("start", "end"):
        call(
            server,
            "POST",
            f"/api/tables/{finished['code']}/commands",
            {"type": command},
            finished["host_token"],
        )
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
        # a guest's phone at a table of its own: the host may start a rematch (the known 2.99:1)
        "end of a table": (f"/t/{finished['code']}", ".rematch-wait"),
        "tv": (f"/t/{played['code']}/tv", "#main .card"),
        "event dashboard": (f"/e/{e}#o={organiser}", ".ev-grid"),
        "hall": (f"/e/{e}/hall", ".ev-tiles"),
        "results": (f"/e/{e}/results", "#main .card, #main table"),
        "event form": ("/e/new", "#ev-people"),
        "cards": (f"/e/{e}/cards#o={organiser}", ".ev-card"),
        "claim": (f"/e/{e}/t/1", ".ev-claim"),
        "rules": ("/rules", ".rules-page"),
        # the game length drawn (it comes from the analysis worker after the page): measured
        # while it is still computing, the card changes under axe (a loaded run's rerun)
        "odds": (f"/t/{played['code']}/odds", LENGTH_DRAWN),
        "standalone odds": ("/odds", LENGTH_DRAWN),
    }


FLATTEN = """shade => {
  const luminance = (c) => c.match(/[\\d.]+/g).slice(0, 3).reduce((a, v) => a + Number(v), 0);
  if (!window.bobingStops) {
    window.bobingStops = new Map();
    for (const el of [document.body, ...document.body.querySelectorAll("*")]) {
      let image = getComputedStyle(el).backgroundImage;
      if (!image.includes("gradient")) continue;
      // the sky: its moon and stars are no text's background, its night is
      if (el === document.body) image = image.slice(image.lastIndexOf("linear-gradient"));
      const stops = (image.match(/rgba?\\([^)]*\\)/g) || []).sort(
        (a, b) => luminance(a) - luminance(b));
      if (stops.length) window.bobingStops.set(el, stops);
    }
  }
  for (const [el, stops] of window.bobingStops) {
    el.style.setProperty("background-image", "none", "important");
    el.style.setProperty(
      "background-color", shade === "light" ? stops[stops.length - 1] : stops[0], "important");
  }
}"""
"""Every gradient behind text as one of its colours, its lightest or its darkest: axe cannot
measure text over a gradient and leaves it undecided ("incomplete")."""

UNMEASURED = {"nonBmp"}
"""Why axe may leave a contrast undecided and rightly so: the element holds no text (an icon, a
tick beside a name), not a contrast it could not measure."""

UNMEASURABLE = {".ref-key-num": "the referee pad's digit beside its die (--ink-3 on the key)"}
"""Texts axe cannot measure (one character over an SVG), each with why it passes."""

DECORATION = ".lanterns, .confetti"
"""Pictures drawn over the ceremony (aria-hidden, no pointer events), hidden while contrast is
measured: each text is measured against its own background, not against a passing lantern."""


def lines(results: list[dict[str, Any]]) -> list[str]:
    return [
        f"{v['id']}: {node['target']} — {node.get('failureSummary', '').splitlines()[-1:]}"
        for v in results
        for node in v["nodes"]
    ]


OWN_BOX = """selector => {
  const el = document.querySelector(selector);
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => v / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
  const back = rgb(getComputedStyle(el).backgroundColor);
  if (back.length > 3 && back[3] < 1) return null;
  return Math.min(...[getComputedStyle(el).color, getComputedStyle(el, "::placeholder").color]
    .map(rgb).map((c) => ratio(c, back)));
}"""
"""The lowest contrast of a text box's typed text and its placeholder on the box's own
background, or null when that background is not opaque. axe leaves a text box undecided
("partially obscured" by itself): a box that scrolls is measured by its content's height, which
an empty box's border exceeds."""


def undecided(page: Page, results: list[dict[str, Any]], shade: str) -> list[str]:
    """The contrasts axe left undecided, each one a failure unless it holds no text; a text too
    short for axe to call text is held to its measured ratio, a text box (which axe finds
    obscured by itself) to its text's and its placeholder's on its own background."""
    found: list[str] = []
    for node in (node for v in results for node in v["nodes"]):
        check = (node.get("any") or [{}])[0]
        data = check.get("data") or {}
        reason = data.get("messageKey") if isinstance(data, dict) else None
        if reason in UNMEASURED or any(k in str(node["target"]) for k in UNMEASURABLE):
            continue
        ratio, wanted = data.get("contrastRatio"), data.get("expectedContrastRatio")
        measured = reason == "shortTextContent" and ratio and wanted
        if measured and float(ratio) >= float(str(wanted).removesuffix(":1")):
            continue
        related = [r["target"] for r in check.get("relatedNodes") or []]
        if reason == "elmPartiallyObscured" and related == [node["target"]] and wanted:
            own = page.evaluate(OWN_BOX, node["target"][0])
            if own is not None and own >= float(str(wanted).removesuffix(":1")):
                continue
            check = {**check, "message": f"its own box: {own}"}
        found.append(
            f"color-contrast ({shade}) undecided: {node['target']} — {check.get('message')}"
        )
    return found


def violations(page: Page) -> list[str]:
    """axe's violations on the page as it is, one line per element: every WCAG A/AA one, and
    of every other rule (experimental ones too) the serious and critical ones and :data:`HELD`;
    then every text's contrast (4.5:1, 3:1 when large) over each gradient's lightest and
    darkest colour, where axe could not decide: a contrast axe cannot measure is a failure."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        """() => axe.run(document, {rules: {'label-content-name-mismatch': {enabled: true}}})
          .then(r => r.violations)"""
    )
    problems = [
        f"{v['id']} ({v['impact']}): {node['target']} — "
        f"{node.get('failureSummary', '').splitlines()[-1:]}"
        for v in found
        if set(v["tags"]) & set(WCAG) or v["impact"] in SERIOUS or v["id"] in HELD
        for node in v["nodes"]
    ]
    page.evaluate(
        "sel => document.querySelectorAll(sel).forEach(e => e.style.setProperty('display','none'))",
        DECORATION,
    )
    for shade in ("light", "dark"):
        page.evaluate(FLATTEN, shade)
        contrast: dict[str, list[dict[str, Any]]] = page.evaluate(
            "() => axe.run(document, {runOnly: {type: 'rule', values: ['color-contrast']}})"
            ".then(r => ({violations: r.violations, incomplete: r.incomplete}))"
        )
        problems += [f"({shade}) {line}" for line in lines(contrast["violations"])]
        problems += undecided(page, contrast["incomplete"], shade)
    return problems


SCREENS = (
    "home",
    "lobby",
    "table",
    "referee",
    "end",
    "end of a table",
    "tv",
    "event dashboard",
    "hall",
    "results",
    "event form",
    "cards",
    "claim",
    "rules",
    "odds",
    "standalone odds",
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
