"""Vision, diffusion and general-purpose trainers' logs, written in the test from each tool's
own format strings, read as the tool prints them: the fault where it began, silence on the
healthy controls.

- mmcv 1.x (mmdet 2.x) ``Fp16OptimizerHook`` with mmcv's own ``LossScaler``
  (mmcv/runner/hooks/optimizer.py, mmcv/runner/fp16_utils.py: 2**32 at first, halved on an
  overflow down to 1, doubled after 1000 clean iterations): ``Check overflow, downscale loss
  scale to {cur_scale}`` beside ``TextLoggerHook``'s ``Epoch [1][50/7330]\\tlr: ..., loss: ...``
  (mmcv/runner/hooks/logger/text.py);
- OpenAI improved-diffusion / guided-diffusion (improved_diffusion/train_util.py, logger.py):
  the fp16 loop keeps ``lg_loss_scale`` (20.0 at first, -1 on non-finite gradients with
  ``Found NaN, decreased lg_loss_scale to {lg}``, +1e-3 per clean step) and ``dumpkvs``
  prints each step's record one key per line (``| loss | 0.103 |``, sorted, ``%-8.3g``)
  between rules of dashes, its ``step`` on a row of its own;
- ParlAI's own fp16 scaler (parlai/utils/fp16.py: 2**17 at first, lowered only once 5% of
  the steps since the last change overflowed, raised after 2000 clean ones): ``Overflow:
  setting loss scale to {scale}`` on each skipped update, the scale often unchanged;
- Catalyst 21.x: VerboseCallback's bar ``{epoch}/{epochs} * Epoch ({loader}): ...| i/N [...,
  loss=...]`` (epochs from 1, postfix ``{:3.3f}``), ConsoleLogger's ``train (4/10) loss: ... |
  lr: ...`` (``" | ".join(f"{k}: {float(v)}")``);
- EveryDream2 (train.py ``append_epoch_log``): the epoch bar's postfix ``img/s=...,
  loss/log_step=..., lr_te=..., lr_unet=..., vram=... MB gs:{global_step}``, its counter the
  epochs';
- OneTrainer (modules/trainer/GenericTrainer.py): ``tqdm(desc="step")`` with
  ``set_postfix({'loss': ..., 'smooth loss': ...})``; kohya sd-scripts' ``tqdm(desc="steps")``
  with ``avr_loss``: the percentage follows the description, the count comes after the bar;
- Sockeye (sockeye/training.py ``_create_checkpoint``): ``Checkpoint [%d]\tUpdates=%d Epoch=%d
  Samples=%d Time-cost=%.3f Updates/sec=%.3f``: the time cost is seconds, no loss;
- YOLOv5 (train.py, v1-v6): ``('%10s' * 7) % ('Epoch', 'gpu_mem', 'box', 'obj', 'cls',
  'labels', 'img_size')`` over tqdm rows ``('%10s' * 2 + '%10.4g' * 5) % (f'{epoch}/{epochs -
  1}', mem, *mloss, targets.shape[0], imgs.shape[-1])``: no keyword on a healthy line;
- the Keras / TensorFlow guides' custom training loop (``Training loss (for 1 batch) at step
  {step}: {loss:.4f}``, keras-io guides/writing_a_training_loop_from_scratch.py; ``(for one
  batch) ... %d: %.4f`` in the older TensorFlow guide).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.parsers import parse_line

MMDET = "2021-06-01 12:00:00,000 - mmdet - {level} - "


def _loss(step: int) -> float:
    return 2.0 * math.exp(-step / 3000) + 0.4 + 0.01 * math.sin(step)


# -- mmcv 1.x / mmdet 2.x -----------------------------------------------------------------------

def _mmcv(rows: int, *, overflows: dict[int, int], interval: int = 10,
          epoch_len: int = 7330) -> list[str]:
    """``TextLoggerHook`` rows every ``interval`` iterations of epoch 1; ``overflows[r]``
    overflowing iterations just before row ``r`` (each a ``Check overflow`` warning with the
    scale after ``update_scale``, as Fp16OptimizerHook logs it)."""
    out = [MMDET.format(level="INFO") + "workflow: [('train', 1)], max: 12 epochs"]
    scale = 2.0 ** 32
    for row in range(rows):
        for _ in range(overflows.get(row, 0)):
            scale = max(scale / 2, 1)
            out.append(MMDET.format(level="WARNING")
                       + f"Check overflow, downscale loss scale to {scale}")
        it = (row + 1) * interval
        loss = _loss(it)
        out.append(MMDET.format(level="INFO") + f"Epoch [1][{it}/{epoch_len}]\tlr: 2.000e-02, "
                   "eta: 1 day, 2:03:04, time: 0.512, data_time: 0.050, memory: 3456, "
                   f"loss_rpn_cls: {loss * 0.1:.4f}, loss_rpn_bbox: {loss * 0.05:.4f}, "
                   f"loss_cls: {loss * 0.5:.4f}, acc: 90.1234, loss_bbox: {loss * 0.35:.4f}, "
                   f"loss: {loss:.4f}")
    return out


def test_mmcv_check_overflow_is_an_overflow_with_the_scale_after() -> None:
    events = parse_line(MMDET.format(level="WARNING")
                        + "Check overflow, downscale loss scale to 2147483648.0")
    assert [(e.kind, e.scale_after) for e in events] == [("overflow", 2.0 ** 31)]


def test_mmcv_scale_collapsing_to_its_floor_is_found_where_it_began(tmp_path: Path) -> None:
    # every iteration overflows from iteration 201 on: the scale falls from 2**32 to its
    # floor of 1 and stays there
    lines = _mmcv(40, overflows={row: 10 for row in range(20, 40)})
    found = faults(tmp_path, lines)
    assert ("AMP003", 201) in found, found


@pytest.mark.parametrize("overflows", [
    {0: 16},  # the start-up back-off from 2**32 to 2**16 before the first row
    {0: 10, 1: 6},  # ... over two rows
    {0: 16, 14: 1, 27: 1},  # then a sawtooth's single overflows
], ids=["startup", "startup-two-rows", "startup-sawtooth"])
def test_mmcv_healthy_overflows_are_quiet(tmp_path: Path, overflows: dict[int, int]) -> None:
    result = diagnose_lines(tmp_path, _mmcv(30, overflows=overflows))
    assert result.faults == [], result.faults
    assert result.timeline.skipped == sum(overflows.values())


# -- improved-diffusion / guided-diffusion ---------------------------------------------------

def _dumpkvs(kvs: dict[str, float]) -> list[str]:
    """logger.HumanOutputFormat.writekvs: one ``| key | value |`` row per key, sorted."""
    cells = {key: f"{value:<8.3g}" for key, value in sorted(kvs.items())}  # "%-8.3g"
    keys, values = max(map(len, cells)), max(map(len, cells.values()))
    dashes = "-" * (keys + values + 7)
    rows = [f"| {key}{' ' * (keys - len(key))} | {value}{' ' * (values - len(value))} |"
            for key, value in sorted(cells.items(), key=lambda kv: kv[0].lower())]
    return [dashes, *rows, dashes]


def _diffusion(steps: int, *, start: int = 0, interval: int = 10, lg: float = 20.0,
               overflow: frozenset[int] = frozenset(), nan_from: int | None = None) -> list[str]:
    """TrainLoop.run_loop with use_fp16: a record every ``interval`` steps (the means since
    the last one), ``Found NaN`` on each step whose gradients are not finite."""
    out = ["Logging to /tmp/openai-2021-03-01-12-00-00-000000", "training..."]
    sums: dict[str, list[float]] = {}
    for step in range(start, start + steps):
        loss = 0.1 * math.exp(-step / 3000) + 0.02
        if nan_from is not None and step >= nan_from:
            loss = math.nan
        for key, value in (("loss", loss), ("mse", loss * 0.9), ("vb", loss * 0.1)):
            sums.setdefault(key, []).append(value)
            sums.setdefault(f"{key}_q{step % 4}", []).append(value)
        if step in overflow or not math.isfinite(loss):
            lg -= 1
            out.append(f"Found NaN, decreased lg_loss_scale to {lg}")
        else:
            sums.setdefault("grad_norm", []).append(0.35)
            lg += 1e-3
        if step % interval == 0:
            record = {key: sum(v) / len(v) for key, v in sums.items()}
            record.update(step=step, samples=(step + 1) * 128, lg_loss_scale=lg)
            out += _dumpkvs(record)
            sums = {}
    return out


def test_diffusion_found_nan_halves_the_scale_its_logarithm_names() -> None:
    events = parse_line("Found NaN, decreased lg_loss_scale to 15.0")
    assert [(e.kind, e.scale_after) for e in events] == [("overflow", 32768.0)]


def test_a_record_one_key_per_line_is_one_step(tmp_path: Path) -> None:
    lines = _diffusion(40, nan_from=23)
    found = faults(tmp_path, lines)
    # the first record whose mean loss is NaN is step 30's (steps 21-30)
    assert ("AMP006", 30) in found, found


def test_a_record_quotes_its_non_finite_row_not_the_rule_that_ends_it(tmp_path: Path) -> None:
    lines = _diffusion(40, nan_from=23)
    nan = next(d for d in diagnose_lines(tmp_path, lines).faults if d.code == "AMP006")
    row = next(i for i, line in enumerate(lines, 1) if line.startswith("| loss ")
               and "nan" in line)
    assert nan.lines == (row,) and nan.quotes[0].startswith("| loss "), (nan.lines, nan.quotes)


def test_a_record_cut_off_by_the_excerpt_is_read(tmp_path: Path) -> None:
    lines = _diffusion(40, nan_from=23)
    cut = next(i for i, line in enumerate(lines) if line.startswith("| loss ")
               and "nan" in line)
    found = faults(tmp_path, lines[:cut + 1])  # up to its loss row: no step row, no rule
    assert "AMP006" in [code for code, _step in found], found


def test_a_record_prints_the_scale_as_its_logarithm(tmp_path: Path) -> None:
    # persistent overflow from step 37 with a finite loss: the scale falls from 2**20 below 1
    lines = _diffusion(80, overflow=frozenset(range(37, 80)))
    found = faults(tmp_path, lines)
    codes = [code for code, _step in found]
    assert "AMP003" in codes and "AMP004" in codes, found
    assert all(31 <= step <= 40 for code, step in found if code == "AMP003"), found
    result = diagnose_lines(tmp_path, lines)
    assert result.reading.keys.get("lg_loss_scale"), result.reading.keys


@pytest.mark.parametrize("lines", [
    _diffusion(60),  # from the start
    _diffusion(50, start=240_000, lg=21.3),  # mid-run
    _diffusion(30, start=500, interval=1),  # a record every step
    _diffusion(4000, start=100_000, interval=100,
               overflow=frozenset({100_700, 101_900, 103_300})),  # a sawtooth
], ids=["start", "mid-run", "every-step", "sawtooth"])
def test_healthy_diffusion_records_are_read_and_quiet(tmp_path: Path, lines: list[str]) -> None:
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == [], result.faults
    assert result.reading.keys.get("step"), result.reading.keys  # read, not refused


# -- Keras / TensorFlow custom training loops -------------------------------------------------

def _custom_loop(epochs: int, *, nan_from: int | None = None, every: int = 200,
                 batches: int = 782, one: str = "1") -> list[str]:
    out: list[str] = []
    seen = 0
    for epoch in range(epochs):
        out.append(f"\nStart of epoch {epoch}")
        for step in range(batches):
            loss = math.nan if nan_from is not None and seen >= nan_from else _loss(seen)
            if step % every == 0:
                out.append(f"Training loss (for {one} batch) at step {step}: {loss:.4f}")
                out.append(f"Seen so far: {(step + 1) * 64} samples")
            seen += 1
        out.append("Training acc over epoch: 0.8123")
        out.append("Validation acc: 0.8012")
    return out


@pytest.mark.parametrize("line, step, loss", [
    ("Training loss (for 1 batch) at step 200: nan", 200, math.nan),
    ("Training loss (for one batch) at step 200: 0.5000", 200, 0.5),
    ("Average loss at step 2000: 4.3", 2000, 4.3),
    ("Minibatch loss at step 500: inf", 500, math.inf),
])
def test_a_key_before_at_step_names_the_value_after_it(line: str, step: int,
                                                       loss: float) -> None:
    events = parse_line(line)
    assert [e.step for e in events] == [step], events
    assert str(events[0].loss) == str(loss)


@pytest.mark.parametrize("line", ["step 10: 0.5", "iter 3 at step 5: 0.5",
                                  "Seen so far: 12800 samples"])
def test_no_key_before_at_step_names_nothing(line: str) -> None:
    assert parse_line(line) == []


def test_custom_loop_nan_is_found_at_the_step_printed(tmp_path: Path) -> None:
    # NaN from the 1000th batch: epoch 1, batch 218; the next print is epoch 1's step 400
    assert faults(tmp_path, _custom_loop(3, nan_from=1000)) == [("AMP006", 400)]


@pytest.mark.parametrize("one", ["1", "one"])
def test_custom_loop_healthy_is_read_and_quiet(tmp_path: Path, one: str) -> None:
    result = diagnose_lines(tmp_path, _custom_loop(3, one=one))
    assert result.faults == [], result.faults
    assert result.reading.keys.get("Training loss"), result.reading.keys


# -- a log whose healthy lines hold no keyword ------------------------------------------------

def _yolov5(epochs: int, *, start: int = 0, nan_from: int | None = None,
            batches: int = 296) -> list[str]:
    """train.py's header and each epoch's last bar, then val.py's summary row."""
    out = ["Starting training for 300 epochs..."]
    for epoch in range(start, start + epochs):
        out.append(("\n" + "%10s" * 7) % ("Epoch", "gpu_mem", "box", "obj", "cls", "labels",
                                          "img_size"))
        losses = [0.1 * math.exp(-epoch / 50) + 0.02, 0.07, 0.04 * math.exp(-epoch / 30)]
        if nan_from is not None and epoch >= nan_from:
            losses = [math.nan] * 3
        row = ("%10s" * 2 + "%10.4g" * 5) % (f"{epoch}/299", "3.39G", *losses, 204, 640)
        out.append(f"{row}: 100%|##########| {batches}/{batches} [01:23<00:00,  3.55it/s]")
        out.append(("%20s" + "%11i" * 2 + "%11.3g" * 4) % ("all", 1000, 13437, 0.6, 0.5, 0.55,
                                                           0.33))
    return out


@pytest.mark.parametrize("lines", [
    _yolov5(12),  # from the start
    _yolov5(15, start=140),  # mid-run
    ["epoch;mse;lr", *(f"{i};{0.5 / (i + 1):.4f};0.001" for i in range(30))],  # a CSV print
], ids=["yolov5", "yolov5-mid-run", "header-row"])
def test_a_healthy_log_without_keywords_is_read_and_quiet(tmp_path: Path,
                                                           lines: list[str]) -> None:
    result = diagnose_lines(tmp_path, lines)  # read: not "nothing to diagnose"
    assert result.faults == [], result.faults
    assert result.families, result.families


def test_a_log_without_keywords_keeps_its_fault(tmp_path: Path) -> None:
    # epoch 7's row: 7 epochs of 296 batches, then its 296th
    assert faults(tmp_path, _yolov5(12, nan_from=7)) == [("AMP006", 7 * 296 + 296)]


@pytest.mark.parametrize("lines", [
    [f"Collecting package{i}==1.{i}.0" for i in range(30)],
    ["| N/A   32C    P0    61W / 400W |      0MiB / 40960MiB |      0%      Default |"],
    [("%20s" + "%11i" * 2 + "%11.3g" * 4) % ("all", 1000, 13437, 0.6, 0.5, 0.55, 0.33)] * 5,
    # a test run's summary: its "SKIPPED [1]" is no count of skipped optimizer steps
    ["........................................................................ [ 98%]",
     "=========================== short test summary info ============================",
     "SKIPPED [1] tests/logs/test_bad_input.py:105: running as root",
     "1272 passed, 1 skipped, 5 deselected, 7 warnings in 56.28s"],
], ids=["pip", "nvidia-smi", "validation-only", "pytest"])
def test_a_text_that_is_no_training_log_is_still_refused(tmp_path: Path,
                                                         lines: list[str]) -> None:
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    error = diagnose(str(path)).error
    assert error is not None and "nothing to diagnose" in error, error


# -- ParlAI ------------------------------------------------------------------------------------

def _parlai(steps: int, overflows: Callable[[int, float], bool]) -> list[str]:
    """DynamicLossScaler.update_scale and clip_master_grads, as parlai/utils/fp16.py runs
    them (the run stops with fairseq's FloatingPointError at the floor of 1e-4)."""
    scale, last_overflow, last_rescale, since = 2.0 ** 17, -1, -1, 0
    out = ["12:00:05 | training..."]
    for it in range(steps):
        overflow = overflows(it, scale)
        if overflow:
            last_overflow, since = it, since + 1
            if since / float(it - last_rescale) >= 0.05:
                scale, last_rescale, since = scale / 2, it, 0
            if scale <= 1e-4:
                out.append("FloatingPointError: Minimum loss scale reached (0.0001). Your loss "
                           "is probably exploding. Try lowering the learning rate, using "
                           "gradient clipping or increasing the batch size.")
                break
            out.append(f"12:00:{it % 60:02d} | Overflow: setting loss scale to {scale}")
        elif (it - last_overflow) % 2000 == 0:
            scale, last_rescale = scale * 2, it
    return out


def test_parlai_healthy_overflows_are_quiet(tmp_path: Path) -> None:
    # the start-up back-off from 2**17, then an overflow now and then (the scale unchanged)
    rare = {2500, 7100, 7102, 13000, 18500}
    lines = _parlai(20000, lambda it, scale: scale > 2 ** 15 or it in rare)
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == [], result.faults
    assert result.timeline.skipped >= 2


def test_parlai_collapse_is_found(tmp_path: Path) -> None:
    lines = _parlai(6000, lambda it, scale: scale > 2 ** 15 or it >= 4000)
    codes = {code for code, _step in faults(tmp_path, lines)}
    assert {"AMP003", "AMP004"} <= codes, codes


# -- Catalyst ----------------------------------------------------------------------------------

def _catalyst(epochs: int, *, nan_from: int | None = None, batches: int = 1875) -> list[str]:
    def postfix(value: float) -> str:
        return f"{value:3.3f}" if not value <= 1e-3 else f"{value:1.3e}"

    out = []
    for epoch in range(1, epochs + 1):
        loss = math.nan if nan_from is not None and epoch >= nan_from else _loss(epoch * 900)
        out.append(f"{epoch}/{epochs} * Epoch (train): 100%|##########| {batches}/{batches} "
                   f"[00:15<00:00, 120.5it/s, accuracy01={postfix(0.9)}, loss={postfix(loss)}, "
                   f"lr={postfix(0.001)}, momentum={postfix(0.9)}]")
        out.append(f"train ({epoch}/{epochs}) accuracy01: 0.9 | loss: {float(loss)} | "
                   f"loss/mean: {float(loss)} | loss/std: 0.0 | lr: 0.001 | momentum: 0.9")
        out.append(f"{epoch}/{epochs} * Epoch (valid): 100%|##########| 313/313 [00:01<00:00, "
                   f"250.1it/s, accuracy01={postfix(0.88)}, loss={postfix(loss * 1.1)}]")
        out.append(f"valid ({epoch}/{epochs}) accuracy01: 0.88 | loss: {float(loss * 1.1)}")
        out.append(f"* Epoch ({epoch}/{epochs}) lr: 0.001 | momentum: 0.9")
    return out


def test_catalyst_bar_numbers_the_steps_of_each_epoch(tmp_path: Path) -> None:
    found = faults(tmp_path, _catalyst(10, nan_from=4))
    # epoch 4's bar at its last batch: three whole epochs of 1875 before it
    assert found[0] == ("AMP006", 3 * 1875 + 1875), found


def test_catalyst_healthy_is_quiet(tmp_path: Path) -> None:
    assert faults(tmp_path, _catalyst(10)) == []


# -- EveryDream2 -------------------------------------------------------------------------------

def _everydream(rows: int, *, nan_from: int | None = None, every: int = 25,
                epoch_len: int = 50) -> list[str]:
    out = []
    for row in range(1, rows + 1):
        step = row * every
        epoch = step // epoch_len
        loss = math.nan if nan_from is not None and step >= nan_from else _loss(step) / 20
        out.append(f"\x1b[96mEpochs\x1b[0m:  {epoch:2d}%|#         | {epoch}/100 "
                   f"[1:00:00<9:00:00, 360.12s/it, img/s=3.21, loss/log_step={loss:.3g}, "
                   f"lr_te=1.5e-06, lr_unet=1.5e-06, vram=\x1b[94m10000/24000 MB\x1b[0m "
                   f"gs:{step}]")
    return out


def test_everydream_global_step_numbers_the_row(tmp_path: Path) -> None:
    # the bar counts epochs (12); the row's global step is its "gs:625"
    assert faults(tmp_path, _everydream(40, nan_from=610)) == [("AMP006", 625)]


def test_everydream_healthy_is_quiet(tmp_path: Path) -> None:
    assert faults(tmp_path, _everydream(40)) == []


# -- a bar described "step(s)" -----------------------------------------------------------------

@pytest.mark.parametrize("line, step", [
    ("steps:  12%|#2        | 120/1000 [00:10<01:30,  1.20it/s, avr_loss=nan]", 120),
    ("step:   3%|3         | 37/1000 [01:00<07:20,  2.00it/s, loss=nan, smooth loss=nan]", 37),
    ("step 3, loss nan", 3),
])
def test_a_percentage_is_no_step(line: str, step: int) -> None:
    assert [e.step for e in parse_line(line)] == [step]


def test_onetrainer_nan_is_found_at_its_step(tmp_path: Path) -> None:
    lines = ["epoch:   0%|          | 0/10 [00:00<?, ?it/s]"]
    for step in range(1, 51):
        loss = math.nan if step >= 37 else _loss(step) / 20
        lines.append(f"step:  {step // 10:2d}%|#         | {step}/1000 [01:00<07:20,  2.00it/s, "
                     f"loss={loss:.3g}, smooth loss={loss:.3g}]")
    assert faults(tmp_path, lines) == [("AMP006", 37)]


# -- a time is no loss -------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "[INFO:sockeye.training] Checkpoint [3]\tUpdates=3000 Epoch=0 Samples=96000 "
    "Time-cost=300.000 Updates/sec=10.000",
    "step 10 loss_time 0.0 data_time 0.1",
])
def test_a_time_cost_is_no_loss(line: str) -> None:
    assert all(e.loss is None for e in parse_line(line)), parse_line(line)


# -- a loss printed as 0 at the print's precision ----------------------------------------------

@pytest.mark.parametrize("key", ["loss", "mse"])
def test_a_loss_decaying_below_the_printed_digits_is_no_exact_zero(tmp_path: Path,
                                                                    key: str) -> None:
    # printed with 4 decimals, the loss reads 0.0000 from step 280 on: rounding, not 0
    lines = [f"step {i * 10} {key} {0.5 * math.exp(-i / 3):.4f} lr 0.001" for i in range(60)]
    assert faults(tmp_path, lines) == []


@pytest.mark.parametrize("loss", ["0.0000", "0.0"])
def test_a_loss_dropping_to_zero_stays_an_exact_zero(tmp_path: Path, loss: str) -> None:
    # from a normal value to 0 at once (fp16 underflow, a masked batch): AMP007 where it began
    lines = [f"step {i * 10} loss {0.5 * math.exp(-i / 30) if i < 20 else 0:.4f}" for i in
             range(20)] + [f"step {i * 10} loss {loss}" for i in range(20, 60)]
    assert faults(tmp_path, lines) == [("AMP007", 200)]
