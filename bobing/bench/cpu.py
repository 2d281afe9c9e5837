"""CPU budgets for the servers a benchmark starts, to measure how throughput scales with them.

Two ways, both Linux only:

- ``pin``: server ``i`` runs on core ``i`` alone (``taskset``), and the benchmark's own client on
  the cores that are left. This needs more cores than servers.
- ``cpu_limit``: each server gets its own cgroup with a CPU quota of that share of one core
  (``cpu.max`` under cgroup v2, ``cpu.cfs_quota_us`` under v1). The scheduler then holds each
  server to the same budget, however few cores the machine has. This works on a 2-core box,
  where pinning two servers would leave no core for the client and the databases. It needs
  write access to the cgroup file system, which usually means root.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from bobing.engine.errors import InputError

CGROUP_ROOT = Path("/sys/fs/cgroup")
PERIOD_US = 100_000
"""The quota's accounting period (the kernel's default)."""
REMOVE_SECONDS = 30.0
"""How long a benchmark keeps trying to remove a cgroup it made before it says it could not."""
_made = itertools.count()


def group_name(label: str) -> str:
    """A cgroup name no other cgroup of this run (or of another run) has: a process that has
    just left one group is never put in a group of the same name that may not be gone yet."""
    return f"bobing-bench-{os.getpid()}-{label}-{next(_made)}"


def cores() -> list[int]:
    """The cores this process may run on."""
    return sorted(os.sched_getaffinity(0))


def plan_pins(instances: int) -> tuple[list[int], list[int]]:
    """One core for each server and the rest for the client; an error when none would be left."""
    have = cores()
    if len(have) <= instances:
        raise InputError(
            f"--pin gives each of {instances} servers a core of its own and the client what is "
            f"left, but this machine lets the benchmark use {len(have)} cores: use --cpu-limit",
            code="bench_pin_cores",
            cores=len(have),
            instances=instances,
        )
    return have[:instances], have[instances:]


def pin(pid: int, core_ids: list[int]) -> None:
    """Run process ``pid`` on ``core_ids`` only."""
    os.sched_setaffinity(pid, core_ids)


def _controller() -> tuple[Path, str]:
    """Where CPU cgroups are made here and which version they are (``v2`` or ``v1``)."""
    unified = CGROUP_ROOT / "cgroup.controllers"
    if unified.exists() and "cpu" in unified.read_text().split():
        return CGROUP_ROOT, "v2"
    legacy = CGROUP_ROOT / "cpu"
    if (legacy / "cpu.cfs_quota_us").exists():
        return legacy, "v1"
    raise InputError(
        "--cpu-limit needs the cgroup CPU controller (Linux, /sys/fs/cgroup), "
        "which this machine does not offer",
        code="bench_cpu_limit_unavailable",
    )


def check_cpu_limit(share: float) -> None:
    """An error now, before any server starts, when ``share`` cannot be given."""
    if not 0.01 <= share <= len(cores()):
        raise InputError(
            f"--cpu-limit is a share of one core, from 0.01 to {len(cores())}, not {share!r}",
            code="bench_cpu_limit",
            value=share,
        )
    root, _ = _controller()
    if not os.access(root, os.W_OK):
        raise InputError(
            f"--cpu-limit makes a cgroup under {root}, which this user may not write "
            "(run the benchmark as root)",
            code="bench_cpu_limit_denied",
            path=str(root),
        )


@contextlib.contextmanager
def cpu_limited(pid: int, share: float, name: str) -> Iterator[Path]:
    """Hold process ``pid`` to ``share`` of one core until the block ends; the cgroup's path."""
    root, version = _controller()
    group = root / name
    group.mkdir()
    try:
        quota = max(1000, round(share * PERIOD_US))
        if version == "v2":
            (group / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
        (group / "cgroup.procs").write_text(str(pid))
        yield group
    finally:
        _dismantle(root, group, version)


def _dismantle(root: Path, group: Path, version: str) -> None:
    """Take the budget off ``group``, move what is left in it back to the root and remove it.

    The quota is lifted first: a process that has just been reaped may still need a moment of
    CPU in its group to finish leaving it (its last switch out), and a throttled group could
    make that moment wait for the next period, over and over on a loaded machine."""
    with contextlib.suppress(OSError):
        if version == "v2":
            (group / "cpu.max").write_text(f"max {PERIOD_US}")
        else:
            (group / "cpu.cfs_quota_us").write_text("-1")
    if not _remove(root, group):
        print(f"bobing bench: could not remove the cgroup {group}", file=sys.stderr)


def _members(group: Path) -> list[str]:
    """The processes (and under v1 the threads) the kernel still counts in ``group``."""
    found: list[str] = []
    for name in ("cgroup.procs", "tasks"):
        with contextlib.suppress(OSError):
            found += (group / name).read_text().split()
    return found


def _remove(root: Path, group: Path, seconds: float = REMOVE_SECONDS) -> bool:
    """Remove ``group``, moving any process still in it to ``root`` first (the caller stops the
    one it confined; anything it left behind is not held back any longer). The kernel may
    refuse for a moment (EBUSY) after the last one has gone: keep trying for ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        for member in _members(group):
            with contextlib.suppress(OSError):  # it may have ended meanwhile
                (root / "cgroup.procs").write_text(member)
        try:
            group.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
