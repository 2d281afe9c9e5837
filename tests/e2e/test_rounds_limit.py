"""Issue 28: rounds 200 at a table are accepted, and one round more refused, the same way by the
engine, ``bobing rules``, the server, the table form and the event form (/e/new), every refusal
quoting the one number: ``MAX_ROUNDS`` of the engine, which the browser is served."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
from pathlib import Path
from typing import Any

import pytest
from e2etools import Browser, Server, call, state
from playwright.sync_api import Page, expect

from bobing.engine.errors import RulesError
from bobing.engine.rules import rules_from_json
from bobing.engine.switches import MAX_ROUNDS, allowed_values

pytestmark = pytest.mark.browser

BOBING = Path(sys.executable).parent / "bobing"
PRIZES = [{"name": "一等奖", "count": 1, "value": 100}, {"name": "二等奖", "count": 2}]
PEOPLE = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛"]  # 4 tables of 2
ROUNDS = 200


def ranked(rounds: int) -> dict[str, Any]:
    return {"preset": "traditional", "award": "ranked", "ranked_prizes": PRIZES, "rounds": rounds}


def refusal(rounds: int, tmp_path: Path) -> dict[str, str | None]:
    """What the engine, ``bobing rules`` and the server say of ``rounds`` (None: accepted)."""
    said: dict[str, str | None] = {}
    try:
        rules_from_json(ranked(rounds))
        said["engine"] = None
    except RulesError as exc:
        said["engine"] = str(exc)
    path = tmp_path / f"rounds-{rounds}.json"
    path.write_text(json.dumps(ranked(rounds), ensure_ascii=False), "utf-8")
    done = subprocess.run(
        [str(BOBING), "rules", str(path), "--json", "--lang", "en"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said["bobing rules"] = None if done.returncode == 0 else done.stderr
    if done.returncode == 0:
        assert json.loads(done.stdout)["rounds"] == rounds
    return said


def server_refusal(server: Server, rounds: int) -> str | None:
    try:
        body = {"name": "排名", "rules": ranked(rounds)}
        created = call(server, "POST", "/api/tables?lang=en", body)
    except urllib.error.HTTPError as exc:
        problem = json.loads(exc.read())
        assert exc.code == 422 and problem["params"]["maximum"] == MAX_ROUNDS, problem
        return str(problem["detail"])
    assert created["table"]["rules"]["rounds"] == rounds, created
    return None


def ranked_table_form(page: Page, server: Server) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector(".order-statement .label")
    page.get_by_label("桌名").fill("排名")
    page.get_by_label("每人一份奖").check()
    page.locator(".prize-entry-name").first.fill("一等奖")


def set_rounds(page: Page, selector: str, value: int) -> None:
    page.locator(selector).fill(str(value))
    page.locator(selector).dispatch_event("change")


def test_rounds_200_everywhere(browser: Browser, server: Server, tmp_path: Path) -> None:
    assert ROUNDS == MAX_ROUNDS, "the limit moved: this test names the number the issue asked"
    assert allowed_values("rounds") == ["null", f"1-{ROUNDS}"]
    served = call(server, "GET", "/api/limits")
    assert served["limits"]["max_rounds"] == ROUNDS

    # the engine, bobing rules and the server: 200 accepted, 201 refused quoting 200
    assert refusal(ROUNDS, tmp_path) == {"engine": None, "bobing rules": None}
    assert server_refusal(server, ROUNDS) is None
    over = {**refusal(ROUNDS + 1, tmp_path), "server": server_refusal(server, ROUNDS + 1)}
    for where, message in over.items():
        assert message is not None, f"{where} accepts {ROUNDS + 1} rounds"
        assert f"1-{ROUNDS}" in message and str(ROUNDS + 1) in message, (where, message)

    # the table form: its bound, its hint and its error are the served number
    page = browser.page(name="host")
    ranked_table_form(page, server)
    rounds = page.locator("#terms-rounds")
    expect(rounds).to_have_attribute("max", str(ROUNDS))
    expect(page.locator(".ranked-editor")).to_contain_text(f"博满这么多轮（1–{ROUNDS}）就结束")
    set_rounds(page, "#terms-rounds", ROUNDS + 1)
    toasts = page.locator("#toasts")
    expect(toasts).to_contain_text(f"“{ROUNDS + 1}”不是 1–{ROUNDS} 之间的轮数")
    expect(rounds).to_have_value("")  # refused: the field goes back to what it held
    set_rounds(page, "#terms-rounds", ROUNDS)
    expect(rounds).to_have_value(str(ROUNDS))
    page.get_by_role("button", name="开桌").click()
    page.wait_for_selector(".lobby")
    assert state(page)["rules"]["rounds"] == ROUNDS

    # the event form (/e/new): the same bound, hint and error; the server's preview agrees
    page.goto(server.url + "/e/new")
    expect(page.get_by_role("heading", name="创建博饼活动")).to_be_visible()
    page.locator("#ev-people").fill("\n".join(PEOPLE))
    page.get_by_label("每人一份，按最好的一掷排名次").check()
    field = page.locator("#ev-rounds")
    expect(field).to_have_attribute("max", str(ROUNDS))
    expect(page.locator(".ev-ranked")).to_be_attached()
    expect(page.locator(".fieldset:has(#ev-rounds)")).to_contain_text(f"1–{ROUNDS} 轮")
    summary = page.locator("#ev-summary")
    with browser.allow("status of 422"):  # the preview's refusal
        set_rounds(page, "#ev-rounds", ROUNDS + 1)
        expect(toasts).to_contain_text(f"“{ROUNDS + 1}”不是 1–{ROUNDS} 之间的轮数")
        expect(summary).to_have_class("ev-summary is-error")
        expect(summary).to_contain_text(f"1-{ROUNDS}")
    set_rounds(page, "#ev-rounds", ROUNDS)
    expect(summary).not_to_have_class("ev-summary is-error")
    expect(summary).to_contain_text("桌")
    browser.assert_clean()
