"""Misses left by earlier rounds, re-created from each tool's own format strings (each test
names its source) and fixed by a general rule, each beside healthy controls.

- lucidrains/DALLE2-pytorch (``train_decoder.py``): its validation pass prints ``Epoch
  {epoch}/{epochs} Val Step {i} -  Sample {n} - {rate:.2f} samples/sec`` over ``Loss:
  {tensor}``; the step line holds no prefilter keyword, so the ``Loss:`` lines were read alone
  as training's. An evaluation pass's step line right above a candidate is now handed over
  with it (``reader._EVAL_STEP``), and a loss alone right below an evaluation line that
  measured nothing is that evaluation's (``metric_reader.MetricReader._goes_on``).
- microsoft/Swin-Transformer (``main.py`` ``train_one_epoch``): ``loss_scale
  {loss_scale_meter.val:.4f}`` prints a scale of 3e-5 as ``0.0000``, which was read as a
  scale of exactly 0 (AMP004's error, "every gradient is zero"). A scale printed as 0 at a
  fixed precision after a scale above 0 is now the most that prints so, half its last digit
  (``metric_reader.MetricReader._scale``): halving never reaches an exact 0 between prints.
- sentences (``nonfinite_sentences.py``): a training loop's ``f"[Warning] NaN in model outputs
  at step {i}, skipping batch"`` (a public GNN training script found by that format string;
  the code index names no repository for it) and its kin (``Detected NaN in model outputs``)
  say the forward pass went non-finite, the batch skipped before its loss: AMP006, whose
  causes start there; ``nan loss, step 200`` names its step after a comma. No tool's source
  prints ``grad scaler: inf checks failed`` (searched): left unread, see the report.
- bytedance/ibot (``main_ibot.py`` ``train_one_epoch``): ``print("NMI: {}, ARI: {}, F: {},
  ACC: {}".format(...))``, scikit-learn's clustering scores of the epoch's predictions, before
  ``Averaged stats:``; ``NMI: nan`` was read by no rule. Clustering scores (NMI, AMI, ARI) are
  now measured-only scores, as correlations and BLEU are (``lexicon._MEASURED_ONLY``).
- NVIDIA/waveglow (``train.py``): ``print("{}:\\t{:.9f}".format(iteration, reduced_loss))``
  every iteration, apex O1's ``Gradient overflow.  Skipping step, ...`` between: already read
  right (the cascade at its iteration, not at step 1, also in an excerpt cut inside it); kept
  as the suite's only apex run of bare ``N:\\tloss`` rows (passes on the parent too).

Left as they are (no test): ClassyVision's ``Approximate meters: [0] train phase 2 (60.00%
done), loss: nan, ...`` without its phase's closing ``processed batches: N`` prints only a
share of an unknown phase length, so no batch can be named (the rows are counted); Ray Tune's
CLIReporter status tables (ray/tune/progress_reporter.py, ``| Trial name | status | loc | lr |
loss | total time (s) | iter |`` rows, one per trial, each status block) read as "nothing to
diagnose": a table whose rows interleave runs needs its rows keyed by the trial name and
numbered by ``iter``, a new reading; ``grad scaler: inf checks failed`` is printed by no
tool's source found, and one overflow is no fault anyway; WaveGlow's healthy run without an
overflow line holds no keyword on any row ("nothing to diagnose", no false alarm).
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import diagnose_lines, faults

NAN = math.nan


# -- lucidrains/DALLE2-pytorch: train_decoder.py (ConsoleLogger prints each dict) ------------

def _ribbon(text: str) -> str:
    """dalle2_pytorch/utils.py ``print_ribbon(s, repeat=40)``."""
    return f"{'=' * 40} {text} {'=' * 40}"


def _dalle2(val_nan_epoch: int | None = None, train_nan: int | None = None,
            unets: int = 1) -> list[str]:
    """Two epochs of ``train_decoder.py``'s ``train``: a training dict every
    ``TRAIN_CALC_LOSS_EVERY_ITERS`` (100) steps, then the validation pass's step lines and
    its ``average_val_loss_tensor`` (shape ``(1, num_unets)``), then the validation dict."""
    lines = ["Logging to console"]
    sample = 0
    for epoch in range(2):
        lines.append(_ribbon(f"Starting epoch {epoch}"))
        for i in range(0, 1000, 100):
            sample += 3200
            step = epoch * 1000 + i
            losses = {f"Unet {u} Training Loss": NAN if train_nan is not None
                      and step >= train_nan else 0.0123 - i * 1e-6 + u * 0.01
                      for u in range(unets)}
            lines.append(str({"Epoch": epoch, "Sample": sample, "Step": i,
                              "Samples per second": 812.43, "Samples Seen": sample,
                              **{f"Unet {u} EMA Decay": 0.9999 for u in range(unets)},
                              **losses}))
        lines.append(_ribbon(f"Starting Validation {epoch}"))
        bad = epoch == val_nan_epoch
        val_sample = 0
        for i in range(0, 300, 100):
            val_sample += 3200
            lines.append(f"Epoch {epoch}/2 Val Step {i} -  Sample {val_sample} - "
                         f"{840.12:.2f} samples/sec")
            cells = ", ".join("nan" if bad and u == 0 else f"{0.0154 + u * 0.01:.4f}"
                              for u in range(unets))
            lines += [f"Loss: tensor([[{cells}]], device='cuda:0')", ""]
        lines.append("Rank 0 finished validation after 299 steps")
        lines.append(str({f"Unet {u} Validation Loss": NAN if bad and u == 0 else 0.0151
                          for u in range(unets)}))
        lines.append(_ribbon(f"Starting Saving {epoch}"))
    return lines


def test_dalle2_validation_nan_is_evaluations(tmp_path: Path) -> None:
    """Before: AMP006 at step 1901 (the first ``Loss: tensor([[nan]], ...)`` read alone as a
    training loss) beside AMP013 at 1903 (the ``Unet 0 Validation Loss`` dict)."""
    assert faults(tmp_path, _dalle2(val_nan_epoch=1)) == [("AMP013", 1900)]
    assert faults(tmp_path, _dalle2(val_nan_epoch=1, unets=2)) == [("AMP013", 1900)]


def test_dalle2_controls(tmp_path: Path) -> None:
    """Healthy runs, one UNet and two (pass on the parent too); a training NaN is still the
    training loss's (AMP006 at its step)."""
    assert faults(tmp_path, _dalle2()) == []
    assert faults(tmp_path, _dalle2(unets=2)) == []
    assert faults(tmp_path, _dalle2(train_nan=1300))[0] == ("AMP006", 1300)


# -- microsoft/Swin-Transformer: main.py train_one_epoch --------------------------------------

_SWIN = "[2026-12-06 10:00:00 swin_tiny_patch4_window7_224] (main.py 227): INFO "


def _swin_collapse(every: int = 10, from_idx: int | None = 300) -> list[str]:
    """``f'Train: [{epoch}/{EPOCHS}][{idx}/{num_steps}]\\teta ... lr {lr:.6f}\\t wd
    {wd:.4f}\\ttime ...\\tloss {loss_meter.val:.4f} ({loss_meter.avg:.4f})\\tgrad_norm
    ...\\tloss_scale {loss_scale_meter.val:.4f} ({loss_scale_meter.avg:.4f})\\tmem
    {memory_used:.0f}MB'`` every ``every`` batches; from batch ``from_idx`` every batch
    overflows and the GradScaler halves its scale each one."""
    lines = [_SWIN + "Start training"]
    scale = 65536.0
    for idx in range(0, 1251, every):
        if from_idx is not None and idx >= from_idx:
            scale /= 2 ** every
        norm = "inf (inf)" if from_idx is not None and idx >= from_idx else "3.1234 (3.2000)"
        lines.append(_SWIN + (
            f"Train: [0/300][{idx}/1251]\teta 0:08:20 lr 0.000125\t wd 0.0500\t"
            f"time 0.4012 (0.4133)\tloss 6.8123 (6.8200)\tgrad_norm {norm}\t"
            f"loss_scale {scale:.4f} ({scale:.4f})\tmem 9123MB"))
    return lines


def test_swin_scale_printed_zero_is_below_its_last_digit(tmp_path: Path) -> None:
    """Before: AMP004 at step 330 as an error ("loss scale fell to exactly 0.0: every
    gradient is zero") beside the warning at 310 (``0.0625``): ``0.0000`` after ``0.0001``
    is a scale below the print's last digit; and at ``PRINT_FREQ`` 50, where ``0.0000``
    follows ``65536.0000`` (50 halvings between two prints), the error at 300, now the
    warning there."""
    assert faults(tmp_path, _swin_collapse()) == [("AMP003", 291), ("AMP004", 310)]
    found = diagnose_lines(tmp_path, _swin_collapse(every=50)).faults
    assert [(d.code, d.step, d.severity.value) for d in found if d.code == "AMP004"] == [
        ("AMP004", 300, "warning")]
    # what the log shows: a scale below the print's last digit, not a value it never printed
    summary = next(d.summary for d in found if d.code == "AMP004")
    assert "below 0.0001 (printed as 0 at that precision)" in summary


def test_swin_scale_controls(tmp_path: Path) -> None:
    """Healthy Swin runs at the default ``PRINT_FREQ`` and at 50 (pass on the parent too)."""
    assert faults(tmp_path, _swin_collapse(from_idx=None)) == []
    assert faults(tmp_path, _swin_collapse(every=50, from_idx=None)) == []


# -- sentences: a loop's own warnings -------------------------------------------------------

def _loop(warning: str | None, at: int = 500) -> list[str]:
    """A loop's ``print(f"step {i} | loss {loss:.4f} | lr {lr}")`` every 10 steps, and
    ``warning`` (``{i}``: the step) on each step from ``at`` that it skips."""
    lines = []
    for i in range(10, 1000, 10):
        if warning is not None and i >= at:
            lines.append(warning.format(i=i))
            continue
        lines.append(f"step {i} | loss {2.3 - i / 1e4:.4f} | lr 0.0001")
    return lines


def test_model_outputs_found_nan(tmp_path: Path) -> None:
    """Before: silence (no ``loss`` on the line, only ``NaN detected`` alone was read)."""
    assert faults(tmp_path, _loop("[Warning] NaN in model outputs at step {i}, skipping "
                                  "batch")) == [("AMP006", 500)]
    assert faults(tmp_path, _loop("Detected NaN in model outputs")) == [("AMP006", 491)]


def test_nan_loss_comma_step(tmp_path: Path) -> None:
    """Before: silence (only ``nan loss at step 200`` was read)."""
    assert faults(tmp_path, _loop("nan loss, step {i}")) == [("AMP006", 500)]


def test_sentence_controls(tmp_path: Path) -> None:
    """A negated finding, an evaluation's outputs and a loop's own check (pass on the
    parent too)."""
    for line in ("No NaN in model outputs at step {i}", "Checking for NaN in model outputs",
                 "NaN in model outputs on the validation set, step {i}"):
        lines = _loop(None)
        lines.insert(40, line.format(i=400))
        assert faults(tmp_path, lines) == [], line


# -- bytedance/ibot: main_ibot.py train_one_epoch (utils.MetricLogger.log_every) -------------

def _ibot(nan_epoch: int | None = None) -> list[str]:
    """Three epochs of 2502 iterations printed every 10 (``header = 'Epoch: [{}/{}]'``, the
    MetricLogger's meters), each closed by ``NMI: {}, ARI: {}, F: {}, ACC: {}`` (``ACC`` is
    -1: ``eval_pred(..., calc_acc=False)``) and ``Averaged stats:``."""
    lines = ["Starting iBOT training!"]
    for epoch in range(3):
        for it in range(0, 2502, 10):
            lines.append(f"Epoch: [{epoch}/100]  [{it:>4}/2502]  eta: 1:02:03  loss: "
                         f"{10.8 - it / 1e4:.4f} (10.8500)  cls: 10.7000 (10.7100)  patch: "
                         "0.1123 (0.1400)  lr: 0.000047 (0.000023)  wd: 0.040000 (0.040000)  "
                         "acc: 0.1000 (0.1000)  time: 0.5312  data: 0.0012  max mem: 15382")
        lines.append(f"Epoch: [{epoch}/100] Total time: 0:22:10 (0.5312 s / it)")
        bad = epoch == nan_epoch
        lines.append(f"NMI: {'nan' if bad else 0.0123456789}, ARI: "
                     f"{'nan' if bad else 0.00123}, F: 0.0456, ACC: -1")
        lines.append("Averaged stats: loss: 10.8500 (10.8500)  cls: 10.7100 (10.7100)  patch: "
                     "0.1400 (0.1400)  lr: 0.000023 (0.000023)  wd: 0.040000 (0.040000)  acc: "
                     "0.1000 (0.1000)")
    return lines


def test_ibot_nmi_nan_is_evaluations(tmp_path: Path) -> None:
    """Before: silence (``NMI``/``ARI`` named no role)."""
    assert faults(tmp_path, _ibot(nan_epoch=1)) == [("AMP013", 5002)]


def test_ibot_controls(tmp_path: Path) -> None:
    """A healthy run (passes on the parent too)."""
    assert faults(tmp_path, _ibot()) == []


# -- NVIDIA/waveglow: train.py (apex amp O1) -------------------------------------------------

def _waveglow(first: int = 0, nan_from: int | None = None) -> list[str]:
    """``print("Epoch: {}".format(epoch))``, then ``print("{}:\\t{:.9f}".format(iteration,
    reduced_loss))`` each iteration; from ``nan_from`` apex's scaler skips every step
    (apex/amp/scaler.py ``update_scale``: ``Gradient overflow.  Skipping step, loss scaler 0
    reducing loss scale to {}``) before the NaN row."""
    lines = ["output directory checkpoints", "Epoch: 0"] if first == 0 else []
    scale = 65536.0
    for it in range(first, first + 400):
        if nan_from is not None and it >= nan_from:
            scale /= 2
            lines += [f"Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to "
                      f"{scale}", f"{it}:\tnan"]
        else:
            lines.append(f"{it}:\t{-0.5 - it / 1000:.9f}")
    return lines


def test_waveglow_cascade_at_its_iteration(tmp_path: Path) -> None:
    """Already right before this change (passes on the parent too): the NaN at its
    iteration, the scale's collapse after it, also in an excerpt that starts at 12000."""
    assert faults(tmp_path, _waveglow(nan_from=300)) == [
        ("AMP006", 300), ("AMP003", 301), ("AMP004", 316)]
    assert faults(tmp_path, _waveglow(12000, nan_from=12050))[0] == ("AMP006", 12050)


def test_waveglow_control(tmp_path: Path) -> None:
    """A healthy run with two lone overflows (apex's start-up back-off) is quiet (passes on
    the parent too). Left as it is: a healthy run without any overflow line holds no
    keyword on any row, and reads "nothing to diagnose" (no false alarm)."""
    lines = _waveglow()
    for at in (40, 10):
        lines.insert(at, "Gradient overflow.  Skipping step, loss scaler 0 reducing loss "
                         "scale to 32768.0")
    assert faults(tmp_path, lines) == []
