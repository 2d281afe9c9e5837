"""The UI's own game knowledge, QR encoder and fairness check, run in Chromium and compared with
the Python engine (the source of truth) and segno."""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import Any

import pytest
import segno
from e2etools import Browser, Server
from playwright.sync_api import Page
from segno import consts

from bobing.engine.fairness import derive_faces
from bobing.engine.game import Game
from bobing.engine.hands import MULTISETS
from bobing.engine.ranking import zhuangyuan_level, zhuangyuan_ranking
from bobing.engine.rules import load_rules
from bobing.i18n.names import explain, hand_name

pytestmark = pytest.mark.browser


def module_page(browser: Browser, server: Server) -> Page:
    page = browser.page(name="modules")
    page.goto(server.url + "/rules")
    page.wait_for_function("() => document.querySelector('.rank-list li')")
    return page


RULE_SETS: list[Any] = [
    "traditional",
    "modern",
    "jinhua",
    {
        "preset": "modern",
        "six_ones": "biandijin",
        "biandijin": "zhuangyuan",
        "zhuangyuan_order": [
            "liubohong",
            "biandijin",
            "liubohei",
            "chajinhua",
            "wuhong",
            "wuzi",
            "sihong",
        ],
        "wuzi_compare": "face_then_kicker",
        "duitang_patterns": ["123456", "334455"],
    },
]


def test_classification_names_and_ranking_match_the_engine(
    browser: Browser, server: Server
) -> None:
    page = module_page(browser, server)
    for spec in RULE_SETS:
        rules = load_rules(spec)
        got = page.evaluate(
            """async (rules) => {
                const g = await import('/js/game.js');
                const i18n = await import('/js/i18n.js');
                const out = {};
                for (const lang of ['zh-Hans', 'en']) {
                    await i18n.setLang(lang);
                    out[lang] = g.multisets().map((m) => {
                        const c = g.classify(m, rules);
                        const level = g.isZhuangyuanHand(c.hand, rules)
                            ? g.zhuangyuanLevel(c, rules).level : null;
                        return [c.text, c.hand, c.kicker, c.bonus, g.handName(c), g.why(c), level];
                    });
                }
                out.levels = g.zhuangyuanLevels(rules).length;
                await i18n.setLang('zh-Hans');
                return out;
            }""",
            rules.to_json(),
        )
        assert got["levels"] == len(zhuangyuan_ranking(rules))
        assert len(got["zh-Hans"]) == len(MULTISETS) == 462
        for lang in ("zh-Hans", "en"):
            for text, hand, kicker, bonus, name, why, level in got[lang]:
                c = rules.classify(text)
                engine = (str(c.hand), c.kicker, [str(b) for b in c.bonus])
                assert (hand, kicker, bonus) == engine, text
                assert name == hand_name(c, lang), (lang, text)
                assert why == explain(c, rules, lang), (lang, text)
                expected = zhuangyuan_level(rules, c) if rules.is_zhuangyuan_hand(c.hand) else None
                assert level == expected, text


def test_start_dice_count_matches_the_engine(browser: Browser, server: Server) -> None:
    page = module_page(browser, server)
    rng = random.Random(5)
    cases = []
    for preset in ("traditional", "modern"):
        for n in (2, 3, 5, 12):
            players = [f"p{i}" for i in range(n)]
            for _ in range(8):
                thrower = rng.choice(players)
                dice = (rng.randint(1, 6), rng.randint(1, 6))
                for variant in ("from_thrower", "from_next"):
                    spec = {"preset": preset, "start_count": variant}
                    game = Game(load_rules(spec), players)
                    started = game.start(thrower=thrower, dice=dice)[0].to_json()
                    cases.append(
                        [
                            load_rules(spec).to_json(),
                            players,
                            thrower,
                            list(dice),
                            started["starter"],
                        ]
                    )
    got = page.evaluate(
        """async (cases) => {
            const g = await import('/js/game.js');
            return cases.map(([rules, players, thrower, dice]) =>
                g.starterFromDice(players, thrower, dice, rules));
        }""",
        cases,
    )
    assert got == [case[4] for case in cases]


def test_qr_encoder_matches_segno(browser: Browser, server: Server) -> None:
    page = module_page(browser, server)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789/:.#=_-"
    cases: list[dict[str, Any]] = []
    for version in [*range(1, 11), 14, 20, 27, 33, 40]:
        for ecl in "LMQH":
            # a text that fills the symbol exactly, so segno's padding and ours agree bit for bit
            capacity: Any = consts.SYMBOL_CAPACITY
            bits = int(capacity[version][consts.ERROR_MAPPING[ecl]])
            header = 12 if version <= 9 else 20
            n = (bits - header - 4) // 8
            text = "".join(alphabet[(i * 7 + version) % len(alphabet)] for i in range(n))
            mask = (version + "LMQH".index(ecl)) % 8
            qr = segno.make(
                text,
                error=ecl.lower(),
                version=version,
                mask=mask,
                mode="byte",
                boost_error=False,
                micro=False,
            )
            rows = ["".join("1" if v else "0" for v in row) for row in qr.matrix]
            cases.append({"text": text, "ecl": ecl, "version": version, "mask": mask, "rows": rows})
    got = page.evaluate(
        """async (cases) => {
            const q = await import('/js/qr.js');
            return cases.map((c) => {
                const forced = q.encode(c.text, { ecl: c.ecl, version: c.version, mask: c.mask });
                const auto = q.encode(c.text, { ecl: c.ecl });
                const rows = forced.modules.map((r) => r.map((v) => (v ? '1' : '0')).join(''));
                return { rows, version: auto.version };
            });
        }""",
        [{k: v for k, v in c.items() if k != "rows"} for c in cases],
    )
    for case, mine in zip(cases, got, strict=True):
        assert mine["rows"] == case["rows"], (case["version"], case["ecl"])
        assert mine["version"] == case["version"], "the smallest version that fits"


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
