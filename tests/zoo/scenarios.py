"""The fault zoo as data: realistic fp16 runs, each labelled with its ground truth.

A scenario says what is trained and what goes wrong; the runners (one per adapter) train it
with the real framework on CPU. Ground truth is fixed by construction where the fault is
injected (a NaN in the batch of step 20, a module that overflows from the first forward),
and read from the raw training record (losses and scale as the test reads them itself, never
from denpex) where the run itself decides when it breaks (a learning rate too high).

Steps are optimizer steps counted from 0; each runner maps them to its adapter's numbering.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from denpex_callbacks.core.causes import (  # the root-cause classes, by their stable tags
    ACTIVATION_OVERFLOW,
    BAD_DATA,
    DIVERGENCE,
    FP16_WEIGHTS,
    GRADIENT_UNDERFLOW,
    LOSS_COMPUTATION,
    LOSS_MAGNITUDE,
    SCALER_PROTOCOL,
    TRANSIENT,
)

SANE_LR = 0.05  # SGD with momentum on the zoo's MLP: trains cleanly for hundreds of steps
FAULT_STEP = 20  # where injected faults strike
FROM_RECORD = -1  # the step is read from the raw training record


@dataclass(frozen=True)
class Truth:
    """What a correct diagnosis says: the id, where it began, and why.

    Attributes:
        code: The expected id of the first fault reported (``None`` for a divergence: the
            record decides between AMP003, skips first, and AMP006, a NaN loss first).
        step: First step of the fault (``FROM_RECORD``: read from the raw record).
        cause: Root-cause class (None: not judged, e.g. a protocol mistake).
    """

    code: str | None
    step: int
    cause: str | None


@dataclass(frozen=True)
class Scenario:
    """One realistic run.

    Attributes:
        name: Stable name (the results table's row).
        truth: The ground truth; None for a healthy control (silent above info).
        steps: Optimizer steps to train.
        lr: Learning rate (SGD, momentum 0.9).
        warmup: Linear warm-up steps (0: none).
        clip: Max gradient norm (None: no clipping).
        batch_fault: ``"nan"`` or ``"inf"`` in one sample of the batch of ``FAULT_STEP``;
            ``"d-nan"``: the first optimizer's loss is NaN from ``FAULT_STEP`` on (a GAN's
            discriminator); ``"constant-targets"``: every target of that batch the same;
            ``"spike"``: that batch 30 times larger (finite, its gradients overflow at the
            scale); ``"flip"``: one activation of that step's forward turned into inf, once
            (a flipped bit: the re-run of the step is finite).
        loss: ``"mse"``; ``"mse-raw"`` (the same on targets left in raw units: a loss of
            about 4e7 whose gradients overflow fp16 at any scale); ``"mse-over-std"``: the
            error in units of the batch's spread of targets (infinite when they are
            constant); or ``"bce-log0"``: a hand-written BCE whose fp16 sigmoid saturates to
            exactly 1.0, so log(1 - p) is log(0) = -inf.
        model: ``"mlp"`` or ``"ffn-large"`` (pretrained-like weights whose activations
            exceed 65504 from the first forward).
        precision: ``"fp16"`` (autocast + GradScaler), ``"bf16"``, ``"fp32"`` or
            ``"fp16-weights"`` (model.half() with a GradScaler).
        scaler: GradScaler keyword arguments.
        accumulation: Micro-batches per optimizer step.
        optimizers: 1, or 2 (two parameter halves, two optimizers, one scaler).
        resume_at: Save and resume (a new monitor from the saved state) at this step.
        fresh_scaler: On resume, a new GradScaler (its scale back at init) instead of the saved.
        protocol: A scaler protocol mistake from ``FAULT_STEP``: ``"no-update"``,
            ``"double-step"``, ``"direct-step"``.
        compiled: The loop calls ``torch.compile(model)`` and gives the monitor that
            (backend ``"eager"``: dynamo's frontend, where hooks meet the compiler, without
            inductor's C++ build).
        adapters: Runners this scenario applies to.
    """

    name: str
    truth: Truth | None
    steps: int = 60
    lr: float = SANE_LR
    warmup: int = 0
    clip: float | None = None
    batch_fault: str | None = None
    loss: str = "mse"
    model: str = "mlp"
    precision: str = "fp16"
    scaler: dict[str, Any] = field(default_factory=lambda: {"init_scale": 2.0**10})
    accumulation: int = 1
    optimizers: int = 1
    resume_at: int | None = None
    fresh_scaler: bool = False
    protocol: str | None = None
    compiled: bool = False
    adapters: tuple[str, ...] = ("torch", "hf", "lightning", "deepspeed", "accelerate",
                                 "fabric")

    @property
    def healthy(self) -> bool:
        return self.truth is None


_DIVERGES = Truth(None, FROM_RECORD, DIVERGENCE)

SCENARIOS: tuple[Scenario, ...] = (
    # -- divergence: the commonest real cause of an fp16 NaN --------------------------------
    Scenario("lr-10x", _DIVERGES, lr=SANE_LR * 10),
    Scenario("lr-100x", _DIVERGES, lr=SANE_LR * 100),
    Scenario("lr-10x-warmup", _DIVERGES, lr=SANE_LR * 10, warmup=10),
    Scenario("lr-100x-warmup", _DIVERGES, lr=SANE_LR * 100, warmup=10),
    Scenario("lr-100x-clipped", _DIVERGES, lr=SANE_LR * 100, clip=1.0, steps=80),
    Scenario("lr-100x-warmup-clipped", _DIVERGES, lr=SANE_LR * 100, warmup=10, clip=1.0,
             steps=80),
    # -- bad data ------------------------------------------------------------------------------
    Scenario("nan-in-one-batch", Truth("AMP006", FAULT_STEP, BAD_DATA), batch_fault="nan"),
    Scenario("inf-in-one-batch", Truth("AMP006", FAULT_STEP, BAD_DATA), batch_fault="inf"),
    # -- loss computation ----------------------------------------------------------------------
    Scenario("log0-in-custom-loss", Truth("AMP006", 0, LOSS_COMPUTATION), loss="bce-log0"),
    # -- a huge unnormalised loss at a sane learning rate: no start-up back-off ----------------
    Scenario("huge-unnormalised-loss", Truth("AMP003", 0, LOSS_MAGNITUDE), loss="mse-raw",
             steps=30, adapters=("torch", "hf", "lightning")),
    # A loss divided by a batch statistic that is 0 (the targets' std in a batch of constant
    # targets); a plain loop computes it outside the model and does not hand it over.
    Scenario("loss-over-zero-std", Truth("AMP006", FAULT_STEP, LOSS_COMPUTATION),
             loss="mse-over-std", batch_fault="constant-targets",
             adapters=("torch", "hf", "lightning")),
    # -- a transient fault: one corrupted activation, finite on re-run ------------------------
    Scenario("transient-activation-flip", Truth("AMP006", FAULT_STEP, TRANSIENT),
             batch_fault="flip", adapters=("torch", "hf", "lightning")),
    # -- a genuine fp16 activation overflow at a sane learning rate ---------------------------
    Scenario("activation-overflow", Truth("AMP006", 0, ACTIVATION_OVERFLOW), model="ffn-large",
             steps=20),
    Scenario("activation-overflow-compiled", Truth("AMP006", 0, ACTIVATION_OVERFLOW),
             model="ffn-large", steps=20, compiled=True, adapters=("torch",)),
    # -- gradient underflow: a scale far too low that never grows ------------------------------
    Scenario("static-scale-underflow", Truth("AMP004", 0, GRADIENT_UNDERFLOW),
             scaler={"init_scale": 2.0**-12, "growth_interval": 10**9}, steps=20,
             adapters=("torch", "hf", "lightning", "accelerate", "fabric")),
    # -- scaler protocol and fp16 weights (hand-written loops only) -----------------------------
    Scenario("no-update", Truth("AMP002", FAULT_STEP, SCALER_PROTOCOL), protocol="no-update",
             steps=30, adapters=("torch",)),
    Scenario("double-step", Truth("AMP002", FAULT_STEP, SCALER_PROTOCOL),
             protocol="double-step", steps=30, adapters=("torch",)),
    Scenario("direct-step", Truth("AMP002", FAULT_STEP, SCALER_PROTOCOL),
             protocol="direct-step", steps=30, adapters=("torch",)),
    Scenario("fp16-weights", Truth("AMP012", 0, FP16_WEIGHTS), precision="fp16-weights",
             steps=5, adapters=("torch",)),
    # -- a GAN in Lightning's manual optimisation: the discriminator's loss goes NaN, the
    # generator's does not; each optimizer step updates the shared scaler, so the skips
    # alternate and no streak forms (step: 2 optimizer steps per batch, the D step first).
    Scenario("gan-d-loss-nan", Truth("AMP003", 2 * FAULT_STEP, None), optimizers=2,
             batch_fault="d-nan", steps=80, adapters=("lightning",)),
    # -- healthy controls: silent above info ----------------------------------------------------
    # Starts low: the scale grows on every step for a dozen steps, then saws with period 2.
    Scenario("healthy-growth-interval-1", None, scaler={"init_scale": 4.0,
                                                        "growth_interval": 1}, steps=120),
    Scenario("healthy-growth-interval-10", None, scaler={"init_scale": 2.0**10,
                                                         "growth_interval": 10}, steps=250),
    Scenario("healthy-growth-interval-2000", None, scaler={"init_scale": 2.0**16}, steps=80),
    Scenario("healthy-accumulation-4", None, accumulation=4, steps=40),
    Scenario("healthy-two-optimizers", None, optimizers=2,
             adapters=("torch", "lightning", "accelerate", "fabric")),
    Scenario("healthy-resume", None, resume_at=30),
    # The checkpoint does not hold the scaler: from 2**24 it backs off again after the resume.
    Scenario("healthy-resume-fresh-scaler", None, resume_at=30, fresh_scaler=True,
             scaler={"init_scale": 2.0**24}, adapters=("torch",)),
    Scenario("healthy-bf16", None, precision="bf16"),
    Scenario("healthy-fp32", None, precision="fp32"),
    Scenario("healthy-lr-10x-clipped", None, lr=SANE_LR * 10, clip=1.0),
    Scenario("healthy-loss-over-std", None, loss="mse-over-std",
             adapters=("torch", "hf", "lightning")),
    # One batch 30x larger: one skipped step, the scale halves once, training goes on.
    Scenario("healthy-transient-spike", None, batch_fault="spike",
             adapters=("torch", "hf", "lightning")),
    Scenario("healthy-compiled", None, compiled=True, adapters=("torch",)),
)


def for_adapter(adapter: str) -> list[Scenario]:
    """The scenarios ``adapter``'s runner trains."""
    return [s for s in SCENARIOS if adapter in s.adapters]
