"""The generic reader's fast path (one plan per line template) reads what its slow path
reads, and the rows of a YOLO-style table are read whatever values they hold."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.events import LogEvent
from denpex_callbacks.logs.metric_reader import MetricReader
from denpex_callbacks.logs.parsers import LineParser

CORPUS = Path(__file__).parent / "corpus"
RECORDED = Path(__file__).parent / "recorded"
# Notations both paths handle, each line written three times with other numbers (a template
# is learnt the second time it is met, read by its plan the third). ``{n}``: a counter,
# ``{v}``: a value, ``{d}``: a digit inside a word (lr0 / lr1 name different keys).
TEMPLATES = (
    "iter {n}: loss {v}, time {v}ms, mfu {v}%",
    "2026/01/01 10:00:0{d} - mmengine - INFO - Epoch(train)  [1][{n}/999999]  lr: {v}  "
    "eta: 0:10:00  grad_norm: {v}  loss: {v}  loss_cls: {v}",
    "step={n} train_loss={v} lr={v} grad_norm={v}",
    "32/32 ━━━━━━━━━━━━━━━━━━━━ 1s {n}ms/step - accuracy: {v} - loss: {v}",
    "| step {n} | Train Loss {v} | Loss Scale {v} |",
    "{{'loss': {v}, 'grad_norm': {v}, 'learning_rate': {v}, 'epoch': {v}}}",
    "lr{d}: {v} loss: {v}",
    "fp{d}6 grad scale: {v} loss {v}",
    "I1130 10:00:00.000000  1234 solver.cpp:218] Iteration {n} (1.2 iter/s, 4.2s/20 iters), "
    "loss = {v}",
    "DLL 2026-11-30 10:00:00.000000 - ({n}, {n}) average_loss : {v}  step_loss : {v}",
    "update: {v}, num_updates: {n}, loss: {v}",
    "skipped: {n}, step {n}, loss {v}",
    "valid on 'valid' subset | loss {v} | num_updates {n}",
    "Epoch {n}:  40%|####      | {n}/10 [00:00<00:00, 9.8it/s, v_num=0, train_loss={v}]",
    "loss {v} val_loss {v} loss_scale {v}",
    "loss 1.#INF scale {v}",
)
SPELLINGS = ("0.5", "3.1234", "nan", "-nan", "inf", "1e-05", "1.0000e-04", "0", "12", "NaN",
             "-Infinity", "nan.0", "65536", "2.5E+03")

# Other digits, same length: lines of one template.
ROTATE = [str.maketrans("0123456789", "0123456789"[k:] + "0123456789"[:k]) for k in range(5)]


def _facts(events: list[LogEvent]) -> list[dict[str, Any]]:
    """The events as comparable dicts (NaN compares equal to NaN here)."""
    return [{k: ("NaN" if isinstance(v, float) and math.isnan(v) else v)
             for k, v in vars(event).items()} for event in events]


def _both(lines: list[str]) -> tuple[MetricReader, MetricReader]:
    fast, slow = MetricReader(), MetricReader(templates=False)
    for number, line in enumerate(lines, 1):
        assert _facts(fast.read(line, number)) == _facts(slow.read(line, number)), line
    return fast, slow


def test_fast_path_reads_what_the_slow_path_reads() -> None:
    lines = [template.format(n=n, v=spelling.translate(ROTATE[i]), d=n % 2)
             for template in TEMPLATES for spelling in SPELLINGS
             for i, n in enumerate((11, 24, 37, 40, 52))]
    fast, slow = _both(lines)
    assert fast.notations == slow.notations and fast.keys_seen == slow.keys_seen
    assert fast.templates is not None and fast.templates._plans  # the plans were used


def test_fast_path_on_the_corpus_lines() -> None:
    """Every corpus line (the frameworks' and the recorded tools'), three times over with its
    digits changed."""
    lines = []
    for log in sorted([*CORPUS.glob("*.log"), *RECORDED.glob("*/*.log")]):
        for text in log.read_text(encoding="utf-8").splitlines():
            lines += [text, text.translate(str.maketrans("0123456789", "1234567890")),
                      text.translate(str.maketrans("0123456789", "9876543210"))]
    _both(lines)


@settings(max_examples=200, deadline=None)
@given(key=st.sampled_from(("loss", "train_loss", "Loss Scale", "lr0", "lr1", "iter",
                            "grad_norm", "val_loss", "skipped", "fp16 grad scale")),
       joiner=st.sampled_from(("=", ": ", " ", " : ", "':'")),
       values=st.lists(st.sampled_from(SPELLINGS), min_size=3, max_size=3),
       noise=st.sampled_from(("", "[rank0]: ", "12 | ", "> ", "2026-11-30 10:00:00 INFO ")),
       tail=st.sampled_from(("", " time 35.2ms", " | eval", ", step 3")))
def test_fast_path_property(key: str, joiner: str, values: list[str], noise: str,
                            tail: str) -> None:
    _both([f"{noise}{key}{joiner}{value}{tail}" for value in values])


# ultralytics/models/yolo/detect/train.py (DetectionTrainer.progress_string): the header
# ("\n" + "%11s" * (4 + len(loss_names))) % ("Epoch", "GPU_mem", *loss_names, "Instances",
# "Size"); ultralytics/engine/trainer.py (_do_train): each row is the bar's description
# ("%11s" * 2 + "%11.4g" * (2 + len(tloss))) % (f"{epoch + 1}/{epochs}", f"{mem:.3g}G",
# *losses, instances, imgsz); ultralytics/utils/tqdm.py (TQDM._display) writes
# f"{desc}: {percent:.0f}% {bar} {n}/{total} {rate} {elapsed}{remaining}", after
# "\r\033[K" in a terminal, once at the end when not interactive.
LOSS_NAMES = ("box_loss", "cls_loss", "dfl_loss")


def _yolo_log(losses: list[list[float]], *, interactive: bool) -> str:
    lines = []
    batches = len(losses[0])
    for epoch, rows in enumerate(losses):
        lines.append(("\n" + "%11s" * (4 + len(LOSS_NAMES))) % (
            "Epoch", "GPU_mem", *LOSS_NAMES, "Instances", "Size"))
        shown = []
        for n, loss in enumerate(rows, 1):
            desc = ("%11s" * 2 + "%11.4g" * (2 + len(LOSS_NAMES))) % (
                f"{epoch + 1}/{len(losses)}", f"{1.23:.3g}G", loss, 0.5, 1.1, 16, 640)
            bar = "━" * (12 * n // batches) + "─" * (12 - 12 * n // batches)
            shown.append(f"{desc}: {100 * n / batches:.0f}% {bar} {n}/{batches} 2.0it/s "
                         f"{0.5 * n:.1f}s")
        lines.append("".join(f"\r\033[K{s}" for s in shown) if interactive else shown[-1])
        lines.append("                 Class     Images  Instances      Box(P          R      "
                     "mAP50  mAP50-95): 100% ━━━━━━━━━━━━ 2/2 4.0it/s 0.5s")
        lines.append("                   all         16         64      0.512      0.433"
                     "      0.401      0.257")
    return "\n".join(lines) + "\n"


def _read(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "yolo.log"
    path.write_text(text, encoding="utf-8")
    return diagnose(str(path))


def test_yolo_rows_of_finite_values_are_read(tmp_path: Path) -> None:
    """A healthy run: every row is read (one per epoch when not interactive, one per bar
    refresh in a terminal), none is a fault, the validation rows are not read as losses."""
    losses = [[1.9 - 0.1 * e - 0.01 * b for b in range(4)] for e in range(5)]
    quiet = _read(tmp_path, _yolo_log(losses, interactive=False))
    assert quiet.error is None and not quiet.faults
    assert quiet.reading.parts[("generic", "metrics")] == 5
    terminal = _read(tmp_path, _yolo_log(losses, interactive=True))
    assert terminal.error is None and not terminal.faults
    assert terminal.reading.parts[("generic", "metrics")] == 5  # one physical line each
    assert terminal.timeline.steps == 20  # every refresh of the bar: one step each


def test_yolo_rows_turning_nan_are_diagnosed_where_they_turn(tmp_path: Path) -> None:
    losses = [[1.5, 1.4], [1.3, 1.2], [float("nan"), float("nan")], [float("nan")] * 2]
    result = _read(tmp_path, _yolo_log(losses, interactive=False))
    assert result.faults[0].code == "AMP006"
    assert result.faults[0].step == 3  # the third row read: epoch 3's
    assert result.faults[0].lines[0] == 13  # epoch 3: blank line 11, header 12, row 13


def test_rows_after_a_header_are_only_read_as_value_rows() -> None:
    """A line handed over for following a header row is not read as anything else."""
    from denpex_callbacks.logs.reader import ValueRowLine

    parser = LineParser()
    parser.parse("      Epoch    GPU_mem   box_loss   cls_loss  Instances       Size", 1)
    assert parser.parse(ValueRowLine("step=3 lr=0.1 grad_norm=0.9"), 2) == []
    assert parser.parse(ValueRowLine("        1/3     0G    1.2    0.5    16    640"), 3)
