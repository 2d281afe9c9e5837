"""Issue 16: an honest game passes ``bobing verify`` after a clean restart.

The snapshot of a table's fold used to keep a reference to the live ``fair_throws`` list and
was written in the background: a throw committed meanwhile was in the snapshot and in its
tail, so after a restart the record listed it twice and the check failed. Here a real
``bobing serve`` takes a snapshot after every event while many tables throw at once, is
stopped with SIGTERM and started again, the games are played out, and ``bobing verify`` checks
every table's record.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from sectools import NO_LIMITS, served

BOBING = str(Path(sys.executable).with_name("bobing"))
TABLES = 8


async def _command(http: httpx.AsyncClient, code: str, token: str, **fields: Any) -> Any:
    response = await http.post(
        f"/api/tables/{code}/commands", json=fields, headers={"Authorization": f"Bearer {token}"}
    )
    return response


async def _throws(http: httpx.AsyncClient, table: dict[str, Any], count: int) -> None:
    for _ in range(count):
        response = await _command(http, table["code"], table["play_token"], type="throw")
        assert response.status_code == 200, response.text


async def test_every_record_verifies_after_a_sigterm_restart(tmp_path: Path) -> None:
    async with served(tmp_path, "snapshot_every=1", *NO_LIMITS) as server:
        tables = []
        for number in range(TABLES):
            response = await server.http.post(
                "/api/tables", json={"name": f"重启{number}", "mode": "pass_and_play"}
            )
            assert response.status_code == 201, response.text
            table = response.json()
            for name in ("甲", "乙", "丙"):
                joined = await server.http.post(
                    f"/api/tables/{table['code']}/join", json={"name": name}
                )
                assert joined.status_code == 201, joined.text
            started = await _command(server.http, table["code"], table["host_token"], type="start")
            assert started.status_code == 200, started.text
            tables.append(table)
        # Every table throws at once: each snapshot is written while later throws commit.
        await asyncio.gather(*(_throws(server.http, t, 12) for t in tables))
        await server.restart(graceful=True)
        failures = []
        for table in tables:
            code = table["code"]
            ended = await _command(server.http, code, table["host_token"], type="end")
            assert ended.status_code == 200, ended.text
            # Time is called: the round is played out, then the seed is revealed.
            while (await server.http.get(f"/api/tables/{code}")).json()["status"] != "over":
                thrown = await _command(server.http, code, table["play_token"], type="throw")
                assert thrown.status_code == 200, thrown.text
            record = (await server.http.get(f"/api/tables/{code}/record")).json()
            path = tmp_path / f"{code}.json"
            path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
            env = {k: v for k, v in os.environ.items() if k != "BOBING_LANG"}
            done = subprocess.run(
                [BOBING, "verify", str(path), "--lang", "en"],
                capture_output=True,
                text=True,
                timeout=60,
                env=env,
            )
            if done.returncode != 0:
                failures.append((code, done.stdout + done.stderr))
        assert failures == [], failures
