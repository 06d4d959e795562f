"""False alarms, round eleven: runs appended to one log, and healthy runs under unusual but
legitimate settings, each excerpt written from the tool's own format strings (each builder
names its source) or made of the suite's recorded DeepSpeed runs.

- Two recorded healthy DeepSpeed 0.19.8 runs in one file (``corpus/deepspeed_zero2_healthy.log``
  then ``deepspeed_zero2_sawtooth.log``). Before: AMP003 at 7 ("the loss jumped to 5.5e28
  ... beside an overflow"). The real reason was the step count, not the jump: the second run
  counts from 1 again, only 39 steps behind the first run's 40 (within ``RESTART_BACK``, the
  slack for interleaved ranks), so the assembler's clock stayed at 40, its first overflow
  line was numbered 41 and the row of the overflowed step (``train step 7 loss 5.5e28``, the
  scaled loss of a skipped step) was read as an applied step of its own beside it. Now a line
  that starts a run (DeepSpeed's configuration dump, and every other ``run_start`` line) opens
  a new count: the next step counter a line prints, at or below the clock, is the new run's
  (``Assembler._counts_anew``).
- The recorded fault runs (collapse, hysteresis collapse, the exit at ``min_loss_scale``, the
  bf16 run's non-finite steps) appended after the healthy one: before, numbered on from the
  first run (AMP003 at 41 or 46 where the run alone says 12 or 10); now at their own steps.
- A fresh run appended after a fine-tune whose loss had converged to 0.0004: its first loss
  (2.5) beside its own start-up overflow read as "the loss jumped 6000x". Now a run begun
  again in the log forgets the last run's losses (``ExcerptJudge._new_run``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from excerpts import faults

CORPUS = Path(__file__).parent / "corpus"


def _recorded(name: str) -> list[str]:
    """A recorded DeepSpeed 0.19.8 run of the suite's corpus (made by running DeepSpeed on
    CPU: each ``.expected.json`` says how), its lines as the file holds them."""
    return (CORPUS / f"deepspeed_zero2_{name}.log").read_text(encoding="utf-8").splitlines()


def _expected(name: str) -> list[tuple[str, int]]:
    """The (id, step) of each fault the recorded run shows on its own."""
    found = json.loads((CORPUS / f"deepspeed_zero2_{name}.expected.json").read_text())
    return [(fault["id"], fault["step"]) for fault in found["faults"]]


def test_two_recorded_healthy_deepspeed_runs_in_one_file_are_quiet(tmp_path: Path) -> None:
    """The healthy run then the sawtooth (every 7th step's loss times 1e30: an overflow, the
    scale growing back between), as ``cat`` appends them. Before: AMP003 at 7."""
    assert faults(tmp_path, _recorded("healthy") + _recorded("sawtooth")) == []


def test_recorded_healthy_runs_the_other_way_round_control(tmp_path: Path) -> None:
    """Control: the sawtooth first, the healthy run after. Quiet on the parent too."""
    assert faults(tmp_path, _recorded("sawtooth") + _recorded("healthy")) == []


@pytest.mark.parametrize("name", ["collapse", "hysteresis_collapse", "min_scale_exit",
                                  "bf16_nonfinite"])
def test_recorded_fault_run_appended_keeps_its_own_steps(tmp_path: Path, name: str) -> None:
    """A recorded fault run appended after the 40 healthy steps, its counter back at 1 (39
    behind): its faults at its own steps, as alone. Before: numbered on from step 40."""
    assert faults(tmp_path, _recorded("healthy") + _recorded(name)) == _expected(name)


_STAMP = "[2026-12-07 10:00:00,000] [INFO] "


def _ds_dump(power: int = 16) -> str:
    """DeepSpeed 0.19's configuration dump line of its fp16 config
    (deepspeedai/DeepSpeed ``deepspeed/runtime/config.py`` ``DeepSpeedConfig.print``:
    ``"  {} {} {}".format(arg, dots, getattr(self, arg))``, ``float16_config`` a
    ``DeepSpeedFP16Config`` of ``deepspeed/runtime/precision_config.py``), printed once per
    ``deepspeed.initialize``."""
    return (f"{_STAMP}[config.py:678:print]   float16_config ............... enabled=True "
            f"auto_cast=False loss_scale=0.0 initial_scale_power={power} loss_scale_window=1000 "
            "hysteresis=1 consecutive_hysteresis=False min_loss_scale=1 "
            "fp16_master_weights_and_grads=False")


def _ds_run(steps: int, losses: list[float], *, backoff: int = 0, power: int = 16) -> list[str]:
    """One DeepSpeed fp16 run as the recorded runs print it: its dump, then per step the
    engine's ``_report_progress`` (deepspeedai/DeepSpeed ``deepspeed/runtime/engine.py``:
    ``f"step={self.global_steps}, skipped={self.skipped_steps}, lr={lr}, mom={mom}"``), the
    overflow line of ``DynamicLossScaler.update_scale`` (``deepspeed/runtime/fp16/
    loss_scaler.py``: ``f"[deepspeed] OVERFLOW! Rank {dist.get_rank()} Skipping step.
    Attempted loss scale: {prev_scale}, reducing to {self.cur_scale}"``) on the first
    ``backoff`` steps, and the script's own ``train step {step} loss {loss:.4f}``; the
    loss of step ``s`` is ``losses[(s - 1) % len(losses)]``."""
    lines, scale, skipped = [_ds_dump(power)], 2 ** power, 0
    for step in range(1, steps + 1):
        if step <= backoff:
            lines.append(f"{_STAMP}[loss_scaler.py:266:update_scale] [deepspeed] OVERFLOW! Rank "
                         f"0 Skipping step. Attempted loss scale: {scale}, reducing to "
                         f"{scale // 2}")
            scale, skipped = scale // 2, skipped + 1
        lines.append(f"{_STAMP}[logging.py:123:log_dist] [Rank 0] step={step}, "
                     f"skipped={skipped}, lr=[0.001], mom=[(0.9, 0.999)]")
        lines.append(f"train step {step} loss {losses[(step - 1) % len(losses)]:.4f}")
    return lines


def test_fresh_run_after_a_converged_fine_tune_is_quiet(tmp_path: Path) -> None:
    """A fine-tune whose loss sits at 0.0004 (its start pasted away), then a fresh run of the
    same script with its start-up back-off (three overflows from 65536) and a loss of 2.5:
    no jump of one run's loss. Before: AMP003 ("the loss jumped ... beside an overflow")."""
    tuned = _ds_run(40, [0.0004, 0.0005, 0.0003])
    fresh = _ds_run(40, [2.5 - i / 100 for i in range(40)], backoff=3)
    assert faults(tmp_path, tuned + fresh) == []


def test_explosion_within_one_run_fault_twin(tmp_path: Path) -> None:
    """Fault twin: within one run a loss at 0.0004 that jumps to 2.5 beside an overflow and
    stays up is the loss exploding: still AMP003 at the jump."""
    losses = [0.0004] * 20 + [2.5] * 20
    lines = _ds_run(40, losses)
    at = lines.index("train step 21 loss 2.5000")
    lines.insert(at - 1, f"{_STAMP}[loss_scaler.py:266:update_scale] [deepspeed] OVERFLOW! "
                 "Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
    found = faults(tmp_path, lines)
    assert found and found[0][0] == "AMP003", found
