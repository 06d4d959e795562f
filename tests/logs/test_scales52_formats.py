"""Two more layouts of a loss scale's prints, from tools that print their scaler's state as
lines between the loop's rows (h52-scales52, beside the sample32 fixes):

- NVIDIA/DeepLearningExamples' Mask R-CNN (``PyTorch/Segmentation/MaskRCNN/pytorch/
  maskrcnn_benchmark/engine/trainer.py``): apex amp's ``Gradient overflow.  Skipping step,
  loss scaler 0 reducing loss scale to {}`` printed within ``amp.scale_loss`` (the step's
  backward), the ``MetricLogger`` row every 20 iterations after ``optimizer.step()``. At the
  parent a collapse that began between two rows was numbered from the row before it (1221
  for 1235) and read as a high skip rate beside it (AMP008); now the lines that run on past
  a row are the last steps up to it (``row_overflows.py``).
- NVIDIA/DeepLearningExamples' GNMT (``PyTorch/Translation/GNMT/seq2seq/train/
  fp_optimizers.py`` ``Fp16Optimizer``): ``Gradient norm: {norm}`` then ``Skipped batch, new
  scale: {self.loss_scale}`` on each overflow, ``Upscaling, new scale: {}`` after 128 clean
  steps (capped at 8192), the trainer's ``TRAIN [{epoch}][{i}/{len}]\\t...Loss/tok ...`` row
  every ``print_freq`` iterations, each behind the console's ``'%(rank)s: '``. At the parent
  the skipped batches were unread (a collapse silent); now the skip and its new scale are an
  overflow (``overflow_sentences._lowered``). Its steps are still off (strict xfails): the
  ``Gradient norm: inf`` line above each skip is read as a row of its own, a step more.

Healthy controls use settings other than the defaults (a row every 50 iterations, an
overflow every 900 that regrows; GNMT with a row every 20 and an overflow every 300) and
apex's calibration at the start (65536 -> 32768 -> 16384) and stay silent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import apex_step, faults

NAN = float("nan")
_MASKRCNN = "2019-03-01 10:00:00,123 maskrcnn_benchmark.trainer INFO: "


def maskrcnn(collapse: int | None = None, *, bad: int | None = None, iters: int = 2000,
             every: int = 20, rare: int = 700) -> list[str]:
    """NVIDIA/DeepLearningExamples ``PyTorch/Segmentation/MaskRCNN/pytorch/maskrcnn_benchmark/
    engine/trainer.py`` ``do_train`` under apex amp: ``logger.info("Start training")``, per
    iteration (from 1) ``with amp.scale_loss(losses, optimizer) as scaled_losses:
    scaled_losses.backward()`` (apex's ``apex/amp/handle.py`` prints ``"Gradient overflow.
    Skipping step, loss scaler {} reducing loss scale to {}"`` on an overflow, the scale from
    2**16, doubled after 2000 clean steps), ``optimizer.step()``, then every 20 iterations
    ``"  ".join(["eta: {eta}", "iter: {iter}", "{meters}", "lr: {lr:.6f}", "max mem:
    {memory:.0f}"])``, the meters ``"{}: {:.4f} ({:.4f})".format(name, meter.median,
    meter.global_avg)`` (``utils/metric_logger.py``), behind ``"%(asctime)s %(name)s
    %(levelname)s: %(message)s"`` (``utils/logger.py``). The first two steps overflow (the
    scale too high), then one in ``rare``; ``collapse``: every step from there overflows;
    ``bad``: the loss NaN from there (each such step overflowing too)."""
    out = [_MASKRCNN + "Start training"]
    scale, clean, window, total = 65536.0, 0, [0.0], 0.0
    for it in range(1, iters + 1):
        loss = NAN if bad is not None and it >= bad else 2.3 / (1 + it / 800)
        scale, clean, said = apex_step(scale, clean, it <= 2 or it % rare == rare // 2 or (
            math.isnan(loss) or (collapse is not None and it >= collapse)))
        out += [said] if said else []
        window, total = [*window, loss][-20:], total + loss
        if it % every == 0 or it == iters:
            median = sorted(window)[len(window) // 2]
            mean = total / it
            meters = "  ".join([f"loss: {median:.4f} ({mean:.4f})",
                                f"loss_classifier: {median * 0.3:.4f} ({mean * 0.3:.4f})",
                                f"loss_box_reg: {median * 0.2:.4f} ({mean * 0.2:.4f})",
                                "time: 0.4123 (0.4231)", "data: 0.0123 (0.0150)"])
            eta = int((iters - it) * 0.42)
            out.append(_MASKRCNN + "  ".join([
                f"eta: {eta // 3600}:{eta // 60 % 60:02d}:{eta % 60:02d}", f"iter: {it}",
                meters, f"lr: {0.02:.6f}", "max mem: 3821"]))
    return out


def gnmt(collapse: int | None = None, *, bad: int | None = None, batches: int = 1000,
         freq: int = 10, rare: int = 450) -> list[str]:
    """NVIDIA/DeepLearningExamples ``PyTorch/Translation/GNMT``, one epoch under ``--math
    manual_fp16``: ``seq2seq/train/fp_optimizers.py`` ``Fp16Optimizer`` (``logging.info``
    ``'Initializing fp16 optimizer'``, ``'Initializing fp32 clone weights'``; the scale from
    8192, on a non-finite gradient norm ``f'Gradient norm: {norm}'`` and ``f'Skipped batch,
    new scale: {self.loss_scale}'`` (halved), after 128 clean steps ``f'Upscaling, new scale:
    {self.loss_scale}'`` (doubled, at most 8192)), and ``seq2seq/train/trainer.py``
    ``feed_data``'s row after each step with ``i % print_freq == 0`` (``i`` from 0):
    ``'\\t'.join([f'TRAIN [{epoch}][{i}/{len(data_loader)}]', f'Time ...', f'Data ...',
    f'Tok/s ...', f'Loss/tok {val:.4f} ({avg:.4f})', f'LR {lr:.3e}'])``; every line behind
    the console's ``'%(rank)s: %(message)s'`` (``seq2seq/utils.py`` ``setup_logging``). One
    overflow in ``rare`` steps; ``collapse``: every step from there overflows; ``bad``: the
    loss NaN from there."""
    out = ["0: Initializing fp16 optimizer", "0: Initializing fp32 clone weights"]
    scale, since, total = 8192.0, 0, 0.0
    for i in range(batches):
        loss = NAN if bad is not None and i >= bad else 8.0 / (1 + i / 300) + 1.5
        if math.isnan(loss) or (collapse is not None and i >= collapse) or (
                i % rare == rare // 2):
            scale, since = scale / 2, 0
            out += [f"0: Gradient norm: {'nan' if math.isnan(loss) else 'inf'}",
                    f"0: Skipped batch, new scale: {scale}"]
        else:
            since += 1
        if since >= 128:
            scale, since = min(scale * 2, 8192.0), 0
            out.append(f"0: Upscaling, new scale: {scale}")
        total += loss
        if i % freq == 0:
            out.append("0: " + "\t".join([
                f"TRAIN [0][{i}/{batches}]", "Time 0.213 (0.220)", "Data 1.12e-04 (1.31e-04)",
                "Tok/s 101231 (99812)", f"Loss/tok {loss:.4f} ({total / (i + 1):.4f})",
                f"LR {2e-3:.3e}"]))
    return out


HEALTHY: dict[str, Callable[[], list[str]]] = {
    "maskrcnn": lambda: maskrcnn(iters=3000, every=50, rare=900),
    "maskrcnn_from_the_middle": lambda: maskrcnn()[40:],
    "gnmt": lambda: gnmt(freq=20, rare=300),
    "gnmt_from_the_middle": lambda: gnmt()[30:],
}


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_runs_are_silent(tmp_path: Path, name: str) -> None:
    """Controls (silent on the parent too): overflows now and then that the scale regrows
    from, apex's calibration at the start."""
    assert faults(tmp_path, HEALTHY[name]()) == []


@pytest.mark.parametrize(("build", "right"), [
    # Every step overflows from iteration 1235 (rows at 1220, 1240): the scale, 8192 after
    # the calibration and the overflow at 350, falls below 1 at the 14th line, 1247. At the
    # parent: AMP003 1221, AMP008 beside it.
    pytest.param(lambda: maskrcnn(1235), [("AMP003", 1235), ("AMP004", 1247)],
                 id="maskrcnn_collapse"),
    pytest.param(lambda: maskrcnn(bad=1235),
                 [("AMP003", 1235), ("AMP004", 1247), ("AMP006", 1240)], id="maskrcnn_nan"),
    pytest.param(lambda: maskrcnn(1235)[50:], [("AMP003", 1235), ("AMP004", 1247)],
                 id="maskrcnn_collapse_from_the_middle")])
def test_maskrcnn_overflow_lines_up_to_the_row(tmp_path: Path, build: Callable[[], list[str]],
                                               right: list[tuple[str, int]]) -> None:
    """apex's lines of a collapse that runs across a row are the steps up to that row."""
    assert sorted(faults(tmp_path, build())) == sorted(right)


def test_gnmt_skipped_batch_is_an_overflow(tmp_path: Path) -> None:
    """``Skipped batch, new scale: 4096.0``, every step from 734 on: a collapse, no longer
    silent (at the parent: no diagnosis). Its steps are checked below."""
    assert "AMP003" in [code for code, _step in faults(tmp_path, gnmt(734))]


_GRAD_NORM_ROWS = pytest.mark.xfail(strict=True, reason="not fixed here: ``Gradient norm: inf``"
                                    " above each ``Skipped batch`` line is read as a row of "
                                    "its own (a step with a non-finite gradient norm), so each "
                                    "overflow counts two steps: AMP003 732 and AMP004 756, with "
                                    "a second AMP004 at the clock's end (1830)")


@pytest.mark.parametrize(("build", "right"), [
    # Every step overflows from 734 (rows at 730, 740): 8192 falls below 1 at the 14th, 747.
    pytest.param(lambda: gnmt(734), [("AMP003", 734), ("AMP004", 747)],
                 marks=_GRAD_NORM_ROWS, id="gnmt_collapse"),
    pytest.param(lambda: gnmt(bad=734), [("AMP003", 734), ("AMP004", 747), ("AMP006", 740)],
                 marks=_GRAD_NORM_ROWS, id="gnmt_nan")])
def test_gnmt_steps(tmp_path: Path, build: Callable[[], list[str]],
                    right: list[tuple[str, int]]) -> None:
    """GNMT's collapse at the step it began, the scale's underflow and the NaN row."""
    assert sorted(faults(tmp_path, build())) == sorted(right)
