"""Re-running a Lightning training step: ``training_step`` on the captured batch.

Lightning does not call the LightningModule's forward for a step (``training_step`` may call
submodules directly), so the batch is captured in ``on_train_batch_start`` (before any hook
draws from the RNG in the step) and the re-run calls ``training_step(batch, batch_idx)``
itself, under the precision plugin's ``train_step_context()`` (autocast) and with
``self.log``/``self.log_dict`` turned into no-ops for its duration: nothing it would log
reaches the logger connector. It calls the module itself, not the strategy's wrapper (DDP),
so no collective runs.

The step counters: ``training_step`` may read ``self.global_step`` and ``self.current_epoch``
(a warm-up factor, a schedule), and by the time a step is judged the trainer has counted it.
Both are read at batch start with the batch, and for the re-run's duration only the progress
records Lightning reads them from (``Trainer.global_step`` is the automatic optimisation's
completed optimizer steps, ``Trainer.current_epoch`` the fit loop's completed epochs) hold
the step's values again; they are put back when it returns, whatever happens. Where they
cannot be set (another Lightning layout), the re-run still runs and says so
(``unrestored``): a finite re-run is then no evidence against the node.

Manual optimisation: ``training_step`` calls ``manual_backward`` and ``optimizer.step()``
itself, so it cannot be re-run without side effects; such runs are "not re-runnable" (the
locator is armed for the next step instead).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from denpex_callbacks.locate.on_fault import LocateOnFault

MANUAL = ("manual optimisation: training_step steps the optimizers itself, so re-running it "
          "would change the parameters")


def watch_training_steps(locate: LocateOnFault, trainer: Any
                         ) -> Callable[[tuple[Any, ...], dict[str, Any]], None] | None:
    """Let ``locate`` re-run training steps of ``trainer.lightning_module``.

    Returns:
        What to call at each batch start, before the step draws from the RNG, with
        ``((batch, batch_idx), {})`` (it hands :meth:`LocateOnFault.capture_inputs` the
        trainer's step counters too), or None when re-running is off. A step's re-run calls
        ``training_step`` on the batch kept, at the step counters kept.
    """
    module = trainer.lightning_module
    manual = not getattr(module, "automatic_optimization", True)
    takes_batch_idx = _takes_batch_idx(module.training_step)

    def call_for(args: tuple[Any, ...]) -> Callable[[], Any]:
        # Built when a step is judged in full only, from its (batch, batch_idx, counters).
        *inputs, counters = args
        return TrainingStepCall(trainer, module,
                                tuple(inputs) if takes_batch_idx else tuple(inputs[:1]),
                                counters)

    def capture(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        # Plain ints, read on the host: nothing per step beyond the tuple.
        locate.capture_inputs(
            (*args, StepCounters(trainer.global_step, trainer.current_epoch)), kwargs)

    locate.watch(module, hook=False, blocker=(lambda: MANUAL) if manual else None,
                 call_for=call_for)
    return capture if locate.rerun is not None else None


class StepCounters(NamedTuple):
    """The trainer's counters when a step's batch started: what its ``training_step`` read.

    Attributes:
        global_step: ``trainer.global_step``.
        current_epoch: ``trainer.current_epoch``.
    """

    global_step: int
    current_epoch: int


UNRESTORED = ("training_step can read the trainer's global_step and current_epoch, and this "
              "Lightning keeps them where the re-run could not set them back to the step's "
              "(global_step {now} now, {then} in the step): a finite re-run is no evidence "
              "against the node")


class TrainingStepCall:
    """Re-runs one step's ``training_step`` at that step's counters (a re-run closure).

    Attributes:
        unrestored: After a call, what the step may read that the re-run could not restore
            (empty: the counters were the step's); a finite re-run then proves nothing.
    """

    def __init__(self, trainer: Any, module: Any, args: tuple[Any, ...],
                 counters: StepCounters) -> None:
        self.trainer, self.module, self.args, self.counters = trainer, module, args, counters
        self.unrestored = ""

    def __call__(self) -> Any:
        """``training_step(*args)`` under the run's autocast, logging off, at the counters."""
        trainer, module = self.trainer, self.module
        with _counters_at(trainer, self.counters) as restored:
            if not restored:
                self.unrestored = UNRESTORED.format(now=trainer.global_step,
                                                    then=self.counters.global_step)
            with trainer.precision_plugin.train_step_context(), _logging_off(module):
                return module.training_step(*self.args)


@contextlib.contextmanager
def _counters_at(trainer: Any, counters: StepCounters) -> Iterator[bool]:
    """Set the progress records ``trainer.global_step`` and ``trainer.current_epoch`` read
    to ``counters`` while the block runs, then put back what they held. Yields whether the
    trainer now reads ``counters`` (False: nothing was changed)."""
    if (trainer.global_step, trainer.current_epoch) == counters:
        yield True
        return
    records = _records(trainer, counters)
    if records is None:
        yield False
        return
    found = [int(record.completed) for record, _value in records]
    try:
        for record, value in records:
            record.completed = value
        restored = (trainer.global_step, trainer.current_epoch) == counters
        if not restored:  # not what they read here: leave the trainer as it was at once
            _put_back(records, found)
        yield restored
    finally:
        _put_back(records, found)


def _records(trainer: Any, counters: StepCounters) -> list[tuple[Any, int]] | None:
    """(progress record, the step's value) for global_step and current_epoch (None: this
    Lightning keeps them elsewhere)."""
    try:
        steps = trainer.fit_loop.epoch_loop.automatic_optimization.optim_progress.optimizer.step
        epochs = trainer.fit_loop.epoch_progress
        records = [(steps.total, counters.global_step), (epochs.current, counters.current_epoch)]
        return records if all(isinstance(r.completed, int) for r, _v in records) else None
    except AttributeError:
        return None


def _put_back(records: list[tuple[Any, int]], found: list[int]) -> None:
    for (record, _value), value in zip(records, found, strict=True):
        record.completed = value


def _takes_batch_idx(training_step: Any) -> bool:
    """Lightning's rule: ``batch_idx`` is passed when the hook takes a second argument."""
    try:
        params = list(inspect.signature(training_step).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return True
    return len(params) >= 2 or any(p.name == "batch_idx" for p in params)


def _ignore(*args: Any, **kwargs: Any) -> None:
    return None


@contextlib.contextmanager
def _logging_off(module: Any) -> Iterator[None]:
    """``self.log``/``self.log_dict`` do nothing while a re-run lasts (instance attributes
    shadow the methods, then go)."""
    module.__dict__["log"] = module.__dict__["log_dict"] = _ignore
    try:
        yield
    finally:
        module.__dict__.pop("log", None)
        module.__dict__.pop("log_dict", None)
