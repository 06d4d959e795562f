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
- The same runs pasted without their start-up lines (from each run's first ``step=1``
  line): before, as above. DeepSpeed's engine counter (``step=N, skipped=K``) is printed by
  rank 0 alone (``log_dist(..., ranks=[0])``), so no other rank's copy interleaves with it:
  it going back at all begins a run (``events.SOLE_COUNT``, ``Assembler._sole_back``).
- fairseq runs appended to one log, the second's scale collapsing from its 21st update:
  before, AMP004 at 49 only with the configuration line between (AMP003 lost), AMP003 at 41
  without it; now AMP003 at 21 and AMP004 at 29 as the run alone, by the new count after the
  configuration line, or without it by the row whose scale fell below the last run's with its
  counter gone back (see the bf16 resume below).
- A fresh run appended after a fine-tune whose loss had converged to 0.0004: its first loss
  (2.5) beside its own start-up overflow read as "the loss jumped 6000x". Now a run begun
  again in the log forgets the last run's losses (``ExcerptJudge._new_run``).
- A WGAN critic's loss (``D(fake) - D(real)``, about 0 and of either sign) that swings to
  1.3 two steps after a sawtooth overflow, then back. Before: AMP003 ("the loss jumped to
  1.3, 1000x its recent median"): the median of values around 0 is near 0, so any swing is a
  thousandfold. Now a run whose loss went below 0 is judged by no such ratio
  (``ExcerptJudge.signed_loss``); its NaN is still AMP006.
- Controls (as on the parent): a DeepSpeed run resumed from its checkpoint (its dump again,
  ``step=0`` printed at initialize before the checkpoint's count is loaded, then its count
  going on, or back 20 steps) keeps its collapse's steps.
- Tried and already quiet on the parent (not kept as tests): a loop's run resumed three and
  four times (its counter back a few steps, its scale at 65536 again or kept), Megatron-LM
  resumed three times with ``loaded checkpoint`` lines (and its NaN after a resume found at
  its iteration), DeepSpeed resumed three times with a fresh scaler's back-off each time,
  HF rows whose ``amp/loss_scale`` goes to 1.0, a perplexity of ``inf`` at step 0, a scale
  printed as its log2 (``log2 scale 16``), a loss about 0 under apex's overflow lines, and a
  negative ELBO-like or WGAN loss far from 0.
- Not fixed here (a strict xfail, fixed since by h49-fixD): two HF Trainer runs in one file
  whose rows print no step, the run summary (``train_runtime``) between them: the second
  run's rows were numbered on from the first's (its NaN at row 10 said at 30). Now the first
  row after the summary back at the epoch of the log's first row begins its run's count
  again; a resumed run prints its epochs on from its checkpoint's, and is numbered on as before.
- An fp16 run resumed in bf16 from its checkpoint, the step counter going on (or back less
  than ``RESTART_BACK``), no banner in the excerpt: the printed scale falls from 8192 (or
  Megatron's 65536) to 1.0 in one row (torch's disabled ``GradScaler.get_scale()`` is 1.0;
  Megatron prints ``loss scale: 1.0`` without a grad scaler). Before: AMP003 ("loss scale
  fell from 8192 to 1 (13 halvings) in 1 steps"). Now a fall by more halvings than the steps
  between the two rows (or the skips a Megatron row counts) is another scaler: a run begins
  (``scale_steps.fell_faster``, read by the assembler). A collapse one halving a step, or
  over an interval with as many skips, is still AMP003.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults, hf_rows, megatron_line

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


def _bart(step: int, loss: float, scale: float) -> str:
    """NVIDIA/DeepLearningExamples ``PyTorch/LanguageModeling/BART/training_base.py``
    (``generic_train``): ``'Step:{step:6d}, Loss:{total_loss:10.6f}, Perf:{train_perf:4.2f},
    Loss Scaler: {loss_scale}, Elapsed: {elapsed}, ETA: {eta}'``, ``loss_scale`` being
    ``scaler.get_scale()`` (1.0 where the scaler is disabled: torch ``GradScaler.get_scale``)."""
    return (f"Step:{step:6d}, Loss:{loss:10.6f}, Perf:{123.45:4.2f}, Loss Scaler: {scale}, "
            "Elapsed: 1h:02m:03s, ETA: 3h:04m:05s")


def _bart_fp16(last: int = 5000) -> list[str]:
    """An fp16 run logged every 10 steps: its start-up back-off from 65536 to 8192, then
    steady."""
    return [_bart(s, 3.0 - s / 1e4, 8192.0 if s > 30 else 65536.0 / 2 ** min(s // 10, 3))
            for s in range(10, last + 10, 10)]


@pytest.mark.parametrize("first", [5010, 4990])
def test_fp16_run_resumed_in_bf16_is_quiet(tmp_path: Path, first: int) -> None:
    """Resumed in bf16 from the checkpoint of step 5000 (5010 on), or of 4980 (4990 on,
    20 steps back): ``Loss Scaler: 1.0`` on every row. Before: AMP003 at 5010 (at 5000)."""
    bf16 = [_bart(s, 3.0 - s / 1e4, 1.0) for s in range(first, 8010, 10)]
    assert faults(tmp_path, _bart_fp16() + bf16) == []


def test_megatron_resumed_in_bf16_without_its_banner_is_quiet(tmp_path: Path) -> None:
    """Megatron-LM resumed in bf16 at iteration 2010, pasted from below its ``loaded
    checkpoint`` line: ``loss scale: 1.0`` after 65536 with no skipped iteration. Before:
    AMP003 at 2010."""
    fp16 = [megatron_line(i, loss=2.5 - i / 1e4, scale=65536.0) for i in range(10, 2010, 10)]
    bf16 = [megatron_line(i, loss=2.5 - i / 1e4, scale=1.0) for i in range(2010, 4010, 10)]
    assert faults(tmp_path, fp16 + bf16) == []


def test_collapse_one_halving_a_step_fault_twin(tmp_path: Path) -> None:
    """Fault twin: the scale halving on each row (8192 -> 1 in 13 rows of 10 steps) is a
    collapse still: AMP003 at 5010, as on the parent."""
    falls = [_bart(s, 3.0 - s / 1e4, max(8192.0 / 2 ** ((s - 5000) // 10), 1.0))
             for s in range(5010, 5300, 10)]
    assert faults(tmp_path, _bart_fp16() + falls) == [("AMP003", 5010)]


def test_megatron_collapse_with_its_skips_fault_twin(tmp_path: Path) -> None:
    """Fault twin: Megatron rows that count all ten iterations skipped while the scale falls
    to 1.0 (no more halvings than skips): still AMP003 from the first skipped iteration."""
    fp16 = [megatron_line(i, loss=2.5 - i / 1e4, scale=65536.0) for i in range(10, 2010, 10)]
    falls = [megatron_line(2010, loss=None, scale=65536.0 / 2 ** 9, skipped=10)]
    falls += [megatron_line(i, loss=None, scale=1.0, skipped=10) for i in range(2020, 2100, 10)]
    assert faults(tmp_path, fp16 + falls) == [("AMP003", 2001)]


def test_bf16_resume_then_nan_keeps_only_the_nan(tmp_path: Path) -> None:
    """Twin: the bf16 resume's loss turning NaN at 6000 is AMP006 there, and only that (the
    parent added AMP003 at 5010)."""
    bf16 = [_bart(s, 3.0 - s / 1e4 if s < 6000 else float("nan"), 1.0)
            for s in range(5010, 6500, 10)]
    assert faults(tmp_path, _bart_fp16() + bf16) == [("AMP006", 6000)]


def _bodies(*names: str) -> list[str]:
    """Recorded runs pasted from each one's first ``step=1`` line on (no start-up lines)."""
    out: list[str] = []
    for name in names:
        lines = _recorded(name)
        out += lines[next(i for i, line in enumerate(lines) if "step=1," in line):]
    return out


def test_recorded_healthy_runs_without_start_up_lines_are_quiet(tmp_path: Path) -> None:
    """The healthy run and the sawtooth, each from its first ``step=1`` line. Before: AMP003
    at 7."""
    assert faults(tmp_path, _bodies("healthy", "sawtooth")) == []


@pytest.mark.parametrize("name", ["collapse", "min_scale_exit", "bf16_nonfinite"])
def test_recorded_fault_run_without_start_up_lines_keeps_its_steps(tmp_path: Path,
                                                                   name: str) -> None:
    """A recorded fault run after the healthy one, both from their first ``step=1`` line: its
    faults at its own steps. Before: at 41 (AMP006 of the bf16 run too)."""
    assert faults(tmp_path, _bodies("healthy", name)) == _expected(name)


_FS = "2026-12-07 10:00:00 | INFO | "


def _fairseq(updates: int, collapse_from: int | None = None, banner: bool = True) -> list[str]:
    """A fairseq fp16 run (facebookresearch/fairseq): ``fairseq_cli/train.py`` logs its
    config (``logger.info(cfg)``), ``fairseq/trainer.py`` its overflows (``"NOTE: gradient
    overflow detected, ignoring gradient, setting loss scale to: " + str(new_scale)``), the
    progress bar its ``train_inner`` rows every ``log_interval`` 10 (``num_updates`` counting
    applied updates); the scaler (``fairseq/optim/dynamic_loss_scaler.py``) from
    ``fp16_init_scale`` 128 grows every 16 clean iterations, and here a batch overflows at
    1024 or more; with ``collapse_from`` every batch from that update on."""
    lines = [f"{_FS}fairseq_cli.train | {{'_name': None, 'common': {{'_name': None, "
             "'log_interval': 10, 'fp16': True, 'fp16_init_scale': 128, "
             "'fp16_scale_window': 16, 'min_loss_scale': 0.0001}}"] if banner else []
    scale, it, last_overflow, num, batch = 128.0, 0, -1, 0, 0
    while num < updates and scale >= 1e-4:
        batch += 1
        if scale >= 1024 or (collapse_from is not None and num >= collapse_from):
            last_overflow, scale, it = it, scale / 2, it + 1
            lines.append(f"{_FS}fairseq.trainer | NOTE: gradient overflow detected, ignoring "
                         f"gradient, setting loss scale to: {scale}")
            continue
        if (it - last_overflow) % 16 == 0:
            scale *= 2
        it, num = it + 1, num + 1
        if num % 10 == 0:
            lines.append(f"{_FS}train_inner | epoch 001:  {batch:5d} / 5000 loss="
                         f"{9 - num / 1000:.3f}, nll_loss={8.6 - num / 1000:.3f}, ppl="
                         f"{2 ** (8.6 - num / 1000):.2f}, wps=120000, ups=3.2, wpb=40000, "
                         f"bsz=128, num_updates={num}, lr=0.0005, gnorm=1.2, loss_scale="
                         f"{scale:g}, train_wall=30, gb_free=10, wall={num}")
    return lines


@pytest.mark.parametrize("banner", [True, False])
def test_fairseq_run_appended_keeps_its_own_steps(tmp_path: Path, banner: bool) -> None:
    """A fairseq run of 40 updates, then a run whose every batch overflows from its 21st
    update: AMP003 at 21 and AMP004 at 29, as the second run alone says. Before: AMP004 at
    49 alone (with the configuration lines), AMP003 at 41 and AMP004 at 49 (without)."""
    alone = faults(tmp_path, _fairseq(100, collapse_from=20, banner=banner))
    assert alone == [("AMP003", 21), ("AMP004", 29)]
    appended = _fairseq(40, banner=banner) + _fairseq(100, collapse_from=20, banner=banner)
    assert faults(tmp_path, appended) == alone


def test_fairseq_two_healthy_runs_control(tmp_path: Path) -> None:
    """Control: two healthy fairseq runs appended (their sawtooth each). Quiet on the parent
    too."""
    assert faults(tmp_path, _fairseq(40) + _fairseq(300)) == []


def _critic_run(losses: list[float], overflows: set[int]) -> list[str]:
    """A WGAN critic trained under DeepSpeed fp16 (``initial_scale_power`` 10): the engine's
    progress and overflow lines (as ``_ds_run``) and the loop's own ``print(f"train step
    {step} loss {loss:.4f}")`` of the critic's loss; an overflow before each step of
    ``overflows``."""
    lines, skipped = [_ds_dump(10)], 0
    for step, loss in enumerate(losses, 1):
        if step in overflows:
            lines.append(f"{_STAMP}[loss_scaler.py:266:update_scale] [deepspeed] OVERFLOW! Rank "
                         "0 Skipping step. Attempted loss scale: 1024, reducing to 512")
            skipped += 1
        lines.append(f"{_STAMP}[logging.py:123:log_dist] [Rank 0] step={step}, "
                     f"skipped={skipped}, lr=[0.001], mom=[(0.9, 0.999)]")
        lines.append(f"train step {step} loss {loss:.4f}")
    return lines


def _critic_losses() -> list[float]:
    """About 0, of either sign (a deterministic swing of +-0.004), 1.3 and 0.8 at steps
    102 and 103."""
    losses = [0.004 * math.sin(1.7 * i) for i in range(200)]
    losses[101], losses[102] = 1.3, 0.8
    return losses


def test_signed_critic_loss_swing_beside_an_overflow_is_quiet(tmp_path: Path) -> None:
    """Before: AMP003 at 102."""
    assert faults(tmp_path, _critic_run(_critic_losses(), {100, 160})) == []


def test_signed_critic_loss_nan_fault_twin(tmp_path: Path) -> None:
    """Twin: the critic's loss NaN from step 150 on is AMP006 there."""
    losses = _critic_losses()[:149] + [math.nan] * 51
    assert faults(tmp_path, _critic_run(losses, {100})) == [("AMP006", 150)]


def _ds_resumed(first: int, last: int, collapse: int | None = None) -> list[str]:
    """A DeepSpeed run from ``first`` to ``last`` at ``initial_scale_power`` 10: its dump,
    the engine's ``step=0`` of ``deepspeed.initialize`` (before a resume loads its count),
    a progress line and the loop's line every 10 steps; with ``collapse`` every step from
    there overflows (the lines of ``_ds_run``)."""
    lines = [_ds_dump(10), f"{_STAMP}[logging.py:123:log_dist] [Rank 0] step=0, skipped=0, "
             "lr=[0.001], mom=[(0.9, 0.999)]"]
    scale, skipped = 1024, 0
    for step in range(first, last + 1):
        if collapse is not None and step >= collapse and scale >= 1:
            lines.append(f"{_STAMP}[loss_scaler.py:266:update_scale] [deepspeed] OVERFLOW! Rank "
                         f"0 Skipping step. Attempted loss scale: {scale}, reducing to "
                         f"{scale // 2}")
            scale, skipped = scale // 2, skipped + 1
        if step % 10 == 0:
            lines.append(f"{_STAMP}[logging.py:123:log_dist] [Rank 0] step={step}, "
                         f"skipped={skipped}, lr=[0.001], mom=[(0.9, 0.999)]")
            lines.append(f"train step {step} loss {2.5 * 0.999 ** step:.4f}")
    return lines


@pytest.mark.parametrize("resumed_at", [501, 481])
def test_deepspeed_resume_keeps_its_steps_control(tmp_path: Path, resumed_at: int) -> None:
    """Control: resumed at 501 (or at 481, 20 steps back), the collapse from 520 is numbered
    as on the parent (the overflow lines counted from the progress line of 510), and the
    resume at 501 makes the log 600 steps, not 1100 (``step=0`` read as a new count would
    count the first run's 500 again; the resume at 481 counts again from its first
    progress line, 490: 611)."""
    lines = _ds_resumed(1, 500) + _ds_resumed(resumed_at, 600, collapse=520)
    assert faults(tmp_path, lines) == [("AMP003", 521), ("AMP008", 511), ("AMP004", 530)]
    assert diagnose_lines(tmp_path, lines).timeline.steps == (600 if resumed_at == 501 else 611)


def test_hf_second_run_rows_after_the_summary_count_from_one(tmp_path: Path) -> None:
    """Two HF Trainer runs (``excerpts.hf_rows``), the first's ``train_runtime`` summary
    (transformers ``Trainer.train``: ``self.log(metrics)`` of ``speed_metrics("train", ...)``
    and ``train_loss``) between them, the second's loss NaN from its row 10: AMP006 at 10
    (was 30 before h49-fixD: its rows, back at the first run's first epoch, count again)."""
    summary = ("{'train_runtime': 123.4567, 'train_samples_per_second': 10.123, "
               "'train_steps_per_second': 1.266, 'train_loss': 2.1, 'epoch': 1.0}")
    assert faults(tmp_path, [*hf_rows(), summary, *hf_rows(10)]) == [("AMP006", 10)]
