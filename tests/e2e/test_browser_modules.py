"""What the UI shows of the rules (the server's rulebook), its QR encoder and fairness check, run
in Chromium and compared with the Python engine (the source of truth) and segno."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import segno
from e2etools import Browser, Server
from playwright.sync_api import Page

from bobing.cli.rules_cmds import classification_json
from bobing.engine.fairness import derive_faces
from bobing.engine.hands import MULTISETS
from bobing.engine.ranking import zhuangyuan_ranking
from bobing.engine.rules import fit_order, load_rules
from bobing.engine.switches import choice_switches
from bobing.i18n.names import effect as explain_effect
from bobing.i18n.names import explain

pytestmark = pytest.mark.browser


def module_page(browser: Browser, server: Server) -> Page:
    page = browser.page(name="modules")
    page.goto(server.url + "/rules")
    page.wait_for_function("() => document.querySelector('.rank-list li')")
    return page


def every_switch_value() -> list[dict[str, Any]]:
    """A rule set per value of every switch that takes a few values (generated from the engine,
    so a new switch is covered by itself), the presets, and the list-valued switches."""
    specs: list[dict[str, Any]] = [{"preset": p} for p in ("traditional", "modern", "jinhua")]
    for switch, values in choice_switches().items():
        for value in values:
            spec: dict[str, Any] = {"preset": "modern", switch: value}
            if switch == "biandijin":
                spec["six_ones"] = "biandijin"
            if switch == "award" and value == "ranked":
                spec["ranked_prizes"] = [{"name": "一等奖", "count": 1}]
            specs.append(fit_order(spec))
    specs.append({"preset": "modern", "duitang_patterns": ["123456", "334455"]})
    specs.append({"preset": "modern", "wuzi_compare": "face_then_kicker", "wuzi_bonus": True})
    return specs


def test_every_throw_under_every_switch_shows_what_the_engine_says(
    browser: Browser, server: Server
) -> None:
    """All 462 multisets under every switch value, in two languages: the browser's hand,
    kicker, bonus, name, why, effect and 状元 level are the engine's (``bobing classify``)."""
    page = module_page(browser, server)
    specs = [load_rules(spec).to_json() for spec in every_switch_value()]
    got = page.evaluate(
        """async (specs) => {
            const book = await import('/js/rulebook.js');
            const i18n = await import('/js/i18n.js');
            const out = {};
            for (const lang of ['zh-Hans', 'en']) {
                await i18n.setLang(lang);
                out[lang] = [];
                for (const rules of specs) {
                    const loaded = await book.loadRulebook(rules, lang);
                    const rows = Object.keys(loaded.throws).map((text) => {
                        const c = book.classify(text, rules);
                        return [text, c.hand, c.tier, c.kicker, c.bonus, book.handName(c),
                                book.why(c), book.effect(c), c.rank];
                    });
                    out[lang].push({ rows, levels: loaded.levels });
                }
            }
            await i18n.setLang('zh-Hans');
            return out;
        }""",
        specs,
    )
    for lang in ("zh-Hans", "en"):
        for spec, shown in zip(specs, got[lang], strict=True):
            rules = load_rules(spec)
            assert shown["levels"] == len(zhuangyuan_ranking(rules))
            assert len(shown["rows"]) == len(MULTISETS) == 462
            for text, hand, tier, kicker, bonus, name, why, effect, rank in shown["rows"]:
                c = rules.classify(text)
                cli = classification_json(c.dice, c, rules, lang)
                assert [hand, tier, kicker, bonus, name, rank] == [
                    cli["hand"],
                    cli["tier"],
                    cli["kicker"],
                    cli["bonus"],
                    cli["name"],
                    cli["rank"],
                ], (spec, text)
                assert why == explain(c, rules, lang), (lang, text)
                assert effect == explain_effect(c, rules, lang), (lang, text)


def test_wuzi_bonus_throws_match_bobing_classify(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    """The five throws the browser's old classifier got wrong (五子带一秀), against the CLI."""
    spec = {"preset": "modern", "wuzi_bonus": True}
    rule_file = tmp_path / "wuzi_bonus.json"
    rule_file.write_text(json.dumps(spec), "utf-8")
    rules = load_rules(spec).to_json()
    page = module_page(browser, server)
    dice = ["111114", "222224", "333334", "455555", "666664"]
    shown = page.evaluate(
        """async ([rules, dice]) => {
            const book = await import('/js/rulebook.js');
            await book.loadRulebook(rules, 'en');
            const i18n = await import('/js/i18n.js');
            await i18n.setLang('en');
            return dice.map((d) => book.classify(d, rules));
        }""",
        [rules, dice],
    )
    for text, c in zip(dice, shown, strict=True):
        done = subprocess.run(
            [
                str(Path(sys.executable).parent / "bobing"),
                "classify",
                text,
                "--rules",
                str(rule_file),
                "--json",
                "--lang",
                "en",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        cli = json.loads(done.stdout)
        assert c["bonus"] == cli["bonus"] == ["yixiu"], text
        assert (c["hand"], c["kicker"], c["name"], c["rank"]) == (
            cli["hand"],
            cli["kicker"],
            cli["name"],
            cli["rank"],
        ), text
        assert c["why"] == explain(load_rules(spec).classify(text), None, "en")


def test_qr_codes_are_segnos(browser: Browser, server: Server) -> None:
    """The page's QR codes are drawn by the server with segno: every dark module of segno's
    symbol (and no other) is in the SVG, inside a four-module quiet zone."""
    page = module_page(browser, server)
    texts = [
        server.url + "/t/K7Q2MX",
        server.url + "/t/K7Q2MX?seat=" + "x" * 43,
        "https://博饼.example/" + "长" * 100,
    ]
    got = page.evaluate(
        """async (texts) => {
            const q = await import('/js/qrcode.js');
            const out = [];
            for (const text of texts) {
                const svg = q.qrSvg(text, { label: 'code' });
                document.body.append(svg);
                while (!('drawn' in svg.dataset)) await new Promise((r) => setTimeout(r, 20));
                const d = svg.querySelector('path').getAttribute('d');
                out.push([svg.getAttribute('viewBox'), d]);
            }
            return out;
        }""",
        texts,
    )
    for text, (view_box, path) in zip(texts, got, strict=True):
        matrix = segno.make(text, error="m", micro=False).matrix
        size = len(matrix) + 8
        assert view_box == f"0 0 {size} {size}"
        assert re.fullmatch(r"(M\d+,\d+h1v1h-1z)+", path)
        dark_cells = {(int(x), int(y)) for x, y in re.findall(r"M(\d+),(\d+)", path)}
        expected = {(x + 4, y + 4) for y, row in enumerate(matrix) for x, v in enumerate(row) if v}
        assert dark_cells == expected, text


def test_fairness_derivation_matches_the_engine(browser: Browser, server: Server) -> None:
    page = module_page(browser, server)
    rng = random.Random(9)
    cases = []
    for i in range(24):
        seed = "".join(rng.choice("0123456789abcdef") for _ in range(64))
        table = rng.choice(["K7Q2MX", "ABCDEF", "2345ZZ"])
        throw = 0 if i % 6 == 0 else rng.randint(1, 400)
        nonce = "".join(rng.choice("ab:.-_XYZ0189") for _ in range(rng.randint(1, 64)))
        count = 2 if throw == 0 else 6
        cases.append(
            [seed, table, throw, nonce, count, list(derive_faces(seed, table, throw, nonce, count))]
        )
    got = page.evaluate(
        """async (cases) => {
            const f = await import('/js/fair.js');
            const out = [];
            for (const [seed, table, n, nonce, count] of cases) {
                out.push(await f.deriveFaces(seed, table, n, nonce, count));
            }
            return out;
        }""",
        cases,
    )
    assert got == [c[5] for c in cases]
    # the pure-JS fallback (pages that are not a secure context have no crypto.subtle)
    messages = ["", "abc", "x" * 55, "y" * 56, "z" * 64, "博饼" * 100]
    key = bytes(range(32))
    got = page.evaluate(
        """async ([messages, keyHex]) => {
            const f = await import('/js/fair.js');
            const enc = new TextEncoder();
            return messages.map((m) => [
                f.bytesToHex(f.sha256Fallback(enc.encode(m))),
                f.bytesToHex(f.hmacFallback(f.hexToBytes(keyHex), enc.encode(m))),
            ]);
        }""",
        [messages, key.hex()],
    )
    expected = [
        [
            hashlib.sha256(m.encode()).hexdigest(),
            hmac.new(key, m.encode(), hashlib.sha256).hexdigest(),
        ]
        for m in messages
    ]
    assert got == expected


def test_a_count_of_one_has_its_own_sentence(browser: Browser, server: Server) -> None:
    page = module_page(browser, server)
    got = page.evaluate(
        """async () => {
            const i18n = await import('/js/i18n.js');
            await i18n.setLang('en');
            const out = [1, 2].map((n) => i18n.t('history.this_phone', { n }));
            out.push(i18n.t('award.hand', { n: 1, tier: 'duitang' }));
            await i18n.setLang('zh-Hans');
            out.push(i18n.t('history.this_phone', { n: 1 }));
            return out;
        }"""
    )
    assert got[:3] == ["On this phone (1 game)", "On this phone (2 games)", "wins 1 duitang cake"]
    assert got[3] == "这部手机（1 局）"
