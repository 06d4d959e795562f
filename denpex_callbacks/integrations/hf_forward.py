"""What the model's forward returns, as the HF callback watches it (one forward hook).

- In a training step where no loss scaler sees the loss that is backpropagated (fp32, bf16):
  each micro-batch's loss, summed as shares of the step's loss or averaged, as the Trainer
  itself treats them. Under DeepSpeed the losses given to ``engine.backward`` are taken
  instead (:meth:`ForwardLosses.backpropagated`), where the engine is found.
- In evaluation (the model in eval mode): each batch's loss, counted on the device for the
  evaluation stream (:mod:`~denpex_callbacks.integrations.evaluation_stream`), whether a scaler
  runs or not: evaluation never goes through one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import torch

from denpex_callbacks.integrations.evaluation_stream import EvaluationStream
from denpex_callbacks.readers.scale_reading import LossSum

if TYPE_CHECKING:
    from denpex_callbacks.integrations.pipeline import StepPipeline

__all__ = ["ForwardLosses", "model_loss"]


def model_loss(output: Any) -> torch.Tensor | None:
    """The loss a model's forward returned: ``output["loss"]`` (a ModelOutput or dict), or
    the first element of a tuple (``return_dict=False`` with labels) when it is a scalar.

    Example:
        >>> loss = torch.tensor(2.0)
        >>> model_loss({"loss": loss}) is loss, model_loss((loss, torch.ones(4, 3))) is loss
        (True, True)
        >>> model_loss((torch.ones(4, 3),)) is None
        True
    """
    if isinstance(output, (dict, Mapping)):  # a ModelOutput is a dict: no ABC check per step
        loss = output.get("loss")
    elif isinstance(output, (tuple, list)) and output:
        loss = output[0]
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            return None
    else:
        return None
    return loss if isinstance(loss, torch.Tensor) and loss.is_floating_point() else None


class ForwardLosses:
    """The losses a model's forward returns, watched by one hook on the model.

    Args:
        pipeline: The run's pipeline (the hook runs under its guard; its close removes it).
        training: Whether to take the training micro-batches' losses (no scaler sees them).

    Example:
        >>> from denpex_callbacks.core.config import MonitorConfig
        >>> from denpex_callbacks.integrations.pipeline import StepPipeline
        >>> import logging
        >>> pipeline = StepPipeline(MonitorConfig(report_dir=None), framework="hf",
        ...                         logger=logging.getLogger("doctest.forward"))
        >>> model = torch.nn.Linear(2, 1)
        >>> class Regressor(torch.nn.Module):
        ...     def forward(self, x):
        ...         return {"loss": model(x).sum()}
        >>> regressor = Regressor()
        >>> losses = ForwardLosses(pipeline, training=True)
        >>> losses.attach(regressor)
        >>> losses.begin_step(); _ = regressor(torch.ones(1, 2)); _ = regressor(torch.ones(1, 2))
        >>> losses.end_step() is not None
        True
        >>> _ = regressor.eval()(torch.full((1, 2), float("nan")))
        >>> losses.evaluation.losses.take().nan_batches
        1
        >>> pipeline.close()
        []
    """

    def __init__(self, pipeline: StepPipeline, *, training: bool) -> None:
        self.pipeline = pipeline
        self.training = training
        self.in_step = False
        self.evaluation = EvaluationStream()  # the losses of the evaluation under way
        self._losses = LossSum()
        self._shares = False  # the micro-batch losses are shares of the step's loss (summed)

    def attach(self, model: torch.nn.Module, *, compiled: bool = False) -> None:
        """Hook ``model``'s forward until the pipeline closes.

        ``compiled``: the Trainer calls ``model`` through a torch.compile wrapper. The hook is
        then kept out of dynamo (``torch.compiler.disable``): called from inside the
        compiled call, it would otherwise be compiled as frames of its own, guarded on the
        callback's state.
        """
        hook_function = self._on_forward
        if compiled:
            hook_function = torch.compiler.disable(hook_function)
        hook = model.register_forward_hook(hook_function, with_kwargs=True)
        self.pipeline.on_close(hook.remove)

    def begin_step(self) -> None:
        """A training step begins: what was seen outside it belongs to no step."""
        self.in_step = True
        self._losses.take(mean=False)
        self.evaluation.losses.drop()  # (an eval-mode loss outside an evaluation is not one's)

    def backpropagated(self, loss: Any) -> None:
        """A loss given to DeepSpeed's ``engine.backward`` in a training step (HF passes the
        share of the step, already divided by the accumulation): the step's loss is their sum,
        and the model's own output is no longer taken for it."""
        if not self.pipeline.active:
            return
        with self.pipeline.guard():
            if self.training:
                self.training, self._shares = False, True
                self._losses.take(mean=False)  # (a model output taken before is not the loss)
            self._losses.add(loss)

    def end_step(self) -> torch.Tensor | float | None:
        """The step's loss (None: no training forward returned one), and the step ends."""
        self.in_step = False
        return self.step_loss()

    def step_loss(self) -> torch.Tensor | float | None:
        """The loss of the step so far, taken (the micro-batches' sum or mean)."""
        return self._losses.take(mean=not self._shares)

    def _on_forward(
        self, module: torch.nn.Module, inputs: Any, kwargs: Mapping[str, Any], output: Any
    ) -> None:
        pipeline = self.pipeline
        if not pipeline.active:
            return
        if not module.training:  # an evaluation forward: counted on the device, read later
            with pipeline.guard():
                self.evaluation.losses.add(model_loss(output))
            return
        if not self.in_step or not self.training:
            return  # (with a scaler, the loss comes from its scale())
        with pipeline.guard():
            # Given num_items_in_batch, the model normalised its loss by the whole accumulated
            # batch's token count: each micro-batch loss is a share of the step's (summed);
            # otherwise the Trainer divides by the accumulation itself (averaged).
            self._shares = kwargs.get("num_items_in_batch") is not None
            self._losses.add(model_loss(output))
