"""False alarms, round four: what trainers print before and around training (argument dumps,
banners, restarts), each excerpt written from the tool's own format string (each test names
it).

- DeepSpeed (microsoft/DeepSpeed ``deepspeed/runtime/fp16/loss_scaler.py``
  ``DynamicLossScaler.update_scale``: ``f"[deepspeed] OVERFLOW! Rank {dist.get_rank()} Skipping
  step. Attempted loss scale: {int(self.cur_scale)}, reducing to {int(next_scale)}"``, and the
  hysteresis line before it; ``deepspeed/runtime/engine.py`` ``log_dist(f"step={...},
  skipped={...}, lr={lr}, mom={mom}")``) under the HF Trainer (``src/transformers/trainer.py``
  logs ``{'loss': ..., 'learning_rate': ..., 'epoch': ...}``): two healthy runs in one file (a
  sweep, or a rerun appended to the same log) with no engine configuration dump between them;
  and in 0.3-0.16's wordings (``fused_optimizer.py``: ``fp16 dynamic loss scale overflow!``,
  ``Grad overflow on iteration {}`` / ``Reducing dynamic loss scale from {} to {}``).
  Each run backs off from its initial scale at its start. Before the fix the doctor read the
  second run's back-off as persistent overflow once training was under way: AMP003.
- apex (NVIDIA/apex ``apex/amp/scaler.py`` ``update_scale``: ``"Gradient overflow.  Skipping
  step, loss scaler {} reducing loss scale to {}"``, printing only the new scale): the same
  sweep. Before the fix: AMP003.
- Megatron-LM resumed without its optimizer's state (``--no-load-optim``: ``megatron/
  checkpointing.py`` ``load_checkpoint`` loads the grad scaler with the optimizer, and prints
  ``f"  successfully loaded checkpoint from {args.load} at iteration {iteration}"``): the
  iteration counter goes on from the checkpoint's, the scaler backs off from
  ``initial_loss_scale`` 2**32 again (``training_log``'s rows, ``megatron_line``). Before the
  fix: AMP003 and AMP008 at the first resumed iteration.
- Megatron-DeepSpeed (microsoft/Megatron-DeepSpeed ``megatron/training.py`` ``training_log``'s
  rows, DeepSpeed's overflow line for each skipped iteration before them): a sweep (the second
  run's overflow lines come before its first row, whose counter went back) and a resume
  without the optimizer's state at ``--log-interval 100``. Before the fix: AMP003 (the sweep
  at iteration 11 of the second run, the resume at 20001).
- Megatron-LM's argument dump (``megatron/arguments.py`` ``_print_args``: ``'  {} {} {}'.format(
  arg, '.' * (48 - len(arg)), value)`` between the ``arguments`` rules), fp16 settings and
  NaN-check switches in it, before a healthy run (control).

The sweep and resume tests failed on the parent commit (b9d95c6); the twins and the
argument-dump control pass there too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults, megatron_line

_DS = "[2026-01-01 10:00:00,000] [INFO] "
_HF_BANNER = ["***** Running training *****", "  Num examples = 8,000", "  Num Epochs = 3",
              "  Instantaneous batch size per device = 8",
              "  Total optimization steps = 3,000"]


def _hf_row(step: int, loss: float) -> str:
    """The HF Trainer's logged dict (``Trainer.log``)."""
    return str({"loss": round(loss, 4), "learning_rate": 5e-05, "epoch": round(step / 1000, 2)})


def _ds_overflow(scale: int, *, hysteresis: bool = False) -> str:
    """DeepSpeed's overflow line; with ``hysteresis`` the first one of a run (hysteresis 2)."""
    head = f"{_DS}[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step."
    if hysteresis:
        return (f"{head} Attempted loss scale: {scale}, but hysteresis is 2. Reducing "
                "hysteresis to 1")
    return f"{head} Attempted loss scale: {scale}, reducing to {scale // 2}"


def _ds_run(steps: int, *, backoff: int = 8, every: int = 10,
            cascade_at: int | None = None, cascade_from: int = 65536) -> list[str]:
    """One DeepSpeed fp16 run from ``initial_scale_power`` 16: the hysteresis line and
    ``backoff`` halvings on its first steps, then clean steps, a step line and an HF dict each
    ``every`` steps. ``cascade_at``: from that step on every step overflows, from
    ``cascade_from`` down (a real persistent overflow)."""
    lines: list[str] = []
    scale, skipped = 65536, 0
    for step in range(1, steps + 1):
        overflow = step <= backoff + 1 or (cascade_at is not None and step >= cascade_at)
        if cascade_at is not None and step == cascade_at:
            scale = cascade_from
        if overflow:
            skipped += 1
            lines.append(_ds_overflow(scale, hysteresis=step == 1))
            if step > 1:
                scale //= 2
        if step % every == 0:
            lines.append(f"{_DS}[logging.py:96:log_dist] [Rank 0] step={step}, "
                         f"skipped={skipped}, lr=[5e-05], mom=[(0.9, 0.999)]")
            if not overflow:
                lines.append(_hf_row(step, 2.5 * 0.9995 ** step))
    return lines


def _apex_run(steps: int, *, backoff: int = 8) -> list[str]:
    """One apex amp O1 run from its initial 65536: ``backoff`` halvings on its first steps,
    then an HF dict each 10 steps."""
    lines: list[str] = []
    scale = 65536.0
    for step in range(1, steps + 1):
        if step <= backoff:
            scale /= 2
            lines.append("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale "
                         f"to {scale}")
        if step % 10 == 0:
            lines.append(_hf_row(step, 2.5 * 0.9995 ** step))
    return lines


@pytest.mark.parametrize("steps", [300, 2000])
@pytest.mark.parametrize("banner", [[], _HF_BANNER])
def test_deepspeed_sweep_without_config_dump_is_quiet(tmp_path: Path, steps: int,
                                                      banner: list[str]) -> None:
    """Two healthy DeepSpeed runs in one file, no engine configuration dump between them
    (with and without the HF Trainer's banner, which its logger prints only at INFO): the
    second run's start-up back-off from 65536 is no collapse of the first run's scale (256).
    Before the fix: AMP003 at the second run's first overflow."""
    assert faults(tmp_path, _ds_run(steps) + banner + _ds_run(steps)) == []


def _ds_older_overflow(step: int, scale: int, wording: str) -> list[str]:
    """DeepSpeed 0.3-0.16's overflow lines (``deepspeed/runtime/fp16/fused_optimizer.py``):
    ``"[deepspeed] fp16 dynamic loss scale overflow! Skipping step. Attempted loss scale: {},
    reducing to {}"`` in ``step``, or ``_update_scale``'s ``"Grad overflow on iteration {}"``
    and ``"Reducing dynamic loss scale from {} to {}"``."""
    head = f"{_DS}[fused_optimizer.py:290:_update_scale] "
    if wording == "iteration":
        return [f"{head}Grad overflow on iteration {step}",
                f"{head}Reducing dynamic loss scale from {scale} to {scale // 2}"]
    return [f"{head}[deepspeed] fp16 dynamic loss scale overflow! Skipping step. Attempted "
            f"loss scale: {scale}, reducing to {scale // 2}"]


def _ds_older_run(steps: int, wording: str) -> list[str]:
    lines: list[str] = []
    for step in range(1, steps + 1):
        if step <= 8:
            lines += _ds_older_overflow(step, 65536 >> (step - 1), wording)
        if step % 10 == 0:
            lines.append(f"{_DS}[logging.py:96:log_dist] [Rank 0] step={step}, "
                         f"skipped={min(step, 8)}, lr=[5e-05], mom=[(0.9, 0.999)]")
            lines.append(_hf_row(step, 2.5 * 0.9995 ** step))
    return lines


@pytest.mark.parametrize("steps", [300, 2000])
@pytest.mark.parametrize("wording", ["iteration", "attempted"])
def test_deepspeed_older_wordings_sweep_is_quiet(tmp_path: Path, steps: int,
                                                 wording: str) -> None:
    """The same sweep in DeepSpeed 0.3-0.16's wordings. Before the fix: AMP003 at the
    second run's first overflow (at step 1 where the line names its iteration)."""
    assert faults(tmp_path, _ds_older_run(steps, wording) + _ds_older_run(steps, wording)) == []


@pytest.mark.parametrize("steps", [300, 2000])
def test_apex_sweep_is_quiet(tmp_path: Path, steps: int) -> None:
    """Two healthy apex runs in one file: apex prints only the new scale, 32768 at the second
    run's first overflow, 128 times the first run's last. Before the fix: AMP003."""
    assert faults(tmp_path, _apex_run(steps) + _apex_run(steps)) == []


def test_deepspeed_regrown_scale_cascade_stays_amp003(tmp_path: Path) -> None:
    """Twin of the sweep rule: one run whose scale regrew from 256 to 65536 over 9000 clean
    steps (eight growth windows of 1000), then overflows on every step from step 9001: the
    regrowth had the steps it needed, so this is no new run; still AMP003 there (as on the
    parent), the scale near zero from step 9017 (AMP004)."""
    found = faults(tmp_path, _ds_run(9100, every=100, cascade_at=9001))
    assert found == [("AMP003", 9001), ("AMP004", 9017)], found


def test_deepspeed_sweep_second_run_collapse_stays_flagged(tmp_path: Path) -> None:
    """Twin: the second run of a sweep backs off from 65536 and never stops (every step
    overflows down to the scale's floor): the new run's own collapse is still found, from its
    first step (301), as on the parent."""
    found = faults(tmp_path, _ds_run(300) + _ds_run(60, backoff=59))
    assert found == [("AMP003", 301), ("AMP004", 318)], found


def _megatron_arguments() -> list[str]:
    """Megatron-LM's argument dump (``_print_args``), sorted as it sorts them."""
    args = {"bf16": False, "check_for_nan_in_loss_and_grad": True, "clip_grad": 1.0,
            "fp16": True, "fp16_lm_cross_entropy": False, "hysteresis": 2,
            "initial_loss_scale": 4294967296, "log_num_zeros_in_grad": False,
            "loss_scale": None, "loss_scale_window": 1000, "min_loss_scale": 1.0,
            "skip_train": False, "train_iters": 500000, "weight_decay": 0.0}
    rows = sorted((f"  {k} {'.' * (48 - len(k))} {v}" for k, v in args.items()),
                  key=str.lower)
    return (["------------------------ arguments ------------------------", *rows,
             "-------------------- end of arguments ---------------------"])


def test_megatron_argument_dump_before_a_healthy_run_control(tmp_path: Path) -> None:
    """Control (quiet on the parent too): ``loss_scale ... None``, ``min_loss_scale ... 1.0``,
    ``check_for_nan_in_loss_and_grad ... True``, ``weight_decay ... 0.0`` above a healthy run
    at 65536, then the same again (a resumed run, counter back at 10)."""
    run = [megatron_line(i, loss=2.5 * 0.999 ** i) for i in range(10, 3010, 10)]
    assert faults(tmp_path, _megatron_arguments() + run + _megatron_arguments() + run) == []


def _megatron_run(first: int, last: int, *, fresh: bool = True, backoff: int = 16) -> list[str]:
    """Megatron rows each 10 iterations from ``first`` + 10 to ``last``; ``fresh``: the scaler
    starts at 2**32 and its first ``backoff`` iterations are skipped (halving each), as every
    fp16 Megatron run's start (rows whose 10 iterations were all skipped print no loss)."""
    lines: list[str] = []
    scale, left = (4294967296.0, backoff) if fresh else (65536.0, 0)
    for iteration in range(first + 10, last + 1, 10):
        skipped = min(10, left)
        left -= skipped
        scale = max(scale / 2 ** skipped, 1.0)
        loss = None if skipped == 10 else 2.5 * 0.9999 ** iteration
        lines.append(megatron_line(iteration, loss=loss, scale=scale, skipped=skipped))
    return lines


_LOADED = ["  loading checkpoint from /ckpt at iteration 2000",
           "  successfully loaded checkpoint from /ckpt at iteration 2000"]


@pytest.mark.parametrize("banner", [[], _LOADED])
def test_megatron_resume_without_optimizer_state_is_quiet(tmp_path: Path,
                                                          banner: list[str]) -> None:
    """A healthy Megatron run to iteration 2000 at 65536, resumed from its checkpoint at
    2000 with ``--no-load-optim``: the row at 2010 prints 4194304 (64 times 65536, ten
    iterations later, all ten skipped): no scaler grows while it skips, so a new scaler
    backs off. Before the fix: AMP003 and AMP008 at iteration 2001."""
    assert faults(tmp_path, _megatron_run(0, 2000) + banner + _megatron_run(2000, 4000)) == []


def test_megatron_resumed_scaler_that_never_settles_stays_flagged(tmp_path: Path) -> None:
    """Twin: the same resume, whose scaler backs off and never stops (every iteration skipped
    down to the floor of 1): the resumed run's own collapse is still found at its first
    iteration, 2001 (as on the parent)."""
    found = faults(tmp_path, _megatron_run(0, 2000) + _LOADED
                   + _megatron_run(2000, 2200, backoff=200))
    assert found == [("AMP003", 2001)], found


def _megatron_deepspeed_run(first: int, last: int, every: int) -> list[str]:
    """Megatron-DeepSpeed rows each ``every`` iterations, a fresh scaler backing off from
    2**32 over its first 16 iterations, each skip's DeepSpeed overflow line before its row."""
    lines: list[str] = []
    scale, left = 4294967296, 16
    for iteration in range(first + every, last + 1, every):
        skipped = min(every, left)
        left -= skipped
        for _ in range(skipped):
            lines.append(_ds_overflow(scale))
            scale //= 2
        loss = None if skipped == every else 2.5 * 0.9999 ** iteration
        lines.append(megatron_line(iteration, loss=loss, scale=float(scale), skipped=skipped))
    return lines


def test_megatron_deepspeed_sweep_is_quiet(tmp_path: Path) -> None:
    """Two healthy Megatron-DeepSpeed runs in one file: the second run's ten overflow lines
    come before its row at iteration 10. Before the fix: AMP003 at a step within 11-20 (the
    ten read as applied steps, the next six as a cascade once training was under way)."""
    run = _megatron_deepspeed_run(0, 2000, 10)
    assert faults(tmp_path, run + run) == []


def test_megatron_deepspeed_resume_without_optimizer_state_is_quiet(tmp_path: Path) -> None:
    """Resumed at iteration 20000 without the optimizer's state, rows each 100 iterations:
    the overflow line attempting 2**32 one iteration after a row at 65536. Before the fix:
    AMP003 at 20001."""
    loaded = [line.replace("2000", "20000") for line in _LOADED]
    lines = (_megatron_deepspeed_run(0, 20000, 100) + loaded
             + _megatron_deepspeed_run(20000, 40000, 100))
    assert faults(tmp_path, lines) == []
