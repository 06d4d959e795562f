"""Plain PyTorch loops: one monitor call per iteration beside the GradScaler.

Usage, one line in the loop (pass the scaler, optimizer and model once, before the loop, so
that a protocol break in the very first iteration is caught too)::

    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model)
    for batch in data:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(batch)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        monitor.step(loss)          # <- the one line
    monitor.close()

The monitor never adds a host-device sync: the scale, growth tracker and loss are copied
without blocking and examined one step late on CUDA (at once on CPU). It watches the scaler's
calls (:mod:`~denpex_callbacks.integrations.torch_protocol`) so it can write an AMP002
diagnosis *before* torch's own RuntimeError ends the run. Given the model, it locates the origin
of a non-finite loss or overflow streak, and re-runs the failing iteration once with the same
inputs, parameters and RNG state to tell a reproducible fault from a transient one
(``denpex_callbacks.locate``; ``locate=False`` / ``rerun=False`` turn them off). The flow
after the snapshot is the shared :class:`~denpex_callbacks.integrations.pipeline.StepPipeline`'s.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

import torch

from denpex_callbacks.core.config import UNSET, MonitorConfig, build_config
from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.metrics_sink import MetricsSink, MetricsTarget
from denpex_callbacks.core.run_setup import RunSetup, active_precision
from denpex_callbacks.integrations.pipeline import StepPipeline, all_reduce_vote
from denpex_callbacks.integrations.torch_protocol import ScalerProtocol
from denpex_callbacks.readers.grad_scaler import (
    NO_VIEWS,
    first_lr,
    host_views,
    optimizer_has_fp16_params,
    scaler_enabled,
    scaler_setup,
)
from denpex_callbacks.readers.step_values import after_step_reader

__all__ = ["AmpMonitor"]
LOGGER = logging.getLogger("denpex_callbacks")
_TENSOR = torch.Tensor


class AmpMonitor:
    """Watches a hand-written AMP training loop.

    Args:
        scaler: The ``torch.amp.GradScaler`` (None or disabled: no scaler, AMP001 applies
            if the loop computes in fp16).
        optimizer: The optimizer the scaler steps (enables protocol checks and the LR).
        model: The model (a forward pre-hook records whether fp16 autocast is active; after
            AMP006 or AMP003 the non-finite locator hooks it for the next iteration only and
            amends the diagnosis with the module where NaN/inf first appeared), or several: a
            ``ModuleDict``, a list, tuple or dict of modules; compiled (what
            ``torch.compile`` returned) or not.
        on_fault: ``"warn"``, ``"stop"`` (sets ``should_stop``, agreed over ranks; the loop
            checks it and breaks) or ``"raise"`` (``AmpDiagnosisError`` from ``step()``).
        report_dir: Folder of the JSONL run reports; a relative path is taken from the
            working directory (None: no report).
        config: Full configuration (a MonitorConfig or its dict form).
        logger: Where diagnoses are logged (default ``denpex_callbacks``).
        loss_fn: How the loop computes its loss from the model's output
            (``loss_fn(output, targets)`` with the ``targets`` handed to :meth:`step`, else
            ``loss_fn(output)``): a failing iteration's re-run then re-runs the loss too.
        metrics: Where to send ``amp/loss_scale``, ``amp/skipped_steps`` (and
            ``amp/diagnoses`` once there is one): a TensorBoard ``SummaryWriter`` (its
            ``add_scalar``) or a callable ``metrics(values, step)``. Sent on the first step,
            when the scale changes or a step is skipped, and every ``record_every`` steps
            (see :class:`~denpex_callbacks.core.metrics_sink.MetricsSink`).
        **options: Any other MonitorConfig field (``disable``, ``thresholds``, ``locate``...),
            as for every adapter.

    Example:
        >>> import torch
        >>> model = torch.nn.Linear(4, 1)
        >>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
        >>> monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None)
        >>> for i in range(4):
        ...     with torch.autocast("cpu", dtype=torch.float16):
        ...         loss = model(torch.randn(8, 4)).float().pow(2).mean()
        ...     if i == 2:
        ...         loss = loss * float("nan")
        ...     scaler.scale(loss).backward()
        ...     scaler.step(opt)
        ...     scaler.update()
        ...     opt.zero_grad()
        ...     _ = monitor.step(loss)
        >>> monitor.close()
        >>> [(d.code, d.step) for d in monitor.diagnoses]
        [('AMP006', 2)]
    """

    def __init__(
        self,
        scaler: Any = None,
        optimizer: Any = None,
        model: Any = None,
        *,
        on_fault: str = UNSET,
        report_dir: str | os.PathLike[str] | None = UNSET,
        config: MonitorConfig | Mapping[str, Any] | None = None,
        logger: logging.Logger | None = None,
        metrics: MetricsTarget = None,
        loss_fn: Callable[..., Any] | None = None,
        **options: Any,
    ) -> None:
        self.pipeline = StepPipeline(
            build_config(config, on_fault=on_fault, report_dir=report_dir, **options),
            framework="torch",
            logger=logger or LOGGER,
        )
        self.monitor = self.pipeline.monitor
        self._metrics = (MetricsSink(metrics, self.monitor.config.record_every)
                         if metrics is not None else None)
        self._stop = False
        self.scaler: Any = None
        self.optimizer: Any = None
        self.model: Any = None
        self._calls = 0
        self._scaler_on = False
        self._autocast_dtype: torch.dtype | None = None
        self._forward_hook: Any = None
        self._read_scale: Callable[[], dict[str, Any]] | None = None  # found once, read each step
        # The scaler whose scale and tracker live on the CPU, once the run has started: its
        # steps may go the quiet way (see step()); None: every step goes the full way.
        self._host_scale: Any = None
        self._views = NO_VIEWS  # its scale tensor and memoryviews (readers.grad_scaler)
        self._run = self.monitor.run  # (restored in place: the same object for the run)
        self.protocol = ScalerProtocol(self.pipeline, self._flag, lambda: self._calls)
        self._loss_fn = loss_fn
        self._attach(scaler, optimizer, model)

    # -- public --------------------------------------------------------------------------------

    @property
    def diagnoses(self) -> list[Diagnosis]:
        """Diagnoses so far (on CUDA, the last step's may still be in flight)."""
        return self.monitor.diagnoses

    @property
    def should_stop(self) -> bool:
        """True once a fault was found under ``on_fault="stop"`` (on any rank): break out."""
        return self._stop

    def attach(self, scaler: Any = None, optimizer: Any = None, model: Any = None) -> None:
        """Watch these objects from now on, as if passed to the constructor.

        For a monitor built before the loop's objects exist (the pytest ``amp_monitor``
        fixture): attaching before the first iteration lets its protocol checks run too.
        Objects already attached are kept.
        """
        self._guarded(self._attach, scaler, optimizer, model)

    def step(
        self,
        loss: Any = None,
        *,
        scaler: Any = None,
        optimizer: Any = None,
        model: Any = None,
        step: int | None = None,
        grad_norm: Any = None,
        rerun: Callable[[], Any] | None = None,
        targets: Any = None,
        loss_fn: Callable[..., Any] | None = None,
    ) -> list[Diagnosis]:
        """Record one iteration; call it after ``scaler.update()``.

        Args:
            loss: The iteration's loss tensor (or a float). Not synchronised.
            scaler: The GradScaler, if not given at construction.
            optimizer: The optimizer, if not given at construction.
            model: The model, if not given at construction.
            step: The step number (default: counts calls from 0).
            grad_norm: The gradient norm if the loop computes one (tensor or float).
            rerun: Recomputes this iteration's loss from its inputs, the batch bound (e.g.
                ``functools.partial(compute_loss, model, x, y)``), without backward or step;
                called at most once and only if this step fails, to re-run it with the same
                inputs, parameters and RNG state (without it the model alone is re-run on the
                inputs of its last forward, and the loss with ``loss_fn`` where one is known).
            targets: What this iteration's loss compared the model's output with (a
                reference is kept until the iteration is judged): checked for NaN/inf after a
                fault, and handed to ``loss_fn`` by a re-run.
            loss_fn: This iteration's loss function, if not given at construction.

        Returns:
            Diagnoses that became known with this call (on CUDA usually the previous step's).

        Raises:
            AmpDiagnosisError: Under ``on_fault="raise"``.
        """
        pipeline = self.pipeline
        index = self._calls if step is None else step
        self._calls += 1
        host = self._host_scale
        if (host is not None and loss.__class__ is _TENSOR and grad_norm is None
                and scaler is None and optimizer is None and model is None):
            # The hot path, inline (a frame costs a microsecond here): this iteration taken
            # as a quiet step straight from the scaler's CPU tensors, without a values dict,
            # an Observation or a finished capture (StepPipeline.take_quiet). Not when the protocol
            # must be checked (scaler.step() without update() yet) or a metrics heartbeat
            # is due; on False nothing was done and the full way follows.
            try:
                if not self.protocol.awaiting_update and (
                    self._metrics is None or index % self._metrics.every
                ):
                    views = self._views
                    if views[0] is not host._scale:  # (the first step, or tensors replaced)
                        views = self._views = host_views(host)
                    if views[1] is not None:
                        scale, tracker = views[1][()], views[2][()]
                    else:
                        scale, tracker = host._scale.item(), int(host._growth_tracker.item())
                    # The scale this step used: the one the last step left (see _complete).
                    # A skip shows as a fall (GradScaler asserts backoff_factor < 1).
                    if pipeline.take_quiet(index, loss.item(), self._run.last_scale, scale,
                                           None, tracker):
                        return []
            except Exception:
                if loss.numel() == 1:  # (a loss of several values goes the full way)
                    pipeline.fail()
        found: list[Diagnosis] = []
        if pipeline.active:
            if scaler is not None or optimizer is not None or model is not None:
                self._attach(scaler, optimizer, model)
            if not self.monitor.started:
                self._ensure_started(loss)
            found = pipeline.guard(self._step, index, loss, grad_norm, rerun, targets,
                                   loss_fn) or found
        if self.monitor.config.on_fault == "stop":  # every rank, every step: a collective
            self._stop = pipeline.decide_stop(all_reduce_vote(), index) or self._stop
        return found

    def close(self) -> None:
        """Examine the last steps, write the report summary, remove hooks and wrappers."""
        self._flag(self._guarded(self.protocol.update_never_came), self._calls)
        self.pipeline.close()
        if self._forward_hook is not None:
            self._forward_hook.remove()
            self._forward_hook = None
        self.protocol.close()

    def __enter__(self) -> AmpMonitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def state_dict(self) -> dict[str, Any]:
        """Monitor history, to save beside the scaler's state in a checkpoint."""
        return {"monitor": self.monitor.state_dict(), "calls": self._calls}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict`."""
        self.monitor.load_state_dict(state.get("monitor", {}))
        self._calls = int(state.get("calls", 0))

    # -- attaching -----------------------------------------------------------------------------

    def _attach(self, scaler: Any, optimizer: Any, model: Any) -> None:
        if scaler is not None and self.scaler is None:
            self.scaler = scaler
            self._scaler_on = scaler_enabled(scaler)  # fixed at construction in torch
            if self._scaler_on:
                self.protocol.wrap_scaler(scaler)
                self._read_scale = after_step_reader(scaler)
        if optimizer is not None and self.optimizer is None:
            self.optimizer = optimizer
            self.protocol.watch_optimizer(optimizer)
        if model is not None and self.model is None:
            self.model = model
            # captures each step's inputs for a re-run
            self.pipeline.locate.watch(model, optimizers=_listed(self.optimizer),
                                       loss_fn=self._loss_fn)
            several = isinstance(model, (list, tuple, Mapping, torch.nn.ModuleDict))
            first: Any = next(iter(model.values() if hasattr(model, "values") else model),
                              None) if several else model
            if hasattr(first, "register_forward_pre_hook"):
                self._forward_hook = first.register_forward_pre_hook(self._on_forward)

    def _on_forward(self, module: Any, args: Any) -> None:
        # The first forward tells which autocast dtype the loop uses; then the hook goes.
        for device in ("cuda", "cpu"):
            if torch.is_autocast_enabled(device):
                self._autocast_dtype = torch.get_autocast_dtype(device)
                break
        if self._forward_hook is not None:
            self._forward_hook.remove()
            self._forward_hook = None

    def _ensure_started(self, loss: Any = None) -> None:
        if not self.monitor.started:
            self.monitor.start(self._build_setup(loss))
            scaler = self.scaler
            if self._scaler_on and getattr(scaler, "_device", None) == "cpu" and (
                self.monitor.config.on_fault != "stop" or self.monitor.world_size == 1
            ):
                self._host_scale = scaler

    def _flag(self, finding: Finding | None, step: int) -> list[Diagnosis]:
        if finding is None:
            return []
        self._ensure_started()
        return self.pipeline.flag(finding, step)

    # -- observations --------------------------------------------------------------------------

    def _build_setup(self, loss: Any) -> RunSetup:
        setup = RunSetup(framework="torch", framework_version=torch.__version__)
        scaler_setup(self.scaler, setup)
        fp16_params = optimizer_has_fp16_params(self.optimizer) if self.optimizer else None
        setup.fp16_parameters = fp16_params
        dtype = self._autocast_dtype
        if dtype is None and isinstance(loss, torch.Tensor) and loss.dtype == torch.float16:
            dtype = torch.float16
        if dtype == torch.float16 or fp16_params:
            compute: str | None = "float16"
        elif dtype == torch.bfloat16:
            compute = "bfloat16"
        else:  # no autocast seen: fp32 if the model was watched, else nothing says
            compute = "float32" if self.model is not None else None
        setup.active_precision = active_precision(compute, has_scaler=setup.has_scaler,
                                                  autocast=True)
        setup.extra["autocast_dtype"] = str(dtype) if dtype is not None else None
        setup.extra["device"] = _device(self.scaler, self.model)
        return setup

    def _step(self, index: int, loss: Any, grad_norm: Any, rerun: Callable[[], Any] | None,
              targets: Any, loss_fn: Callable[..., Any] | None) -> list[Diagnosis]:
        """Snapshot this iteration, judge what is readable (on the CPU: this iteration)."""
        values: dict[str, Any] = (self._read_scale() if self._read_scale is not None else {})
        if self._scaler_on:
            self.protocol.check_update_called(index)
        values["loss"], values["grad_norm"], values["time"] = loss, grad_norm, time.time()
        if self.optimizer is not None:
            values["lr"] = first_lr(self.optimizer)
        judged = self._send_metrics if self._metrics is not None else None
        return self.pipeline.step(index, values, rerun=rerun, complete=self._complete,
                                  judged=judged, targets=targets, loss_fn=loss_fn)

    def _send_metrics(self, step: int, values: dict[str, Any]) -> None:
        obs = self.monitor.last_observation
        if self._metrics is not None and obs is not None:
            self._metrics.step(obs, len(self.monitor.faults()), self.monitor.metrics)

    def _complete(self, step: int, values: dict[str, Any]) -> None:
        # The scale this step used is the one the previous step left (the run's last scale);
        # the first step used the scaler's initial scale.
        if values.get("scale_after") is not None:
            last = self.monitor.run.last_scale
            values["scale_before"] = self.monitor.setup.init_scale if last is None else last

    def _guarded(self, action: Callable[..., Any], *args: Any) -> Any:
        return self.pipeline.guard(action, *args)


def _listed(optimizer: Any) -> list[Any]:
    """The optimizers given: one, or a list, tuple or dict of them."""
    if optimizer is None:
        return []
    if isinstance(optimizer, Mapping):
        return list(optimizer.values())
    return list(optimizer) if isinstance(optimizer, (list, tuple)) else [optimizer]


def _device(scaler: Any, model: Any) -> str | None:
    """Where the loop computes: the scaler's device, else the model's parameters'."""
    device = getattr(scaler, "_device", None)
    if isinstance(device, str):
        return device
    params = getattr(model, "parameters", None)
    first = next(iter(params()), None) if callable(params) else None
    return first.device.type if isinstance(first, torch.Tensor) else None
