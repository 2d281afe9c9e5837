"""The class event on paper: 44 people at 4 tables of 11, every one of a table's 86 cakes won,
the results printed to A4 fit a few pages (a person's cakes as counts, "可乐 ×9", a compact
table, a heading you can read); each table's card names its 组长."""

from __future__ import annotations

import io
import json
import random
import re
import zipfile

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import expect

from bobing.organizer.xlsx import read_xlsx

pytestmark = pytest.mark.browser

# real surnames, so that the name order (pinyin) is not the code points' order
SURNAMES = (
    "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜戚谢邹喻柏水窦章云苏潘葛"
)
PEOPLE = [
    {"name": f"{s}{'明红华丽'[i % 4]}", "group": f"{'一二三四'[i // 11]}组", "leader": i % 11 == 2}
    for i, s in enumerate(SURNAMES)
]
LEADERS = {1 + i // 11: p["name"] for i, p in enumerate(PEOPLE) if p["leader"]}
CLASS_PRIZES = {
    "zhuangyuan": [{"name": "可爱公仔", "count": 1, "value": 65}],
    "duitang": [
        {"name": "洗发水", "count": 2, "value": 40},
        {"name": "沐浴露", "count": 2, "value": 40},
    ],
    "sanhong": [
        {"name": "杯子", "count": 3, "value": 20},
        {"name": "雨伞", "count": 3, "value": 20},
    ],
    "sijin": [{"name": "毛巾", "count": 10, "value": 5}],
    "erju": [{"name": "饼干", "count": 25, "value": 3}],
    "yixiu": [{"name": "可乐", "count": 40, "value": 2}],
}
# a throw for each cake of the set (four of a kind is a 四进, one 4 an 一秀 …), the 状元 a 四红
WINS = {"zhuangyuan": "444456", "duitang": "123456", "sanhong": "444123", "sijin": "222213"}
WINS |= {"erju": "441235", "yixiu": "412235"}
NOTHING = "112235"
MAX_PRINTED_PAGES = 5


def played_class_event(server: Server) -> str:
    """The class event created and every table played until its cakes are gone: each throw
    wins a cake of a tier (in a seeded random order, some throws win nothing)."""
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "三年二班中秋博饼",
            "rules": "traditional",
            "mode": "referee",
            "people": PEOPLE,
            "tables": 4,
            "seating": "in_order",
            "prizes": CLASS_PRIZES,
        },
    )
    code, token = created["code"], created["organizer_token"]
    call(server, "POST", f"/api/events/{code}/control", {"action": "start"}, token)
    rng = random.Random(19)
    for table in created["tables"]:
        throws = [WINS[tier] for tier, goods in CLASS_PRIZES.items() for g in goods
                  for _ in range(g["count"])]  # fmt: skip
        throws += [NOTHING] * 20
        rng.shuffle(throws)
        throws += [NOTHING] * 11  # the round after the last cake
        for dice in throws:
            state = call(server, "GET", f"/api/tables/{table['code']}")
            if state["status"] == "over":
                break
            call(
                server,
                "POST",
                f"/api/tables/{table['code']}/commands",
                {"type": "throw", "turn": state["turn"], "dice": dice},
                table["host_token"],
            )
        assert call(server, "GET", f"/api/tables/{table['code']}")["status"] == "over"
    return str(code)


def test_the_printed_results_fit_a_few_pages(browser: Browser, server: Server) -> None:
    code = played_class_event(server)
    results = call(server, "GET", f"/api/events/{code}/results")
    assert sum(len(p["prizes"]) for p in results["people"]) == 4 * 86
    page = browser.page(browser.context(viewport={"width": 1100, "height": 900}), name="desk")
    page.goto(f"{server.url}/e/{code}/results")
    expect(page.locator(".ev-desk")).to_have_count(5)
    # a person's cakes are counted: one line per kind of prize ("可乐 ×9")
    for person in results["people"][:11]:
        row = page.locator(f'.ev-desk[data-table="1"] tr[data-name="{person["name"]}"]')
        expect(row.locator(".prize-list li")).to_have_count(len(person["prize_counts"]))
    most = max(results["people"], key=lambda p: max(c["count"] for c in p["prize_counts"]))
    top = max(most["prize_counts"], key=lambda c: c["count"])
    row = page.locator(f'.ev-desk[data-table="{most["table"]}"] tr[data-name="{most["name"]}"]')
    expect(row).to_contain_text(f"{top['name']} ×{top['count']}")
    # the by-name list is in the downloads' order (the server's, pinyin)
    shown = page.locator(".ev-by-name tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.name)"
    )
    with page.expect_download() as got:
        page.locator("#ev-xlsx").click()
    book = got.value.path().read_bytes()
    assert shown == list(dict.fromkeys(r[1] for r in xlsx_sheet(book, 2)[1:])) == results["by_name"]
    assert shown[:3] == ["柏明", "曹红", "陈红"], shown[:3]
    # the server's pinyin order is the browser's own (ICU's zh-u-co-pinyin, what the page used)
    icu = page.evaluate(
        "names => names.slice().sort(new Intl.Collator('zh-u-co-pinyin').compare)", shown
    )
    assert icu == shown

    page.emulate_media(media="print")
    expect(page.locator(".topbar")).to_be_hidden()
    # every heading is black on the white paper, the title large enough to find the sheet by
    headings = page.locator(".ev-results-page :is(h1, h2, h3)").evaluate_all(
        """hs => hs.map(e => { const s = getComputedStyle(e);
                              return [e.textContent, s.color, parseFloat(s.fontSize)]; })"""
    )
    assert len(headings) >= 7, headings  # the title, the 王中王, 按桌, 4 tables, 按姓名
    for text, color, _ in headings:
        assert color == "rgb(0, 0, 0)", (text, color)
    assert headings[0][2] >= 22, headings[0]
    pdf = page.pdf(format="A4")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    print(f"printed results: {pages} A4 pages")  # 15 before the compact print
    assert pages <= MAX_PRINTED_PAGES, f"the results print to {pages} pages"


def test_each_card_names_its_zuzhang(browser: Browser, server: Server) -> None:
    created = call(
        server,
        "POST",
        "/api/events",
        {"name": "三年二班中秋博饼", "rules": "traditional", "mode": "referee",
         "people": PEOPLE, "tables": 4, "seating": "in_order", "prizes": CLASS_PRIZES},
    )  # fmt: skip
    event = call(server, "GET", f"/api/events/{created['code']}")
    assert {t["number"]: t["leaders"] for t in event["tables"]} == {
        n: [name] for n, name in LEADERS.items()
    }
    # the organiser's browser: each name has its seat's QR beside it
    ctx = browser.context(viewport={"width": 1100, "height": 900})
    saved = json.dumps({"organizerToken": created["organizer_token"]})
    ctx.add_init_script(f"localStorage.setItem('bobing.e.{created['code']}', {saved!r})")
    cards = browser.page(ctx, name="cards")
    cards.goto(f"{server.url}/e/{created['code']}/cards")
    expect(cards.locator(".ev-card")).to_have_count(4)
    expect(cards.locator(".ev-card-seat-qr .qr")).to_have_count(44)
    for number, name in LEADERS.items():
        expect(cards.locator(f'.ev-card[data-table="{number}"] .ev-card-leader')).to_have_text(
            f"组长：{name}"
        )
    cards.emulate_media(media="print")
    # on paper every line is inside its card's frame (a printed card is cut at its height):
    # the seats with their QR codes, the 组长, the rules, the goods, the link
    for number in LEADERS:
        cut = cards.locator(f'.ev-card[data-table="{number}"]').evaluate(
            """card => { const bottom = card.getBoundingClientRect().bottom;
                         return [...card.querySelectorAll('.ev-card-side > *, .ev-card-body > *')]
                           .filter(e => e.getBoundingClientRect().bottom > bottom)
                           .map(e => e.className); }"""
        )
        assert cut == [], f"table {number}'s card cuts {cut}"
    pdf = cards.pdf(format="A4")
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 2


def xlsx_sheet(data: bytes, number: int) -> list[list[str]]:
    """Sheet ``number`` of a workbook (read_xlsx reads the first): that sheet put first."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with source, zipfile.ZipFile(out, "w") as copy:
        for item in source.infolist():
            body = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                body = source.read(f"xl/worksheets/sheet{number}.xml")
            copy.writestr(item, body)
    return read_xlsx(out.getvalue())
