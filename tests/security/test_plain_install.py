"""What the package ships runs from a plain install: no shipped module imports a test tool.

The full proof is ``.ci/plain-install`` (a wheel in a fresh venv without the dev extras, every
command run once), which CI runs before the tests. These checks are its fast half: every
import anywhere under ``bobing/`` names the standard library, bobing itself, or a distribution
that ``pip install bobing`` brings (the runtime dependencies and what they require, with the
extras we ask for); and the CI script runs every command the CLI registers.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

from bobing.cli import app

ROOT = Path(__file__).resolve().parents[2]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _runtime_distributions() -> set[str]:
    """The distributions ``pip install bobing`` installs here, as normalised names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    todo = [Requirement(text) for text in project["dependencies"]]
    seen: set[str] = set()
    while todo:
        requirement = todo.pop()
        name = _normal(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        for text in importlib.metadata.requires(requirement.name) or []:
            sub = Requirement(text)
            # A requirement applies without extras, or with one of the extras we asked for.
            if sub.marker is None or any(
                sub.marker.evaluate({"extra": extra}) for extra in requirement.extras or {""}
            ):
                todo.append(sub)
    return seen


def _importable_from_plain_install() -> set[str]:
    dists = _runtime_distributions()
    modules = {"bobing", *sys.stdlib_module_names}
    for module, owners in importlib.metadata.packages_distributions().items():
        if any(_normal(owner) in dists for owner in owners):
            modules.add(module)
    return modules


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def test_the_dev_extras_are_not_part_of_a_plain_install() -> None:
    dists = _runtime_distributions()
    assert "fastapi" in dists and "websockets" in dists and "uvloop" in dists
    for tool in ("httpx", "pytest", "hypothesis", "playwright", "mypy"):
        assert tool not in dists, f"{tool} would come with a plain install"


def test_no_shipped_module_imports_a_dev_only_package() -> None:
    allowed = _importable_from_plain_install()
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / "bobing").rglob("*.py"))
        for line, module in _imports(path)
        if module not in allowed
    ]
    assert offenders == []


def test_the_check_itself_catches_httpx(tmp_path: Path) -> None:
    # The bug this guards against: bench.py once imported httpx, a dev extra.
    module = tmp_path / "bench.py"
    module.write_text("async def f():\n    import httpx\n")
    assert [m for _, m in _imports(module) if m not in _importable_from_plain_install()] == [
        "httpx"
    ]


def _commands() -> set[str]:
    names = {str(c.name) for c in app.registered_commands}
    for group in app.registered_groups:
        assert group.typer_instance is not None
        names |= {f"{group.name} {c.name}" for c in group.typer_instance.registered_commands}
    return names


def test_ci_runs_every_command_from_a_plain_install() -> None:
    script = (ROOT / ".ci" / "plain-install").read_text()
    commands = _commands()
    assert {"serve", "verify", "bench server", "play", "classify"} <= commands
    for command in commands:
        words = ", ".join(f'"{word}"' for word in command.split())
        assert f"run(bobing, {words}" in script or f"[bobing, {words}" in script, command
    run = (ROOT / ".ci" / "run").read_text()
    assert run.index("python3 .ci/plain-install") < run.index("python3 dev.py test")
