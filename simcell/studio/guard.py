"""Which requests the studio answers: those addressed to the host and port it serves, from its own
page or a script, and POSTs of JSON only.

A web page open in the designer's browser may send requests to the studio's address: a form or
a plain-text fetch to another site goes out without the browser asking first (cross-site request
forgery), and a page whose name is rebound to 127.0.0.1 sends them with its own name as the Host
(DNS rebinding). So the studio refuses (403) a Host other than the one it serves (with the loopback
names of this machine when it serves loopback), an Origin other than its own page's, and (415) a
POST without the JSON content type, which no page can send elsewhere without the browser asking
the studio first (a CORS preflight the studio never grants).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import socket

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::", "")  # bind every interface
JSON = "application/json"


def is_loopback(host: str) -> bool:
    """Whether `host` is an address or name of this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _machine_names() -> set[str]:
    """The names and addresses other machines may reach this one by (for a wildcard bind)."""
    names = {socket.gethostname(), socket.getfqdn()}
    with contextlib.suppress(OSError):  # a host name that does not resolve: its name alone
        names |= {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)}
    return names


def served_hosts(host: str, port: int) -> frozenset[str]:
    """The Host header values a studio bound to `host`:`port` answers (lower case): the host and
    port it serves; served on loopback, every loopback name of this machine too; bound to every
    interface (0.0.0.0), this machine's names and addresses and the loopback names."""
    names = {host}
    if is_loopback(host):
        names |= set(LOOPBACK_NAMES)
    if host in WILDCARDS:
        names |= set(LOOPBACK_NAMES) | _machine_names()
    out = set()
    for name in names - set(WILDCARDS):
        written = f"[{name}]" if ":" in name and not name.startswith("[") else name
        out.add(f"{written}:{port}".lower())
        if port == 80:  # a browser leaves the default port out of Host
            out.add(written.lower())
    return frozenset(out)


def exposure_warning(host: str, port: int) -> str | None:
    """What to tell the designer when the studio is served beyond this machine, else None."""
    if is_loopback(host):
        return None
    return (f"studio: warning: serving on {host}:{port} lets other machines reach this studio, "
            "with no password: anyone who can reach it can play games on this machine and write "
            "exports and reports into its folder. Serve on 127.0.0.1 (the default) unless the "
            "network is trusted.")


class RequestGuard:
    """ASGI middleware: refuses requests the studio must not answer (see the module), each with
    the API's error body {"key": "request", "message": ...}."""

    def __init__(self, app: ASGIApp, host: str, port: int) -> None:
        self.app = app
        self.hosts = served_hosts(host, port)
        self.origins = frozenset(f"http://{h}" for h in self.hosts)
        self.served = f"{host}:{port}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                status, message = refusal
                await _answer(send, status, message)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if host.lower() not in self.hosts:
            return 403, (f"request for host {host!r}; this studio serves {self.served} and answers "
                         "requests to that address only")
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            return 403, (f"request from origin {origin!r}; this studio answers its own page "
                         f"(http://{host}) and scripts only")
        if scope["method"] == "POST":
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != JSON:
                return 415, (f"a POST must send its body as {JSON} (Content-Type: {JSON}), "
                             f"not {kind or 'without a content type'}")
        return None


async def _answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"key": "request", "message": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", JSON.encode()),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
