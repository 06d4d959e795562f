"""Smaller frameworks' own console lines: excerpts written from each tool's format strings
(each test names its repository and file), a fault at a known step beside healthy controls.

- coqui-ai/Trainer (the trainer of coqui-ai/TTS): its bold step line over one ``| > key:
  value  (average)`` line per loss, the scaler's ``amp_scaler`` among them;
- ml-explore/mlx-examples' ``Epoch 02 [020] | Train loss ...`` (cifar, speechcommands) and
  mlx-lm's LoRA trainer, old (``Iter 10: Train loss ...``) and new (its rich table);
- tinygrad/tinygrad's training loops (``  150  512.34 ms run, ...,  nan loss, 0.01 acc, ...``:
  each value before its name) and ``beautiful_mnist.py``'s placeholder accuracy;
- deepspeech.pytorch's ``WARNING: received a nan loss, setting loss value to 0`` (a row of
  the message table);
- torchani's ``Validation RMSE (kcal/mol) nan`` (a unit between the key and its value);
- ALIGNN's tables titled ``Train Loss:`` and ``Val Loss:`` (alternating, an epoch each);
- PaddleClas' ``[Eval][Epoch 2][Iter: 20/100]``: the evaluation's batch, no step;
- dm-haiku's examples (``[Train 7000/100000] {'train_loss': ...}``, ``'step': 2000.0``);
- mattersim's ``Epoch: 17 / 40`` over ``train: Loss: ...`` and ``val: Loss: ...`` behind
  loguru's default format;
- e3nn's examples (``epoch   200 | loss nan``: a count padded to its width);
- fairchem's trainer (``step: 1.23e+04``: a step rounded to three digits);
- pyro-ppl/pyro's examples (``[iteration 001] loss``, ``Step\\tLoss``, ``[500]Elbo loss``...),
  cornellius-gp/gpytorch's ``Iter 1/50 - Loss: ...`` and pytorch/opacus' ``Train Epoch: 1
  \\tLoss: ... (ε = 1.23, δ = 1e-05)``.

Each fault test failed on the parent commit (3eedced); the controls, and the formats marked
as read already, pass there too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose

BOLD, UNDERLINE, END = "\033[1m", "\033[4m", "\033[0m"
TACOTRON = ("decoder_loss", "postnet_loss", "stopnet_loss", "loss")
# VITS trains two optimizers: the trainer renames each one's ``loss`` to ``loss_{idx}``
# (trainer/trainer.py ``detach_loss_dict``)
VITS = ("loss_disc", "loss_disc_real_0", "loss_0", "loss_gen", "loss_kl", "loss_mel",
        "loss_duration", "loss_1")


def _value(step: int, nan_from: int | None, base: float) -> float:
    return float("nan") if nan_from is not None and step >= nan_from else base - step / 1e4


def _coqui_tts_2020(nan_from: int | None = None, *, batches: int = 500,
                    every: int = 25) -> list[str]:
    """coqui-ai/TTS ``TTS/utils/console_logger.py`` (2020-09..2021-06, before coqui-ai/Trainer)
    ``print_train_step``: ``"{}   --> STEP: {}/{} -- GLOBAL_STEP: {}{}\n".format(tcolors.BOLD,
    step, batch_steps, global_step, tcolors.ENDC)``, then ``"{}{}: {:.5f}  ({:.5f})\n"`` per
    loss and the ``log_dict``'s ``{indent}{key}: {value}`` lines, all printed."""
    lines = [f"\n{BOLD} > TRAINING (2021-01-01 10:00:00) {END}"]
    for global_step in range(0, 4 * batches, every):
        lines.append("")
        block = (f"{BOLD}   --> STEP: {global_step % batches}/{batches} -- GLOBAL_STEP: "
                 f"{global_step}{END}\n")
        for key in ("postnet_loss", "decoder_loss", "stopnet_loss", "loss"):
            value = _value(global_step, nan_from, 1.5)
            block += f"     | > {key}: {value:.5f}  ({value + 0.01:.5f})\n"
        block += ("     | > align_error: 0.81234  (0.80123)\n     | > avg_spec_length: 512.3\n"
                  "     | > avg_text_length: 120.4\n     | > step_time: 0.4567\n"
                  "     | > loader_time: 0.0123\n     | > current_lr: 0.00010")
        lines.append(block)
    return "\n".join(lines).split("\n")


def _coqui(nan_from: int | None = None, *, colour: bool = True, keys: tuple[str, ...] = TACOTRON,
           scale_from: int | None = None, batches: int = 500, every: int = 25) -> list[str]:
    """coqui-ai/Trainer ``trainer/logging/console_logger.py`` (``print_epoch_start``,
    ``print_train_step``, ``print_epoch_end``) through its ``logging.Formatter("")``: the
    step line ``--> TIME: ... -- STEP: {step}/{batch_steps} -- GLOBAL_STEP: {global_step}``
    in bold, then ``     | > {key}: {value}  ({average})`` for each of the model's losses, the
    scaler's ``amp_scaler`` (``trainer/trainer.py`` ``optimize``: ``scaler.get_scale()``
    under fp16), ``grad_norm``, ``current_lr`` (no average), ``step_time``, ``loader_time``.
    ``scale_from``: the scale drops 16-fold each print from there (a collapse)."""
    bold, under, end = (BOLD, UNDERLINE, END) if colour else ("", "", "")
    text = [f"\n{under}{bold} > EPOCH: 0/1000{end}", " --> /runs/tts_run-June-01-2024",
            f"\n{bold} > TRAINING (2024-06-01 10:00:00) {end}"]
    scale = 65536.0
    for global_step in range(0, 4 * batches, every):
        step = global_step % batches
        if scale_from is not None and global_step >= scale_from:
            scale /= 16
        block = (f"{bold}   --> TIME: 2024-06-01 10:00:00 -- STEP: {step}/{batches} -- "
                 f"GLOBAL_STEP: {global_step}{end}\n")
        for key in keys:
            value = _value(global_step, nan_from, 1.5)
            block += f"     | > {key}: {value}  ({value + 0.01})\n"
        block += (f"     | > amp_scaler: {scale}  ({scale})\n"
                  "     | > grad_norm: 1.2345678  (1.3012345)\n"
                  "     | > current_lr: 0.0001 \n"
                  "     | > step_time: 0.4567  (0.45123)\n"
                  "     | > loader_time: 0.0123  (0.01115)\n")
        text += ["", block]
        if step + every >= batches:  # the epoch's end: its evaluation, the next epoch
            value = _value(global_step, nan_from, 1.4)
            text += [f"\n{bold} > EVALUATION {end}\n",
                     f"\n  {bold}--> EVAL PERFORMANCE{end}\n"
                     "     | > avg_loader_time: 0.0101 (+0)\n"
                     f"     | > avg_loss: {value} (+0)\n",
                     f"\n{under}{bold} > EPOCH: {global_step // batches + 1}/1000{end}",
                     f"\n{bold} > TRAINING (2024-06-01 10:00:00) {end}"]
    return "\n".join(text).split("\n")


def test_coqui_trainer_coloured_step_line(tmp_path: Path) -> None:
    """Before: the step line ends with the colour's reset (``GLOBAL_STEP: 1000\\x1b[0m``),
    which the reader did not take for a step line: it was not handed over with the lines
    below it, and the NaN at global step 1000 was reported at the record's count (203; 363
    for VITS' keys, 161 for the 2020 logger's); the scale's collapse from 1000 was reported at
    207. Without colours (a file run through a colour stripper) they were read right.
    The ``--> EVAL PERFORMANCE`` block's ``avg_loss: nan`` after the training's NaN is the
    evaluation's (h51-evalsplit, eval_headings): AMP013 at the training step it follows."""
    assert faults(tmp_path, _coqui(1000)) == [("AMP006", 1000), ("AMP013", 1475)]
    assert faults(tmp_path, _coqui(1000, keys=VITS)) == [("AMP006", 1000), ("AMP013", 1475)]
    assert faults(tmp_path, _coqui(scale_from=1000)) == [("AMP003", 1000), ("AMP004", 1100)]
    assert faults(tmp_path, _coqui_tts_2020(1000)) == [("AMP006", 1000)]


def test_coqui_trainer_controls(tmp_path: Path) -> None:
    """Healthy runs, coloured or not, printed every step or every 50 of 300 (pass on the
    parent too); without colours the fault was read right on the parent too."""
    assert faults(tmp_path, _coqui(1000, colour=False)) == [("AMP006", 1000), ("AMP013", 1475)]
    for lines in (_coqui(), _coqui(colour=False), _coqui(keys=VITS),
                  _coqui(batches=300, every=50), _coqui(batches=40, every=1),
                  _coqui_tts_2020()):
        assert faults(tmp_path, lines) == []


def _mlx_epochs(nan_from: int | None = None, *, batches: int = 390, every: int = 10,
                speech: bool = False) -> list[str]:
    """ml-explore/mlx-examples ``cifar/main.py`` (``train_epoch``: every 10 batches
    ``Epoch {epoch:02d} [{batch_counter:03d}] | Train loss {l:.3f} | Train acc {a:.3f} |
    Throughput: {s:.2f} images/second``; ``main``: ``Epoch: {epoch} | avg. Train loss ...``
    and ``Epoch: {epoch} | Test acc {test_acc:.3f}``); ``speechcommands/main.py`` prints
    every 25 batches, ``samples/second``, and ``Epoch: {epoch} | Val acc ...``."""
    unit = "samples" if speech else "images"
    lines = ["Number of params: 0.4663 M"]
    for epoch in range(4):
        for batch in range(0, batches, every):
            step = epoch * batches + batch
            lines.append(f"Epoch {epoch:02d} [{batch:03d}] | Train loss "
                         f"{_value(step, nan_from, 2.3):.3f} | Train acc 0.312 | "
                         f"Throughput: 5234.56 {unit}/second")
        end = (epoch + 1) * batches - 1
        lines.append(f"Epoch: {epoch} | avg. Train loss {_value(end, nan_from, 2.0):.3f} | "
                     f"avg. Train acc 0.400 | Throughput: 5200.00 {unit}/sec")
        lines.append(f"Epoch: {epoch} | Val acc 0.410 | Throughput: 9000.00 samples/sec"
                     if speech else f"Epoch: {epoch} | Test acc 0.410")
    return lines


def test_mlx_examples_epoch_and_bracketed_batch(tmp_path: Path) -> None:
    """Before: ``Epoch 02 [020]`` (no total in the bracket, no ``batch`` word) was not read
    as an epoch and its batch: the NaN at epoch 2's batch 20 (step 800 of 390-batch epochs)
    was reported at 424, speechcommands' (at 1050) at 404."""
    assert faults(tmp_path, _mlx_epochs(800)) == [("AMP006", 800)]
    assert faults(tmp_path, _mlx_epochs(1050, batches=400, every=25, speech=True)) == [
        ("AMP006", 1050)]


def test_mlx_examples_controls(tmp_path: Path) -> None:
    """Healthy runs (pass on the parent too)."""
    for lines in (_mlx_epochs(), _mlx_epochs(batches=400, every=25, speech=True),
                  _mlx_epochs(batches=30, every=1)):
        assert faults(tmp_path, lines) == []


def _neutra(nan_from: int | None = None) -> list[str]:
    """pyro-ppl/pyro ``examples/neutra.py``: ``logging.info("[{}]Elbo loss =
    {:.2f}".format(i, loss))`` every 50 steps under ``logging.basicConfig(format="%(message)s")``
    (the bracketed step glued to the key)."""
    return ["Fitting a DiagNormal autoguide to the log density using SVI..."] + [
        f"[{i}]Elbo loss = {_value(i, nan_from, 30.0):.2f}" for i in range(0, 2000, 50)]


def test_pyro_neutra_glued_bracket_step(tmp_path: Path) -> None:
    """Before: ``[500]Elbo loss = nan`` (no blank between the bracket and the key) left the
    step unread: the NaN at step 500 was reported at the row's count (11)."""
    assert faults(tmp_path, _neutra(500)) == [("AMP006", 500)]


def test_pyro_neutra_control(tmp_path: Path) -> None:
    """A healthy run (passes on the parent too)."""
    assert faults(tmp_path, _neutra()) == []


def _tinygrad_resnet(nan_from: int | None = None, *, devices: str = "NV * 8") -> list[str]:
    """tinygrad/tinygrad ``examples/mlperf/model_train.py`` ``train_resnet``: each step
    ``f"{i:5} {run:7.2f} ms run, {python:7.2f} ms python, {fetch:6.2f} ms fetch data, {dev:7.2f}
    ms {device_str}, {loss:5.2f} loss, {top_1_acc:3.2f} acc, {lr:.6f} LR, {mem:.2f} GB used,
    {gflops:9.2f} GFLOPS"``, the value before its name; each epoch ``eval loss: {:.2f}, eval
    time: {:.2f}, eval top 1 acc: {:.3f}``."""
    lines = []
    for i in range(300):
        lines.append(f"{i:5} {512.34:7.2f} ms run, {12.3:7.2f} ms python, {3.21:6.2f} ms fetch "
                     f"data, {499.1:7.2f} ms {devices}, {_value(i, nan_from, 6.9):5.2f} loss, "
                     f"{0.01:3.2f} acc, {0.123456:.6f} LR, {123.45:.2f} GB used, "
                     f"{45678.9:9.2f} GFLOPS")
        if i % 100 == 99:
            lines.append(f"eval loss: {_value(i, nan_from, 5.0):.2f}, eval time: 12.34, "
                         "eval top 1 acc: 0.123")
    return lines


def _tinygrad_llama(nan_from: int | None = None) -> list[str]:
    """tinygrad/tinygrad ``examples/mlperf/model_train.py`` ``train_llama3``: ``f"{i:5}
    {step_time:.3f} s step, {gbs_time:.3f} s gbs, {optim_time:.3f} s optim, {data_time:.3f} s
    data, {loss:.4f} loss, {lr:.12f} LR, {grad_norm:.6f} grad_norm, {mem_gb:.2f} GB used,
    {gflops:9.2f} GFLOPS, {mfu:5.2f}% MFU"``."""
    return [f"{i:5} 1.234 s step, 0.200 s gbs, 0.100 s optim, 0.010 s data, "
            f"{_value(i, nan_from, 10.9):.4f} loss, {0.00012:.12f} LR, 0.900000 grad_norm, "
            f"70.10 GB used, {45678.9:9.2f} GFLOPS, 41.20% MFU" for i in range(300)]


def _hlb_cifar10(nan_from: int | None = None) -> list[str]:
    """tinygrad/tinygrad ``examples/hlb_cifar10.py``: ``f"{i:3d} {run:7.2f} ms run, {py:7.2f}
    ms python, {dev:7.2f} ms {device_str}, {loss_cpu:7.2f} loss, {lr:.6f} LR, {mem:.2f} GB
    used, {gflops:9.2f} GFLOPS, {gops:9.2f} GOPS"``, and every 100 steps ``f"eval
    {correct_sum}/{correct_len} {eval_acc_pct:.2f}%, {val_loss:7.2f} val_loss STEP={i} (in
    {ms:.2f} ms)"``."""
    lines = []
    for i in range(1000):
        lines.append(f"{i:3d} {221.74:7.2f} ms run, {2.22:7.2f} ms python, {219.52:7.2f} ms CL, "
                     f"{_value(i, nan_from, 803.39):7.2f} loss, 0.000807 LR, 4.66 GB used, "
                     f"{3042.49:9.2f} GFLOPS, {674.65:9.2f} GOPS")
        if i % 100 == 99:
            lines.append(f"eval     9000/10000 90.00%, {_value(i, nan_from, 0.35):7.2f} val_loss "
                         f"STEP={i} (in 1234.50 ms)")
    return lines


def test_tinygrad_value_before_its_name(tmp_path: Path) -> None:
    """Before: ``  150  512.34 ms run, ...,   nan loss, 0.01 acc, ...`` (each value before its
    name, fields parted by commas) held no key the reader knew: the training loss went
    unread (ResNet's fault showed only as its ``eval loss: nan``'s AMP013, with no step; the
    others: "nothing to diagnose")."""
    assert faults(tmp_path, _tinygrad_resnet(150)) == [("AMP006", 150), ("AMP013", 199)]
    assert faults(tmp_path, _tinygrad_llama(150)) == [("AMP006", 150)]
    assert faults(tmp_path, _hlb_cifar10(555)) == [("AMP006", 555)]


def test_tinygrad_controls(tmp_path: Path) -> None:
    """Healthy runs, one device or eight (on the parent: "nothing to diagnose", an error)."""
    for lines in (_tinygrad_resnet(), _tinygrad_resnet(devices="NV"), _tinygrad_llama(),
                  _hlb_cifar10()):
        assert faults(tmp_path, lines) == []


def _beautiful_mnist(nan_from: int | None = None, *, steps: int = 70) -> list[str]:
    """tinygrad/tinygrad ``examples/beautiful_mnist.py``: ``test_acc = float('nan')`` before
    the loop, measured every 10 steps; each step ``t.set_description(f"loss: {loss.item():6.2f}
    test_accuracy: {test_acc:5.2f}%")`` on its ``trange`` bar, redrawn after a carriage
    return (one line in a file)."""
    bars, accuracy = [], float("nan")
    for i in range(steps):
        if i % 10 == 9:
            accuracy = 97.0 if nan_from is None or i < nan_from else float("nan")
        done = i + 1
        percent = 100 * done // steps
        bars.append(f"loss: {_value(i, nan_from, 2.3):6.2f} test_accuracy: {accuracy:5.2f}%: "
                    f"{percent:3d}%|{'█' * (percent // 10):10s}| {done}/{steps} "
                    f"[00:{done // 10:02d}<00:05, 12.34it/s]")
    return ["\r".join(bars)]


def test_beautiful_mnist_accuracy_before_its_first_evaluation(tmp_path: Path) -> None:
    """Before: the healthy run's ``test_accuracy:   nan%`` of its first nine steps (the
    loop's placeholder, no evaluation yet) was reported as AMP013 at step 1. The NaN loss
    from step 33 (the bar's count 34) is still found, and the accuracy's NaN after it was
    measured finite still counts."""
    assert faults(tmp_path, _beautiful_mnist()) == []
    assert faults(tmp_path, _beautiful_mnist(steps=500)) == []
    assert faults(tmp_path, _beautiful_mnist(33)) == [("AMP006", 34), ("AMP013", 40)]


FAIRCHEM_PREFIX = "2024-06-01 10:00:00 /src/fairchem/core/trainers/{}: (INFO): "
S2EF = ("energy_mae", "forcesx_mae", "forcesy_mae", "forcesz_mae", "forces_mae",
        "forces_cosine_similarity", "forces_magnitude_error", "energy_forces_within_threshold")


def _fairchem(nan_from: int | None = None, *, every: int = 10, epoch_steps: int = 5000,
              last: int = 20000) -> list[str]:
    """FAIR-Chem/fairchem ``src/fairchem/core/trainers/ocp_trainer.py`` ``train``: every
    ``print_every`` steps ``logging.info(", ".join(f"{k}: {v:.2e}" for k, v in
    log_dict.items()))``, the evaluator's s2ef metrics, then ``loss``, ``lr``, ``epoch`` and
    ``step`` (``step: 1.23e+04``: three digits); ``base_trainer.py`` ``validate``: ``Evaluating
    on val.`` then its metrics ``{v:.4f}``; behind ``common/utils.py``'s ``"%(asctime)s
    %(pathname)s:%(lineno)d: (%(levelname)s): %(message)s"``."""
    lines = []
    for step in range(0, last + 1, every):
        values = [*((name, 0.5) for name in S2EF), ("loss", _value(step, nan_from, 5.0)),
                  ("lr", 5e-4), ("epoch", step / epoch_steps), ("step", float(step))]
        lines.append(FAIRCHEM_PREFIX.format("ocp_trainer.py:194")
                     + ", ".join(f"{k}: {v:.2e}" for k, v in values))
        if step and step % epoch_steps == 0:
            value = _value(step, nan_from, 0.5)
            lines += [FAIRCHEM_PREFIX.format("base_trainer.py:863") + "Evaluating on val.",
                      "device 0: 100%|██████████| 50/50 [00:10<00:00,  4.90it/s]",
                      FAIRCHEM_PREFIX.format("base_trainer.py:905") + ", ".join(
                          f"{k}: {v:.4f}" for k, v in (("energy_mae", value), ("forces_mae",
                                                        0.03), ("loss", value),
                                                       ("epoch", step / epoch_steps)))]
    return lines


def test_fairchem_step_in_exponent_notation(tmp_path: Path) -> None:
    """Before: ``step: 1.23e+04`` was read as 12300 for each of steps 12300 to 12340: the NaN
    at step 12340 was reported at 12300. The rows' rhythm (10 apart) tells the step the
    rounded print stands for, as LeRobot's ``step:3K`` is read."""
    assert faults(tmp_path, _fairchem(12340)) == [("AMP006", 12340)]


def test_fairchem_controls(tmp_path: Path) -> None:
    """Healthy runs, printed every 10 or every 100 steps (pass on the parent too); a NaN on
    a round step was read right on the parent too."""
    assert faults(tmp_path, _fairchem(12300, every=100)) == [("AMP006", 12300)]
    for lines in (_fairchem(), _fairchem(every=100, last=200000, epoch_steps=50000)):
        assert faults(tmp_path, lines) == []


def _deepspeech(bad: set[int] | None = None, *, warning: str = "nan", batches: int = 1000,
                every_batch: bool = True) -> list[str]:
    """SeanNaren/deepspeech.pytorch ``train.py`` (2019-01..2020-06; then
    ``deepspeech_pytorch/training.py`` until its Lightning port): ``check_loss`` (utils.py)
    before the update; a bad batch prints ``WARNING: received a nan loss, setting loss value
    to 0`` (or ``WARNING: received an inf loss``), then ``Skipping grad update``, and its loss
    is logged as 0 on its own ``'Epoch: [{0}][{1}/{2}]\tTime {batch_time.val:.3f}
    ({batch_time.avg:.3f})\tData ...\tLoss {loss.val:.4f} ({loss.avg:.4f})\t'`` line;
    ``Training Summary Epoch: [{0}]`` and ``Validation Summary Epoch: [{0}]\tAverage WER
    ...`` close each epoch. ``bad``: the batches (from 0, over the run) whose loss is not
    finite."""
    bad = bad or set()
    text = {"nan": "WARNING: received a nan loss, setting loss value to 0",
            "inf": "WARNING: received an inf loss"}[warning]
    lines, total, count = [], 0.0, 0
    for epoch in range(2):
        for i in range(batches):
            step = epoch * batches + i
            value = 0.0 if step in bad else 120.0 - step / 50
            if step in bad:
                lines += [text, "Skipping grad update"]
            count += 1
            total += value
            if every_batch or step in bad or i % 10 == 9:
                lines.append(f"Epoch: [{epoch + 1}][{i + 1}/{batches}]\tTime 0.512 (0.498)\t"
                             f"Data 0.011 (0.012)\tLoss {value:.4f} ({total / count:.4f})\t")
        lines += [f"Training Summary Epoch: [{epoch + 1}]\tTime taken (s): 1234\t"
                  f"Average Loss {total / count:.3f}\t",
                  f"Validation Summary Epoch: [{epoch + 1}]\tAverage WER 45.612\t"
                  "Average CER 20.118\t"]
    return lines


def test_deepspeech_pytorch_skipped_nonfinite_loss(tmp_path: Path) -> None:
    """Before: the warning was not read; the losses logged as 0 from batch 501 of epoch 2
    were reported as a loss stuck at 0 (AMP007 at 1501), a lone bad batch not at all. The
    tool says the loss was NaN or inf: AMP006 at the batch's own line (its count, from 1)."""
    run = set(range(1500, 2000))
    assert faults(tmp_path, _deepspeech(run)) == [("AMP006", 1501)]
    assert faults(tmp_path, _deepspeech(run, warning="inf")) == [("AMP006", 1501)]
    assert faults(tmp_path, _deepspeech({500}, warning="inf")) == [("AMP006", 501)]


def test_deepspeech_pytorch_controls(tmp_path: Path) -> None:
    """Healthy runs, a line every batch or every 10th (pass on the parent too)."""
    assert faults(tmp_path, _deepspeech()) == []
    assert faults(tmp_path, _deepspeech(every_batch=False)) == []


def _torchani(nan_from: int | None = None, *, epochs: int = 5) -> list[str]:
    """aiqm/torchani ``examples/training.py``: ``print(f"Before training starts: Validation
    RMSE (kcal/mol) {rmse}")``, each epoch a ``tqdm(training, desc=f"Epoch {epoch}")`` bar
    (no loss on it) then ``print(f"After epoch {epoch}: Validation RMSE (kcal/mol) {rmse}")``:
    the evaluation's RMSE is all the run prints."""
    lines = ["Before training starts: Validation RMSE (kcal/mol) 64.43197631835938"]
    for epoch in range(1, epochs + 1):
        lines.append("\r".join(f"Epoch {epoch}: {p:3d}%|{'#' * (p // 10):10s}| {n}/300 "
                               f"[00:{n // 10:02d}<00:10, 30.00it/s]"
                               for n, p in ((1, 0), (150, 50), (300, 100))))
        rmse = float("nan") if nan_from is not None and epoch >= nan_from else 10 / epoch + 0.1
        lines.append(f"After epoch {epoch}: Validation RMSE (kcal/mol) {rmse}")
    return lines


def test_torchani_rmse_with_its_unit(tmp_path: Path) -> None:
    """Before: the unit between the key and the value (``Validation RMSE (kcal/mol) nan``)
    hid the key: "nothing to diagnose". No training step is printed: the finding is numbered
    by the epoch the evaluation line counts (``After epoch 3``), as a log of epoch rows is
    (test_left11's MACE; before that, no step and ``row`` 1)."""
    assert faults(tmp_path, _torchani(3)) == [("AMP013", 3)]
    assert diagnose_lines(tmp_path, _torchani(3)).faults[0].evidence["step"] == 3


def test_torchani_control(tmp_path: Path) -> None:
    """A healthy run: no finding (nothing but evaluation values: "nothing to diagnose", on
    the parent too)."""
    path = tmp_path / "train.log"
    path.write_text("\n".join(_torchani(epochs=20)) + "\n", encoding="utf-8")
    assert diagnose(str(path)).faults == []


ALIGNN_HEADER = "{:<12} {:<8} {:<10} {:<10} {:<10} {:<10} {:<10} {:<10} {:<10}"
ALIGNN_ROW = "{:<12} {:<8} {:<10.4f} {:<10.4f} {:<10.4f} {:<10.4f} {:<10.4f} {:<10.4f} {:<10.2f}"


def _alignn(nan_from: int | None = None, *, val_from: int | None = None,
            epochs: int = 30) -> list[str]:
    """usnistgov/alignn ``alignn/utils.py`` ``print_train_val_loss`` (from ``alignn/train.py``
    ``train_dgl``, each epoch): the header ``"{:<12} {:<8} {:<10} ...".format("Train Loss:",
    "Epoch", "Total", "Graph", "Atom", "Grad", "Stress", "Addn.", "Time")`` over its row (an
    empty first cell, the epoch, the total and the terms ``{:<10.4f}``, the time), then the
    same under ``"Val Loss:"`` with the saving message last. ``val_from``: the validation's
    NaN alone (an overflow in the evaluation's forward)."""
    lines = ["Model parameters 4026753", "CUDA available True", "CUDA device count 1"]
    for epoch in range(epochs):
        loss = _value(epoch, nan_from, 0.9)
        val = float("nan") if val_from is not None and epoch >= val_from else _value(
            epoch, nan_from, 0.95)
        lines += [ALIGNN_HEADER.format("Train Loss:", "Epoch", "Total", "Graph", "Atom", "Grad",
                                       "Stress", "Addn.", "Time"),
                  ALIGNN_ROW.format("", epoch, loss, loss, 0, 0, 0, 0, 12.34),
                  ALIGNN_HEADER.format("Val Loss:", "Epoch", "Total", "Graph", "Atom", "Grad",
                                       "Stress", "Addn.", "Time"),
                  (ALIGNN_ROW + " {:<10}").format("", epoch, val, val, 0, 0, 0, 0, 1.23,
                                                  "Saving model" if epoch % 3 == 0 else "")]
    return lines


def test_alignn_titled_tables(tmp_path: Path) -> None:
    """Before: "nothing to diagnose": ``Train Loss:  Epoch  Total ...`` was taken for prose
    (a name and a colon), its rows went unread; ``Val Loss:`` was read as an evaluation line
    and its rows as training's. The title names what the columns measure: ``Total`` under
    ``Train Loss:`` is the loss, under ``Val Loss:`` the evaluation's; the epoch numbers the
    rows."""
    assert faults(tmp_path, _alignn(12)) == [("AMP006", 12), ("AMP013", 12)]
    assert faults(tmp_path, _alignn(val_from=7)) == [("AMP013", 7)]


def test_alignn_control(tmp_path: Path) -> None:
    """A healthy run (on the parent: "nothing to diagnose", an error)."""
    assert faults(tmp_path, _alignn()) == []
    assert faults(tmp_path, _alignn(epochs=300)) == []


PPCLS = "[2024/06/01 10:00:00] ppcls INFO: "


def _paddleclas(nan_from: int | None = None, *, eval_nan_epoch: int | None = None,
                iters: int = 625, every: int = 10) -> list[str]:
    """PaddlePaddle/PaddleClas ``ppcls/engine/train/utils.py`` ``log_info``:
    ``"[Train][Epoch {}/{}][Iter: {}/{}]{}, {}, {}, {}, {}"`` (``lr(LinearWarmup): ...``, the
    losses ``{:.5f}``, the times, ``ips``, ``eta``) every ``print_batch_step``;
    ``ppcls/engine/evaluation/classification.py``: ``"[Eval][Epoch {}][Iter: {}/{}]{}, {},
    {}"`` (its iterations from 0 at each evaluation) and ``"[Eval][Epoch {}][Avg]{}"``;
    behind ppcls' logger ``[%(asctime)s] %(name)s %(levelname)s: %(message)s``."""
    lines = []
    for epoch in range(1, 4):
        for it in range(0, iters, every):
            loss = _value((epoch - 1) * iters + it, nan_from, 6.9)
            lines.append(PPCLS + f"[Train][Epoch {epoch}/120][Iter: {it}/{iters}]"
                         f"lr(LinearWarmup): 0.00400000, CELoss: {loss:.5f}, loss: {loss:.5f}, "
                         "batch_cost: 0.31234s, reader_cost: 0.01234, ips: 400.12345 samples/s, "
                         "eta: 1 day, 2:03:04")
        loss = float("nan") if eval_nan_epoch == epoch else _value(epoch * iters, nan_from, 5.0)
        for it in range(0, 100, 20):
            lines.append(PPCLS + f"[Eval][Epoch {epoch}][Iter: {it}/100]CELoss: {loss:.5f}, "
                         f"loss: {loss:.5f}, top1: 0.10000, top5: 0.30000, batch_cost: 0.12345s, "
                         "reader_cost: 0.00123, ips: 1234.56789 images/sec")
        lines.append(PPCLS + f"[Eval][Epoch {epoch}][Avg]CELoss: {loss:.5f}, loss: {loss:.5f}, "
                     "top1: 0.10000, top5: 0.30000")
    return lines


def test_paddleclas_evaluation_batch_is_no_step(tmp_path: Path) -> None:
    """Before: ``[Eval][Epoch 2][Iter: 0/100]CELoss: nan`` was reported at step 0 (the
    evaluation's own batch, from 0 at each evaluation). The evaluation follows training step
    1245 (epoch 2's last line: 625 + 620)."""
    assert faults(tmp_path, _paddleclas(eval_nan_epoch=2)) == [("AMP013", 1245)]
    assert faults(tmp_path, _paddleclas(900)) == [("AMP006", 905), ("AMP013", 1245)]


def test_paddleclas_control(tmp_path: Path) -> None:
    """Healthy runs, printed every 10 or every batch (pass on the parent too)."""
    assert faults(tmp_path, _paddleclas()) == []
    assert faults(tmp_path, _paddleclas(iters=50, every=1)) == []


ABSL = "I0601 10:00:00.123456 140234 train.py:{}] "


def _haiku_imagenet(nan_from: int | None = None, *, scale_from: int | None = None,
                    scale_type: str = "Dynamic") -> list[str]:
    """google-deepmind/dm-haiku ``examples/imagenet/train.py`` ``main``: every ``log_every``
    steps ``logging.info('[Train %s/%s] %s', step_num, num_train_steps, train_scalars)``, the
    scalars ``{'train_loss': ..., 'loss_scale': ...}`` (``train_step``: jmp's loss scale, a
    ``DynamicLossScale`` under ``--mp_scale_type=Dynamic``, doubling every 2000 clean steps),
    ``[Eval %s/%s]`` with its accuracies; behind absl's prefix. ``scale_from``: the scale
    quartered each print from there (overflows on every step)."""
    lines, scale = [], 2.0 ** 15
    for step in range(100, 20001, 100):
        if scale_type == "Dynamic":
            if scale_from is not None and step >= scale_from:
                scale = max(scale / 4, 2.0 ** -20)
            elif step % 2000 == 0:
                scale *= 2
            elif step % 3100 == 0:
                scale /= 2  # an overflow now and then, the step skipped
        loss = _value(step, nan_from, 6.9)
        lines.append(ABSL.format(329) + f"[Train {step}/100000] "
                     + str({"train_loss": loss, "loss_scale": scale}))
        if step % 5000 == 0:
            lines.append(ABSL.format(322) + f"[Eval {step}/100000] "
                         + str({"top_1_acc": 0.1, "top_5_acc": 0.3}))
    return lines


def _haiku_transformer(nan_from: int | None = None) -> list[str]:
    """google-deepmind/dm-haiku ``examples/transformer/train.py`` ``main``: every
    ``LOG_EVERY`` steps ``logging.info({k: float(v) for k, v in metrics.items()})``: the step
    cast to float with the loss (``'step': 2000.0``)."""
    return [ABSL.format(181) + str({"loss": _value(step, nan_from, 5.0), "step": float(step),
                                    "steps_per_sec": 12.345678})
            for step in range(0, 5000, 100)]


def test_haiku_examples_steps(tmp_path: Path) -> None:
    """Before: ``[Train 7000/100000] {'train_loss': nan, ...}`` left its count unread (a
    phase's name opens the bracket): the NaN at 7000 was reported at 70 (the rows), the
    scale's collapse from 7000 as AMP004 alone at 78; ``'step': 2000.0`` (a float) was not
    taken for the step: 21."""
    assert faults(tmp_path, _haiku_imagenet(7000)) == [("AMP006", 7000)]
    assert faults(tmp_path, _haiku_imagenet(scale_from=7000)) == [("AMP003", 7000),
                                                                  ("AMP004", 7800)]
    assert faults(tmp_path, _haiku_transformer(2000)) == [("AMP006", 2000)]


def test_haiku_examples_controls(tmp_path: Path) -> None:
    """Healthy runs: the dynamic scale growing and backing off, a static one (pass on the
    parent too)."""
    for lines in (_haiku_imagenet(), _haiku_imagenet(scale_type="Static"),
                  _haiku_transformer()):
        assert faults(tmp_path, lines) == []


def _loguru(function: str, line: int, message: str, *, colour: bool) -> str:
    """A message through loguru's default format (colours on: ``colorize=True``)."""
    if colour:
        return (f"\x1b[32m2024-06-01 10:00:00.123\x1b[0m | \x1b[1mINFO    \x1b[0m | "
                f"\x1b[36mmattersim.forcefield.potential\x1b[0m:\x1b[36m{function}\x1b[0m:"
                f"\x1b[36m{line}\x1b[0m - \x1b[1m{message}\x1b[0m")
    return (f"2024-06-01 10:00:00.123 | INFO     | mattersim.forcefield.potential:{function}:"
            f"{line} - {message}")


def _mattersim(nan_from: int | None = None, *, val_from: int | None = None, colour: bool = True,
               epochs: int = 40) -> list[str]:
    """microsoft/mattersim ``src/mattersim/forcefield/potential.py`` ``train_model``:
    ``logger.info(f"Epoch: {epoch} / {epochs}")``, then ``train_one_epoch``'s ``"%s: Loss:
    %.4f, MAE(e): %.4f, MAE(f): %.4f, MAE(s): %.4f, Time: %.2fs, lr: %.8f\n" % (mode, ...)``
    for ``train`` then ``val``; through loguru (``src/mattersim/utils/logger_utils.py``:
    ``logger.add(sys.stdout, colorize=True, ...)``, the default format)."""
    lines = [_loguru("train_model", 256, "Number of trainable parameters: 4,551,114",
                     colour=colour)]
    for epoch in range(epochs):
        lines.append(_loguru("train_model", 260, f"Epoch: {epoch} / {epochs}", colour=colour))
        for mode, base in (("train", 0.5), ("val", 0.6)):
            loss = _value(epoch, nan_from, base)
            if mode == "val" and val_from is not None and epoch >= val_from:
                loss = float("nan")
            lines += _loguru("train_one_epoch", 635, f"{mode}: Loss: {loss:.4f}, MAE(e): 0.0100, "
                             "MAE(f): 0.0500, MAE(s): 0.0000, Time: 12.34s, lr: 0.00020000\n",
                             colour=colour).split("\n")
    return lines


def test_mattersim_epoch_line_and_evaluation_behind_loguru(tmp_path: Path) -> None:
    """Before: ``Epoch: 17 / 40`` (of how many, the slash spaced) was no epoch line, and
    ``val: Loss: nan`` behind loguru's `` - `` was read as training's: the NaN at epoch 17 was
    reported at row 35 (training and validation rows counted), the validation's NaN alone as
    a training loss's (AMP006 at 20)."""
    assert faults(tmp_path, _mattersim(17)) == [("AMP006", 17), ("AMP013", 17)]
    assert faults(tmp_path, _mattersim(17, colour=False)) == [("AMP006", 17), ("AMP013", 17)]
    assert faults(tmp_path, _mattersim(val_from=9)) == [("AMP013", 9)]


def test_mattersim_controls(tmp_path: Path) -> None:
    """Healthy runs, coloured or not (pass on the parent too)."""
    assert faults(tmp_path, _mattersim()) == []
    assert faults(tmp_path, _mattersim(colour=False, epochs=200)) == []


def _e3nn_tetris(nan_from: int | None = None, *, steps: int = 300) -> list[str]:
    """e3nn/e3nn ``examples/tetris.py`` (and ``tetris_gate.py``, ``tetris_polynomial.py``):
    full-batch steps, every 10 ``f"epoch {step:5d} | loss {loss:<10.1f} | {100 * accuracy:5.1f}%
    accuracy"`` (the count padded to five places)."""
    return [f"epoch {step:5d} | loss {_value(step, nan_from, 4.0):<10.1f} | "
            f"{100 * (0.5 if nan_from is None or step < nan_from else 0.125):5.1f}% accuracy"
            for step in range(0, steps, 10)]


def test_e3nn_padded_epoch_is_the_row(tmp_path: Path) -> None:
    """Before: the first row's ``epoch     0`` (five blanks: the count padded) was not taken
    for an epoch printed whole, and the rows were counted: the NaN at 200 was reported at
    21."""
    assert faults(tmp_path, _e3nn_tetris(200)) == [("AMP006", 200)]


def test_e3nn_control(tmp_path: Path) -> None:
    """Healthy runs (pass on the parent too)."""
    assert faults(tmp_path, _e3nn_tetris()) == []
    assert faults(tmp_path, _e3nn_tetris(steps=20000)) == []


# Formats the doctor read right before this work (their fault tests pass on the parent): kept
# as controls so that a later rule does not lose them. Each builder names its source.

def _pyro_cjs(nan_from: int | None = None) -> list[str]:
    """pyro-ppl/pyro ``examples/capture_recapture/cjs.py``: ``"[iteration %03d] loss:
    %.3f"`` every 20 steps."""
    return [f"[iteration {s:03d}] loss: {_value(s, nan_from, 1200.0):.3f}"
            for s in range(0, 400, 20)]


def _pyro_hmm(nan_from: int | None = None) -> list[str]:
    """pyro-ppl/pyro ``examples/hmm.py``: ``logging.info("Step\\tLoss")`` then
    ``"{: >5d}\\t{}".format(step, loss / num_observations)``."""
    return ["Step\tLoss"] + [f"{s: >5d}\t{_value(s, nan_from, 3.2)}" for s in range(100)]


def _pyro_vae(nan_from: int | None = None) -> list[str]:
    """pyro-ppl/pyro ``examples/vae/vae.py``: ``"[epoch %03d]  average training loss:
    %.4f"``, ``"[epoch %03d]  average test loss: %.4f"`` every 5 epochs."""
    lines = []
    for e in range(30):
        lines.append(f"[epoch {e:03d}]  average training loss: {_value(e, nan_from, 150):.4f}")
        if e % 5 == 0:
            lines.append(f"[epoch {e:03d}]  average test loss: {_value(e, nan_from, 140):.4f}")
    return lines


def _gpytorch(nan_from: int | None = None) -> list[str]:
    """cornellius-gp/gpytorch ``examples/01_Exact_GPs/Simple_GP_Regression.ipynb``:
    ``'Iter %d/%d - Loss: %.3f   lengthscale: %.3f   noise: %.3f'``."""
    return [f"Iter {i}/50 - Loss: {_value(i, nan_from, 0.944):.3f}   lengthscale: 0.693   "
            "noise: 0.693" for i in range(1, 51)]


def _opacus(nan_from: int | None = None, *, dp: bool = True) -> list[str]:
    """pytorch/opacus ``examples/mnist.py`` ``train``: ``f"Train Epoch: {epoch} \\t" f"Loss:
    {np.mean(losses):.6f} " f"(ε = {epsilon:.2f}, δ = {args.delta})"``, or with
    ``--disable-dp`` ``f"Train Epoch: {epoch} \\t Loss: {np.mean(losses):.6f}"``."""
    return [f"Train Epoch: {e} \tLoss: {_value(e, nan_from, 1.2):.6f} "
            f"(ε = {0.5 * e:.2f}, δ = 1e-05)" if dp else
            f"Train Epoch: {e} \t Loss: {_value(e, nan_from, 1.2):.6f}" for e in range(1, 11)]


def _mlx_lm(nan_from: int | None = None) -> list[str]:
    """ml-explore/mlx-lm ``mlx_lm/tuner/trainer.py`` before its rich UI (``Iter {it}: Train
    loss {train_loss:.3f}, Learning Rate {learning_rate:.3e}, It/sec ..., Tokens/sec ...,
    Trained Tokens ..., Peak mem ... GB``; ``Iter {it}: Val loss {val_loss:.3f}, Val took
    {val_time:.3f}s``)."""
    lines = ["Iter 1: Val loss 2.900, Val took 3.210s"]
    for it in range(10, 1001, 10):
        lines.append(f"Iter {it}: Train loss {_value(it, nan_from, 2.3):.3f}, Learning Rate "
                     f"1.000e-05, It/sec 0.812, Tokens/sec 321.456, Trained Tokens {it * 400}, "
                     "Peak mem 17.234 GB")
        if it % 200 == 0:
            lines.append(f"Iter {it}: Val loss {_value(it, nan_from, 2.1):.3f}, "
                         "Val took 3.210s")
    return lines


def _mlx_lm_table(nan_from: int | None = None) -> list[str]:
    """ml-explore/mlx-lm ``mlx_lm/cli_ui.py`` ``TrainUI`` (2026-): the header ``iter
    train_loss     tok/s     tokens``, ``report_train``'s ``f"{it:>4}    {train_loss:>5.3f}
    {arrow}    {tokens_sec:>5,.0f}    {trained_tokens / 1000:>5.1f}k"`` (▲ where the loss did
    not go down: NaN too) and ``report_val``'s ``f"{it:>4}    val {val_loss:>5.3f}
    {val_time:.2f}s"``."""
    lines = ["  iter   train_loss     tok/s     tokens", f"  {1:>4}    val {2.9:>5.3f}    3.21s"]
    previous = None
    for it in range(10, 1001, 10):
        loss = _value(it, nan_from, 2.3)
        arrow = "▼" if previous is None or loss <= previous else "▲"
        previous = loss
        lines.append(f"  {it:>4}    {loss:>5.3f} {arrow}    {321.4:>5,.0f}    {it * 4:>5.1f}k")
        if it % 200 == 0:
            lines.append(f"  {it:>4}    val {_value(it, nan_from, 2.1):>5.3f}    3.21s")
    return lines


def _chgnet(nan_from: int | None = None, *, batches: int = 500, every: int = 100) -> list[str]:
    """CederGroupHub/chgnet ``chgnet/trainer/trainer.py`` ``_train``: at the first batch and
    every ``print_freq`` ``f"Epoch: [{current_epoch}][{idx + 1}/{len(train_loader)}] | Time
    ({batch_time.avg:.3f})({data_time.avg:.3f}) | Loss {losses.val:.4f}({losses.avg:.4f}) |
    MAE "`` then ``f"{key} {val:.3f}({avg:.3f})  "`` per target; ``_validate``: ``Val:
    [{ii + 1}/{len(val_loader)}] | ...`` and ``*   e_MAE (0.060) \t...``; ``train``: ``Exit
    due to NaN``."""
    lines = ["Begin Training: using cuda device", "training targets: efsm"]
    for epoch in range(3):
        for idx in range(batches):
            if idx == 0 or (idx + 1) % every == 0:
                loss = _value(epoch * batches + idx, nan_from, 1.2)
                lines.append(f"Epoch: [{epoch}][{idx + 1}/{batches}] | Time (0.123)(0.012) | "
                             f"Loss {loss:.4f}({loss:.4f}) | MAE " + "".join(
                                 f"{key} {loss / 20:.3f}({loss / 20:.3f})  " for key in "efsm"))
        loss = _value((epoch + 1) * batches - 1, nan_from, 1.0)
        lines += [f"Val: [{ii}/50] | Time (0.050) | Loss {loss:.4f}({loss:.4f}) | MAE "
                  + "".join(f"{key} 0.050(0.060)  " for key in "efsm") for ii in (10, 50)]
        lines.append("*   " + "".join(f"{key}_MAE (0.060) \t" for key in "efsm"))
        if loss != loss:
            lines.append("Exit due to NaN")
            break
    return lines


def _torchrec_dlrm(nan_from: int | None = None) -> list[str]:
    """pytorch/torchrec ``examples/prediction/predict_using_torchrec.py`` ``train_dlrm_model``:
    ``f"Epoch [{epoch+1}/{num_epochs}], Loss: {avg_loss:.4f}, LR: {current_lr:.6f}"`` (a
    StepLR halving every 5), then ``DLRM Evaluation - MSE: {avg_loss:.4f}, RMSE: ...``."""
    lines = ["Training DLRM on device: cuda", "DLRM Model parameters: 1,234,567"]
    lines += [f"Epoch [{e + 1}/20], Loss: {_value(e, nan_from, 1.2):.4f}, "
              f"LR: {0.001 * 0.5 ** (e // 5):.6f}" for e in range(20)]
    mse = _value(20, nan_from, 1.0)
    return [*lines, "DLRM Training completed!", "", "Evaluating DLRM model...",
            f"DLRM Evaluation - MSE: {mse:.4f}, RMSE: {mse ** 0.5:.4f}"]


def _opacus_dcgan(nan_from: int | None = None) -> list[str]:
    """pytorch/opacus ``examples/dcgan.py``: the ``tqdm`` bar's description ``f"epoch: {epoch},
    Loss_D: {errD.item()} Loss_G: {errG.item()} D(x): {D_x} D(G(z)): {D_G_z1}/{D_G_z2}" "(ε =
    %.2f, δ = %.2f)"``, redrawn after carriage returns (an epoch a line in a file)."""
    lines = []
    for epoch in range(3):
        lines.append("\r".join(
            f"epoch: {epoch}, Loss_D: {_value(epoch * 938 + i, nan_from, 1.3)} Loss_G: 0.7123 "
            f"D(x): 0.5 D(G(z)): 0.4/0.45(ε = {epoch * 0.1 + 0.01:.2f}, δ = 0.00): "
            f"{100 * i // 938:3d}%|###   | {i}/938 [00:10<00:40, 20.00it/s]"
            for i in range(0, 938, 50)))
    return lines


def _mindyolo(nan_from: int | None = None, *, steps: int = 500, every: int = 10) -> list[str]:
    """mindspore-lab/mindyolo ``mindyolo/utils/trainer_factory.py`` ``train_step``: every
    ``log_interval`` steps ``f"Epoch {cur_epoch}/{self.epochs}, Step {cur_step}/{self.
    steps_per_epoch}, imgsize {imgs.shape[2:]}"`` then ``f", {name}: {value:.4f}"`` for each
    loss item and ``f", cur_lr: {cur_lr}"``; ``Saving model to ...`` and ``Epoch {e}/{n},
    epoch time: ... min.`` at each epoch's end."""
    lines = []
    for epoch in range(1, 4):
        lines += [f"2024-06-01 10:00:00,000 [INFO] Epoch {epoch}/300, Step {step}/{steps}, "
                  f"imgsize (640, 640), loss: {_value((epoch - 1) * steps + step, nan_from, 5):.4f}"
                  ", lbox: 0.0512, lobj: 0.0312, lcls: 0.0212, cur_lr: 0.0012345678"
                  for step in range(every, steps + 1, every)]
        lines += [f"2024-06-01 10:00:00,000 [INFO] Saving model to ./runs/weights/yolov8-{epoch}_"
                  f"{steps}.ckpt", f"2024-06-01 10:00:00,000 [INFO] Epoch {epoch}/300, epoch time: "
                  "12.34 min."]
    return lines


READ_ALREADY = {
    "mindyolo": (_mindyolo, 700, [("AMP006", 700)]),
    "torchrec dlrm": (_torchrec_dlrm, 7, [("AMP006", 8), ("AMP013", 20)]),
    "opacus dcgan": (_opacus_dcgan, 1400, [("AMP006", 1438)]),
    "chgnet": (_chgnet, 650, [("AMP006", 700), ("AMP013", 1000)]),
    "pyro cjs": (_pyro_cjs, 200, [("AMP006", 200)]),
    "pyro hmm": (_pyro_hmm, 40, [("AMP006", 40)]),
    "pyro vae": (_pyro_vae, 12, [("AMP006", 12), ("AMP013", 15)]),
    "gpytorch": (_gpytorch, 25, [("AMP006", 25)]),
    "opacus": (_opacus, 5, [("AMP006", 5)]),
    "mlx-lm": (_mlx_lm, 500, [("AMP006", 500), ("AMP013", 600)]),
    "mlx-lm table": (_mlx_lm_table, 500, [("AMP006", 500), ("AMP013", 600)]),
}


@pytest.mark.parametrize("name", sorted(READ_ALREADY))
def test_formats_read_already(tmp_path: Path, name: str) -> None:
    """Controls: each tool's fault at its step, and its healthy run silent (pass on the
    parent too)."""
    build, nan_from, expected = READ_ALREADY[name]
    assert faults(tmp_path, build(nan_from)) == expected
    assert faults(tmp_path, build()) == []


def test_opacus_without_privacy_control(tmp_path: Path) -> None:
    """``--disable-dp``: the line without its (ε, δ) (passes on the parent too)."""
    assert faults(tmp_path, _opacus(dp=False)) == []
    assert faults(tmp_path, _opacus(5, dp=False)) == [("AMP006", 5)]
