"""What a located origin changes in the diagnosis that armed the locator, framework-free.

:func:`explain_origin` turns an :class:`~denpex_callbacks.locate.origin_report.OriginReport`
into a verdict (input data, non-finite or diverged weights, an activation overflow, an invalid
operation, the loss, a backward overflow...) with the new root cause and fix;
:func:`origin_facts` hands the same evidence to the root-cause engine. Plain numbers in, text
out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from denpex_callbacks.core.causes import OriginFacts
from denpex_callbacks.core.fixes import bf16_switch, keep_fp32, poisoned_weights_fix
from denpex_callbacks.core.other_rank import OTHER_RANK, may_come_from, other_rank_fix
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.locate.origin_report import (
    FP16_MAX,
    GradientOrigin,
    ModuleCall,
    OriginReport,
    label,
    parent_name,
)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


@dataclass(frozen=True)
class OriginExplanation:
    """What a located origin means for the diagnosis it amends.

    Attributes:
        verdict: Short stable tag: ``input-data``, ``nonfinite-weights``,
            ``diverged-weights``, ``initial-weights``, ``activation-overflow``,
            ``invalid-operation``, ``between-modules``, ``loss-computation``,
            ``backward-overflow``, ``not-reproduced``, ``other-rank`` (an overflow in the
            gradients of a run of several ranks, this rank's own values finite),
            ``not-observed``.
        summary: One line saying what was found, with the numbers.
        root_cause: The new root cause (None: keep the catalog's).
        fix: The new fix (None: keep the catalog's).
        module: Qualified name of the module it points at (None: none).
        evidence: Small flat dict to attach to the diagnosis.
    """

    verdict: str
    summary: str
    root_cause: str | None
    fix: str | None
    module: str | None
    evidence: dict[str, Any]


# Trained weights rarely exceed a few hundred in absolute value; far above that the optimizer
# has diverged, and an fp16 overflow downstream is a symptom rather than a precision problem.
DIVERGED_WEIGHT = 1000.0


def loss_in_float32(dtype: str | None) -> bool:
    """A loss (or a model's output) of this dtype is already computed in float32 or wider:
    upcasting it is no fix.

    Example:
        >>> loss_in_float32("torch.float32"), loss_in_float32("torch.float16")
        (True, False)
    """
    return dtype in ("torch.float32", "torch.float64")


def origin_facts(report: OriginReport, explanation: OriginExplanation) -> OriginFacts:
    """The plain numbers the root-cause engine weighs, from what the locator saw.

    Example:
        >>> r = OriginReport(step=4, calls_seen=3, inputs_absmax=1.0, loss_absmax=float("inf"),
        ...                  peak=ModuleCall("head", "Linear", 1.0, 3.0e7))
        >>> f = origin_facts(r, explain_origin(r))
        >>> f.verdict, f.peak_activation, f.inputs_finite
        ('loss-computation', 30000000.0, True)
    """
    fwd = report.forward
    named = report.origin or fwd  # the module the explanation names
    return OriginFacts(
        verdict=explanation.verdict,
        module=label(explanation.module) if explanation.module is not None else None,
        inputs_finite=None if report.calls_seen == 0 else (
            not report.inputs_nonfinite and report.targets_finite is not False),
        loss_finite=report.loss_finite,
        peak_activation=report.peak.output_absmax if report.peak is not None else None,
        module_output=named.output_absmax if named is not None else None,
        module_weight=named.param_absmax if named is not None else None,
        exceeded_fp16=bool(fwd is not None and fwd.exceeded_fp16),
        located_step=report.step,
    )


def explain_origin(report: OriginReport, framework: str | None = None, *,
                   updates_before: int | None = None,
                   setup: RunSetup | None = None,
                   first_step: int | None = None,
                   code: str | None = None) -> OriginExplanation:
    """Turn a located origin into the root cause and fix of the diagnosis it amends.

    Args:
        report: What the locator saw in the armed step.
        framework: ``torch``, ``hf``, ``lightning`` or ``deepspeed``, to phrase the fix.
        updates_before: Optimizer updates applied in the run before the located step (None:
            not known). Huge weights with none applied were never grown by the optimizer.
        setup: The run's setup (whether a loss scaler skips non-finite steps, the loop), for
            the fix of weights already non-finite (None: phrased as for a run with a scaler).
        first_step: The step of the diagnosis being amended (its first non-finite loss),
            which may come before the located one.
        code: The id of the diagnosis being amended: an overflow in the gradients (AMP003)
            on a run of several ranks (``setup.world_size``) is in the all-reduced gradients,
            which the hooks do not see (None: not known).

    Returns:
        The verdict, a one-line summary, and the new root cause and fix (None where the
        evidence does not change the catalog's).

    Example:
        >>> wo = ModuleCall("encoder.block.3.layer.1.DenseReluDense.wo", "Linear",
        ...                 input_absmax=2.1e3, output_absmax=float("inf"),
        ...                 param_absmax=0.9, output_dtype="torch.float16")
        >>> e = explain_origin(OriginReport(step=9, forward=wo, inputs_absmax=1.0), "hf")
        >>> e.verdict
        'activation-overflow'
        >>> print(e.root_cause.split(":")[0])
        activation overflow in encoder.block.3.layer.1.DenseReluDense.wo (Linear)
        >>> explain_origin(OriginReport(step=9, inputs_absmax=float("nan"))).verdict
        'input-data'
    """
    at = f"step {report.step}" if report.step is not None else "the armed step"
    evidence: dict[str, Any] = {
        "located_step": report.step,
        "inputs_nonfinite": report.inputs_nonfinite,
        "inputs_absmax": report.inputs_absmax,
        "loss_finite": report.loss_finite,
        "grads_finite": report.grads_finite,
        "backward_overflow": report.backward_overflow,
        "updates_before": updates_before,
    }
    bf16 = bf16_switch(framework)
    fwd = report.forward
    if fwd is not None:
        evidence.update(
            module=label(fwd.name), module_type=fwd.type, input_absmax=fwd.input_absmax,
            output_absmax=fwd.output_absmax, exceeded_fp16=fwd.exceeded_fp16,
        )
    if report.compiled:
        evidence["compiled"] = True
    if report.inputs_nonfinite:
        first = f"; first module to receive them: {label(fwd.name)}" if fwd else ""
        return OriginExplanation(
            "input-data",
            f"located at {at}: the model's inputs were already non-finite "
            f"(max |x| = {_fmt(report.inputs_absmax)}){first}",
            "non-finite values in the input batch: a data problem, not AMP. The model received "
            "NaN/inf before any of its modules ran.",
            "Find and drop or repair the bad samples: assert torch.isfinite(batch).all() in "
            "the data pipeline (the failing step's batch holds them); mixed precision is not "
            "the cause.",
            fwd.name if fwd else None,
            evidence,
        )
    if fwd is not None and report.origin is not None:
        return _explain_passed_on(fwd, report.origin, at, framework, bf16, evidence,
                                  updates_before)
    if fwd is not None and not fwd.name and report.modules_seen <= 1 < report.modules_watched:
        return OriginExplanation(
            "not-observed",
            f"located at {at}: the output of {label(fwd.name)} ({fwd.type}) was "
            f"{_fmt(fwd.output_absmax)}, but none of its submodules was seen running (a "
            "compiled or scripted forward hides them from hooks): the locator could not look "
            "inside",
            None, None, None, evidence,
        )
    if fwd is not None and not fwd.params_finite:
        return _explain_poisoned(fwd, at, poisoned_weights_fix(setup, first_step), evidence)
    if fwd is not None:
        return _explain_forward(fwd, at, framework, bf16, evidence, updates_before)
    if report.loss_finite is False:
        return _explain_loss(report, at, evidence)
    back = report.backward
    if back is not None:
        return _explain_backward(back, report, at, framework, bf16, evidence)
    if report.calls_seen == 0:
        hidden = (" where hooks see it (it runs under torch.compile): the locator could not "
                  "look inside") if report.compiled else ""
        return OriginExplanation(
            "not-observed", f"locator armed for {at} but the model ran no forward pass{hidden}",
            None, None, None, evidence,
        )
    peak = report.peak
    largest = (
        f"; largest activation {_fmt(peak.output_absmax)} in {label(peak.name)} ({peak.type})"
        if peak is not None else ""
    )
    if peak is not None:
        evidence.update(peak_module=label(peak.name), peak_absmax=peak.output_absmax)
    ranks = setup.world_size if setup is not None else 1
    if code == "AMP003" and ranks > 1:
        # The hooks saw this rank's values before the all-reduce: finite here says nothing of
        # whether the step's reduced gradients overflowed (the step may be skipped anyway).
        return OriginExplanation(
            OTHER_RANK,
            f"located at {at}: every input, activation, loss and gradient of this rank was "
            f"finite{largest}; {may_come_from(ranks)}",
            None, other_rank_fix(ranks), None, evidence,
        )
    return OriginExplanation(
        "not-reproduced",
        f"located at {at}: every input, activation, loss and gradient was finite, the fault "
        f"did not recur{largest} (a one-off points to the failing step's batch or a "
        "transient spike)",
        None, None, None, evidence,
    )


def _explain_loss(report: OriginReport, at: str, evidence: dict[str, Any]) -> OriginExplanation:
    """Every module output finite, the loss not: the loss code, or the targets it reads."""
    peak = report.peak
    largest = f"; the largest model output was {_fmt(peak.output_absmax)}" if peak else ""
    summary = (f"located at {at}: every module output was finite but the loss was "
               f"{_fmt(report.loss_absmax)}")
    evidence["targets_finite"] = report.targets_finite
    if report.targets_finite is False:
        what = "the targets" if report.targets_given else "the step's inputs"
        return OriginExplanation(
            "input-data",
            f"{summary}, and {what} (which the loss reads) hold NaN/inf",
            "non-finite values in the targets: every module of the model returned finite "
            "outputs, and the loss compared them with targets (or read an input) holding NaN/inf: "
            "a data problem, not AMP.",
            "Find and drop or repair the bad samples: assert torch.isfinite(targets).all() in "
            "the data pipeline (the failing step's batch holds them); mixed precision is not "
            "the cause.",
            None,
            evidence,
        )
    what = "the targets and the step's inputs" if report.targets_given else "the step's inputs"
    checked = f"; {what} were finite, so the loss code itself" if report.targets_finite else ""
    dtype = report.loss_dtype
    evidence["loss_dtype"] = dtype
    guard = ("guard log/div with an epsilon (a batch statistic such as the targets' std can be "
             "0) and check the targets for NaN/inf")
    upcast = "compute the loss in float32 outside autocast (loss_fn(logits.float(), target))"
    if dtype is not None and loss_in_float32(dtype):
        fix = (f"{guard}; the loss is already {dtype.removeprefix('torch.')}, so computing it "
               "in float32 would change nothing.")
    elif dtype is None:  # not re-run: the dtype it was computed in is not known
        fix = f"{guard}; {upcast} if it is not float32 already."
    else:
        fix = f"{upcast}, {guard}."
    fix = fix[0].upper() + fix[1:]
    return OriginExplanation(
        "loss-computation",
        summary,
        "the loss computation produced the non-finite value: every module of the model "
        f"returned finite outputs, so it happened in the loss code after the model{checked} "
        "(log or division of 0, a division by a batch statistic that is 0, "
        + ("a NaN target; the re-run computed it in float32, so not its precision)"
           if loss_in_float32(dtype) else "a reduction in fp16, a NaN target)") + largest,
        fix,
        None,
        evidence,
    )


def _explain_passed_on(
    fwd: ModuleCall, origin: ModuleCall, at: str, framework: str | None, bf16: str,
    evidence: dict[str, Any], updates_before: int | None,
) -> OriginExplanation:
    """``fwd`` returned inf from finite inputs with no weights of its own: ``origin`` made the
    values it pushed past the fp16 limit."""
    where = f"{label(origin.name)} ({origin.type})"
    passer = f"{label(fwd.name)} ({fwd.type})"
    evidence.update(
        module=label(origin.name), module_type=origin.type, input_absmax=origin.input_absmax,
        output_absmax=origin.output_absmax, first_nonfinite=label(fwd.name),
        first_nonfinite_type=fwd.type, exceeded_fp16=True,
    )
    numbers = f"max |output| = {_fmt(origin.output_absmax)}"
    if origin.param_absmax is not None:
        numbers += f", max |weight| = {_fmt(origin.param_absmax)}"
    summary = (f"located at {at}: {passer} turned finite inputs (max |x| = "
               f"{_fmt(fwd.input_absmax)}) into {_fmt(fwd.output_absmax)} with no weights of "
               f"its own; the values came from {where} ({numbers}; fp16 max 65504)")
    if (origin.param_absmax or 0.0) > DIVERGED_WEIGHT and updates_before == 0:
        return _initial_weights(origin, summary, f"after it, in {label(fwd.name)},", framework,
                                bf16, evidence)
    if (origin.param_absmax or 0.0) > DIVERGED_WEIGHT:
        return OriginExplanation(
            "diverged-weights",
            summary + ", whose weights have grown huge",
            f"the weights of {where} have grown to |w| = {_fmt(origin.param_absmax)}: the "
            "optimizer diverged (learning rate too high, no warm-up, no gradient clipping), and "
            f"the fp16 overflow after it, in {label(fwd.name)}, is its symptom.",
            "Lower the learning rate or add warm-up, clip gradients, and restart from a "
            "checkpoint taken before the divergence.",
            origin.name,
            evidence,
        )
    return OriginExplanation(
        "activation-overflow",
        summary,
        f"activation overflow in {where}: its activations reach {_fmt(origin.output_absmax)}, "
        f"at the fp16 maximum 65504, and {passer} after it pushed them past, to "
        f"{_fmt(fwd.output_absmax)} (it has no weights: keeping it in fp32 would change "
        "nothing). Typical of models pretrained in bf16 or fp32 (T5's DenseReluDense.wo).",
        f"{keep_fp32(label(origin.name), framework)} or train in bf16 ({bf16}).",
        origin.name,
        evidence,
    )


def _initial_weights(
    module: ModuleCall, summary: str, symptom: str, framework: str | None, bf16: str,
    evidence: dict[str, Any],
) -> OriginExplanation:
    """Weights far above :data:`DIVERGED_WEIGHT` before any update was applied: no learning
    rate grew them, the initialisation or the checkpoint loaded did; ``symptom`` says where
    the fp16 overflow they cause happened."""
    where = f"{label(module.name)} ({module.type})"
    return OriginExplanation(
        "initial-weights",
        f"{summary}; its weights are that large before any update was applied",
        f"the weights of {where} are |w| = {_fmt(module.param_absmax)} before any optimizer "
        "update was applied: they come from the initialisation or the checkpoint loaded, not "
        f"from the optimizer, and the fp16 overflow {symptom} is their symptom.",
        f"Check how {label(module.name)} is initialised and what checkpoint is loaded into it "
        "(a scaling left in, weights saved from another model). If those weights are meant, "
        f"train in bf16 ({bf16}), or: {keep_fp32(label(module.name), framework)}.",
        module.name,
        evidence,
    )


def _explain_poisoned(
    fwd: ModuleCall, at: str, fix: str, evidence: dict[str, Any]
) -> OriginExplanation:
    """``fwd``'s own parameters are NaN/inf: an earlier update wrote them (``fix``: what the
    run's setup says to do about it)."""
    where = f"{label(fwd.name)} ({fwd.type})"
    return OriginExplanation(
        "nonfinite-weights",
        f"located at {at}: the parameters of {where} are already non-finite "
        f"(max |w| = {_fmt(fwd.param_absmax)})",
        f"the weights of {where} are already NaN/inf: an earlier update wrote non-finite "
        "values into them (a step that should have been skipped was applied, or the "
        "checkpoint was already corrupt), so every forward pass is non-finite from there.",
        fix,
        fwd.name,
        evidence,
    )


def _explain_forward(
    fwd: ModuleCall, at: str, framework: str | None, bf16: str, evidence: dict[str, Any],
    updates_before: int | None,
) -> OriginExplanation:
    where = f"{label(fwd.name)} ({fwd.type})"
    numbers = f"max |input| = {_fmt(fwd.input_absmax)}, max |output| = {_fmt(fwd.output_absmax)}"
    if fwd.param_absmax is not None:
        numbers += f", max |weight| = {_fmt(fwd.param_absmax)}"
    if not fwd.name:  # every submodule finite, the model's own output not
        wide = loss_in_float32(fwd.output_dtype)
        return OriginExplanation(
            "loss-computation",
            f"located at {at}: every submodule returned finite outputs, the output of "
            f"{where} was {_fmt(fwd.output_absmax)}",
            f"the forward code of {where} itself, outside its submodules, produced the "
            "non-finite value: for a model that returns its loss, the loss computation "
            + ("(log/div of 0, a NaN label; its output was already float32, so not its "
               "precision)." if wide else "(log/div of 0, a reduction in fp16, a NaN label)."),
            ("Guard log/div with an epsilon and check the labels for NaN/inf; the output is "
             "already float32, so upcasting would change nothing." if wide else
             "Compute the loss in float32 (upcast the logits before the loss), guard log/div "
             "with an epsilon, and check the labels for NaN/inf."),
            fwd.name,
            evidence,
        )
    if not fwd.input_finite:
        parent = label(parent_name(fwd.name))
        return OriginExplanation(
            "between-modules",
            f"located at {at}: the input of {where} was already non-finite, though every "
            f"submodule that ran before it returned finite outputs ({numbers})",
            f"the non-finite value was produced by code in the forward of {parent} outside its "
            f"submodules, just before it calls {label(fwd.name)} (an operation between "
            "modules, or a parameter used directly).",
            f"Inspect the tensor operations in {parent}.forward before {label(fwd.name)}: "
            f"compute them in float32, clamp or add an epsilon; or train in bf16 ({bf16}).",
            fwd.name,
            evidence,
        )
    huge_weights = fwd.exceeded_fp16 and (fwd.param_absmax or 0.0) > DIVERGED_WEIGHT
    if huge_weights and updates_before == 0:
        return _initial_weights(fwd, f"located at {at}: {where} overflowed fp16 ({numbers}; "
                                "fp16 max 65504)", "in this module", framework, bf16, evidence)
    if huge_weights:
        return OriginExplanation(
            "diverged-weights",
            f"located at {at}: {where} overflowed fp16 ({numbers}; fp16 max 65504) because its "
            "weights have grown huge",
            f"the weights of {where} have grown to |w| = {_fmt(fwd.param_absmax)}: the "
            "optimizer diverged (learning rate too high, no warm-up, no gradient clipping), and "
            "the fp16 overflow in this module is its symptom.",
            "Lower the learning rate or add warm-up, clip gradients (scaler.unscale_(opt); "
            "torch.nn.utils.clip_grad_norm_(params, 1.0)), and restart from a checkpoint taken "
            f"before the divergence; keeping {label(fwd.name)} in fp32 would only hide it.",
            fwd.name,
            evidence,
        )
    if fwd.exceeded_fp16:
        near = (
            " Its input was already near the limit: the values grow in the modules before "
            "it too."
            if fwd.input_absmax is not None and fwd.input_absmax > FP16_MAX / 4 else ""
        )
        return OriginExplanation(
            "activation-overflow",
            f"located at {at}: {where} overflowed fp16 ({numbers}; fp16 max 65504)",
            f"activation overflow in {where}: its activations exceed the fp16 maximum 65504 "
            f"({numbers}), so fp16 turns them into inf and the loss into NaN/inf.{near} "
            "Typical of models pretrained in bf16 or fp32 (T5's DenseReluDense.wo).",
            f"{keep_fp32(label(fwd.name), framework)} or train in bf16 ({bf16}).",
            fwd.name,
            evidence,
        )
    return OriginExplanation(
        "invalid-operation",
        f"located at {at}: {where} produced {_fmt(fwd.output_absmax)} from finite inputs "
        f"below the fp16 maximum ({numbers})",
        f"an invalid operation in the forward of {where}: it turned finite inputs into "
        f"{_fmt(fwd.output_absmax)} without exceeding the fp16 range (0/0, inf-inf, log or "
        "sqrt of a negative number or of 0, division by a value that underflowed to 0).",
        f"Guard the operation in {label(fwd.name)} with an epsilon or a clamp, and compute it "
        f"in float32 (autocast disabled around it).",
        fwd.name,
        evidence,
    )


def _explain_backward(
    back: GradientOrigin,
    report: OriginReport,
    at: str,
    framework: str | None,
    bf16: str,
    evidence: dict[str, Any],
) -> OriginExplanation:
    where = f"{label(back.name)} ({back.type})"
    evidence.update(backward_module=label(back.name), backward_role=back.role,
                    grad_absmax=back.absmax)
    peak = report.peak
    activations = (
        f"; forward and loss finite, largest activation {_fmt(peak.output_absmax)} "
        f"in {label(peak.name)}" if peak is not None else "; forward and loss finite"
    )
    if back.role == "output" and not back.name:
        what = "the gradient of the loss w.r.t. the model output"
        cause = ("gradient overflow in the loss backward: the gradient of the loss w.r.t. the "
                 "model output is already non-finite at the current loss scale")
        fix = ("Compute the loss in float32 outside autocast; if it persists, the loss scale "
               f"is too high for it: lower init_scale, or train in bf16 ({bf16}).")
    elif back.role == "output":
        parent = label(parent_name(back.name))
        what = f"the gradient reaching the output of {where}"
        cause = (f"gradient overflow in backward in the code of {parent}.forward that consumes "
                 f"the output of {label(back.name)} (outside its submodules)")
        fix = (f"Compute that code in float32, or train in bf16 ({bf16}); clip gradients "
               "only after unscaling.")
    else:
        of = (f"{label(back.name)}.{back.parameter}" if back.role == "weight"
              else f"the input of {label(back.name)}")
        what = f"the gradient w.r.t. {of}"
        cause = (f"gradient overflow in the backward of {where}: its forward and the loss were "
                 f"finite, but the gradient w.r.t. {of} exceeds the fp16 range at the current "
                 "loss scale")
        fix = (f"{keep_fp32(label(back.name), framework)}, lower the learning rate or the "
               f"initial loss scale, or train in bf16 ({bf16}).")
    return OriginExplanation(
        "backward-overflow",
        f"located at {at}: {what} is {_fmt(back.absmax)}{activations}",
        cause + ".",
        fix,
        back.name,
        evidence,
    )
