"""fp16 smoke training: a deep copy of a model trained a few steps under fp16 autocast and a
dynamic GradScaler, watched by :class:`~denpex_callbacks.torch.AmpMonitor`.

This is the engine behind the pytest plugin's ``amp_smoke`` fixture; it knows nothing of
pytest. The user's model, its parameters and the global RNG state are left untouched.

Batch contract: ``make_batch(step)`` returns the batch of iteration ``step`` (0-based). Its
tensors are moved to the training device (through dicts, lists and tuples), then the model
is called as ``model(**batch)`` for a mapping, ``model(*batch)`` for a tuple or list and
``model(batch)`` for anything else.

Loss contract: without ``loss_fn`` the model's own output is the loss: a scalar tensor, a
mapping or ``ModelOutput`` with a ``"loss"`` entry, or a tuple/list whose first item is the
loss. Otherwise ``loss_fn(output, batch)`` returns it. Both run inside autocast, as in the
user's training.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from denpex_callbacks.core.config import MonitorConfig, build_config
from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.torch import AmpMonitor

__all__ = ["SmokeResult", "describe_device", "pick_device", "run_amp_smoke"]

MakeBatch = Callable[[int], Any]
LossFn = Callable[[Any, Any], Any]
OptimizerFactory = Callable[..., torch.optim.Optimizer]


@dataclass
class SmokeResult:
    """What one smoke run saw.

    Attributes:
        diagnoses: Every diagnosis, info included, in the order they were reported.
        device: Where it trained, as described by :func:`describe_device`.
        steps_run: Iterations completed (fewer than asked only under ``on_fault="stop"``).
        init_scale: The GradScaler's initial scale.
        growth_interval: The GradScaler's growth interval.
        final_scale: The loss scale after the last step.
        report_dir: Folder of the JSONL run report, or None.
        error: What the training raised (torch's own GradScaler errors, a model bug), or None.
            The run stops there; the diagnoses found up to it are kept (e.g. AMP012 before
            torch's "Attempting to unscale FP16 gradients").
    """

    diagnoses: list[Diagnosis]
    device: str
    steps_run: int
    init_scale: float
    growth_interval: int
    final_scale: float | None = None
    report_dir: str | None = None
    error: Exception | None = None

    def faults(self, min_severity: Severity = Severity.WARNING) -> list[Diagnosis]:
        """Diagnoses at or above ``min_severity``."""
        return [d for d in self.diagnoses if d.severity.rank >= min_severity.rank]


def pick_device(requested: str | torch.device | None = None) -> torch.device:
    """The training device: CUDA when present (or asked for), else CPU.

    Args:
        requested: None or ``"auto"`` to choose, else a device string such as ``"cpu"``,
            ``"cuda"`` or ``"cuda:1"``.

    Raises:
        RuntimeError: When CUDA is asked for and none is available.

    Example:
        >>> pick_device("cpu")
        device(type='cpu')
    """
    if requested is None or requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(requested)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(f"denpex smoke: device {requested!r} asked for, but CUDA is not "
                           "available in this torch build or on this machine")
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"denpex smoke: fp16 smoke runs on 'cpu' or 'cuda', not {requested!r}")
    return device


def describe_device(device: torch.device) -> str:
    """One phrase saying where and how the smoke run trains.

    The GPU's name is given only once CUDA is initialised: the pytest header must not
    initialise it in the main process (a later fork could no longer use CUDA).

    Example:
        >>> describe_device(torch.device("cpu"))  # doctest: +ELLIPSIS
        'cpu with fp16 autocast + GradScaler("cpu") (torch ...)'
    """
    where = str(device)
    if device.type == "cuda" and torch.cuda.is_initialized():
        index = device.index if device.index is not None else torch.cuda.current_device()
        where = f"cuda:{index} ({torch.cuda.get_device_name(index)})"
    return f'{where} with fp16 autocast + GradScaler("{device.type}") (torch {torch.__version__})'


def run_amp_smoke(
    model: torch.nn.Module,
    make_batch: MakeBatch,
    steps: int = 50,
    *,
    optimizer: OptimizerFactory | None = None,
    lr: float = 1e-3,
    loss_fn: LossFn | None = None,
    init_scale: float = 2.0**16,
    growth_interval: int = 2000,
    max_grad_norm: float | None = None,
    config: MonitorConfig | None = None,
    report_dir: str | None = None,
    device: str | torch.device | None = None,
    seed: int | None = 0,
) -> SmokeResult:
    """Train a deep copy of ``model`` for ``steps`` iterations in fp16 and diagnose it.

    Args:
        model: The model; it is deep-copied, moved to ``device`` and put in train mode.
        make_batch: ``make_batch(step) -> batch`` (see the module docstring for the contract).
        steps: Iterations to train.
        optimizer: Called as ``optimizer(parameters, lr=lr)``; an optimizer class or a
            ``functools.partial`` of one fits. Default ``torch.optim.AdamW``.
        lr: Learning rate passed to ``optimizer``.
        loss_fn: ``loss_fn(output, batch) -> loss``; default: the model's own loss output.
        init_scale: GradScaler initial scale.
        growth_interval: GradScaler growth interval.
        max_grad_norm: Clip gradients to this norm (after ``unscale_``), as the user's loop
            would; the norm is also handed to the monitor.
        config: Monitor configuration: thresholds, disabled ids, policy (``report_dir``
            is taken from the argument below).
        report_dir: Folder for the JSONL run report (None: no report).
        device: ``"auto"``/None (CUDA when present, else CPU), ``"cpu"``, ``"cuda"``...
        seed: Seeds torch's RNG for the run (None: not seeded). The caller's RNG state is
            restored afterwards either way.

    Returns:
        A :class:`SmokeResult`; its ``diagnoses`` hold what the monitor found, its ``error``
        what the training raised.

    Raises:
        TypeError: When the model's output (or ``loss_fn``) gives no scalar loss.
        AmpDiagnosisError: Under a ``config`` with ``on_fault="raise"``.

    Example:
        >>> import torch
        >>> model = torch.nn.Linear(4, 1)
        >>> def make_batch(step):
        ...     return torch.randn(8, 4)
        >>> result = run_amp_smoke(model, make_batch, steps=5, device="cpu",
        ...                        loss_fn=lambda output, batch: output.float().pow(2).mean())
        >>> result.steps_run, result.faults()
        (5, [])
    """
    if steps < 1:
        raise ValueError("denpex smoke: steps must be >= 1")
    target = pick_device(device)
    monitor_config = build_config(config, report_dir=report_dir)
    rng_devices = [target.index or 0] if target.type == "cuda" else []
    with torch.random.fork_rng(devices=rng_devices):
        if seed is not None:
            torch.manual_seed(seed)
        trained = copy.deepcopy(model).to(target).train()
        params = [p for p in trained.parameters() if p.requires_grad]
        opt = (optimizer or torch.optim.AdamW)(params, lr=lr)
        scaler = torch.amp.GradScaler(
            target.type, init_scale=init_scale, growth_interval=growth_interval
        )
        monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=trained, config=monitor_config)
        result = SmokeResult(
            diagnoses=[], device=describe_device(target), steps_run=0,
            init_scale=init_scale, growth_interval=growth_interval,
            report_dir=monitor_config.report_dir,
        )
        try:
            for step in range(steps):
                batch = _to_device(make_batch(step), target)
                with torch.autocast(target.type, dtype=torch.float16):
                    loss = _loss_of(_forward(trained, batch), batch, loss_fn)
                scaler.scale(loss).backward()
                grad_norm = None
                if max_grad_norm is not None:
                    scaler.unscale_(opt)
                    grad_norm = torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
                scaler.step(opt)
                scaler.update()
                opt.zero_grad(set_to_none=True)
                monitor.step(loss, grad_norm=grad_norm)
                result.steps_run = step + 1
                if monitor.should_stop:
                    break
        except (TypeError, AmpDiagnosisError):
            raise  # a misuse of this function, or the policy the caller asked for
        except Exception as exc:  # the training's own failure: part of the result
            result.error = exc
        finally:
            monitor.close()
        result.diagnoses = list(monitor.diagnoses)
        result.final_scale = float(scaler.get_scale())  # one sync, after the run
    return result


def _to_device(batch: Any, device: torch.device) -> Any:
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, Mapping):
        return {key: _to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(_to_device(value, device) for value in batch)
    if isinstance(batch, list):
        return [_to_device(value, device) for value in batch]
    return batch


def _forward(model: torch.nn.Module, batch: Any) -> Any:
    if isinstance(batch, Mapping):
        return model(**batch)
    if isinstance(batch, (tuple, list)):
        return model(*batch)
    return model(batch)


def _loss_of(output: Any, batch: Any, loss_fn: LossFn | None) -> torch.Tensor:
    if loss_fn is not None:
        loss = loss_fn(output, batch)
        origin = "loss_fn(output, batch)"
    elif isinstance(output, torch.Tensor):
        loss, origin = output, "the model's output"
    elif isinstance(output, Mapping):
        loss, origin = output.get("loss"), "the model's output['loss']"
    elif isinstance(output, (tuple, list)) and output:
        loss, origin = output[0], "the first item of the model's output"
    else:
        loss, origin = getattr(output, "loss", None), "the model's output.loss"
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        shape = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise TypeError(
            f"denpex smoke: {origin} is not a scalar loss tensor (got {shape}); return the "
            "loss from the model (a tensor, output['loss'] or output[0]) or pass "
            "loss_fn=lambda output, batch: ..."
        )
    return loss.reshape(())
