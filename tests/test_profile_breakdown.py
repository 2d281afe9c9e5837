"""benchmarks/profile_breakdown.py: a py-spy raw profile split into a throw's parts."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "profile_breakdown.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("profile_breakdown", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_busy_samples_go_to_the_first_part_their_stack_matches(tmp_path: Path) -> None:
    lines = [
        # the fan-out under the command: counted as the fan-out, not the command's other work
        "main (x.py:1);_receive (bobing/web/routes/ws.py:9);MemoryBroker.publish (m.py:3);"
        "write (loop.c) 6",
        "main (x.py:1);_receive (bobing/web/routes/ws.py:9);Runtime.roles (r.py:5) 3",
        "main (x.py:1);refresh_state (bobing/tables/state.py:2) 1",
        # idle: waiting for the GIL or in epoll_wait
        "Thread.run (threading.py:1);take_gil (ceval_gil.c);pthread_cond_timedwait (libc) 40",
        "main (x.py:1);uv_run (core.c);epoll_wait (libc.so.6) 50",
        "main (x.py:1);something_else (y.py:7) 2",
    ]
    total, busy, parts, others = _module().breakdown(lines)
    assert (total, busy) == (102, 12)
    assert parts["fan-out: the frame to each socket"] == 6
    assert parts["the command's other work (lock, roles, digest, outcome)"] == 3
    assert parts["state: the runtime, its patch and the frame"] == 1
    assert others == {"something_else (y.py)": 2}
    (tmp_path / "p.txt").write_text("\n".join(lines))
    assert _module().main([str(tmp_path / "p.txt")]) == 0
    assert _module().main([str(tmp_path / "missing.txt")]) == 2
