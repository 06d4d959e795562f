"""Wrappers put on an object's instance over its methods, and given back as they were.

A reader watches a framework object's calls (DeepSpeed's ``engine.backward``, its optimizer's
``step``) by putting a wrapper in the instance's ``__dict__``, where a call finds it before the
class's method. Someone else may have put a wrapper there first (a profiler, a timer): ours
wraps theirs, and giving back restores theirs, not the class's method. A wrapper put on top of
ours since is left in place (it calls ours, which by then does nothing harmful).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["InstanceWraps"]


class InstanceWraps:
    """The wrappers one watcher put on instances, in order.

    Example:
        >>> class Engine:
        ...     def step(self):
        ...         return "step"
        >>> engine, wraps = Engine(), InstanceWraps()
        >>> wraps.wrap(engine, "step", lambda: "watched " + Engine.step(engine))
        >>> engine.step(), wraps.watching(engine, "step")
        ('watched step', True)
        >>> wraps.restore()
        >>> engine.step(), "step" in vars(engine)
        ('step', False)
    """

    def __init__(self) -> None:
        # (owner, name, the wrapper put there, what the instance held there before, or None)
        self._wrapped: list[tuple[Any, str, Callable[..., Any], Any]] = []

    def watching(self, owner: Any, name: str) -> bool:
        """True when ``owner.name`` is wrapped by this watcher."""
        return any(o is owner and n == name for o, n, _, _ in self._wrapped)

    def wrap(self, owner: Any, name: str, wrapper: Callable[..., Any]) -> None:
        """Put ``wrapper`` on ``owner``'s instance as ``name``."""
        self._wrapped.append((owner, name, wrapper, vars(owner).get(name)))
        owner.__dict__[name] = wrapper

    def restore(self) -> None:
        """Give every wrapped name back as it was, newest first."""
        for owner, name, wrapper, before in reversed(self._wrapped):
            if vars(owner).get(name) is wrapper:
                if before is None:
                    del owner.__dict__[name]
                else:
                    owner.__dict__[name] = before
        self._wrapped.clear()
