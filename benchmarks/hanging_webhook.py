"""A webhook that takes each request and never answers (standard library only): the alert
benchmark's worst case of a webhook."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextlib.contextmanager
def hanging_webhook() -> Iterator[str]:
    """A URL on 127.0.0.1 whose server reads each POST and then holds it without an answer
    until the context ends.

    Example:
        >>> with hanging_webhook() as url:
        ...     url.startswith("http://127.0.0.1:")
        True
    """
    release = threading.Event()

    class Hold(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            release.wait()  # the client times out first

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hold)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        release.set()
        server.shutdown()
        server.server_close()
