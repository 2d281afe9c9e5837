"""Where other phones can open this server: the LAN addresses and the invitation's base."""

from __future__ import annotations

import contextlib
import ipaddress
import socket


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that phones on the same network can reach."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            found.append(probe.getsockname()[0])
        finally:
            probe.close()
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    out: list[str] = []
    for text in found:
        address = ipaddress.ip_address(text)
        if not address.is_loopback and not address.is_unspecified and text not in out:
            out.append(text)
    return out


def urls(host: str, port: int) -> tuple[str, list[str]]:
    """The local URL and the URLs for other devices."""
    if host in ("", "0.0.0.0", "::"):
        return f"http://127.0.0.1:{port}", [f"http://{a}:{port}" for a in lan_addresses()]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}", []


def _is_loopback(host: str) -> bool:
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _hostname(host_header: str) -> str:
    """The host part of a Host header (``[::1]:8000`` → ``::1``, ``a.lan:8000`` → ``a.lan``)."""
    if host_header.startswith("["):
        return host_header[1:].split("]", 1)[0]
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


def invite_base(
    listen: tuple[str, int] | None,
    request_host: str,
    request_origin: str,
    public_url: str | None = None,
) -> dict[str, object]:
    """Where other phones can open this server: ``{"base", "lan", "loopback_only"}``.

    A configured public URL (``--public-url``, behind a reverse proxy) wins. A browser that
    reached the server by a network name or address already has one others can use; one on
    127.0.0.1 gets the LAN address of the interface the server listens on. When the server
    listens only on loopback (or nobody knows where it listens) no phone can join:
    ``loopback_only`` tells the UI to warn.
    """
    lan: list[str] = []
    if listen is not None:
        host, port = listen
        if host in ("", "0.0.0.0", "::"):
            lan = urls(host, port)[1]
        elif not _is_loopback(host):
            lan = [urls(host, port)[0]]
    if public_url:
        return {"base": public_url, "lan": lan, "loopback_only": False}
    if not _is_loopback(_hostname(request_host)):
        return {"base": request_origin, "lan": lan, "loopback_only": False}
    if lan:
        return {"base": lan[0], "lan": lan, "loopback_only": False}
    return {"base": request_origin, "lan": [], "loopback_only": True}
