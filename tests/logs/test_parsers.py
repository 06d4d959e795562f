"""Each family's parser on its verbatim strings, across releases; step and rank assembly."""

from __future__ import annotations

import math

import pytest

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.logs.assembler import Assembler
from denpex_callbacks.logs.events import LogEvent
from denpex_callbacks.logs.launcher_ranks import line_rank
from denpex_callbacks.logs.parsers import KEYWORDS, parse_line

# (line, kind, rank, scale_before, scale_after), strings from the sources named.
DEEPSPEED_FAMILY = [
    # 0.8 - 0.19 runtime/fp16/loss_scaler.py
    ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to "
     "32768", 0, 65536.0, 32768.0),
    ("[deepspeed] OVERFLOW! Rank 3 Skipping step. Attempted loss scale: 1024, but hysteresis "
     "is 2. Reducing hysteresis to 1", 3, 1024.0, 1024.0),
    # 0.3 - 0.5 zero/stage2.py, stage3.py, stage_1_and_2.py
    ("[deepscale] OVERFLOW! Rank 1 Skipping step. Attempted loss scale: 4096.0, reducing to "
     "2048.0", 1, 4096.0, 2048.0),
    ("[deepspeed] fp16 dynamic loss scale overflow! Rank 2 Skipping step. Attempted loss "
     "scale: 512.0, reducing to 256.0", 2, 512.0, 256.0),
    # fp16 fused/unfused optimizers up to 0.14
    ("[deepspeed] fp16 dynamic loss scale overflow! Skipping step. Attempted loss scale: "
     "8192.0, reducing to 4096.0", None, 8192.0, 4096.0),
    ("Reducing dynamic loss scale from 64.0 to 32.0", None, 64.0, 32.0),
    # 0.19 static LossScaler
    ("[deepspeed] OVERFLOW! Skipping step. Gradients are non-finite, weights were not "
     "updated.", None, None, None),
    # apex amp handle.py (two spaces), fp16_utils, closure
    ("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 16384.0",
     None, None, 16384.0),
    ("Gradient overflow.  Skipping step, reducing loss scale to 8.0", None, None, 8.0),
    ("OVERFLOW within closure! Skipping step, reducing loss scale to 4.0", None, None, 4.0),
    ("OVERFLOW! Skipping step. Attempted loss scale: 128.0, reducing to 64.0", None, 128.0,
     64.0),
    # fairseq trainer.py and amp_optimizer.py
    ("2026-01-01 00:00:00 | INFO | fairseq.trainer | NOTE: gradient overflow detected, "
     "ignoring gradient, setting loss scale to: 32.0", None, None, 32.0),
    ("AMP: overflow detected, setting scale to to 16.0", None, None, 16.0),
]


@pytest.mark.parametrize(("line", "rank", "before", "after"), DEEPSPEED_FAMILY)
def test_overflow_family(line: str, rank: int | None, before: float | None,
                         after: float | None) -> None:
    events = [e for e in parse_line(line) if e.kind == "overflow"]
    assert len(events) == 1
    event = events[0]
    assert (event.rank, event.scale_before, event.scale_after) == (rank, before, after)
    assert any(k.decode() in line for k in KEYWORDS)  # the prefilter lets it through


def test_grad_overflow_iteration_is_a_step() -> None:
    assert parse_line("[INFO] [fused_optimizer.py:413] \nGrad overflow on iteration 7")[0].step \
        == 7


@pytest.mark.parametrize("line", [
    "step() has already been called since the last update().",
    "unscale_() has already been called on this optimizer since the last update().",
    "unscale_() is being called after step().",
    "No inf checks were recorded for this optimizer.",
])
def test_scaler_protocol_errors(line: str) -> None:
    assert parse_line(f"RuntimeError: {line}")[0].code == "AMP002"
    assert any(k.decode() in f"RuntimeError: {line}" for k in KEYWORDS)


@pytest.mark.parametrize(("line", "code"), [
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB", "SYS001"),
    ("RuntimeError: CUDA error: out of memory", "SYS001"),
    ("[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
     "OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.", "SYS002"),
    ("RuntimeError: Function 'MulBackward0' returned nan values in its 1th output.", "AMP006"),
    ("Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.",
     "AMP003"),
    ("FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably "
     "exploding.", "AMP003"),
    ("Monitored metric val_loss = nan is not finite. Previous best value was 0.5.", "AMP006"),
    ("RuntimeError: Rank 0: found NaN in local forward loss calculation. Device: 0, node: n",
     "AMP006"),
])
def test_line_level_flags(line: str, code: str) -> None:
    assert [e.code for e in parse_line(line)] == [code]
    assert any(k.decode() in line for k in KEYWORDS)  # the prefilter lets it through


@pytest.mark.parametrize("line", [
    "return_overflowing_tokens=True keeps the overflow tokens",
    "OverflowError: math range error",
    "integer overflow in the data loader's sample counter",
    "{'eval_loss': 0.5, 'eval_runtime': 1.0}",
    "2026 | INFO | valid | epoch 001 | valid on 'valid' subset | loss 4.1 | num_updates 100",
])
def test_unrelated_lines_give_nothing(line: str) -> None:
    assert parse_line(line) == []


def test_the_trainers_closing_summary_ends_its_run() -> None:
    """HF Trainer's ``{'train_runtime': ...}`` closes a run: what a row prints after it is
    another run's (its rows number their steps from its own start)."""
    [summary] = parse_line("{'train_runtime': 10.0, 'train_loss': 0.4, 'epoch': 1.0}")
    assert (summary.kind, summary.setup) == ("setup", {"run_start": True})


def test_metric_lines() -> None:
    hf = parse_line("{'loss': nan, 'grad_norm': inf, 'learning_rate': 1e-05, 'epoch': 0.1}")[0]
    assert math.isnan(hf.loss or 0.0) and hf.grad_norm == math.inf and hf.lr == 1e-05
    megatron = parse_line(
        " [2026-01-01 00:00:00] iteration      100/    1000 | consumed samples:         3200 |"
        " learning rate: 1.500000E-04 | global batch size:    32 | lm loss: 7.123456E+00 |"
        " loss scale: 65536.0 | grad norm: 2.345 | number of skipped iterations:   2 |"
        " number of nan iterations:   1 |")[0]
    assert (megatron.step, megatron.loss, megatron.scale_after, megatron.skipped_in_interval,
            megatron.nan_in_interval) == (100, 7.123456, 65536.0, 2, 1)
    ds = parse_line("[2026] [INFO] [logging.py:96:log_dist] [Rank 0] step=30, skipped=4, "
                    "lr=[5e-05], mom=[(0.9, 0.999)]")[0]
    assert (ds.step, ds.skipped_total, ds.rank) == (30, 4, 0)


def test_launcher_rank_prefixes() -> None:
    assert line_rank("[rank7]:[E101 ProcessGroupNCCL.cpp:683] x") == 7
    assert line_rank("[1,3]<stderr>:Gradient overflow.") == 3
    assert line_rank("12: {'loss': 1.0}") == 12
    line = "[rank1]: Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 8.0"
    assert parse_line(line)[0].rank == 1


def _assemble(events: list[LogEvent]) -> tuple[list[Observation], list[Finding], str]:
    """Observations, flags, and the step pattern: ``s`` skipped, ``c`` clean (observed or in a
    gap)."""
    observations: list[Observation] = []
    flags: list[Finding] = []
    pattern: list[str] = []

    def observe(obs: Observation) -> None:
        observations.append(obs)
        pattern.append("s" if obs.was_skipped else "c")

    assembler = Assembler(observe, flags.append,
                          lambda steps, _skipped: pattern.append("c" * steps))
    for number, event in enumerate(events, start=1):
        assembler.feed(event, number, "")
    assembler.finish()
    return observations, flags, "".join(pattern)


def test_one_overflow_split_over_lines_and_ranks_is_one_step() -> None:
    events = [LogEvent("overflow", "deepspeed", step=5),
              LogEvent("overflow", "deepspeed", scale_before=64.0, scale_after=32.0),
              LogEvent("overflow", "deepspeed", step=5),
              LogEvent("overflow", "deepspeed", scale_before=64.0, scale_after=32.0),
              LogEvent("overflow", "deepspeed", step=6),
              LogEvent("overflow", "deepspeed", scale_before=32.0, scale_after=16.0)]
    observations, _, _ = _assemble(events)
    skipped = [(o.step, o.scale_before, o.scale_after) for o in observations if o.was_skipped]
    assert skipped == [(5, 64.0, 32.0), (6, 32.0, 16.0)]


def test_the_same_rank_twice_is_two_steps() -> None:
    events = [LogEvent("overflow", "deepspeed", rank=0, scale_before=1.0, scale_after=1.0)] * 2
    observations, _, _ = _assemble(events)
    assert [o.step for o in observations] == [1, 2]


def test_scale_growth_between_overflows_implies_clean_steps() -> None:
    events = [LogEvent("overflow", "apex", scale_after=512.0, rank=0)] * 6
    observations, _, pattern = _assemble(events)
    assert sum(bool(o.was_skipped) for o in observations) == 6
    assert "ss" not in pattern  # every overflow followed a regrowth: never consecutive
    assert all(o.was_skipped for o in observations)  # the steps between: a gap, not made up


def test_interval_skips_first_during_startup_then_spread() -> None:
    events = [LogEvent("metrics", "megatron", step=10, scale_after=2.0 ** 22,
                       skipped_in_interval=10, nan_in_interval=0),
              LogEvent("metrics", "megatron", step=20, scale_after=2.0 ** 16, loss=9.0,
                       skipped_in_interval=6, nan_in_interval=0),
              LogEvent("metrics", "megatron", step=30, scale_after=2.0 ** 15, loss=8.0,
                       skipped_in_interval=2, nan_in_interval=0)]
    observations, _, pattern = _assemble(events)
    assert pattern == "s" * 16 + "c" * 4 + "cccc" + "s" + "cccc" + "s"
    # no scale is made up: the first interval's start is unknown, the next starts at its end
    assert observations[0].scale_before is None
    assert [(o.step, o.scale_before, o.scale_after) for o in observations[9:11]] == [
        (10, None, 2.0 ** 22), (11, 2.0 ** 22, None)]
