"""A webhook URL that never answers (standard library only): the alert benchmark's and the
alert tests' worst case of a webhook."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator


@contextlib.contextmanager
def hanging_webhook(path: str = "/hook") -> Iterator[str]:
    """A URL on 127.0.0.1 whose socket listens and never accepts: connecting and sending
    work (the kernel's backlog), no answer ever comes.

    Example:
        >>> with hanging_webhook("/x") as url:
        ...     url.startswith("http://127.0.0.1:") and url.endswith("/x")
        True
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}{path}"
    finally:
        sock.close()
