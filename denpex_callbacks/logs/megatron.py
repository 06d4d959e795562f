"""Megatron-LM's iteration lines and its non-finite checks.

Verbatim sources (megatron/training/training.py ``training_log``): `` iteration {:8d}/{:8d} |
consumed samples: ... | learning rate: {:.6E} | ... | lm loss: {:.6E} | loss scale: {:.1f} |
grad norm: {:.3f} | number of skipped iterations: {:3d} | number of nan iterations: {:3d} |``
(one line per log interval; skipped/nan counts are for the interval). Rerun state machine:
``Rank {r}, node {n}, device {d}, iteration {i}: Unexpected result {v} (message='found NaN in
local forward loss calculation')``; older: ``Rank {r}: found NaN in local forward loss
calculation. Device: ...``; ``found NaN in local grad norm for bucket #{i} ...``.
"""

from __future__ import annotations

import re

from denpex_callbacks.core.observation import SCALE_BELOW
from denpex_callbacks.logs.events import (
    FLAG,
    METRICS,
    RUN_START,
    SETUP,
    LogEvent,
    to_float,
    to_int,
)
from denpex_callbacks.logs.metric_pairs import decimals
from denpex_callbacks.logs.scale_prints import rounded_zero

FAMILY = "megatron"
KEYWORDS = (b"loss", b" grad norm for bucket", b"loaded checkpoint")

_ITERATION = re.compile(r"\biteration\s+(\d+)/\s*\d+\s*\|")
# ``| key: value |``; releases before the ``training_log`` rewrite print ``| lm loss NAN |``
# (no colon).
_FIELD = re.compile(r"\|\s*([a-z][a-z0-9 _-]*?)(?::\s*|\s+)([-+]?[\d.]+(?:[eE][-+]?\d+)?|nan|inf)"
                    r"\s*(?=\|)", re.I)
# Terms Megatron-core prints beside the loss, on the same line: MoE's routing losses
# (`` load_balancing_loss: 1.00 |``, ``z_loss``: moe_logging.py) and multi-token
# prediction's (`` mtp_1 loss: 2.3E+00 |``). Where the loss itself is left out (not finite),
# none of them is it.
_AUXILIARY = ("load_balancing", "seq_load_balancing", "global_load_balancing", "z_loss", "mtp_")
_LOCAL = re.compile(r"found (NaN|Inf) in local (forward loss calculation|grad norm)")
# Megatron-core's rerun state machine (megatron/core/rerun_state_machine.py): raised with
# ``Rank {r}, node {n}, device {d}, iteration {i}: Unexpected result {result} (message=
# '...')`` where reruns are off; logged as ``Unexpected result {result} at {file} line {l},
# invokation #{k} at iteration #{i} (message='...')`` (2024-12) and ``Unexpected result
# {result} on rank {r} at iteration #{i} invocation #{k} (message='...')`` (2026-01) where
# they are on (the default from 2025-07). The iteration is the failing one from 2026-03; the
# releases before print the one before it (its 0-based count): read as printed.
_RANK = re.compile(r"\b[Rr]ank (\d+)")
_ITER_AT = re.compile(r"\biteration #?(\d+)[: ]")
# megatron/training/checkpointing.py ``load_checkpoint``: ``  successfully loaded checkpoint
# from {load_dir} [ t {tp}/{tp_size}, p {pp}/{pp_size} ] at iteration {iteration}`` (older
# releases and Megatron-DeepSpeed: ``  successfully loaded checkpoint from {} at iteration
# {}``). A run resumes there: with ``--no-load-optim`` its scaler starts over from
# ``--initial-loss-scale`` and backs off again, while the counter goes on.
_LOADED = re.compile(r"successfully loaded checkpoint from \S+ (?:\[[^\]]*\] )?at iteration \d+")


class Scales:
    """Megatron's loss scale read across the iteration lines of one log: the last scale above
    0 as printed, and the lines' interval, so that a ``0.0`` is judged by how far that scale
    can have halved (``scale_prints.rounded_zero``). A scale backs off only on a skipped
    iteration, and each line counts its interval's: over one interval the scale halved at
    most that many times; over a longer gap (lines cut from an excerpt), once an iteration.

    Example:
        >>> scales = Scales()
        >>> scales.printed("1.0", 40); scales.read(40); scales.read(41)
        >>> scales.below("0.0", 42, skipped=0), scales.below("0.0", 420, skipped=0)
        (None, 0.1)
    """

    def __init__(self) -> None:
        self._spelled: str | None = None  # the last scale above 0, as printed
        self._at = -1  # ... its iteration
        self._line = -1  # the last iteration line's iteration
        self._interval: int | None = None  # the iterations between the last two lines

    def printed(self, spelled: str, iteration: int) -> None:
        """Note a scale above 0 printed at ``iteration``."""
        self._spelled, self._at = spelled, iteration

    def read(self, iteration: int) -> None:
        """Note an iteration line read (after its scale is judged)."""
        if iteration > self._line >= 0:
            self._interval = iteration - self._line
        self._line = iteration

    def below(self, zero: str, iteration: int, skipped: int) -> float | None:
        """The bound a scale printed as ``zero`` at ``iteration`` is below, or None where it
        is exactly 0 (see ``scale_prints.rounded_zero``)."""
        if self._spelled is None:
            return 10.0 ** -decimals(zero)  # (a {:.1f} print, nothing before it to judge by)
        halvings = iteration - self._at if iteration > self._at else None
        if (halvings is not None and self._line == self._at
                and iteration - self._line == self._interval):
            halvings = min(halvings, skipped)  # the next line: its interval's skips
        return rounded_zero(zero, self._spelled, halvings)


def parse(text: str, scales: Scales | None = None) -> list[LogEvent]:
    """Events on one Megatron-LM line (``scales``: the log's scale so far, where read across
    lines).

    Example:
        >>> e = parse(" [2026-01-01 00:00:00] iteration       20/     100 | lm loss: 2.1E+00 |"
        ...           " loss scale: 1024.0 | number of skipped iterations:   3 |"
        ...           " number of nan iterations:   0 |")[0]
        >>> e.step, e.loss, e.scale_after, e.skipped_in_interval
        (20, 2.1, 1024.0, 3)
    """
    if "found " in text and (found := _LOCAL.search(text)):
        kind, where = found.groups()
        rank = _RANK.search(text)
        at = _ITER_AT.search(text)
        what = "loss" if where.startswith("forward") else "gradient norm"
        return [LogEvent(
            FLAG, FAMILY, code="AMP006", rank=to_int(rank.group(1)) if rank else None,
            step=to_int(at.group(1)) if at else None,
            loss=float(kind.lower()) if what == "loss" else None,
            summary=f"Megatron found {kind} in the local {what}"
                    + (f" on rank {rank.group(1)}" if rank else ""))]
    if "iteration" not in text:
        return []
    if "loss scale" not in text and "lm loss" not in text and "skipped iterations" not in text:
        # (a bf16 run's line whose loss Megatron left out: no loss scale, no loss, its skip
        # count still printed)
        if "loaded checkpoint" in text and _LOADED.search(text):
            return [LogEvent(SETUP, FAMILY, setup={RUN_START: True})]
        return []
    found = _ITERATION.search(text)
    if found is None:
        return []
    fields = {key.strip().lower(): value for key, value in _FIELD.findall(text)}
    loss = next((to_float(v) for k, v in fields.items()
                 if k.endswith("loss") and k != "loss scale" and not k.startswith(_AUXILIARY)),
                None)
    skipped = to_int(fields.get("number of skipped iterations")) or 0
    if loss == 0.0 and skipped:
        # The interval's losses are summed over its applied iterations only and divided by
        # max(1, applied): with every iteration skipped the average is an empty 0. Megatron-LM
        # leaves it out (``if avg > 0.0``); GPT-NeoX's training_log prints it
        # (``lm_loss: 0.000000E+00``): no loss the model had.
        loss = None
    scale = to_float(spelled := fields.get("loss scale"))
    iteration = int(found.group(1))
    evidence = None
    if scale == 0.0 and spelled is not None:
        # ``{:.1f}`` prints every scale below 0.05 as ``0.0``: a scale the print rounded to
        # 0, not one that is 0 (see scale_prints), unless the scale printed before could not
        # have halved that far since; read as the most that prints so
        below = (10.0 ** -decimals(spelled) if scales is None
                 else scales.below(spelled, iteration, skipped))
        if below is not None:
            scale, evidence = 0.5 * below, {SCALE_BELOW: below}
    elif scales is not None and spelled is not None and scale is not None and scale > 0.0:
        scales.printed(spelled, iteration)
    if scales is not None:
        scales.read(iteration)
    return [LogEvent(
        METRICS, FAMILY, step=iteration, loss=loss, scale_after=scale,
        evidence=evidence,
        grad_norm=to_float(fields.get("grad norm")), lr=to_float(fields.get("learning rate")),
        skipped_in_interval=skipped,
        nan_in_interval=to_int(fields.get("number of nan iterations")) or 0,
    )]
