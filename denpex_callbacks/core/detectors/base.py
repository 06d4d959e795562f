"""The contract every detector follows: pure, framework-free, stateful, resumable."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from typing import Any, ClassVar

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.thresholds import Thresholds

UNBOUNDED = 1 << 62  # a quiet horizon no run reaches: quiet steps never make it fire


def printed_steps(run: RunState, steps: int, printed: int) -> range:
    """The steps of the ``printed`` rows of a gap of ``steps`` steps that ends at the run's
    last step (:meth:`Detector.advance`): spread evenly over it when they divide it (a log
    that prints every ``N`` steps), else its last ones.

    Example:
        >>> run = RunState()
        >>> run.advance(100)
        >>> list(printed_steps(run, 100, 10))[:3], list(printed_steps(run, 100, 3))
        ([10, 20, 30], [98, 99, 100])
    """
    last = run.last_step or 0
    stride = steps // printed if printed > 0 and steps % printed == 0 else 1
    return range(last - (printed - 1) * stride, last + 1, stride)


class Detector(ABC):
    """One condition, judged one observation at a time.

    ``observe`` returns a Finding when the condition begins (or worsens) and None otherwise;
    the detector re-arms itself when the condition clears. Subclasses list their mutable
    attributes in ``_state`` so ``state_dict`` can save them for checkpoint resume.
    """

    code: ClassVar[str]
    _state: ClassVar[tuple[str, ...]] = ()

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.t = thresholds or Thresholds()
        self.setup = RunSetup()
        self.reset()

    def reset(self) -> None:
        """Initialise the detector's mutable state (subclasses list it in ``_state``)."""
        return None

    def configure(self, setup: RunSetup) -> None:
        """Receive the run's configuration (scaler kind, growth interval) at start."""
        self.setup = setup

    @abstractmethod
    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        """Judge one observation; ``run`` already includes it."""

    def advance(self, steps: int, run: RunState, skipped: int = 0, *, printed: int = 0,
                scale: float | None = None) -> None:
        """``steps`` steps that were not observed one by one, ``skipped`` of them skipped and
        the rest applied (``run`` already includes them). Only a detector that counts steps
        needs to know.

        ``printed``: of the applied steps, how many a log printed, each at ``scale``, and
        the log doctor counted instead of reading (a run of quiet lines: each an applied step
        at an unchanged scale, its loss finite). A detector that counts such steps when it
        observes them counts them here too, within :meth:`printed_horizon`."""
        return None

    def printed_horizon(self, run: RunState, scale: float | None) -> int:
        """How many printed quiet steps (:meth:`advance`'s ``printed``) at ``scale`` in a row,
        from now, none of which could make this detector fire: the log doctor counts no more
        of them at once, so the step that reaches a limit is read, and judged, one by one.
        :data:`UNBOUNDED` (the default) for a detector that does not count them."""
        return UNBOUNDED

    def quiet_horizon(self, run: RunState) -> int:
        """How many quiet steps in a row, from now, none of which could make this detector
        fire (see :mod:`denpex_callbacks.core.quiet_steps`); :data:`UNBOUNDED` when none ever
        could. The default, 0, has every step judged by :meth:`observe`."""
        return 0

    def absorb_quiet(self, steps: int, run: RunState, last: Observation) -> None:
        """Take ``steps`` quiet steps, the last of them ``last`` (``run`` already includes
        them), leaving the state :meth:`observe` would have left one step at a time. Called
        only within :meth:`quiet_horizon`."""
        raise NotImplementedError(f"{type(self).__name__} judges every step")

    def state_dict(self) -> dict[str, Any]:
        """Serializable state."""
        out: dict[str, Any] = {}
        for name in self._state:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, deque) else value
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict`."""
        for name in self._state:
            if name not in state:
                continue
            current = getattr(self, name)
            value = state[name]
            if isinstance(current, deque):
                value = deque(value, maxlen=current.maxlen)
            setattr(self, name, value)
