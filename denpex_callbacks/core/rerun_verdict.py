"""Hardware or software? What re-running a failing step says, in plain numbers.

The torch side (``denpex_callbacks.locate.rerun``) re-runs the step that produced a non-finite
loss (AMP006) or the first overflow of a loss-scale collapse (AMP003) once, with the same
inputs, parameters and RNG state; this module turns what the original step showed and what the
re-run computed into one of three verdicts, and into the words a diagnosis carries:

- ``reproduced``: the same symptom again. A software, data or configuration fault: the
  diagnosis's fix applies, and the re-run's localisation describes the failing batch itself.
- ``not-reproduced``: identical inputs and state, finite this time. Suspect a transient
  hardware fault (silent data corruption, a flipped bit) or nondeterminism: repeat on another
  node.
- ``not-rerunnable``: the step could not be re-run faithfully (its update was applied, its
  inputs were not kept, the re-run could not cover where the fault was...), with the reason.

The original step ran without the locator's hooks (they cost time on every healthy step), so
what is compared is the symptom: a non-finite loss, or gradients overflowing at the loss scale
the step used; where both losses are finite they are compared bit for bit as well. Where the
loss is computed outside the model and was not handed over, the model's output decides: the
capture kept whether it was finite in the failing step (a flag on the device, read after the
fault). Non-finite then and finite on re-run: not reproduced. Finite both times: the model is
not where the non-finite value came from, the loss computation or the targets are (the verdict
stays ``not-rerunnable``, since the loss was not re-run, and says where: ``placed``).
Framework-free.
"""

from __future__ import annotations

import math
import platform
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from denpex_callbacks.core.other_rank import may_come_from, other_rank_fix

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not-reproduced"
NOT_RERUNNABLE = "not-rerunnable"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, NOT_RERUNNABLE)
FORWARD = "forward"
FORWARD_BACKWARD = "forward+backward"
LOSS_PLACED = "loss-computation"  # the model's output was finite: the loss code or the targets


@dataclass(frozen=True)
class FailingStep:
    """What the original step showed.

    Attributes:
        code: The diagnosis that asked for the re-run (``AMP006`` or ``AMP003``).
        step: The failing step.
        loss: Its loss as observed (None: unknown).
        scale: The loss scale its backward used (None: no scaler).
        world_size: Ranks whose gradients are all-reduced together.
        output_finite: Whether the model's output was finite in the step (None: not known).
    """

    code: str
    step: int | None
    loss: float | None = None
    scale: float | None = None
    world_size: int = 1
    output_finite: bool | None = None

    @property
    def loss_nonfinite(self) -> bool:
        """The symptom was in the loss itself (else: in the gradients)."""
        return self.code == "AMP006" or (self.loss is not None and not math.isfinite(self.loss))


@dataclass(frozen=True)
class RerunOutcome:
    """What the re-run computed.

    Attributes:
        loss: The re-run's loss (None: the computation re-run returns no loss, only the
            model's output).
        outputs_finite: Whether the model's output was finite (used when ``loss`` is None).
        grads_finite: Whether every gradient was finite at the step's loss scale (None: no
            backward was run).
        covers: ``"forward"`` or ``"forward+backward"``.
        why_forward_only: Why no backward was run, when the verdict needs one.
        partial: Why a finite re-run proves nothing (only the last of several accumulated
            micro-batches was kept; the step reads state the re-run could not restore, such
            as a trainer's step counter); a non-finite one still reproduces.
    """

    loss: float | None = None
    outputs_finite: bool | None = None
    grads_finite: bool | None = None
    covers: str = FORWARD
    why_forward_only: str = ""
    partial: str = ""


@dataclass(frozen=True)
class RerunVerdict:
    """The verdict on one failing step of one rank.

    Example:
        >>> v = judge(FailingStep("AMP006", 7, loss=float("nan")), RerunOutcome(loss=0.25),
        ...           rank=1, host="node-17")
        >>> v.verdict, v.reason
        ('not-reproduced', 'the re-run of step 7 gave a finite loss (0.25); the original was nan')
        >>> v.evidence()["rerun"]
        'not-reproduced'
    """

    verdict: str
    reason: str
    step: int | None
    rank: int = 0
    host: str = ""
    covers: str | None = None
    original_loss: float | None = None
    rerun_loss: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    placed: str | None = None
    # Ranks the step's gradients were all-reduced over, where this rank's own values were
    # finite: the overflow may come from another rank (None: not that case).
    reduced_over: int | None = None

    @property
    def loss_identical(self) -> bool | None:
        """Both losses finite and bit-identical (None: not both finite)."""
        a, b = self.original_loss, self.rerun_loss
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            return None
        return a == b

    def evidence(self) -> dict[str, Any]:
        """What a diagnosis carries: ``rerun`` (the verdict), ``rerun_reason``, and the rest
        under ``rerun_detail`` (rank, host, step, what the re-run covered, both losses, where
        the fault was placed)."""
        return {
            "rerun": self.verdict,
            "rerun_reason": self.reason,
            "rerun_detail": {
                "step": self.step, "rank": self.rank, "host": self.host, "covers": self.covers,
                "original_loss": self.original_loss, "rerun_loss": self.rerun_loss,
                "loss_identical": self.loss_identical, "placed": self.placed, **self.detail,
                **({} if self.reduced_over is None else {"reduced_over": self.reduced_over}),
            },
        }

    def summary_clause(self) -> str:
        """A clause appended to the diagnosis's one-line summary (the reason is in
        ``evidence()``)."""
        same = f"re-run of step {self.step} (same inputs, parameters, RNG state)"
        if self.verdict == REPRODUCED:
            return f"{same} reproduced it: not the hardware"
        if self.verdict == NOT_REPRODUCED:
            return (f"{same} did NOT reproduce it on rank {self.rank}, host {self.host}: "
                    "suspect the node")
        return f"re-run of step {self.step} not possible: {self.reason}"

    def root_cause(self) -> str | None:
        """The new root cause (a non-reproduced step, or this rank's own values finite on a
        run of several ranks, changes it)."""
        if self.reduced_over is not None:
            return ("This rank's own values were finite, but the step's gradients are "
                    f"all-reduced over {self.reduced_over} ranks: a non-finite gradient of any "
                    "rank makes every rank's scaler skip the step, so this rank's loss scale "
                    "falls with the rank whose fault it is.")
        if self.verdict != NOT_REPRODUCED:
            return None
        return (f"not reproducible: re-running step {self.step} on rank {self.rank} (host "
                f"{self.host}) with the same inputs, parameters and RNG state gave finite "
                "values, so the model, data and configuration do not explain it. Suspect a "
                "transient hardware fault (silent data corruption, a flipped bit in memory or "
                "arithmetic) on that node, or nondeterminism (nondeterministic kernels, a race "
                "between streams).")

    def fix(self) -> str | None:
        """The new fix (a non-reproduced step, or this rank's own values finite on a run of
        several ranks, changes it)."""
        if self.reduced_over is not None:
            return other_rank_fix(self.reduced_over)
        if self.verdict != NOT_REPRODUCED:
            return None
        return (f"Resume from the last checkpoint on another node (exclude host {self.host}); "
                f"if the failure follows host {self.host}, have it checked (GPU memory/ECC "
                "error counters, the vendor's diagnostics) and report it. If it also happens "
                "elsewhere, rule out nondeterminism with "
                "torch.use_deterministic_algorithms(True).")


def this_host() -> str:
    """The host name written into verdicts."""
    return platform.node() or "unknown"


def not_rerunnable(
    failing: FailingStep, reason: str, *, rank: int = 0, host: str = "",
    detail: dict[str, Any] | None = None,
) -> RerunVerdict:
    """The verdict when the step could not be re-run faithfully; ``reason`` says why.

    Example:
        >>> not_rerunnable(FailingStep("AMP006", 3), "its inputs were not kept").summary_clause()
        're-run of step 3 not possible: its inputs were not kept'
    """
    return RerunVerdict(NOT_RERUNNABLE, reason, failing.step, rank, host or this_host(),
                        None, failing.loss, None, dict(detail or {}))


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.6g}"


def judge(
    failing: FailingStep, outcome: RerunOutcome, *, rank: int = 0, host: str = "",
    detail: dict[str, Any] | None = None,
) -> RerunVerdict:
    """Compare the original step with its re-run.

    A non-finite loss is reproduced by a non-finite loss (or, when only the model's output is
    re-run, a non-finite output); an overflow in the gradients by a non-finite loss or
    non-finite gradients at the same loss scale. When only the model's output is re-run, the
    output the failing step had decides: non-finite then and finite now is not reproduced;
    finite both times places the fault in the loss computation or the targets. Finite values
    where the re-run could not cover the fault (a loss computed outside the model whose output
    was not kept, a forward-only re-run of a gradient overflow, one rank's share of
    all-reduced gradients, one of several micro-batches) make the step not re-runnable, never
    "not reproduced".

    Example:
        >>> judge(FailingStep("AMP003", 40, loss=2.5, scale=65536.0),
        ...       RerunOutcome(loss=2.5, grads_finite=False, covers="forward+backward")).reason
        'the gradients overflow again at loss scale 65536'
        >>> judge(FailingStep("AMP006", 8, loss=float("inf"), output_finite=True),
        ...       RerunOutcome(outputs_finite=True)).placed
        'loss-computation'
    """
    host = host or this_host()

    def verdict(kind: str, reason: str, placed: str | None = None,
                reduced_over: int | None = None) -> RerunVerdict:
        if kind != REPRODUCED and outcome.partial:
            kind, reason = NOT_RERUNNABLE, f"{reason}; {outcome.partial}"
        return RerunVerdict(kind, reason, failing.step, rank, host, outcome.covers,
                            failing.loss, outcome.loss, dict(detail or {}), placed, reduced_over)

    at = f"step {failing.step}"
    if outcome.loss is not None and not math.isfinite(outcome.loss):
        return verdict(REPRODUCED, f"the re-run's loss is {_fmt(outcome.loss)} again")
    if outcome.loss is None and outcome.outputs_finite is False:
        return verdict(REPRODUCED, "the model's output is non-finite again")
    if failing.loss_nonfinite:
        if outcome.loss is not None:
            return verdict(NOT_REPRODUCED, f"the re-run of {at} gave a finite loss "
                           f"({_fmt(outcome.loss)}); the original was {_fmt(failing.loss)}")
        if outcome.outputs_finite and failing.output_finite is False:
            return verdict(NOT_REPRODUCED, f"the model's output was non-finite in {at} and is "
                           "finite on re-run (the loss, computed outside the model, was not "
                           "re-run: the output alone differs)")
        if outcome.outputs_finite and failing.output_finite:
            return verdict(NOT_RERUNNABLE, f"the model's output was finite in {at}, as on "
                           "re-run: the loss computation or the targets made the non-finite "
                           "loss (the loss is computed outside the model and was not re-run: "
                           "hand the monitor its loss_fn to re-run it)", LOSS_PLACED)
        return verdict(NOT_RERUNNABLE, "the model's output is finite on re-run, but the loss "
                       "is computed outside the model and was not re-run (hand the monitor "
                       "its loss_fn, or a rerun= closure)")
    scale = f"loss scale {_fmt(failing.scale)}"
    ranks = failing.world_size
    if outcome.grads_finite is None:
        why = f" ({outcome.why_forward_only})" if outcome.why_forward_only else ""
        own_finite = (outcome.loss is not None and math.isfinite(outcome.loss)) or (
            outcome.loss is None and outcome.outputs_finite is True)
        if ranks > 1 and own_finite:  # (a finite loss and forward: see other_rank)
            only = f": {outcome.why_forward_only}" if outcome.why_forward_only else ""
            return verdict(NOT_RERUNNABLE, f"this rank's loss was finite in {at} and the "
                           f"re-run of its batch is finite (forward only{only}), but "
                           f"{may_come_from(ranks)}", reduced_over=ranks)
        return verdict(NOT_RERUNNABLE, "the overflow was in the gradients and the re-run "
                       f"covered the forward only{why}")
    if outcome.grads_finite is False:
        return verdict(REPRODUCED, f"the gradients overflow again at {scale}")
    if ranks > 1:
        return verdict(NOT_RERUNNABLE, f"this rank's own gradients are finite at {scale}, "
                       f"but {may_come_from(ranks)}", reduced_over=ranks)
    same = "" if outcome.loss is None or failing.loss is None else (
        ", same loss bit for bit" if outcome.loss == failing.loss
        else f", and the loss differs ({_fmt(outcome.loss)} vs {_fmt(failing.loss)})")
    return verdict(NOT_REPRODUCED, f"the re-run of {at} gave finite gradients at {scale}{same}")


@dataclass(frozen=True)
class RankVerdict:
    """One rank's re-run verdict as its run report holds it (for the log doctor).

    Attributes:
        rank: The rank.
        host: The host it ran on.
        code: The diagnosis re-run (``AMP006`` or ``AMP003``).
        step: The failing step.
        verdict: ``reproduced``, ``not-reproduced`` or ``not-rerunnable``.
        reason: Why, in one line.
    """

    rank: int
    host: str
    code: str
    step: int | None
    verdict: str
    reason: str

    def line(self) -> str:
        """``rank 1 (host node-17): AMP006 at step 5 reproduced: <reason>``."""
        return (f"rank {self.rank} (host {self.host}): {self.code} at step {self.step} "
                f"{self.verdict}: {self.reason}")


def rank_verdicts(reports: Iterable[Any]) -> list[RankVerdict]:
    """Every re-run verdict in the run reports (``RunReport``), by rank then step.

    Example:
        >>> from types import SimpleNamespace
        >>> from denpex_callbacks.core.diagnosis import Diagnosis, Finding
        >>> d = Diagnosis.from_finding(Finding("AMP006", 5, "loss nan", evidence={
        ...     "rerun": "reproduced", "rerun_reason": "the re-run's loss is nan again",
        ...     "rerun_detail": {"host": "node-3"}}), rank=1)
        >>> [v.line() for v in rank_verdicts([SimpleNamespace(rank=1, diagnoses=[d], header={})])]
        ["rank 1 (host node-3): AMP006 at step 5 reproduced: the re-run's loss is nan again"]
    """
    found = []
    for report in reports:
        for diagnosis in report.diagnoses:
            verdict = diagnosis.evidence.get("rerun")
            if verdict not in VERDICTS:
                continue
            detail = diagnosis.evidence.get("rerun_detail") or {}
            host = detail.get("host") or (report.header or {}).get("host") or "unknown"
            found.append(RankVerdict(report.rank, str(host), diagnosis.code, diagnosis.step,
                                     str(verdict), str(diagnosis.evidence.get("rerun_reason"))))
    return sorted(found, key=lambda v: (v.rank, v.step if v.step is not None else -1, v.code))


def across_ranks(verdicts: list[RankVerdict], ranks: Iterable[int]) -> str | None:
    """One line over several ranks: which reproduced, which did not, which could not re-run,
    which had nothing to re-run (None for a single rank or no verdict at all).

    Example:
        >>> v = [RankVerdict(0, "a", "AMP003", 4, NOT_RERUNNABLE, "..."),
        ...      RankVerdict(1, "b", "AMP006", 4, REPRODUCED, "...")]
        >>> across_ranks(v, [0, 1, 2])
        'reproduced on rank 1; not re-runnable on rank 0; no re-run on rank 2'
    """
    ranks = sorted(set(ranks))
    if not verdicts or len(ranks) < 2:
        return None
    by_kind: dict[str, set[int]] = {kind: set() for kind in VERDICTS}
    for v in verdicts:
        by_kind[v.verdict].add(v.rank)
    words = {REPRODUCED: "reproduced", NOT_REPRODUCED: "NOT reproduced",
             NOT_RERUNNABLE: "not re-runnable"}
    parts = [f"{words[kind]} on rank {', '.join(map(str, sorted(by_kind[kind])))}"
             for kind in VERDICTS if by_kind[kind]]
    silent = [r for r in ranks if r not in {v.rank for v in verdicts}]
    if silent:
        parts.append(f"no re-run on rank {', '.join(map(str, silent))}")
    return "; ".join(parts)
