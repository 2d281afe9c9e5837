"""Several ``bobing serve`` processes on one PostgreSQL database and a Redis broker."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Protocol

import pytest
from webtools import TIMEOUT


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Instance:
    """One ``bobing serve --db postgresql… --schema S --broker redis://…`` process.

    Output goes to a file (a pipe nobody reads would block the server); the address is read
    from it with a deadline.
    """

    def __init__(
        self,
        name: str,
        db_url: str,
        schema: str,
        broker: str,
        folder: Path,
        port: int = 0,
        limits: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.limits = limits
        """``NAME=VALUE`` settings, each passed as ``--limit``."""
        self.port = port or free_port()
        """Fixed, so that a restarted instance is where the proxy expects it."""
        self.db_url = db_url
        self.schema = schema
        self.broker = broker
        self.log_path = folder / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> str:
        bobing = Path(sys.executable).with_name("bobing")
        command = [
            str(bobing),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            self.db_url,
            "--schema",
            self.schema,
            "--broker",
            self.broker,
        ]
        for setting in self.limits:
            command += ["--limit", setting]
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=dict(os.environ, PYTHONUNBUFFERED="1", BOBING_LANG="en"),
            )
        deadline = time.monotonic() + 2 * TIMEOUT
        while time.monotonic() < deadline:
            output = self.log_path.read_bytes()[offset:].decode("utf-8", "replace")
            found = re.search(r"serving on (http://\S+)", output)
            if found:
                self.url = found.group(1)
                return self.url
            if self.proc.poll() is not None:
                raise RuntimeError(f"instance {self.name} exited:\n{output}")
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"instance {self.name} did not start:\n{self.log_path.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown hooks, no goodbye to the sockets — a crashed machine."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(TIMEOUT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(TIMEOUT)

    def log(self) -> str:
        return self.log_path.read_text("utf-8", "replace") if self.log_path.exists() else ""


class PrivateRedis:
    """A redis-server of the test's own on a free port, to stop and start at will.

    (The shared Redis on 6379 is never restarted: other test runs use it.)
    """

    def __init__(self, executable: str, folder: Path) -> None:
        self.executable = executable
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = (self.folder / "redis.log").open("ab")
        with contextlib.closing(log):
            self.proc = subprocess.Popen(
                [
                    self.executable,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.folder),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock,
            ):
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
            if self.proc.poll() is not None:
                output = (self.folder / "redis.log").read_text()
                raise RuntimeError("redis-server exited: " + output)
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(TIMEOUT)


class Cluster(Protocol):
    """The ``cluster`` fixture: ``cluster(n, broker_url)`` starts n instances on one schema
    (``limits``: ``NAME=VALUE`` settings for each)."""

    def __call__(self, count: int, broker: str, limits: tuple[str, ...] = ()) -> list[Instance]:
        """Start ``count`` instances."""
        ...


DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def self_signed(folder: Path) -> None:
    """``fullchain.pem`` and ``privkey.pem`` for 127.0.0.1, valid a day (openssl)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the proxy tests need openssl for a test certificate")
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        + ["-keyout", str(folder / "privkey.pem"), "-out", str(folder / "fullchain.pem")],
        check=True,
        capture_output=True,
        timeout=60,
    )


class Nginx:
    """deploy/nginx/nginx.conf run by the real nginx on free ports, in front of ``upstreams``.

    Only the listen addresses, the log files, the certificate (a self-signed one made here) and
    the upstream list differ from what ships. ``tls=False`` serves the HTTPS server block over
    plain HTTP on the test port (the WebSocket clients of the tests speak ``ws://``).
    """

    def __init__(
        self, executable: str, folder: Path, upstreams: list[str], *, tls: bool = False
    ) -> None:
        self.executable = executable
        self.folder = folder / "nginx"
        self.folder.mkdir()
        self.port = free_port()
        self.plain_port = free_port()
        self.tls = tls
        self.proc: subprocess.Popen[bytes] | None = None
        shipped = (DEPLOY / "nginx" / "nginx.conf").read_text()
        for line in ("listen 80;", "listen 443 ssl http2;", "access_log /var/log/nginx/"):
            assert line in shipped, line
        self_signed(self.folder)
        listen = f"listen 127.0.0.1:{self.port}" + (" ssl http2;" if tls else ";")
        conf = (
            shipped.replace("listen 80;", f"listen 127.0.0.1:{self.plain_port};")
            .replace("listen 443 ssl http2;", listen)
            .replace("/etc/nginx/tls/", f"{self.folder}/")
            .replace("access_log /var/log/nginx/", f"access_log {self.folder}/")
        )
        (self.folder / "nginx.conf").write_text(conf)
        servers = "".join(
            f"server {u.removeprefix('http://')} max_fails=1 fail_timeout=5s;\n" for u in upstreams
        )
        (self.folder / "bobing-upstream.conf").write_text(servers)
        mime = Path("/etc/nginx/mime.types")
        (self.folder / "mime.types").write_text(
            mime.read_text() if mime.exists() else "types { text/html html; }\n"
        )

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def plain_url(self) -> str:
        """The plain-HTTP server (the redirect to HTTPS)."""
        return f"http://127.0.0.1:{self.plain_port}"

    def command(self, *extra: str, daemon: bool = True) -> list[str]:
        settings = f"pid {self.folder}/nginx.pid; error_log {self.folder}/error.log;"
        if not daemon:
            settings += " daemon off;"
        return [
            self.executable,
            "-p",
            str(self.folder),
            "-c",
            str(self.folder / "nginx.conf"),
            "-g",
            settings,
            *extra,
        ]

    def check(self) -> subprocess.CompletedProcess[str]:
        """``nginx -t``: the configuration is valid."""
        return subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=60)

    def start(self) -> None:
        with (self.folder / "stderr.log").open("wb") as errors:
            self.proc = subprocess.Popen(
                self.command(daemon=False), stdout=subprocess.DEVNULL, stderr=errors
            )
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=1),
            ):
                return
            if self.proc.poll() is not None:
                raise RuntimeError("nginx exited: " + (self.folder / "stderr.log").read_text())
            time.sleep(0.05)
        raise RuntimeError("nginx did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: nginx's fast shutdown, workers included
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(TIMEOUT)
