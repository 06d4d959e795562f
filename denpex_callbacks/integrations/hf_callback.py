"""Hugging Face Trainer adapter: ``Trainer(..., callbacks=[AmpDiagnosticCallback()])``.

The callback only reads: the GradScaler behind ``kwargs["optimizer"].scaler`` (accelerate),
whose reader takes each step at the scaler's ``update()`` and the loss at its ``scale()`` (the
loss that is backpropagated, whatever ``compute_loss`` a Trainer subclass has), or the DeepSpeed
optimizer behind accelerate's wrapper; without a scaler, the loss the model returns (a forward
hook); and ``grad_norm`` from the logs. Each optimizer step goes to the shared
:class:`~denpex_callbacks.integrations.pipeline.StepPipeline`. Evaluation is a stream of its
own (:mod:`~denpex_callbacks.integrations.evaluation_stream`): the same forward hook counts
the evaluation batches whose loss is NaN/inf on the device, read at ``on_evaluate`` with the
metrics HF computed (the Trainer has read its evaluation results to the host by then).

Step numbering: ``Observation.step`` (and so ``Diagnosis.step``) is HF's own 1-based
``state.global_step`` after the optimizer step, the number users see in logs, in
``log_history`` and in checkpoint names. Start-up lints report step 0.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, cast

from transformers import TrainerCallback
from transformers.trainer_callback import ExportableState, TrainerControl, TrainerState
from transformers.training_args import TrainingArguments

from denpex_callbacks.core.config import UNSET, MonitorConfig, build_config
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.policy import StopVote
from denpex_callbacks.integrations.hf_forward import ForwardLosses
from denpex_callbacks.integrations.hf_resume import (
    USER_INSTANCES,
    checkpointed_history,
    saved_state,
)
from denpex_callbacks.integrations.hf_setup import (
    LOGGER,
    NO_LOSS_NOTE,
    add_to_row,
    deepspeed_engine,
    read_setup,
    run_before_integrations,
    scale_readers,
    trained_module,
    trains_under_deepspeed,
    wrapped_model,
)
from denpex_callbacks.integrations.lifecycle import guarded
from denpex_callbacks.integrations.pipeline import StepPipeline
from denpex_callbacks.integrations.run_rules import all_reduce_vote
from denpex_callbacks.readers.deepspeed_optimizer import DeepSpeedReader
from denpex_callbacks.readers.grad_scaler import first_lr
from denpex_callbacks.readers.scale_reading import NoScaler, ScaleReading, StepReader

__all__ = ["AmpDiagnosticCallback", "read_setup"]


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
        # it the user's own instance instead (hf_resume.UserInstances).
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
        self._reader: StepReader = NoScaler()  # the run's scale reader
        self._deepspeed: DeepSpeedReader | None = None  # (its exit, the loss it backpropagates)
        self._step_now = 0  # the step being taken (HF's global step after it)
        self._forward: ForwardLosses | None = None  # the model's losses, training and eval
        self._lr: float | None = None
        self._held: tuple[int, ScaleReading, Any, float | None] | None = None  # awaits on_log
        self._vote: StopVote | None = None
        self._stopping = self.config.on_fault == "stop"
        self._blind_said = False

    # -- checkpoint resume (HF's ExportableState: saved in trainer_state.json) -------------------

    def state(self) -> dict[str, Any]:
        """Constructor arguments and detector history, for ``trainer_state.json``."""
        history = self.monitor.state_dict() if self.monitor is not None else self._resume_state
        return saved_state(self.config, history)

    # -- run lifecycle ---------------------------------------------------------------------------

    def on_train_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        if self.pipeline is not None:  # (trained before: that run is closed first)
            self.pipeline.close()
        self._reset_run()
        USER_INSTANCES.started(self)
        model = kwargs.get("model")
        wrapped = wrapped_model()  # (both helpers look for the frames that called this)
        trained = trained_module(model, wrapped)
        self.pipeline = StepPipeline(
            self.config, framework="hf", logger=LOGGER, output_dir=str(args.output_dir or "."),
            run_name=args.run_name,
        )
        self.pipeline.locate.watch(trained)
        run_before_integrations(self)
        self._begin(args, state, model, kwargs.get("optimizer"), compiled=trained is not model,
                    engine=deepspeed_engine(wrapped))

    @guarded
    def _begin(self, args: TrainingArguments, state: TrainerState, model: Any,
               optimizer: Any, *, compiled: bool, engine: Any) -> None:
        pipeline = cast(StepPipeline, self.pipeline)
        if pipeline.monitor.world_size > 1:
            self._vote = all_reduce_vote(args.device)
        history = self._resume_state or checkpointed_history(state, type(self).__name__)
        if history:
            pipeline.monitor.load_state_dict(history)
        self._resume_state = None  # loaded once; state() now reads the live monitor
        deepspeed = trains_under_deepspeed(args)
        self._reader, self._deepspeed = scale_readers(optimizer, pipeline, deepspeed=deepspeed,
                                                      on_exit=self._deepspeed_ended)
        self._forward = ForwardLosses(pipeline, training=not self._reader.sees_loss)
        if model is not None:
            self._forward.attach(model, compiled=compiled)
        if self._deepspeed is not None and engine is not None:  # the loss it backpropagates
            self._deepspeed.watch_backward(engine, self._forward.backpropagated)
        pipeline.start(lambda: read_setup(args, model, optimizer, deepspeed))

    def _deepspeed_ended(self, error: BaseException) -> None:
        # DeepSpeed's exit at the minimum scale, inside accelerator.backward: the step it
        # refused (HF's next global step) was skipped at the scale it had.
        if self.pipeline is not None and self._forward is not None and self._deepspeed is not None:
            refused = self._deepspeed.refused()
            refused.loss = self._forward.step_loss()
            self.pipeline.framework_ended(self._step_now, refused, error)

    def on_train_end(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        self._judge_held(None)
        if self.pipeline is not None:
            self.pipeline.close()

    # -- per optimizer step ----------------------------------------------------------------------

    @guarded
    def on_step_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        self._step_now = state.global_step + 1
        cast(ForwardLosses, self._forward).begin_step()
        # (DeepSpeed steps inside accelerator.backward: the scale before it is read now.)
        self._reader.step_begins()

    @guarded
    def on_pre_optimizer_step(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        # The last moment the parameters are the earlier steps': judge what has landed (a
        # failing step can still be re-run with its own parameters).
        cast(StepPipeline, self.pipeline).drain()

    @guarded
    def on_optimizer_step(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        optimizer = kwargs.get("optimizer")
        self._lr = first_lr(getattr(optimizer, "optimizer", optimizer))  # before the scheduler

    def on_step_end(  # not guarded as a whole: every rank must reach the stop vote
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        if self.pipeline is None:
            return
        # DefaultFlowCallback (always first) has decided whether this step logs. If it does,
        # the step waits for on_log so it carries the step's grad_norm, except under "stop":
        # then it is judged now, so that every rank decides after this very step.
        self._end_step(state.global_step, bool(control.should_log) and not self._stopping)
        if self._stopping and self.pipeline.decide_stop(self._vote, state.global_step):
            control.should_training_stop = True
            # A checkpoint through the Trainer's own path (output_dir/checkpoint-<step>),
            # written after this step, before the run ends; every rank takes part.
            control.should_save = control.should_save or self.config.checkpoint_on_stop

    @guarded
    def _end_step(self, step: int, wait_for_log: bool) -> None:
        readings = self._reader.take() or [ScaleReading()]
        loss = cast(ForwardLosses, self._forward).end_step()
        if loss is None and readings[-1].loss is None and not self._blind_said:
            self._blind_said = True
            LOGGER.info(NO_LOSS_NOTE)
        pipeline = cast(StepPipeline, self.pipeline)
        for offset, reading in enumerate(readings[:-1]):  # (never more than one, in practice)
            pipeline.step(step - len(readings) + 1 + offset, reading, lr=self._lr)
        if wait_for_log:
            self._held = (step, readings[-1], loss, self._lr)
        else:
            pipeline.step(step, readings[-1], loss=loss, lr=self._lr)

    @guarded
    def _judge_held(self, grad_norm: Any) -> None:
        held, self._held = self._held, None
        if held is not None:
            step, reading, loss, lr = held
            cast(StepPipeline, self.pipeline).step(step, reading, loss=loss, lr=lr,
                                                   grad_norm=grad_norm)

    @guarded
    def on_evaluate(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                    metrics: dict[str, Any] | None = None, **kwargs: Any) -> None:
        # (The Trainer has read its evaluation losses to the host: eval_loss.)
        metrics = metrics or {}
        cast(ForwardLosses, self._forward).evaluation.end(
            cast(StepPipeline, self.pipeline), state.global_step, metrics,
            loss_metric=next((key for key in metrics if key.endswith("_loss")), "eval_loss"),
            filtered=bool(args.logging_nan_inf_filter))

    @guarded
    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
               logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if logs is None or "loss" not in logs:
            return  # evaluation and end-of-training summaries carry no step metrics
        grad_norm = logs.get("grad_norm")
        self._judge_held(grad_norm if isinstance(grad_norm, (int, float)) else None)
        pipeline = cast(StepPipeline, self.pipeline)
        # The row carries this step's numbers: its copy is waited for, which costs nothing
        # here (the Trainer has just read its loss to the host for this row: a sync).
        pipeline.drain(wait=True)
        add_to_row(logs, state, pipeline.monitor.metrics())
