"""Root causes from the evidence a real run offers, not from one threshold.

A NaN loss or a collapsing scale says *that* something overflowed, not *why*. The why comes
from the run: the loss before the event (rising? already huge?), how soon after the first
applied updates the trouble began, the gradient-norm trend, update size against weight size,
whether the failing batch was finite, and activation maxima against the fp16 limit (65504)
where the non-finite locator measured them. The commonest real cause of an fp16 NaN is a
learning rate that is too high; a genuine fp16 activation overflow at a sane learning rate
is rarer, and a module name alone does not make one.

Pure functions over plain numbers: :func:`gather` collects a :class:`RunEvidence` from the
run state (and, later, what the locator found), :func:`judge` weighs it into a :class:`Cause`
whose root cause and fix (see :mod:`denpex_callbacks.core.fixes`) follow the cause and the
run's device, framework and configuration.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace
from typing import Any

from denpex_callbacks.core import fixes
from denpex_callbacks.core.catalog import entry
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.other_rank import OTHER_RANK
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.run_state import RunState

# Root-cause classes (stable tags, written to evidence["cause"]).
DIVERGENCE = "divergence"
BAD_DATA = "bad-data"
LOSS_COMPUTATION = "loss-computation"
LOSS_MAGNITUDE = "loss-magnitude"
ACTIVATION_OVERFLOW = "activation-overflow"
GRADIENT_UNDERFLOW = "gradient-underflow"
SCALER_PROTOCOL = "scaler-protocol"
FP16_WEIGHTS = "fp16-weights"
# torch's float16 dtype errors (AMP014), told apart by the message (the log parser reads it
# into evidence["dtype_error"], with the kernel, the dtypes and the value it names).
FP16_NO_KERNEL = "fp16-no-kernel"
FP16_DTYPE_MISMATCH = "fp16-dtype-mismatch"
FP16_CONSTANT_OVERFLOW = "fp16-constant-overflow"
DTYPE_ERRORS = (FP16_NO_KERNEL, FP16_DTYPE_MISMATCH, FP16_CONSTANT_OVERFLOW)
# torch's anomaly mode stopped the run at the first NaN a backward produced (the log parser
# puts the operation in evidence["anomaly_op"]): read where the run's trajectory decides nothing.
BACKWARD_NAN = "backward-nan"
# The run's own guard switched fp16 off after NaNs or overflows (the log parser puts the word
# that said why in evidence["switched_off"]): the trouble it reacted to is the fault.
SWITCHED_OFF = "switched-off"
# Not judged from the run: the failing-step re-run found it (same inputs, parameters and RNG
# state, finite this time).
TRANSIENT = "transient"
UNDETERMINED = "undetermined"
CAUSES = (DIVERGENCE, BAD_DATA, LOSS_COMPUTATION, LOSS_MAGNITUDE, ACTIVATION_OVERFLOW,
          GRADIENT_UNDERFLOW, SCALER_PROTOCOL, FP16_WEIGHTS, *DTYPE_ERRORS, BACKWARD_NAN,
          SWITCHED_OFF, TRANSIENT, UNDETERMINED)

FP16_MAX = 65504.0
# A fault that persists from right after the first applied update(s) was made by them: the
# model was finite before, and nothing but an update changed it. (Later than that, a rising
# loss or gradient norm has to say so.)
FIRST_UPDATES = 2
RISING_FACTOR = 5.0  # the loss's recent peak against its usual level (minibatch noise: ~2x)
RECENT_LOSSES = 5
GRAD_NORM_GROWTH = 10.0  # last grad norm against the median of the earlier ones
UPDATE_RATIO_HIGH = 0.1  # |update| / |weight|; healthy training sits near 1e-3
DIVERGED_WEIGHT = 1000.0  # trained weights rarely exceed a few hundred in absolute value
HUGE_OUTPUT = 1e6  # a model output this large (finite) is a diverged model's, not a loss bug's
# A finite loss this large before any update (a regression on raw targets, a sum over a large
# batch): its gradients overflow fp16 at any loss scale. Normalised losses start near 1-10.
HUGE_LOSS = 1e4

# Diagnoses the engine explains from the run's trajectory.
TRAJECTORY_CODES = frozenset({"AMP003", "AMP006", "AMP008"})


@dataclass(frozen=True)
class OriginFacts:
    """What the non-finite locator measured in the armed step, in plain numbers.

    Attributes:
        verdict: The locator's tag (``input-data``, ``activation-overflow``,
            ``loss-computation``, ``backward-overflow``, ``nonfinite-weights``,
            ``between-modules``, ``invalid-operation``, ``not-reproduced``, ...).
        module: Module it points at (None: none).
        inputs_finite: Whether the batch was finite (None: unknown).
        loss_finite: Whether the armed step's loss was finite (None: unknown).
        peak_activation: Largest finite module output seen.
        module_output: max |output| of the module it points at.
        module_weight: max |weight| of that module.
        exceeded_fp16: Some activation or weight went past 65504.
        located_step: The armed step.
    """

    verdict: str
    module: str | None = None
    inputs_finite: bool | None = None
    loss_finite: bool | None = None
    peak_activation: float | None = None
    module_output: float | None = None
    module_weight: float | None = None
    exceeded_fp16: bool = False
    located_step: int | None = None

    @property
    def reproduced(self) -> bool:
        """The fault recurred in the armed step (the step after it was found)."""
        return self.verdict not in ("not-reproduced", "not-observed", OTHER_RANK)


@dataclass(frozen=True)
class RunEvidence:
    """The run's evidence about one fault, gathered from the run state and the setup.

    Attributes:
        code: The diagnosis id being explained.
        fault_step: Step the fault began.
        updates_before: Updates applied (clean steps) before the fault began.
        losses_before: Finite losses of the steps before the fault, oldest first.
        first_loss: The run's first finite loss (None: none seen).
        early_losses: The run's first finite losses (its usual level at the start).
        nonfinite_before: A non-finite loss came before the fault (the trouble is older).
        grad_norms_before: Finite gradient norms before the fault, oldest first.
        update_ratios: |update| / |weight| ratios the adapter provided, oldest first.
        persistent: The fault went on after its first step (another non-finite loss or
            skipped step, a skip streak, or the locator reproduced it).
        origin: What the locator measured, if it ran.
        setup: The run's configuration (framework, device, scaler, clipping, warm-up).
        start_seen: The run's first step was observed (its first observation at step 0 or
            1), so the losses and counts before the fault go back to its start (a log whose
            rows begin at step 10 shows none of the steps before).
    """

    code: str
    fault_step: int | None
    updates_before: int | None = None
    losses_before: tuple[float, ...] = ()
    first_loss: float | None = None
    early_losses: tuple[float, ...] = ()
    nonfinite_before: bool = False
    grad_norms_before: tuple[float, ...] = ()
    update_ratios: tuple[float, ...] = ()
    persistent: bool = False
    origin: OriginFacts | None = None
    setup: RunSetup = field(default_factory=RunSetup)
    start_seen: bool = True


@dataclass(frozen=True)
class Cause:
    """A root-cause class with the reasons that support it, and its text for this run.

    Attributes:
        kind: One of :data:`CAUSES`.
        reasons: The evidence, one phrase each (``"loss 22 at step 0, inf after 1 update"``).
        root_cause: The root cause in words (None: keep the catalog's).
        fix: The fix for this run (None: keep the catalog's).
    """

    kind: str
    reasons: tuple[str, ...] = ()
    root_cause: str | None = None
    fix: str | None = None

    def evidence(self) -> dict[str, Any]:
        """Small dict for a diagnosis's evidence."""
        return {"cause": self.kind, "cause_evidence": list(self.reasons)}


def gather(
    code: str,
    fault_step: int | None,
    run: RunState,
    setup: RunSetup,
    *,
    origin: OriginFacts | None = None,
    persistent: bool | None = None,
) -> RunEvidence:
    """Collect the evidence about a fault that began at ``fault_step``.

    Example:
        >>> from denpex_callbacks.core.observation import Observation
        >>> run = RunState()
        >>> for step, loss, skipped in [(0, 22.0, False), (1, float("inf"), True)]:
        ...     run.update(Observation(step, loss=loss, skipped=skipped))
        >>> ev = gather("AMP006", 1, run, RunSetup())
        >>> ev.updates_before, ev.losses_before, ev.first_loss
        (1, (22.0,), 22.0)
    """
    # The fault step's own loss counts (a skipped step's forward ran; a NaN is left out).
    before = [t for t in run.trail if fault_step is None or t[0] <= fault_step]
    after = [t for t in run.trail if fault_step is not None and t[0] > fault_step]
    return _evidence(code, fault_step, run, setup, before, after, origin, persistent)


def updates_before(run: RunState, fault_step: int | None) -> int | None:
    """Updates applied before ``fault_step``: exact while the run's first steps cover it.
    None where the run never said whether a step was applied (a log of a plain loop's loss
    lines: not "no update applied", which would rule the optimizer out)."""
    if fault_step is None or (run.clean_steps_seen == 0 and run.skipped_total == 0):
        return None
    if not _start_seen(run):
        return None  # (the steps before the first one seen may have applied updates)
    if run.early and fault_step <= run.early[-1][0]:
        return sum(1 for step, _l, skipped, _g in run.early
                   if skipped is False and step < fault_step)
    clean_after = sum(1 for step, _scale, skipped, _loss in run.recent
                      if skipped is False and step >= fault_step)
    return max(run.clean_steps_seen - clean_after, 0)


def _start_seen(run: RunState) -> bool:
    """Whether the run's first step was observed: its first observation at step 0 or 1 (a
    log whose rows begin at step 10 shows none of the steps before, nor the updates they
    applied)."""
    return not run.early or run.early[0][0] <= 1


def _evidence(
    code: str,
    fault_step: int | None,
    run: RunState,
    setup: RunSetup,
    before: list[tuple[int, float | None, float | None, float | None]],
    after: list[tuple[int, float | None, float | None, float | None]],
    origin: OriginFacts | None,
    persistent: bool | None,
) -> RunEvidence:
    if persistent is None:
        persistent = run.skip_streak > 1 or any(
            t[1] is not None and not math.isfinite(t[1]) for t in after
        )
    early = [loss for _s, loss, _k, _g in run.early if loss is not None and math.isfinite(loss)]
    earlier = [loss for step, loss, *_rest in (*run.early, *run.trail)
               if fault_step is not None and step < fault_step and loss is not None]
    return RunEvidence(
        code=code,
        fault_step=fault_step,
        updates_before=updates_before(run, fault_step),
        losses_before=tuple(t[1] for t in before if t[1] is not None and math.isfinite(t[1])),
        first_loss=early[0] if early else None,
        early_losses=tuple(early),
        nonfinite_before=any(not math.isfinite(loss) for loss in earlier),
        grad_norms_before=tuple(t[2] for t in before if t[2] is not None and math.isfinite(t[2])),
        update_ratios=tuple(t[3] for t in before if t[3] is not None and math.isfinite(t[3])),
        persistent=persistent or (origin is not None and origin.reproduced),
        origin=origin,
        start_seen=_start_seen(run),
        setup=setup,
    )


def divergence_reasons(ev: RunEvidence) -> list[str]:
    """The signs that the optimizer, not fp16, broke the model (empty: none).

    Example:
        >>> ev = RunEvidence("AMP006", 1, updates_before=1, losses_before=(22.0,),
        ...                  first_loss=22.0, persistent=True)
        >>> divergence_reasons(ev)
        ['non-finite right after the first 1 applied update(s), and it persists (loss 22 before)']
    """
    reasons: list[str] = []
    if ev.updates_before == 0:
        return reasons  # nothing was applied yet: the optimizer cannot have done it
    losses = ev.losses_before
    last = losses[-1] if losses else None
    if (ev.updates_before is not None and ev.updates_before <= FIRST_UPDATES
            and ev.persistent and not ev.nonfinite_before):
        was = f" (loss {last:.3g} before)" if last is not None else ""
        reasons.append(f"non-finite right after the first {ev.updates_before} applied "
                       f"update(s), and it persists{was}")
    rise = _loss_rise(ev)
    if rise is not None:
        reasons.append(f"the loss rose from about {rise[0]:.3g} to {rise[1]:.3g} before the "
                       "fault")
    norms = ev.grad_norms_before
    if len(norms) >= 4:
        earlier = statistics.median(norms[:-1])
        if earlier > 0 and norms[-1] > GRAD_NORM_GROWTH * earlier:
            reasons.append(f"the gradient norm grew from about {earlier:.3g} to {norms[-1]:.3g}")
    if ev.update_ratios and ev.update_ratios[-1] > UPDATE_RATIO_HIGH:
        reasons.append(f"updates are {ev.update_ratios[-1]:.2g} of the weights' size "
                       "(healthy training: about 1e-3)")
    origin = ev.origin
    if origin is not None and origin.module_weight is not None and (
        origin.module_weight > DIVERGED_WEIGHT and math.isfinite(origin.module_weight)
    ):
        reasons.append(f"the weights of {origin.module} grew to |w| = "
                       f"{origin.module_weight:.3g}")
    if origin is not None and origin.verdict == "loss-computation" and (
        origin.peak_activation is not None and origin.peak_activation > HUGE_OUTPUT
    ) and ev.updates_before:
        reasons.append(f"the model's outputs reached {origin.peak_activation:.3g}")
    return reasons


def loss_magnitude_reasons(ev: RunEvidence) -> list[str]:
    """The sign that the loss's own size, not the optimizer, overflows the gradients: huge
    finite losses while no update was applied yet, or (where the run never said whether its
    steps were applied: a plain loop's log) from its first printed loss on, not grown there,
    where that loss is the run's first step's (empty: not the case).

    Example:
        >>> [reason] = loss_magnitude_reasons(RunEvidence("AMP003", 0, updates_before=0,
        ...                                              losses_before=(4.1e7, 3.9e7)))
        >>> reason.split(" (")[0]
        'the losses are about 4e+07 before any update was applied'
        >>> loss_magnitude_reasons(RunEvidence("AMP003", 0, updates_before=0,
        ...                                    losses_before=(2.3,)))
        []
        >>> [reason] = loss_magnitude_reasons(RunEvidence(
        ...     "AMP006", 20, updates_before=None, losses_before=(4.1e7, 4e7, 4.2e7),
        ...     early_losses=(4.1e7, 4e7, 4.2e7)))
        >>> reason.split(" (")[0]
        'the losses are about 4.1e+07 from the first one the log prints'
        >>> loss_magnitude_reasons(RunEvidence(  # a log whose first row is past the start
        ...     "AMP006", 20, losses_before=(6.4e4,), early_losses=(6.4e4,), start_seen=False))
        []
    """
    overflow = "gradients of a loss that large overflow fp16 at any loss scale"
    losses = ev.losses_before or ev.early_losses
    if ev.updates_before == 0 and losses and statistics.median(losses) >= HUGE_LOSS:
        return [f"the losses are about {statistics.median(losses):.3g} before any update was "
                f"applied (so not the learning rate): {overflow}"]
    if (ev.updates_before is None and ev.start_seen and ev.early_losses
            and _loss_rise(ev) is None):
        level = statistics.median(ev.early_losses[:3])
        if level >= HUGE_LOSS:
            return [f"the losses are about {level:.3g} from the first one the log prints (so "
                    f"not grown there by the learning rate): {overflow}"]
    return []


def _loss_rise(ev: RunEvidence) -> tuple[float, float] | None:
    """(usual level, recent peak) when the loss rose well above its usual level just before
    the fault; the usual level is the lower of the run's first losses and the trail before
    the last few steps (losses fall as training goes on)."""
    losses = ev.losses_before
    if len(losses) < 2:
        return None
    recent = losses[-RECENT_LOSSES:]
    levels = [statistics.median(ev.early_losses[:3])] if ev.early_losses else []
    earlier = losses[:-RECENT_LOSSES]
    if len(earlier) >= 3:
        levels.append(statistics.median(earlier))
    if not levels:
        return None
    level, peak = min(levels), max(recent)
    return (level, peak) if level > 0 and peak > RISING_FACTOR * level else None


def judge(ev: RunEvidence) -> Cause:
    """Weigh the evidence into a root-cause class, with its text for this run.

    Divergence evidence (the fault follows the first updates and persists, a rising loss, a
    growing gradient norm, large updates, huge weights) outweighs the name of the module
    where the first inf appeared: an exploding model overflows fp16 somewhere, and keeping
    that module in fp32 would only move the overflow.

    Example:
        >>> lr_too_high = RunEvidence(
        ...     "AMP006", 1, updates_before=1, losses_before=(22.0,), first_loss=22.0,
        ...     persistent=True,
        ...     origin=OriginFacts("activation-overflow", module="<model>.4",
        ...                        exceeded_fp16=True, module_weight=40.0))
        >>> cause = judge(lr_too_high)
        >>> cause.kind, "lower the learning rate" in cause.fix.lower()
        ('divergence', True)
        >>> judge(RunEvidence("AMP006", 0, updates_before=0, origin=OriginFacts(
        ...     "activation-overflow", module="ffn.wo", exceeded_fp16=True))).kind
        'activation-overflow'
    """
    setup, origin = ev.setup, ev.origin
    if ev.code == "AMP002":
        return _cause(SCALER_PROTOCOL, ev, ["the GradScaler protocol was broken"])
    if ev.code in ("AMP012", "AMP001") and setup.fp16_parameters:
        return _cause(FP16_WEIGHTS, ev, ["the optimizer holds float16 parameters"])
    if ev.code == "AMP001":
        return _cause(SCALER_PROTOCOL, ev, ["fp16 compute with no loss scaler"])
    if ev.code == "AMP004" and setup.init_scale is not None and setup.init_scale < 1.0:
        return _cause(GRADIENT_UNDERFLOW, ev, [f"the loss scale starts at {setup.init_scale:g}"])
    if ev.code not in TRAJECTORY_CODES:
        return Cause(UNDETERMINED)
    if origin is not None and origin.inputs_finite is False:
        return _cause(BAD_DATA, ev, ["the batch itself held NaN/inf"])
    diverging = divergence_reasons(ev)
    if diverging:
        return _cause(DIVERGENCE, ev, diverging)
    magnitude = loss_magnitude_reasons(ev)
    if magnitude and (origin is None or not origin.exceeded_fp16):  # (activations finite)
        return _cause(LOSS_MAGNITUDE, ev, magnitude)
    if origin is None:
        return Cause(UNDETERMINED)
    if origin.verdict in ("activation-overflow", "backward-overflow", "between-modules"):
        return _cause(ACTIVATION_OVERFLOW, ev, [_overflow_reason(ev, origin)])
    if origin.verdict in ("loss-computation", "invalid-operation"):
        return _cause(LOSS_COMPUTATION, ev, [
            "every module output was finite (largest "
            f"{_fmt(origin.peak_activation)}) but the loss was not"
            if origin.verdict == "loss-computation"
            else f"{origin.module} turned finite inputs into NaN/inf"])
    if origin.verdict == "not-reproduced" and ev.code == "AMP006":
        return _cause(BAD_DATA, ev, [
            "a one-off: the next step was finite everywhere at the same weights, so the "
            "failing step's batch (or its targets) held the bad values"])
    return Cause(UNDETERMINED)


def one_off(code: str, fault_step: int | None, setup: RunSetup, finite_after: int) -> Cause:
    """The cause of a non-finite loss that the run shows to be a one-off after the fact (a
    log read to its end): no other non-finite loss next to it, ``finite_after`` finite ones
    after it. Weights that a NaN update had reached would give NaN losses from then on, so
    the update was not applied (the scaler skipped it) and the model was not broken: that
    step's batch held, or produced, the bad values.

    Example:
        >>> cause = one_off("AMP006", 1500, RunSetup(), 40)
        >>> cause.kind, cause.reasons[0].split(":")[0]
        ('bad-data', 'a one-off')
    """
    at = f"step {fault_step}'s" if fault_step is not None else "its"
    return _cause(BAD_DATA, RunEvidence(code, fault_step, setup=setup), [
        f"a one-off: {at} loss was non-finite alone and the {finite_after} losses "
        "after it were finite, so the model was not broken; that step's batch (or its "
        "targets) held or produced the bad values"])


def _overflow_reason(ev: RunEvidence, origin: OriginFacts) -> str:
    when = ("before any update was applied" if ev.updates_before == 0
            else "with a steady loss before it")
    return f"{origin.module} exceeded the fp16 range (65504) {when}"


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


def _cause(kind: str, ev: RunEvidence, reasons: list[str]) -> Cause:
    root, fix = fixes.text_for(kind, ev.code, ev.setup, reasons=reasons,
                               module=ev.origin.module if ev.origin else None,
                               fault_step=ev.fault_step)
    return Cause(kind, tuple(reasons), root, fix)


def dtype_error(evidence: dict[str, Any], setup: RunSetup) -> Cause:
    """The cause of an AMP014 (one of torch's float16 dtype errors) from what its message
    named: ``evidence["dtype_error"]`` (one of :data:`DTYPE_ERRORS`), with ``kernel``,
    ``dtypes`` and ``value`` where the message gave them.

    Example:
        >>> cause = dtype_error({"dtype_error": "fp16-no-kernel", "kernel": "addmm_impl_cpu_"},
        ...                     RunSetup())
        >>> print(cause.kind, cause.reasons[0])
        fp16-no-kernel "addmm_impl_cpu_" not implemented for 'Half'
        >>> dtype_error({}, RunSetup()).kind
        'undetermined'
    """
    kind = evidence.get("dtype_error")
    if kind not in DTYPE_ERRORS:
        return Cause(UNDETERMINED)
    kernel = evidence.get("kernel") if isinstance(evidence.get("kernel"), str) else None
    dtypes = tuple(str(d) for d in evidence.get("dtypes") or ())
    value = evidence.get("value") if isinstance(evidence.get("value"), str) else None
    if kind == FP16_NO_KERNEL:
        reason = f'"{kernel or "?"}" not implemented for \'Half\''
    elif kind == FP16_DTYPE_MISMATCH:
        reason = (f"{fixes.dtype_word(dtypes[0])} and {fixes.dtype_word(dtypes[1])} in one op"
                  if len(dtypes) == 2 else "two dtypes in one op")
    else:
        reason = f"a constant{f' ({value})' if value else ''} beyond float16's range"
    root, fix = fixes.dtype_error_text(kind, setup, kernel=kernel, dtypes=dtypes, value=value)
    return Cause(kind, (reason,), root, fix)


def backward_nan(evidence: dict[str, Any], setup: RunSetup) -> Cause:
    """The cause of an AMP006 that torch's anomaly mode raised (``Function '{op}' returned nan
    values in its {i}th output``): the first NaN a backward produced, in ``op``'s backward,
    named by ``evidence["anomaly_op"]``.

    Example:
        >>> cause = backward_nan({"anomaly_op": "SqrtBackward0"}, RunSetup())
        >>> print(cause.kind, cause.reasons[0])
        backward-nan anomaly mode: SqrtBackward0 returned NaN in the backward pass
        >>> backward_nan({}, RunSetup()).kind
        'undetermined'
    """
    op = evidence.get("anomaly_op")
    if not isinstance(op, str):
        return Cause(UNDETERMINED)
    root, fix = fixes.backward_nan_text(op, setup)
    return Cause(BACKWARD_NAN, (f"anomaly mode: {op} returned NaN in the backward pass",),
                 root, fix)


def switched_off(evidence: dict[str, Any], setup: RunSetup) -> Cause:
    """The cause of an AMP010 that the run's own guard said (``AMP disabled after repeated
    overflows``): the trouble it reacted to, named by ``evidence["switched_off"]``.

    Example:
        >>> switched_off({"switched_off": "an overflow"}, RunSetup()).reasons[0]
        'the run switched fp16 off after an overflow'
        >>> switched_off({}, RunSetup()).kind
        'undetermined'
    """
    why = evidence.get("switched_off")
    if not isinstance(why, str):
        return Cause(UNDETERMINED)
    root, fix = fixes.switched_off_text(why, setup)
    return Cause(SWITCHED_OFF, (f"the run switched fp16 off after {why}",), root, fix)


def explain(finding: Finding, run: RunState, setup: RunSetup) -> Finding:
    """A finding with the root cause and fix its evidence supports, for this run.

    A finding that brings its own root cause and fix (a lint, an adapter's protocol check
    with its exact words) keeps them; otherwise the cause is judged from the run, and where
    the evidence does not decide, the catalog's text is phrased for the run's framework,
    device and configuration.

    Example:
        >>> from denpex_callbacks.core.observation import Observation
        >>> run, setup = RunState(), RunSetup(framework="torch", extra={"device": "cpu"})
        >>> for step, loss, skipped in [(0, 22.0, False), (1, float("inf"), True),
        ...                             (2, float("inf"), True)]:
        ...     run.update(Observation(step, loss=loss, skipped=skipped))
        >>> f = explain(Finding("AMP006", 1, "loss is inf"), run, setup)
        >>> f.evidence["cause"], f.root_cause.split(":")[0]
        ('divergence', 'the optimizer diverged')
    """
    if finding.root_cause is not None and finding.fix is not None:
        return finding
    if finding.code == "AMP014":  # the message said which error: no trajectory to weigh
        cause = dtype_error(finding.evidence, setup)
        evidence = dict(finding.evidence)
        if cause.kind != UNDETERMINED:
            evidence.update(cause.evidence())
        info = entry(finding.code)
        return replace(finding, root_cause=finding.root_cause or cause.root_cause
                       or info.root_cause, fix=finding.fix or cause.fix or info.fix,
                       evidence=evidence)
    cause = judge(gather(finding.code, finding.step, run, setup))
    for said in (backward_nan, switched_off):  # what the line's own message named
        if cause.kind == UNDETERMINED:
            cause = said(finding.evidence, setup)
    evidence = dict(finding.evidence)
    if cause.kind != UNDETERMINED:
        evidence.update(cause.evidence())
    return replace(
        finding,
        root_cause=finding.root_cause or cause.root_cause,
        fix=finding.fix or cause.fix or fixes.generic_fix(finding.code, setup),
        evidence=evidence,
    )
