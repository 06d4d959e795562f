"""Re-running a Lightning training step: ``training_step`` on the captured batch.

Lightning does not call the LightningModule's forward for a step (``training_step`` may call
submodules directly), so the batch is captured in ``on_train_batch_start`` (before any hook
draws from the RNG in the step) and the re-run calls ``training_step(batch, batch_idx)``
itself, under the precision plugin's ``train_step_context()`` (autocast) and with
``self.log``/``self.log_dict`` turned into no-ops for its duration: nothing it would log
reaches the logger connector. It calls the module itself, not the strategy's wrapper (DDP),
so no collective runs.

Manual optimisation: ``training_step`` calls ``manual_backward`` and ``optimizer.step()``
itself, so it cannot be re-run without side effects; such runs are "not re-runnable" (the
locator is armed for the next step instead).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Any

from denpex_callbacks.locate.on_fault import LocateOnFault

MANUAL = ("manual optimisation: training_step steps the optimizers itself, so re-running it "
          "would change the parameters")


def watch_training_steps(locate: LocateOnFault, trainer: Any
                         ) -> Callable[[tuple[Any, ...], dict[str, Any]], None] | None:
    """Let ``locate`` re-run training steps of ``trainer.lightning_module``.

    Returns:
        What to call at each batch start, before the step draws from the RNG, with
        ``((batch, batch_idx), {})`` (:meth:`LocateOnFault.capture_inputs`), or None when
        re-running is off. A step's re-run calls ``training_step`` on the batch kept.
    """
    module = trainer.lightning_module
    manual = not getattr(module, "automatic_optimization", True)
    takes_batch_idx = _takes_batch_idx(module.training_step)

    def call_for(args: tuple[Any, ...]) -> Callable[[], Any]:
        # Built when a step is judged in full only, from its (batch, batch_idx).
        return functools.partial(_training_step, trainer, module,
                                 args if takes_batch_idx else args[:1])

    locate.watch(module, hook=False, blocker=(lambda: MANUAL) if manual else None,
                 call_for=call_for)
    return locate.capture_inputs if locate.rerun is not None else None


def _training_step(trainer: Any, module: Any, args: tuple[Any, ...]) -> Any:
    with trainer.precision_plugin.train_step_context(), _logging_off(module):
        return module.training_step(*args)


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
