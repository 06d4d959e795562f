"""Real local endpoints for the alert tests: a receiving server, one answering 500, one that
hangs (a listening socket that never accepts) and an address with nothing listening."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from endpoints import Endpoint, closed_port_url, hanging_endpoint, http_endpoint

ALERT_VARS = ("DENPEX_ALERT_WEBHOOK", "DENPEX_ALERT_LEVEL", "DENPEX_ALERT_WANDB",
              "DENPEX_ALERT_TIMEOUT", "DENPEX_RUN_NAME")


@pytest.fixture(autouse=True)
def _alert_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No alert setting of the developer's shell leaks in; a proxy would not reach 127.0.0.1."""
    for name in (*ALERT_VARS, "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def receiver() -> Iterator[Endpoint]:
    with http_endpoint(200) as endpoint:
        yield endpoint


@pytest.fixture
def failing() -> Iterator[Endpoint]:
    with http_endpoint(500) as endpoint:
        yield endpoint


@pytest.fixture
def hanging() -> Iterator[str]:
    with hanging_endpoint() as url:
        yield url


@pytest.fixture
def unreachable() -> str:
    return closed_port_url()
