"""Tools of the security tests: ``bobing serve`` with extra options, in its own process."""

from __future__ import annotations

import sys
from pathlib import Path


class Serve:
    """``bobing serve`` in its own process with extra options (limits), on a free port.

    Output goes to a file (a pipe nobody reads could block the server); the address is read
    from it with a deadline, and the process is always stopped.
    """

    def __init__(
        self,
        folder: Path,
        *options: str,
        env: dict[str, str] | None = None,
        max_files: int | None = None,
    ) -> None:
        """``max_files``: the server process's open-file limit (RLIMIT_NOFILE), e.g. 1024."""
        import os
        import re
        import subprocess
        import time

        self.log_path = folder / "serve.log"
        bobing = Path(sys.executable).with_name("bobing")
        command = [str(bobing), "serve", "--host", "127.0.0.1", "--port", "0"]
        command += ["--db", f"sqlite+aiosqlite:///{folder / 'serve.sqlite3'}", *options]

        def limit_files() -> None:
            import resource

            if max_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (max_files, max_files))

        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=dict(os.environ, PYTHONUNBUFFERED="1", BOBING_LANG="en", **(env or {})),
                preexec_fn=limit_files,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(r"serving on http://([\d.]+):(\d+)", self.log())
            if found:
                self.host, self.port = found.group(1), int(found.group(2))
                self.url = f"http://{self.host}:{self.port}"
                return
            if self.proc.poll() is not None:
                raise RuntimeError("bobing serve exited:\n" + self.log())
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("bobing serve did not start:\n" + self.log())

    def log(self) -> str:
        return self.log_path.read_text("utf-8", "replace")

    def stop(self) -> None:
        import subprocess

        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
