"""Real local endpoints for the alert tests (a pytest plugin of the suite, see
tests/conftest.py): a receiving server, one answering 500, one that hangs (a listening socket
that never accepts) and the address of a server of ours that was shut (refused), all on
127.0.0.1 with ports from the OS."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

ALERT_VARS = ("DENPEX_ALERT_WEBHOOK", "DENPEX_ALERT_LEVEL", "DENPEX_ALERT_WANDB",
              "DENPEX_ALERT_TIMEOUT", "DENPEX_RUN_NAME")
PROXY_VARS = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY")
SECRET_PATH = "/services/T0SECRET/B0SECRET/xoxb-not-a-real-token"


@dataclass
class Endpoint:
    """A live server: its URL (with a secret-looking path) and what it received."""

    url: str
    status: int
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def payloads(self) -> list[dict[str, Any]]:
        return [r["json"] for r in self.requests]


@contextlib.contextmanager
def http_endpoint(status: int) -> Iterator[Endpoint]:
    """A server answering every POST with ``status``, recording it before answering."""
    endpoint = Endpoint(url="", status=status)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            endpoint.requests.append({
                "path": self.path,
                "content_type": self.headers.get("Content-Type"),
                "json": json.loads(body),
            })
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    endpoint.url = f"http://127.0.0.1:{server.server_address[1]}{SECRET_PATH}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def hanging_endpoint() -> Iterator[str]:
    """A socket that listens and never accepts: connecting works, no answer ever comes."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}{SECRET_PATH}"
    finally:
        sock.close()


def closed_port_url() -> str:
    """The address of a server of ours that has been shut: connections are refused."""
    with http_endpoint(200) as endpoint:
        url = endpoint.url
    return url


@pytest.fixture(autouse=True)
def _no_alert_settings_from_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite never posts to a webhook a developer's shell configured."""
    for name in ALERT_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def local_http(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy from the environment would not reach 127.0.0.1."""
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def receiver(local_http: None) -> Iterator[Endpoint]:
    with http_endpoint(200) as endpoint:
        yield endpoint


@pytest.fixture
def failing(local_http: None) -> Iterator[Endpoint]:
    with http_endpoint(500) as endpoint:
        yield endpoint


@pytest.fixture
def hanging(local_http: None) -> Iterator[str]:
    with hanging_endpoint() as url:
        yield url


@pytest.fixture
def unreachable(local_http: None) -> str:
    return closed_port_url()
