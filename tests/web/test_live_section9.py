"""RULES.md §9.3 at the live table: 分状元 and 反向博钱 in the state and in the results CSV."""

from __future__ import annotations

import csv
import io

import httpx
from webtools import Client, create_table, join

from bobing.engine.record import adjudicate

RULES = {
    "preset": "traditional",
    "zhuangyuan_cake": "shared",
    "money": "pay",
    "values": {"zhuangyuan": 88, "duitang": 20, "sanhong": 10, "sijin": 5, "erju": 2, "yixiu": 1},
}


async def test_shared_cake_and_who_pays_what(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http, mode="referee", rules=RULES)
    code = created["code"]
    for name in ("甲", "乙"):
        await join(http, code, name)
    host = await Client.connect(server, code, [created["host_token"]])
    await host.command("start", starter="甲")
    first = await host.command("throw", turn=1, dice="123456")  # 对堂
    assert first["type"] == "ack", first
    end = await host.command("throw", turn=2, dice="444444")  # 六勃红 takes all, the end
    assert end["type"] == "ack", end
    await host.reach(end["last_seq"])
    state = host.state
    assert state is not None and state["status"] == "over"
    result = state["result"]
    assert result["zhuangyuan_cake"] == "shared" and result["zhuangyuan"]["player"] == "乙"
    assert result["pool"]["zhuangyuan"] == 0 and "zhuangyuan" not in result["holdings"]["乙"]
    # 乙 holds every other cake: 2×20 + 4×10 + 8×5 + 16×2 + 32×1 = 184; the shared cake is free.
    assert result["payments"] == {"players": {"甲": 0, "乙": 184}, "kitty": 184}
    # the exported record judges to the same §9 result (bobing adjudicate RECORD --json)
    record = (await http.get(f"/api/tables/{code}/record")).json()
    judged = adjudicate(record)
    for key in ("zhuangyuan", "holdings", "pool", "zhuangyuan_cake", "payments"):
        assert judged[key] == result[key], key
    plain = (await http.get(f"/api/tables/{code}/results.csv")).text.lstrip("\ufeff")
    rows = list(csv.reader(io.StringIO(plain)))
    assert rows[0][-1] == "pays" and rows[1][-1] == "0" and rows[2][-1] == "184"
    assert rows[3][1] == "kitty" and rows[3][-1] == "184"
    chinese = (await http.get(f"/api/tables/{code}/results.csv?lang=zh-Hans")).text
    head, *_, kitty = list(csv.reader(io.StringIO(chinese.lstrip("\ufeff"))))
    assert head[-1] == "应付" and kitty[1] == "公款合计"


async def test_tables_where_winners_receive_show_no_new_keys(
    http: httpx.AsyncClient, server: str
) -> None:
    created = await create_table(http, mode="referee")
    code = created["code"]
    for name in ("甲", "乙"):
        await join(http, code, name)
    host = await Client.connect(server, code, [created["host_token"]])
    await host.command("start", starter="甲")
    end = await host.command("throw", turn=1, dice="444444")
    await host.reach(end["last_seq"])
    assert host.state is not None
    result = host.state["result"]
    assert "payments" not in result and "zhuangyuan_cake" not in result
    plain = (await http.get(f"/api/tables/{code}/results.csv")).text.lstrip("\ufeff")
    assert "pays" not in plain.splitlines()[0] and len(plain.splitlines()) == 3
