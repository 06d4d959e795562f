"""Every row of the message table (denpex_callbacks/logs/messages.py), on the line as the tool
prints it: the source's format filled in with plausible values, behind its logger's prefix.
The doctor must read each as the row says (the event, the catalog id, the scales), through the
parser the row names, and each row must reach the parsers through the keyword prefilter.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from excerpts import faults

from denpex_callbacks.logs import messages
from denpex_callbacks.logs.events import EVAL, FLAG, GROWTH, OVERFLOW, SETUP, LogEvent
from denpex_callbacks.logs.known_messages import anchor
from denpex_callbacks.logs.parsers import KEYWORDS, parse_line

ROWS = messages.MESSAGES
IDS = [f"{row.tool}: {row.message[:48]}" for row in ROWS]
DEFAULTS: dict[str, Any] = {"before": 65536, "after": 32768.0, "scale": 32768.0, "step": 1200,
                            "rank": 3, "n": 7, "value": "nan", "norm": "inf",
                            "metric": "val_loss", "text": "x"}
EXPECTED_KIND = {messages.OVERFLOW: OVERFLOW, messages.SKIP: OVERFLOW, messages.GROWTH: GROWTH,
                 messages.FLAG: FLAG, messages.SETUP: SETUP}


def printed(row: messages.Message) -> str:
    """The row as the tool prints it: its logger's prefix, the format filled in."""
    values = {**DEFAULTS, **row.values}
    logger, level = row.logger
    prefix = row.prefix.format(logger=logger, level=level)
    return prefix + row.message.format(**values)


def _meaning(events: list[LogEvent], row: messages.Message) -> LogEvent:
    kinds = [e.kind for e in events]
    if row.event == messages.MONITORED:
        metric = row.metric or {**DEFAULTS, **row.values}["metric"]
        wanted = EVAL if metric.lower().startswith(("val", "eval", "test")) else FLAG
        assert wanted in kinds, (row.message, events)
        return next(e for e in events if e.kind == wanted)
    kind = EXPECTED_KIND[row.event]
    assert kind in kinds, (row.message, events)
    return next(e for e in events if e.kind == kind)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_every_row_is_read_as_the_table_says(row: messages.Message) -> None:
    line = printed(row)
    assert any(keyword.decode() in line for keyword in KEYWORDS), line  # the prefilter
    events = parse_line(line)
    event = _meaning(events, row)
    assert event.family == ("messages" if row.reader == "table" else event.family)
    if row.reader != "table":
        assert event.family == row.reader, (row.reader, event)
    values = {**DEFAULTS, **row.values}
    if row.event == messages.FLAG:
        assert event.code == row.code, (line, event)
    if row.event == messages.OVERFLOW and "{after}" in row.message:
        assert event.scale_after == float(values["after"]), (line, event)
    if row.event == messages.OVERFLOW and "{before}" in row.message and "{after}" in row.message:
        assert event.scale_before == float(values["before"]), (line, event)
    if row.event == messages.SKIP:
        assert event.scale_before is None and event.scale_after is None
    if row.event == messages.GROWTH:
        assert event.scale_after == float(values["after"])
    if row.event == messages.SETUP and row.setup:
        assert event.setup == row.setup, (line, event)
    if "{step}" in row.message and row.event in (messages.FLAG, messages.OVERFLOW):
        assert event.step == values["step"], (line, event)


# A row whose longest literal piece has three words or more (fewer cannot be shuffled into a
# line that differs: VAR's ``[scaler_sc = {scale}]``).
_SHUFFLED = [(r, i) for r, i in zip(ROWS, IDS, strict=True)
             if r.reader == "table" and len(anchor(r).split()) >= 3]


@pytest.mark.parametrize("row", [r for r, _ in _SHUFFLED], ids=[i for _, i in _SHUFFLED])
def test_a_table_row_is_not_read_from_a_line_that_only_resembles_it(row: messages.Message) -> None:
    # the row's longest literal piece with its words shuffled: not the message
    words = anchor(row).split()
    shuffled = " ".join(words[1:] + words[:1])
    assert not [e for e in parse_line(shuffled) if e.family == "messages"], shuffled


def test_the_table_names_every_tool_the_issue_names() -> None:
    tools = {row.tool.split(" ")[0].lower() for row in ROWS}
    assert tools >= {"torch", "transformers", "accelerate", "lightning", "pytorch_lightning",
                     "deepspeed", "apex", "fairseq", "megatron-lm", "nemo", "colossalai",
                     "detectron2", "mmengine", "timm", "espnet", "speechbrain", "yolov5",
                     "ultralytics", "keras", "paddlepaddle", "pytorch-ignite"}
    for row in ROWS:
        assert row.versions and row.source and row.means, row


# --- older wordings and event sentences on logs ----------------------------------------------


def test_fairseq_2020_wording_collapses(tmp_path: Path) -> None:
    # fairseq/trainer.py (2020): logger.info("NOTE: overflow detected, " + str(e)), where e is
    # the fp16 optimizer's OverflowError("setting loss scale to: " + str(scale))
    prefix = "2026-11-30 10:00:00 | INFO | fairseq.trainer | "
    lines = [f"2026-11-30 10:00:00 | INFO | train_inner | epoch 001:    {i * 100} / 2000 "
             f"loss={9.0 - i * 0.1:.3f}, ppl=512, wps=12000, ups=3, wpb=4096, bsz=64, "
             f"num_updates={i * 100}, lr=0.0005, gnorm=1.2, loss_scale=128" for i in range(1, 4)]
    # (halving from the rows' 128: a scale back up at 65536 one update later would be another
    # run's scaler starting over, no collapse of this one's)
    lines += [prefix + f"NOTE: overflow detected, setting loss scale to: {2.0 ** (6 - i)}"
              for i in range(8)]
    assert [code for code, _ in faults(tmp_path, lines)][:1] == ["AMP003"]


def test_espnet_skips_on_a_nan_grad_norm_persistently(tmp_path: Path) -> None:
    # espnet2/train/trainer.py: logging.warning(f"The grad norm is {grad_norm}. Skipping
    # updating the model."), after epochs of reports
    report = "[host] 2026-11-30 10:00:00,000 (trainer:{n}) INFO: 1epoch:train:{a}-{b}batch: " \
             "iter_time=1.2e-04, forward_time=0.150, loss={loss}, loss_att=40.1, acc=0.501, " \
             "backward_time=0.210, optim_step_time=0.030, lr_0=1.0e-04, train_time=0.500"
    lines = [report.format(n=i, a=i * 100 + 1, b=i * 100 + 100, loss=f"{50.0 - i:.3f}")
             for i in range(4)]
    lines += ["[host] 2026-11-30 10:00:01,000 (trainer:580) WARNING: The grad norm is nan. "
              "Skipping updating the model."] * 8
    assert [code for code, _ in faults(tmp_path, lines)][:1] == ["AMP003"]


def test_colossalai_overflow_announced_with_the_new_scale(tmp_path: Path) -> None:
    prefix = "[11/30/26 10:00:00] INFO     colossalai - colossalai - INFO: "
    lines = [f"Epoch 0 step {i * 10}: loss {3.0 - i * 0.1:.4f}" for i in range(1, 5)]
    lines += [prefix + f"Overflow occurs, the loss scale is adjusted to {2.0 ** (15 - i)}"
              for i in range(7)]
    assert [code for code, _ in faults(tmp_path, lines)][:1] == ["AMP003"]


def test_an_automatic_check_that_switched_amp_off(tmp_path: Path) -> None:
    lines = ["AMP: running Automatic Mixed Precision (AMP) checks with YOLOv5n...",
             "AMP: checks failed, disabling Automatic Mixed Precision. See "
             "https://github.com/ultralytics/yolov5/issues/7908",
             *[f"      {e}/9      0G     0.1{e}     0.05    0.02     16     640" for e in range(3)]]
    assert ("AMP010", None) in faults(tmp_path, lines)


def test_the_prefilter_keeps_few_keywords() -> None:
    # each keyword is one more pass over the bytes without RE2 (41: ``| G: ``, a GAN's rows
    # that name no loss, h52-fix34a; a keyword more asks for one dropped or merged)
    assert len(KEYWORDS) <= 41


def test_a_static_scale_message_value_is_not_nan() -> None:
    event = parse_line("Using static loss scale of 128")[0]
    assert event.scale_before == 128.0 and not math.isnan(event.scale_after or 0.0)


def test_composer_precision_names_are_read_apart() -> None:
    # composer/trainer/trainer.py: log.info('Using precision %s', self.state.precision), the
    # enum's str: Precision.AMP (0.8-0.11) is fp16, and must not claim Precision.AMP_BF16
    prefix = "2026-11-30 10:00:00,000: rank0[822018][MainThread]: INFO: composer.trainer.trainer: "
    setups = {name: [e.setup for e in parse_line(prefix + f"Using precision Precision.{name}")
                     if e.kind == SETUP]
              for name in ("AMP", "AMP_FP16", "AMP_BF16", "FP32")}
    assert setups["AMP"] == setups["AMP_FP16"] == [{"active_precision": "fp16-mixed",
                                                    "scaler": "dynamic"}]
    assert setups["AMP_BF16"] == [{"active_precision": "bf16-mixed", "scaler": None}]
    assert not [s for s in setups["FP32"] if s.get("active_precision") == "fp16-mixed"]


def test_a_bf16_precision_refused_on_cpu_is_not_an_fp16_fault() -> None:
    # composer's f'{precision} is not supported for CPU training.' for any non-fp32 precision:
    # only the fp16 ones are rows
    line = "ValueError: Precision.AMP_BF16 is not supported for CPU training."
    assert not [e for e in parse_line(line) if e.code == "AMP010"]


def test_a_nemo_nan_gradient_skip_alone_is_no_fault(tmp_path: Path) -> None:
    # nemo asr_model.py on_after_backward (skip_nan_grad): one dropped step on a healthy run
    lines = [f"Epoch 0: {i}/100 loss={2.0 - i * 0.01:.3f}" for i in range(1, 40)]
    lines.insert(20, "[NeMo W 2026-11-30 10:00:00 asr_model:142] detected inf or nan values in "
                     "gradients! Setting gradients to zero.")
    assert faults(tmp_path, lines) == []


def test_tf_mixed_float16_check_says_fp16_without_claiming_a_scaler() -> None:
    events = parse_line("INFO:tensorflow:Mixed precision compatibility check (mixed_float16): OK")
    assert [e.setup for e in events if e.kind == SETUP] == [{"active_precision": "fp16-mixed"}]


def test_icefall_exit_inside_its_multiline_error() -> None:
    # icefall/err.py (2024-03-): RuntimeError(f"""\n        grad_scale is too small, exiting: ...
    events = parse_line("        grad_scale is too small, exiting: 5.960464477539063e-08")
    assert [e.code for e in events if e.kind == FLAG] == ["AMP003"]
    small = parse_line("2026-11-30 10:00:00,000 WARNING [train.py:1179] Grad scale is small: "
                       "0.00390625")
    assert [e.code for e in small if e.kind == FLAG] == ["AMP004"]


def test_speechbrain_older_patience_wording_is_a_skip_not_a_flag() -> None:
    events = parse_line("speechbrain.core - WARNING - Patience not yet exhausted, ignoring this "
                        "batch.")
    assert [e.kind for e in events] == [OVERFLOW]
    assert events[0].scale_before is None and events[0].scale_after is None


def test_coqui_inf_gradient_is_one_skipped_step() -> None:
    events = parse_line(" | > Gradient is INF !!")
    assert [e.kind for e in events] == [OVERFLOW]


def test_a_scale_before_a_full_stop_is_read_whole() -> None:
    # fairseq2 0.3-0.4: "... to {after} (minimum). Your loss ..." beside "... to {after}."
    line = ("fairseq2 - ERROR - Overflow detected at step 12, ignoring gradient, decreasing loss "
            "scale from 0.0002 to 0.0001 (minimum). Your loss is probably exploding. Try "
            "lowering the learning rate, using gradient clipping, or increasing the batch size.")
    event = next(e for e in parse_line(line) if e.kind == OVERFLOW)
    assert (event.step, event.scale_before, event.scale_after) == (12, 0.0002, 0.0001)
    plain = parse_line("fairseq2 - INFO - Overflow detected at step 12, ignoring gradient, "
                       "decreasing loss scale from 128 to 64.")
    assert [(e.kind, e.scale_after) for e in plain] == [(OVERFLOW, 64.0)]
