"""Hugging Face Trainer adapter: ``Trainer(..., callbacks=[AmpDiagnosticCallback()])``.

The callback only reads: the GradScaler behind ``kwargs["optimizer"].scaler`` (accelerate) or
the DeepSpeed optimizer behind accelerate's wrapper, the loss the model returns (a forward hook)
and ``grad_norm`` from the logs. It builds one :class:`~denpex_callbacks.Observation` per
optimizer step and feeds the framework-free :class:`~denpex_callbacks.Monitor`.

Step numbering: ``Observation.step`` (and so ``Diagnosis.step``) is HF's own 1-based
``state.global_step`` after the optimizer step, the number users see in logs, in
``log_history`` and in checkpoint names. Start-up lints report step 0.
"""

from __future__ import annotations

import math
import os
import sys
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import asdict
from functools import wraps
from types import FrameType
from typing import Any, TypeVar, cast

import torch
from transformers import TrainerCallback
from transformers.trainer_callback import (
    CallbackHandler,
    DefaultFlowCallback,
    ExportableState,
    TrainerControl,
    TrainerState,
)
from transformers.training_args import TrainingArguments
from transformers.utils import logging as hf_logging

from denpex_callbacks.core.config import UNSET, MonitorConfig, build_config
from denpex_callbacks.core.diagnosis import AmpDiagnosisError
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.run_setup import RunSetup, active_precision
from denpex_callbacks.core.versions import package_versions
from denpex_callbacks.integrations.pipeline import StepPipeline, StopVote, all_reduce_vote
from denpex_callbacks.readers import deepspeed_optimizer as ds_reader
from denpex_callbacks.readers import grad_scaler as torch_scaler
from denpex_callbacks.readers.step_values import (
    LossAccumulator,
    after_step_reader,
    before_step_reader,
)

# A child of the ``transformers`` logger: the user's transformers verbosity applies to it.
LOGGER = hf_logging.get_logger("transformers.denpex")
MAX_GRAD_NORMS = 8  # grad norms from logs waiting for their (deferred) step

_Hook = TypeVar("_Hook", bound=Callable[..., Any])


def _guarded(hook: _Hook) -> _Hook:
    """Run a hook under the pipeline's guard (an internal error turns monitoring off).

    Only the user's policy (AmpDiagnosisError under ``"raise"``) passes through; the report is
    closed first, because ``on_train_end`` will not come.
    """

    @wraps(hook)
    def wrapper(self: AmpDiagnosticCallback, *args: Any, **kwargs: Any) -> Any:
        pipeline = self.pipeline
        if pipeline is None or not pipeline.active:
            return None
        try:  # StepPipeline.guard without its extra call: this runs several times per step
            result = hook(self, *args, **kwargs)
        except AmpDiagnosisError:
            self._close(wait=False)
            raise
        except Exception:
            pipeline.monitor.switch_off()
            result = None
        if not pipeline.active:  # it failed just now (here or in the engine): unhook all
            self._close(wait=False)
        return result

    return cast(_Hook, wrapper)


class AmpDiagnosticCallback(TrainerCallback, ExportableState):  # type: ignore[misc]
    """Diagnoses fp16 mixed-precision failures inside a Hugging Face ``Trainer``.

    Args:
        on_fault: ``"warn"`` (log, the default), ``"stop"`` (set
            ``control.should_training_stop``: the run ends after the current step) or
            ``"raise"`` (raise AmpDiagnosisError out of ``trainer.train()``).
        report_dir: Folder of the JSONL run reports. A relative path is taken inside
            ``args.output_dir`` (as Lightning takes it inside ``default_root_dir``), and
            ``"{output_dir}"`` in it is replaced by ``args.output_dir``; None writes none.
            Default: ``denpex_reports``, i.e. ``{output_dir}/denpex_reports``.
        config: A full MonitorConfig (or its dict form); the keyword arguments override it.
        **options: Any other MonitorConfig field (``disable``, ``thresholds``,
            ``fault_severity``, ``record_every``, ``max_step_records``, ``max_repeats``,
            ``locate``), as for every adapter.
        restored_from_checkpoint: Set by HF when it rebuilds the callback from a checkpoint
            (``restore_callback_states_from_checkpoint=True``). The user's own instance of
            the resumed Trainer is then used as it is (its settings win, the object the user
            holds is the one that runs) and the saved history is loaded into it; the saved
            settings are used only when there is no such instance.

    Example:
        >>> cb = AmpDiagnosticCallback(on_fault="stop", disable=("AMP008",),
        ...                            thresholds={"zero_loss_steps": 5})
        >>> cb.config.on_fault, cb.config.thresholds.zero_loss_steps
        ('stop', 5)
        >>> cb.config.report_dir
        'denpex_reports'
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> AmpDiagnosticCallback:
        # HF rebuilds a stateful callback from its saved arguments on
        # restore_callback_states_from_checkpoint=True and drops the user's instance; we hand
        # it the user's own instance instead, so the settings given now and the object the
        # user holds are the ones that run (see _UserInstances).
        if kwargs.get("restored_from_checkpoint"):
            live = _USER_INSTANCES.latest_unstarted(cls)
            if live is not None:
                return live
        return cast(AmpDiagnosticCallback, super().__new__(cls))

    def __init__(
        self,
        on_fault: str = UNSET,
        report_dir: str | os.PathLike[str] | None = UNSET,
        config: MonitorConfig | Mapping[str, Any] | None = None,
        *,
        restored_from_checkpoint: bool = False,
        **options: Any,
    ) -> None:
        if restored_from_checkpoint and getattr(self, "config", None) is not None:
            return  # the user's instance, handed back by __new__: its settings stay
        self.config = build_config(config, on_fault=on_fault, report_dir=report_dir, **options)
        self.pipeline: StepPipeline | None = None
        self._resume_state: dict[str, Any] | None = None  # set by HF on checkpoint resume
        self._reset_run()
        if not restored_from_checkpoint:
            _USER_INSTANCES.add(self)

    @property
    def monitor(self) -> Monitor | None:
        """The run's Monitor (diagnoses, metrics); None before training begins."""
        return self.pipeline.monitor if self.pipeline is not None else None

    def _reset_run(self) -> None:
        self._hook: torch.utils.hooks.RemovableHandle | None = None
        self._in_step = False
        self._losses = LossAccumulator()
        self._loss_shares = False  # micro-batch losses are shares of the step's (summed)
        self._blind_said = False  # "the loss detectors cannot see the loss", said once
        self._before: dict[str, Any] = {}
        # The scale's readers, found once for the optimizer Trainer passes at every step.
        self._readers: tuple[Any, Callable[[], dict[str, Any]], Callable[[], dict[str, Any]]
                             ] | None = None
        self._grad_norms: dict[int, float] = {}
        self._deepspeed = False
        self._vote: StopVote | None = None

    # -- checkpoint resume (HF's ExportableState: saved in trainer_state.json) -------------------

    def state(self) -> dict[str, Any]:
        """Constructor arguments and detector history, for ``trainer_state.json``."""
        history = self.monitor.state_dict() if self.monitor is not None else self._resume_state
        return {
            # Every setting: HF rebuilds the callback from these when the user's own instance
            # is not there to take them back (see __new__).
            "args": {"config": _config_dict(self.config), "restored_from_checkpoint": True},
            "attributes": {"_resume_state": history},
        }

    # -- run lifecycle ---------------------------------------------------------------------------

    def on_train_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        self._close()
        self._reset_run()
        _USER_INSTANCES.started(self)
        model = kwargs.get("model")
        self.pipeline = StepPipeline(
            self.config, framework="hf", logger=LOGGER, output_dir=str(args.output_dir or "."),
            model=model, run_name=args.run_name,
        )
        _run_before_integrations(self)  # called here: it looks for its caller's frame
        self._begin(args, state, model, kwargs.get("optimizer"))

    @_guarded
    def _begin(self, args: TrainingArguments, state: TrainerState, model: Any,
               optimizer: Any) -> None:
        assert self.pipeline is not None
        if self.pipeline.monitor.world_size > 1:
            self._vote = all_reduce_vote(args.device)
        history = self._resume_state or _checkpointed_history(state, type(self).__name__)
        if history:
            self.pipeline.monitor.load_state_dict(history)
        self._resume_state = None  # loaded once; state() now reads the live monitor
        self._deepspeed = bool(getattr(args, "deepspeed", None)) or (
            getattr(args, "deepspeed_plugin", None) is not None
        )
        if model is not None:
            self._hook = model.register_forward_hook(self._on_forward, with_kwargs=True)
        self.pipeline.start(lambda: read_setup(args, model, optimizer, self._deepspeed))

    def on_train_end(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        self._close()

    def _close(self, *, wait: bool = True) -> None:
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
        if self.pipeline is not None:
            self.pipeline.close(wait=wait)

    # -- per optimizer step ----------------------------------------------------------------------

    @_guarded
    def on_step_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        self._drain(control)
        self._in_step = True
        self._losses.take()
        if self._deepspeed:
            # DeepSpeed steps inside accelerator.backward: read the old scale before it.
            self._before = self._reader(kwargs.get("optimizer"))[1]()

    def _reader(self, optimizer: Any) -> tuple[Any, Callable[[], dict[str, Any]],
                                                Callable[[], dict[str, Any]]]:
        """(optimizer, read before the step, read after it), found once per optimizer."""
        readers = self._readers
        if readers is None or readers[0] is not optimizer:
            if self._deepspeed:
                source, raw = optimizer, None
            else:
                source, raw = getattr(optimizer, "scaler", None), getattr(optimizer, "optimizer",
                                                                          None)
            readers = self._readers = (
                optimizer,
                before_step_reader(source, raw) if source is not None else dict,
                after_step_reader(source) if source is not None else dict,
            )
        return readers

    def _on_forward(
        self, module: torch.nn.Module, inputs: Any, kwargs: Mapping[str, Any], output: Any
    ) -> None:
        if not self._in_step or not module.training:
            return
        loss = model_loss(output)
        if loss is not None and self.pipeline is not None:
            # Given num_items_in_batch, the model normalised its loss by the whole accumulated
            # batch's token count: each micro-batch loss is a share of the step's loss (summed
            # at the step); otherwise the Trainer divides by the accumulation itself (averaged).
            self._loss_shares = kwargs.get("num_items_in_batch") is not None
            # Kept on the device until the optimizer step: no sync per micro-batch.
            self.pipeline.guard(self._losses.add, loss)

    @_guarded
    def on_pre_optimizer_step(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        if self._deepspeed:
            return
        self._before = self._reader(kwargs.get("optimizer"))[1]()

    @_guarded
    def on_optimizer_step(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        optimizer = kwargs.get("optimizer")
        raw = getattr(optimizer, "optimizer", optimizer)
        # found_inf (read before the step) is right for fused optimizers too, where accelerate's
        # step_was_skipped is not; without it (no clipping) the skip is read from the scale.
        loss = self._losses.take(mean=not self._loss_shares)
        if loss is None and not self._blind_said:
            self._blind_said = True
            LOGGER.info(
                "denpex: the model's forward returned no loss (a custom compute_loss, or no "
                "labels in the batch): the loss detectors (AMP006 non-finite loss, AMP007 loss "
                "at zero) cannot see it; the loss-scale detectors still run. Return the loss "
                "from the model's forward (first in a tuple, or as \"loss\") to watch it.")
        values: dict[str, Any] = self._reader(optimizer)[2]()
        values.update(self._before)
        values["loss"], values["lr"], values["time"] = loss, torch_scaler.first_lr(raw), time.time()
        cast(StepPipeline, self.pipeline).record(state.global_step + 1, values)
        self._in_step = False
        self._before = {}

    def on_step_end(  # not guarded: every rank must reach the stop vote
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        # DefaultFlowCallback (always first) has decided whether this step logs. If it does,
        # wait for on_log so the observation carries the step's grad_norm, except under
        # "stop": then judge now so that every rank decides after this very step.
        stopping = self.config.on_fault == "stop"
        if not control.should_log or stopping:
            self._drain_step(control)
        # Every rank votes every step, also with monitoring off (a rank leaving the collective
        # would hang the others).
        if stopping and self.pipeline is not None and self.pipeline.decide_stop(
            self._vote, state.global_step
        ):
            control.should_training_stop = True
            # A checkpoint through the Trainer's own path (output_dir/checkpoint-<step>),
            # written after this step, before the run ends; every rank takes part.
            control.should_save = control.should_save or self.config.checkpoint_on_stop

    @_guarded
    def _drain_step(self, control: TrainerControl) -> None:
        self._drain(control)

    @_guarded
    def on_log(
        self,
        args: TrainingArguments,
        state: TrainerState,
        control: TrainerControl,
        logs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if logs is None or "loss" not in logs or self.monitor is None:
            return  # evaluation and end-of-training summaries carry no step metrics
        grad_norm = logs.get("grad_norm")
        if isinstance(grad_norm, (int, float)):
            self._grad_norms[state.global_step] = float(grad_norm)
            for old in sorted(self._grad_norms)[:-MAX_GRAD_NORMS]:
                del self._grad_norms[old]
        self._drain(control)
        metrics = self.monitor.metrics()
        # Our on_log runs before the report_to integrations (see _run_before_integrations), so
        # keys added to ``logs`` here reach TensorBoard/W&B/...; log_history already holds a
        # copy of logs (Trainer.log copies before on_log), so update that entry as well.
        logs.update(metrics)
        history = state.log_history
        if history and history[-1].get("step") == state.global_step and "loss" in history[-1]:
            history[-1].update(metrics)

    def _drain(self, control: TrainerControl) -> None:
        """Judge the steps whose snapshots are readable ("stop" is decided in on_step_end)."""
        cast(StepPipeline, self.pipeline).drain(complete=self._add_grad_norm)

    def _add_grad_norm(self, step: int, values: dict[str, Any]) -> None:
        values["grad_norm"] = self._grad_norms.pop(step, None)


def model_loss(output: Any) -> torch.Tensor | None:
    """The loss a model's forward returned: ``output["loss"]`` (a ModelOutput or dict), or
    the first element of a tuple (``return_dict=False`` with labels) when it is a scalar.

    Example:
        >>> import torch
        >>> loss = torch.tensor(2.0)
        >>> model_loss({"loss": loss}) is loss, model_loss((loss, torch.ones(4, 3))) is loss
        (True, True)
        >>> model_loss((torch.ones(4, 3),)) is None
        True
    """
    if isinstance(output, Mapping):
        loss = output.get("loss")
    elif isinstance(output, (tuple, list)) and output:
        loss = output[0]
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            return None
    else:
        return None
    return loss if isinstance(loss, torch.Tensor) and loss.is_floating_point() else None


def _warmup_steps(args: TrainingArguments) -> int | None:
    """Configured warm-up steps (``warmup_steps``, or ``warmup_ratio`` of ``max_steps``)."""
    steps = getattr(args, "warmup_steps", 0) or 0
    ratio = getattr(args, "warmup_ratio", 0) or 0
    if not steps and ratio and args.max_steps and args.max_steps > 0:
        steps = math.ceil(ratio * args.max_steps)
    return int(steps) or None


def read_setup(
    args: TrainingArguments, model: Any, optimizer: Any, deepspeed: bool = False
) -> RunSetup:
    """What the run asked for and what really runs, read at ``on_train_begin`` (no sync).

    Active precision comes from what is really there: a live loss scaler (GradScaler behind
    accelerate, or DeepSpeed's), accelerate's autocast wrapper on the model (it keeps the
    original as ``model._original_forward``), else the parameters' dtype. So
    ``fp16=True`` on CPU, which accelerate quietly runs in fp32, reads as fp32 (AMP010).

    Example:
        >>> args = TrainingArguments("out", fp16=True, use_cpu=True, report_to=[])
        >>> model = torch.nn.Linear(2, 1)
        >>> setup = read_setup(args, model, torch.optim.SGD(model.parameters(), lr=0.1))
        >>> setup.requested_precision, setup.active_precision, setup.scaler
        ('fp16', 'fp32', None)
    """
    requested = "fp16" if args.fp16 else "bf16" if args.bf16 else "fp32"
    setup = RunSetup(
        framework="hf",
        framework_version=package_versions("hf").get("transformers"),
        requested_precision=requested,
        nan_inf_filter=bool(args.logging_nan_inf_filter),
        pretrained_dtype=_config_dtype(model),
        rank=args.process_index,
        world_size=args.world_size,
        extra={"device": str(args.device), "optim": str(args.optim),
               "max_grad_norm": args.max_grad_norm,
               # What the fix texts must not ask for again (core/fixes.py).
               "gradient_clipping": args.max_grad_norm or None,
               "warmup_steps": _warmup_steps(args),
               "gradient_accumulation_steps": args.gradient_accumulation_steps},
    )
    params = _param_dtype(model)
    if deepspeed:
        ds_reader.deepspeed_setup(optimizer, setup)
        setup.extra["deepspeed"] = True
    else:
        torch_scaler.scaler_setup(getattr(optimizer, "scaler", None), setup)
        raw = getattr(optimizer, "optimizer", optimizer)
        setup.fp16_parameters = torch_scaler.optimizer_has_fp16_params(raw)
    autocast = model is not None and hasattr(model, "_original_forward")
    if autocast:
        compute = "bfloat16" if args.bf16 else "float16"
    else:  # no autocast wrapper: the parameters' dtype is what runs
        compute = {torch.float16: "float16", torch.bfloat16: "bfloat16"}.get(params, "float32")
    setup.active_precision = active_precision(
        compute, has_scaler=setup.has_scaler, autocast=autocast)
    return setup


def _run_before_integrations(callback: AmpDiagnosticCallback) -> None:
    """Move ``callback`` right after DefaultFlowCallback in the Trainer's callback list.

    Why (no public way; checked on transformers 5.24): Trainer builds ``logs`` inside
    ``_maybe_log_save_evaluate`` and calls ``on_log`` on
    DefaultFlowCallback, then the report_to integrations, then user callbacks; no earlier event
    sees that dict, so metrics added by a callback placed last never reach TensorBoard/W&B.
    Callbacks are not given the Trainer, but ``CallbackHandler.call_event`` (our caller) holds
    the handler as ``self``. A checkpoint resume re-adds stateful callbacks at the end, so this
    runs at every ``on_train_begin``. Reordering the list while ``call_event`` iterates it is
    safe here: only entries before our index move, so the iteration continues with the same
    next callback. If the handler is not found, the metrics reach only ``log_history``.
    """
    frame: FrameType | None = sys._getframe(1)
    for _ in range(6):
        if frame is None:
            break
        handler = frame.f_locals.get("self")
        if isinstance(handler, CallbackHandler) and callback in handler.callbacks:
            order = [cb for cb in handler.callbacks if cb is not callback]
            flow = [i for i, cb in enumerate(order) if isinstance(cb, DefaultFlowCallback)]
            order.insert(flow[0] + 1 if flow else 0, callback)
            handler.callbacks[:] = order
            return
        frame = frame.f_back
    LOGGER.info("denpex: callback handler not found; amp/ metrics go to log_history only")


class _UserInstances:
    """The callbacks users built, in order, and whether each has trained yet (weakly held)."""

    def __init__(self) -> None:
        self._refs: list[weakref.ref[AmpDiagnosticCallback]] = []
        self._started: weakref.WeakSet[AmpDiagnosticCallback] = weakref.WeakSet()

    def add(self, callback: AmpDiagnosticCallback) -> None:
        self._refs = [ref for ref in self._refs if ref() is not None] + [weakref.ref(callback)]

    def started(self, callback: AmpDiagnosticCallback) -> None:
        self._started.add(callback)

    def latest_unstarted(self, cls: type) -> AmpDiagnosticCallback | None:
        """The newest user instance of ``cls`` that has not trained: the one HF replaces."""
        for ref in reversed(self._refs):
            callback = ref()
            if type(callback) is cls and callback not in self._started:
                return callback
        return None


_USER_INSTANCES = _UserInstances()


def _checkpointed_history(state: TrainerState, name: str) -> dict[str, Any] | None:
    """The detector history saved in the checkpoint being resumed, if any.

    HF re-creates stateful callbacks from a checkpoint only with
    ``restore_callback_states_from_checkpoint=True`` (default False), but a resumed
    ``state.stateful_callbacks`` always holds what ``state()`` saved: read it from there.
    A fresh run (global_step 0) holds only the state of callbacks not yet started.
    """
    if not state.global_step:
        return None
    saved = (state.stateful_callbacks or {}).get(name)
    if isinstance(saved, list):
        saved = saved[0] if saved else None
    history = (saved or {}).get("attributes", {}).get("_resume_state")
    return history if isinstance(history, dict) else None


def _config_dtype(model: Any) -> str | None:
    config = getattr(model, "config", None)
    dtype = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
    return str(dtype).replace("torch.", "") if dtype is not None else None


def _param_dtype(model: Any) -> torch.dtype | None:
    parameters = getattr(model, "parameters", None)
    if parameters is None:
        return None
    first = next(iter(parameters()), None)
    return first.dtype if first is not None else None


def _config_dict(config: MonitorConfig) -> dict[str, Any]:
    out = asdict(config)
    out["disable"] = list(config.disable)
    out.pop("alert_webhook")  # a secret: never written to trainer_state.json
    return out


__all__ = ["AmpDiagnosticCallback", "read_setup"]
