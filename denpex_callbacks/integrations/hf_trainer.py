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

import os
import time
from collections.abc import Mapping
from typing import Any, cast

import torch
from transformers import TrainerCallback
from transformers.trainer_callback import (
    ExportableState,
    TrainerControl,
    TrainerState,
)
from transformers.training_args import TrainingArguments
from transformers.utils import logging as hf_logging

from denpex_callbacks.core.config import UNSET, MonitorConfig, build_config
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.integrations.hf_callback_order import run_before_integrations
from denpex_callbacks.integrations.hf_guard import guarded as _guarded
from denpex_callbacks.integrations.hf_resume import (
    USER_INSTANCES,
    checkpointed_history,
    config_dict,
)
from denpex_callbacks.integrations.hf_setup import StepReaders, model_loss, read_setup, step_readers
from denpex_callbacks.integrations.pipeline import StepPipeline, StopVote, all_reduce_vote
from denpex_callbacks.readers import grad_scaler as torch_scaler
from denpex_callbacks.readers.step_values import LossAccumulator

# A child of the ``transformers`` logger: the user's transformers verbosity applies to it.
LOGGER = hf_logging.get_logger("transformers.denpex")
MAX_GRAD_NORMS = 8  # grad norms from logs waiting for their (deferred) step

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
        # user holds are the ones that run (see hf_resume.UserInstances).
        if kwargs.get("restored_from_checkpoint"):
            live = USER_INSTANCES.latest_unstarted(cls)
            if live is not None:
                return cast(AmpDiagnosticCallback, live)
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
            USER_INSTANCES.add(self)

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
        self._readers: StepReaders | None = None
        self._grad_norms: dict[int, float] = {}
        self._deepspeed = False
        self._vote: StopVote | None = None
        # The hot path: (optimizer, its CPU GradScaler, the raw optimizer), once found.
        self._host: tuple[Any, Any, Any] | None = None
        # On the hot path, the numbers before the next step, kept at the end of the last one:
        # (the scale, the scaler's per-optimizer state table that step will write)
        self._before_numbers: tuple[float, Any] | None = None
        self._views = torch_scaler.NO_VIEWS  # the CPU GradScaler's numbers as memoryviews
        self._log_every = 0  # the logging period (0: no "steps" logging)
        self._log_first = False  # args.logging_first_step (read once: a large dataclass)
        self._stopping = self.config.on_fault == "stop"  # (a vote at every step end)

    # -- checkpoint resume (HF's ExportableState: saved in trainer_state.json) -------------------

    def state(self) -> dict[str, Any]:
        """Constructor arguments and detector history, for ``trainer_state.json``."""
        history = self.monitor.state_dict() if self.monitor is not None else self._resume_state
        return {
            # Every setting: HF rebuilds the callback from these when the user's own instance
            # is not there to take them back (see __new__).
            "args": {"config": config_dict(self.config), "restored_from_checkpoint": True},
            "attributes": {"_resume_state": history},
        }

    # -- run lifecycle ---------------------------------------------------------------------------

    def on_train_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        self._close()
        self._reset_run()
        USER_INSTANCES.started(self)
        model = kwargs.get("model")
        self.pipeline = StepPipeline(
            self.config, framework="hf", logger=LOGGER, output_dir=str(args.output_dir or "."),
            model=model, run_name=args.run_name,
        )
        run_before_integrations(self)  # called here: it looks for its caller's frame
        self._begin(args, state, model, kwargs.get("optimizer"))

    @_guarded
    def _begin(self, args: TrainingArguments, state: TrainerState, model: Any,
               optimizer: Any) -> None:
        assert self.pipeline is not None
        if self.pipeline.monitor.world_size > 1:
            self._vote = all_reduce_vote(args.device)
        history = self._resume_state or checkpointed_history(state, type(self).__name__)
        if history:
            self.pipeline.monitor.load_state_dict(history)
        self._resume_state = None  # loaded once; state() now reads the live monitor
        self._deepspeed = bool(getattr(args, "deepspeed", None)) or (
            getattr(args, "deepspeed_plugin", None) is not None
        )
        # The steps that log (DefaultFlowCallback.on_step_end: global_step % logging_steps
        # under the "steps" strategy, and the first one with logging_first_step) are judged
        # at on_log with the logs' grad norm, never on the hot path. transformers sets
        # state.logging_steps (a ratio made a count) before on_train_begin.
        strategy = getattr(args, "logging_strategy", None)
        self._log_every = int(getattr(state, "logging_steps", 0) or 0) if (
            str(getattr(strategy, "value", strategy)) == "steps") else 0
        self._log_first = bool(getattr(args, "logging_first_step", False))
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

    def on_step_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        self._in_step = True
        pipeline = self.pipeline
        # (the common case, every step, without the guard's frame: nothing else to do; the
        # guard's frame does nothing when monitoring is off)
        if pipeline is not None and (pipeline.in_flight or self._losses.count or self._deepspeed):
            self._step_begin(control, kwargs.get("optimizer"))

    @_guarded
    def _step_begin(self, control: TrainerControl, optimizer: Any) -> None:
        if cast(StepPipeline, self.pipeline).in_flight:
            self._drain(control)
        if self._losses.count:  # (a loss seen outside a step: not this step's)
            self._losses.take()
        if self._deepspeed:
            # DeepSpeed steps inside accelerator.backward: read the old scale before it.
            self._before = self._reader(optimizer)[1]()

    def _reader(self, optimizer: Any) -> StepReaders:
        """(optimizer, read before the step, read after it), found once per optimizer."""
        readers = self._readers
        if readers is None or readers[0] is not optimizer:
            readers = self._readers = step_readers(optimizer, deepspeed=self._deepspeed)
            self._host = readers.host
        return readers

    def _on_forward(
        self, module: torch.nn.Module, inputs: Any, kwargs: Mapping[str, Any], output: Any
    ) -> None:
        if not self._in_step or not module.training:
            return
        pipeline = self.pipeline
        if pipeline is None or pipeline.monitor.disabled:
            return
        try:  # (the pipeline's guard, inline: every micro-batch)
            loss = output.get("loss") if isinstance(output, dict) else model_loss(output)
            if loss is None:
                return
            # Given num_items_in_batch, the model normalised its loss by the whole accumulated
            # batch's token count: each micro-batch loss is a share of the step's loss (summed
            # at the step); otherwise the Trainer divides by the accumulation itself (averaged).
            self._loss_shares = kwargs.get("num_items_in_batch") is not None
            losses = self._losses
            if loss.__class__ is torch.Tensor and loss.is_cpu:
                # A CPU scalar read now, before HF scales it in place (item() waits for
                # nothing there); added to the step's sum without the accumulator's checks.
                try:
                    value = loss.item()
                except RuntimeError:  # several values: the accumulator takes their mean
                    value = None
                if value.__class__ is float:
                    total = losses.total
                    if total is None or total.__class__ is float:
                        losses.total = value if total is None else total + value
                        losses.count += 1
                        return
            if isinstance(loss, torch.Tensor) and loss.is_floating_point():
                # Kept on the device until the optimizer step: no sync per micro-batch.
                losses.add(loss)
        except Exception:
            pipeline.fail()

    def on_pre_optimizer_step(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        # The hot path does nothing here: the numbers before this step were kept at the last
        # one's end (_optimizer_step sees from the table whether they are this step's).
        # DeepSpeed read them at on_step_begin.
        if self._before_numbers is None and not self._deepspeed:
            self._pre_step(kwargs.get("optimizer"))  # (guarded: nothing when monitoring is off)

    @_guarded
    def _pre_step(self, optimizer: Any) -> None:  # (only when no numbers were kept)
        self._before = self._reader(optimizer)[1]()

    def on_optimizer_step(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        pipeline = self.pipeline
        if pipeline is None or pipeline.monitor.disabled:
            return
        before, self._before_numbers = self._before_numbers, None
        if before is not None:
            # The hot path (the guard inline): a quiet step taken from plain numbers. Not a
            # step that logs: it is judged at on_log, with the grad norm of the logs.
            try:
                step = state.global_step + 1
                losses = self._losses
                count, total = losses.count, losses.total
                host = self._host
                # (before[0], the scale kept at the last step's end, is this step's unless an
                # update() came between: then the scale moved and the step is not quiet; the
                # full way sees it from the table, see _optimizer_step)
                if (count and total.__class__ is float and host is not None
                        and (step % self._log_every if self._log_every else True)
                        and not (step == 1 and self._log_first)):
                    views = self._views
                    scaler = host[1]
                    if views[1] is not None and views[0] is scaler._scale:
                        scale, tracker = views[1][()], views[2][()]
                    else:
                        scale, tracker = scaler._scale.item(), int(scaler._growth_tracker.item())
                    loss = total / count if count > 1 and not self._loss_shares else total
                    if pipeline.take_quiet(step, loss, before[0], scale, None, tracker):
                        losses.total, losses.count = None, 0
                        self._in_step = False
                        # The next step's numbers before it: this scale (only update()
                        # changes it) and the table its unscale_/step will fill (update() has
                        # just put it there; it replaces it, not empties it, at the next).
                        self._before_numbers = (scale, scaler._per_optimizer_states)
                        return
            except Exception:
                pipeline.fail()
                return
        self._optimizer_step(state, kwargs.get("optimizer"), before)

    @_guarded
    def _optimizer_step(self, state: TrainerState, optimizer: Any,
                        before: tuple[float, Any] | None) -> None:
        raw = getattr(optimizer, "optimizer", optimizer)
        # found_inf (read before the step) is right for fused optimizers too, where accelerate's
        # step_was_skipped is not; without it (no clipping) the skip is read from the scale.
        loss = self._losses.take(mean=not self._loss_shares)
        pipeline = cast(StepPipeline, self.pipeline)
        step = state.global_step + 1
        if before is not None:
            # This step's found_inf tensors, in the table kept before it (update() has replaced
            # the table since, and kept the tensors): none without an unscale_ (no clipping),
            # the scale tells then. A table the step did not write (an update() came between)
            # leaves the scale before unknown.
            scale_before, states = before
            state_now = states.get(id(raw))  # (a defaultdict: get() adds no entry)
            found = state_now.get("found_inf_per_device") if state_now else None
            self._before = {"scale_before": scale_before if state_now else None,
                            "found_inf": None if not found else
                            sum(t.item() for t in found.values())}
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
        pipeline.record(step, values)
        self._in_step = False
        self._before = {}
        host = self._host
        if host is not None and host[0] is optimizer:  # the next step's numbers before it
            scaler = host[1]
            views = self._views
            if views[0] is not scaler._scale:  # (the first step, or tensors replaced)
                views = self._views = torch_scaler.host_views(scaler)
            self._before_numbers = (
                views[1][()] if views[1] is not None else scaler._scale.item(),
                scaler._per_optimizer_states)

    def on_step_end(  # not guarded: every rank must reach the stop vote
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        # DefaultFlowCallback (always first) has decided whether this step logs. If it does,
        # wait for on_log so the observation carries the step's grad_norm, except under
        # "stop": then judge now so that every rank decides after this very step.
        pipeline = self.pipeline
        if pipeline is None:
            return
        stopping = self._stopping
        if pipeline.in_flight and (stopping or not control.should_log):
            self._drain_step(control)
        # Every rank votes every step, also with monitoring off (a rank leaving the collective
        # would hang the others).
        if stopping and pipeline.decide_stop(self._vote, state.global_step):
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


__all__ = ["AmpDiagnosticCallback", "read_setup"]
