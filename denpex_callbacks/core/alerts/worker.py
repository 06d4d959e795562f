"""A daemon thread with a bounded queue: the training thread hands work over and goes on.

:meth:`AlertWorker.submit` never blocks (a full queue refuses the item); the thread starts on
the first item; :meth:`AlertWorker.close` waits a bounded time for what is queued, then
returns whatever happens on the other side.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

Item = TypeVar("Item")
_STOP = object()


class AlertWorker(Generic[Item]):
    """Runs ``handle`` on each submitted item, in order, on one daemon thread.

    ``handle`` must not raise (an exception it lets through is dropped, the thread goes on).

    Args:
        handle: Called on the worker thread with each item.
        queue_size: Items that may wait; more are refused.
        name: The thread's name.

    Example:
        >>> seen = []
        >>> worker = AlertWorker(seen.append, queue_size=4)
        >>> worker.submit("AMP006"), worker.close(wait_s=5.0), seen
        (True, 0, ['AMP006'])
    """

    def __init__(
        self, handle: Callable[[Item], None], *, queue_size: int = 32,
        name: str = "denpex-alerts",
    ) -> None:
        self._handle = handle
        self._queue: queue.Queue[object] = queue.Queue(maxsize=queue_size)
        self._name = name
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, item: Item) -> bool:
        """Queue ``item`` without waiting; False when the queue is full or the worker closed."""
        with self._lock:
            if self._closed:
                return False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            return False
        return True

    def close(self, wait_s: float) -> int:
        """Stop taking items; wait at most ``wait_s`` for the queued ones.

        Returns:
            How many items were still queued or in progress when the wait ended (they go on
            in the background; the thread is a daemon, so it never holds the process up).
        """
        with self._lock:
            self._closed = True
            started = self._thread is not None
        if not started:
            return 0
        deadline = time.monotonic() + wait_s
        done = self._queue.all_tasks_done
        with done:
            while self._queue.unfinished_tasks and (left := deadline - time.monotonic()) > 0:
                done.wait(left)
            pending = self._queue.unfinished_tasks
        # Wake the thread so it ends; when the queue is full it ends after the last item.
        with contextlib.suppress(queue.Full):
            self._queue.put_nowait(_STOP)
        return pending

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                self._handle(item)  # type: ignore[arg-type]
            except Exception:  # handle reports its own failures; the thread keeps serving
                pass
            finally:
                self._queue.task_done()
            if self._closed and self._queue.empty():
                return
