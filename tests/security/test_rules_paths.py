"""Issue 9, critical: rules sent over the web are a preset or a rule object, never a path.

Before the fix ``{"rules": "/dev/zero"}`` read that file inside the event loop, ``/dev/stdin``
hung the server, and the error told whether a file existed and quoted the first key of a JSON
file. The server here runs in a directory that holds such files, with a standard input nobody
writes to.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sectools import problem_of, served

SECRET_KEY = "api_secret_9f3a"

PATHS = [
    "/dev/zero",
    "/dev/stdin",
    "/dev/urandom",
    "/etc/passwd",
    "/proc/self/environ",
    "pyproject.toml",
    "secret.json",
    "./secret.json",
    "../cwd/secret.json",
    "sub/../secret.json",
    "SECRET.JSON",
    "mine",
    "rules.json",
    "~/.bashrc",
    "file:///etc/passwd",
    "C:\\Windows\\win.ini",
    "\\\\server\\share\\rules.json",
    "/",
    ".",
    "missing.json",
]
"""Absolute, relative, device, home, URL and Windows forms; ``mine`` and ``rules.json`` exist
in the server's working directory as valid rule files (the command line would read them)."""


def _plant_files(cwd: Path) -> None:
    (cwd / "secret.json").write_text(json.dumps({SECRET_KEY: "hunter2"}), encoding="utf-8")
    valid = json.dumps({"preset": "modern"})
    (cwd / "mine").write_text(valid, encoding="utf-8")
    (cwd / "rules.json").write_text(valid, encoding="utf-8")
    (cwd / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")


def _leaks_nothing(problem: dict[str, object], path: str) -> None:
    text = json.dumps(problem, ensure_ascii=False)
    assert SECRET_KEY not in text and "hunter2" not in text
    for hint in ("cannot read", "not valid JSON", "rule file", "No such file", "errno"):
        assert hint not in text, (path, hint, text)


async def test_table_rules_are_never_a_path(tmp_path: Path) -> None:
    async with served(tmp_path, "create_per_minute=0", "analysis_per_minute=0") as server:
        _plant_files(server.cwd)
        shapes: list[dict[str, object]] = []
        for path in PATHS:
            for rules in (path, {"preset": path}):
                response = await server.http.post("/api/tables", json={"name": "x", "rules": rules})
                problem = problem_of(response, 422, "invalid_rules")
                _leaks_nothing(problem, path)
                shapes.append({k: v for k, v in problem.items() if k not in ("detail", "params")})
        # Whether a file exists or not, the answer is the same (an unknown preset).
        assert all(shape == shapes[0] for shape in shapes)
        # Still answering (nothing hung on /dev/stdin, nothing is reading /dev/zero) ...
        assert (await server.http.get("/api/health")).json() == {"status": "ok"}
        # ... and no table was created.
        response = await server.http.post("/api/tables", json={"name": "x", "rules": "modern"})
        assert response.status_code == 201
        assert response.json()["table"]["rules"]["preset"] == "modern"


@pytest.mark.parametrize("route", ["/api/odds", "/api/game-length", "/api/charts/length.svg"])
async def test_analysis_rules_are_never_a_path(tmp_path: Path, route: str) -> None:
    async with served(tmp_path, "analysis_per_minute=0") as server:
        _plant_files(server.cwd)
        for path in PATHS:
            response = await server.http.get(route, params={"rules": path, "players": 4})
            _leaks_nothing(problem_of(response, 422, "invalid_rules"), path)
        response = await server.http.post("/api/odds", json={"preset": "secret.json"})
        _leaks_nothing(problem_of(response, 422, "invalid_rules"), "secret.json")
        assert (await server.http.get("/api/health")).status_code == 200


async def test_rulebook_rules_are_never_a_path(tmp_path: Path) -> None:
    """``POST /api/rulebook`` (the browser's rulebook) takes a preset name or a rule object:
    a name is looked up, never opened, whether the file exists or not."""
    async with served(tmp_path, "analysis_per_minute=0") as server:
        _plant_files(server.cwd)
        for path in PATHS:
            for body in (path, {"preset": path}):
                response = await server.http.post("/api/rulebook", json=body)
                _leaks_nothing(problem_of(response, 422, "invalid_rules"), path)
        response = await server.http.post("/api/rulebook", json="modern")
        assert response.status_code == 200 and response.json()["rules"]["preset"] == "modern"
        assert (await server.http.get("/api/health")).status_code == 200


def test_the_web_reads_rules_with_a_function_that_opens_no_file(tmp_path: Path) -> None:
    """The root of the fix: the web's rule parser looks names up; it has no path to follow."""
    from bobing.tables.problems import ApiError
    from bobing.tables.validation import parse_rules, preset_rules

    rule_file = tmp_path / "rules.json"
    rule_file.write_text(json.dumps({"preset": "modern"}), encoding="utf-8")
    for spec in (str(rule_file), rule_file.name, "/dev/stdin"):
        with pytest.raises(ApiError) as caught:
            parse_rules(spec, None)
        assert caught.value.code == "invalid_rules"
        with pytest.raises(ApiError):
            preset_rules(spec)
    assert parse_rules("通行", None).preset == "modern"
    assert parse_rules({"preset": "jinhua"}, None).preset == "jinhua"
