"""The doctor's speed on the DeepSpeed/HF log and on nanoGPT's (issue #27, speed56), with the
same answers as before.

Two changes, each checked against the path it speeds up:

* A big log scanned in worker processes: this process scans (and parses) the first
  ``OWN_SPANS`` spans itself while the workers start, instead of waiting for a spawned
  worker's imports and its first span. Each answer is the one-process scan's (``workers=0``).
* A quiet run whose lines print no epoch (nanoGPT's ``iter N: loss X, ...``, Megatron's
  iteration line) is matched by RE2 in one match (``Shape.whole``), not by Python's ``re`` in
  batches of lines. Each answer is the one of reading every line one by one, and of the
  batches of ``re`` (RE2 switched off).

Each fault's id, step and evidence and the summary's counts are compared.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from denpex_callbacks.logs import doctor, parallel_scan, quiet_runs
from denpex_callbacks.logs.doctor import Result, diagnose
from denpex_callbacks.logs.keyword_scan import HAS_RE2
from denpex_callbacks.logs.parallel_scan import scan_input
from denpex_callbacks.logs.parsers import KEYWORDS, LineParser
from denpex_callbacks.logs.reader import ReadStats, candidate_lines, open_input
from tests.logs.excerpts import megatron_line
from tests.logs.test_speed53_quiet import _both, _document

STAMP = "[2026-01-01 10:00:00,000]"


# --- builders, from the tools' own format strings ----------------------------------------------
def timer_line(step: int, epoch: int = 0) -> str:
    """deepspeed/utils/timer.py ``ThroughputTimer.stop`` (``self.logging``: log_dist's logger,
    ``[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s]``):
    ``"epoch={}/micro_step={}/global_step={}, RunningAvgSamplesPerSec={}, CurrSamplesPerSec={},
    MemAllocated={}GB, MaxMemAllocated={}GB"``."""
    return (f"{STAMP} [INFO] [timer.py:264:stop] epoch={epoch}/micro_step={step}/global_step="
            f"{step}, RunningAvgSamplesPerSec=1224.88, CurrSamplesPerSec=1224.5, "
            "MemAllocated=30.1GB, MaxMemAllocated=31.9GB")


def progress_line(step: int, skipped: int, lr: float) -> str:
    """deepspeed/runtime/engine.py ``_report_progress``: ``log_dist(f"step={step},
    skipped={self.skipped_steps}, lr={lr}, mom={mom}", ranks=[0])`` (log_dist puts ``[Rank
    0]`` before the message)."""
    return (f"{STAMP} [INFO] [logging.py:128:log_dist] [Rank 0] step={step}, skipped={skipped}, "
            f"lr=[{lr}], mom=[(0.9, 0.999)]")


def overflow_line(scale: float, floor: float = 1.0) -> str:
    """deepspeed/runtime/fp16/loss_scaler.py ``DynamicLossScaler.update_scale``:
    ``f"[deepspeed] OVERFLOW! Rank {dist.get_rank()} Skipping step."`` and, under fp16,
    ``f" Attempted loss scale: {int(self.cur_scale)}, reducing to {int(next_scale)}"``
    (``next_scale = max(self.cur_scale / self.scale_factor, self.min_scale)``)."""
    return (f"{STAMP} [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 "
            f"Skipping step. Attempted loss scale: {int(scale)}, reducing to "
            f"{int(max(scale / 2, floor))}")


def hf_row(step: int, total: int, loss: float, epoch: float) -> str:
    """huggingface/transformers src/transformers/trainer_callback.py ``ProgressCallback.on_log``:
    ``self.training_bar.write(str(logs))`` behind the tqdm bar it cleared (tqdm
    ``format_meter``'s ``{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining},
    {rate_fmt}]``), as a file keeps both."""
    percent = 100 * step // total
    bar = ("#" * (percent // 10)).ljust(10)
    return (f"{percent:3d}%|{bar}| {step}/{total} [00:10<01:30, 9.10it/s]"
            + str({"loss": round(loss, 4), "grad_norm": 0.91, "learning_rate": 1e-4,
                   "epoch": round(epoch, 2)}))


NOISE = (
    f"{STAMP} [WARNING] [stage_1_and_2.py:1891:step] communication bucket flushed early",
    "data_loader: worker 3 prefetched shard 00041-of-01024 (2048 samples, 7.9 MB)",
)


def deepspeed_hf_log(steps: int, *, every: int, window: int, init_power: int,
                     overflows: Callable[[int], bool], floor: float = 1.0) -> list[str]:
    """A DeepSpeed run at INFO under the HF Trainer (``steps_per_print`` = ``logging_steps``
    = ``every``): a timer line and noise each step, the engine's progress line and a Trainer
    row every ``every`` steps, an overflow line where ``overflows(step)``; the scale doubles
    after ``window`` clean steps (``loss_scale_window``) from ``2 ** init_power``."""
    lines: list[str] = []
    scale, clean, skipped = 2.0 ** init_power, 0, 0
    for step in range(1, steps + 1):
        lines.append(timer_line(step))
        lines.append(NOISE[step % 2])
        if overflows(step):
            lines.append(overflow_line(scale, floor))
            scale, clean, skipped = max(scale / 2, floor), 0, skipped + 1
        else:
            clean += 1
            if clean == window:
                scale, clean = scale * 2, 0
        if step % every == 0:
            lines.append(progress_line(step, skipped, 1e-4))
            lines.append(hf_row(step, steps, 2.5 - step / (2 * steps), step / 1000))
    return lines


def nanogpt_line(iteration: int, loss: str, mfu: float) -> str:
    """karpathy/nanoGPT train.py: ``print(f"iter {iter_num}: loss {lossf:.4f}, time
    {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")`` (``running_mfu`` is -1.0 until the fifth
    iteration of the process: ``-100.00%``)."""
    return f"iter {iteration}: loss {loss}, time {31 + iteration % 7 * 0.37:.2f}ms, mfu {mfu:.2f}%"


def nanogpt_log(iters: int, *, log_interval: int = 1,
                loss_at: Callable[[int], str | None] = lambda i: None) -> list[str]:
    """Every ``log_interval``-th iteration's line (``iter_num % log_interval == 0``); the loss
    falls slowly, or is what ``loss_at(iteration)`` prints there."""
    return [nanogpt_line(i, loss_at(i) or f"{4.2 / (1 + 0.0004 * i):.4f}",
                         -100.0 if n < 5 else 38.5 + i % 5 * 0.11)
            for n, i in enumerate(range(0, iters, log_interval))]


# --- comparing answers ---------------------------------------------------------------------------
def _said(result: Result, *, sampling: bool = True) -> tuple[Any, ...]:
    """What the doctor says of ``result``: each diagnosis' id, step and evidence (a NaN by
    repr), and the report's document less the path (test_speed53_quiet's ``_document``).
    ``sampling=False``: without how often the timeline sampled its steps, which a run counted
    leaves at 1 where reading every line may thin it (so before this change too)."""
    assert result.error is None, result.error
    document = _document(result)
    if not sampling:
        for timeline in (document["timeline"], *(i["timeline"] for i in document["inputs"])):
            timeline.pop("sampled_every", None)
    return ([(d.code, d.step, repr(d.evidence)) for d in result.diagnoses],
            json.dumps(document, sort_keys=True, default=str))


def _write(tmp_path: Path, lines: list[str], name: str = "train.log") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- the first spans scanned here while the workers start ----------------------------------------
class _Spy(ThreadPoolExecutor):
    """A pool of threads (the same code as processes, fast) that notes where each span it is
    given starts, in ``spans``."""

    def __init__(self, workers: int, spans: list[int]) -> None:
        super().__init__(workers)
        self.spans = spans

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if fn is parallel_scan.scan_span:
            self.spans.append(args[1])
        return super().submit(fn, *args, **kwargs)


def _serial(path: Path) -> tuple[list[tuple[int, str]], ReadStats]:
    stats = ReadStats()
    with open_input(str(path)) as stream:
        return list(candidate_lines(stream, KEYWORDS, stats)), stats


def test_this_process_scans_the_first_spans_while_the_workers_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, deepspeed_hf_log(400, every=10, window=100, init_power=16,
                                             overflows=lambda s: s < 4 or s % 150 == 0))
    span = 3000
    spans: list[int] = []
    monkeypatch.setattr(parallel_scan, "_make_pool", lambda n: _Spy(n, spans))
    stats = ReadStats()
    ticks: list[int] = []
    with open_input(str(path)) as stream:
        found = list(scan_input(str(path), stream, KEYWORDS, stats, ticks.append, workers=1,
                                min_bytes=0, span=span, dense_share=1.0))
    own = parallel_scan.OWN_SPANS
    assert own >= 1
    # the workers got every span from the first one this process did not scan, in order
    assert spans == list(range(own * span, path.stat().st_size, span))
    assert ticks == sorted(ticks) and ticks[-1] == path.stat().st_size
    assert (found, stats) == _serial(path)


# DeepSpeed/HF logs, each read with real worker processes (tiny spans) and in one process.
def _collapse(steps: int) -> Callable[[int], bool]:
    """Start-up back-off, a sawtooth, then an overflow every step from 95% of the run on."""
    return lambda s: s < 5 or s % 200 == 0 or s > steps * 0.95


DEEPSPEED_HF = {
    # faulty: the scale collapses to the floor at the end, every step skipped there
    "collapse": (deepspeed_hf_log(1200, every=10, window=100, init_power=16,
                                  overflows=_collapse(1200)),
                 [("AMP003", 1141)]),
    # healthy controls, non-default settings: steps_per_print 5, a window of 250 from 2**12;
    # steps_per_print 25, a window of 1000, a floor of 16 (min_loss_scale)
    "healthy-print5-window250": (deepspeed_hf_log(1500, every=5, window=250, init_power=12,
                                                  overflows=lambda s: s < 3 or s % 500 == 0),
                                 []),
    "healthy-print25-floor16": (deepspeed_hf_log(3000, every=25, window=1000, init_power=20,
                                                 overflows=lambda s: s < 6 or s % 1500 == 0,
                                                 floor=16.0),
                                []),
}


@pytest.mark.parametrize("name", list(DEEPSPEED_HF))
def test_deepspeed_hf_logs_read_the_same_with_workers_and_in_one_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    lines, expected = DEEPSPEED_HF[name]
    path = _write(tmp_path, lines)
    # read as a big log file is, both ways: a file under 16 MiB is first looked at as a paste
    # (held in memory where its head might be one), which no worker could scan
    monkeypatch.setattr(doctor, "ESCAPED_BYTES", 0)
    one = diagnose(str(path), workers=0)
    monkeypatch.setattr(parallel_scan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(parallel_scan, "SPAN", 20_000)  # (a few dozen spans, some scanned here)
    monkeypatch.setattr(parallel_scan, "DENSE_SHARE", 1.0)
    pools: list[Executor] = []
    real_pool = parallel_scan._make_pool
    monkeypatch.setattr(parallel_scan, "_make_pool",
                        lambda n: pools.append(real_pool(n)) or pools[-1])
    spread = diagnose(str(path), workers=1)
    assert len(pools) == 1  # (the worker path was taken)
    assert [(d.code, d.step) for d in one.faults] == expected
    assert _said(spread) == _said(one)
    assert spread.stats == one.stats and spread.families == one.families


# --- a quiet run without an epoch, matched whole by RE2 ------------------------------------------
def _shape(lines: list[str]) -> quiet_runs.Shape:
    runs, parser = quiet_runs.QuietRuns(), LineParser()
    for number, text in enumerate(lines[:4], 1):  # (Megatron's first line: its scale's)
        runs.offer(number, text, parser.parse(text, number))
    assert runs.shape is not None
    return runs.shape


@pytest.mark.skipif(not HAS_RE2, reason="RE2 (the fast extra) is not installed")
@pytest.mark.parametrize("lines", [
    pytest.param(nanogpt_log(3000)[10:], id="nanogpt"),
    pytest.param([megatron_line(i, loss=2.5 - i / 1e6) for i in range(100000, 130000, 10)],
                 id="megatron"),
])
def test_a_run_without_an_epoch_is_one_re2_match_to_the_same_line(lines: list[str]) -> None:
    shape = _shape(lines)
    assert shape.whole is not None and shape.epoch is None
    run = ("\n".join(lines[4:]) + "\n").encode()
    text = run + ("\n".join([lines[6].replace("loss", "loss: nan |", 1), *lines[2:9]])
                  + "\n").encode()
    cut = 0  # the batches of ``re`` (what reading without RE2 gives)
    while (found := shape.run.match(text, cut, len(text))) is not None:
        cut = found.end()
    whole = shape.whole.match(text, 0, len(text))
    assert whole is not None and whole.end() == cut == len(run)
    assert run.count(b"\n") > 2048  # (past one batch of lines)


def _three_ways(tmp_path: Path, lines: list[str], monkeypatch: pytest.MonkeyPatch
                ) -> tuple[Result, Result, Result, int]:
    """The log read with RE2's quiet runs, with ``re``'s (RE2 off), and line by line, and the
    lines the first reading counted in runs (test_speed53_quiet's ``_both`` reads the first
    and the last, into ``train.log``)."""
    quiet_runs._SHAPES.clear()  # (shapes are kept by template: built again below)
    fast, one_by_one, counted = _both(tmp_path, lines, monkeypatch)
    monkeypatch.setattr(quiet_runs, "byte_pattern", lambda pattern: None, raising=False)
    quiet_runs._SHAPES.clear()
    batches = diagnose(str(tmp_path / "train.log"))
    monkeypatch.undo()
    quiet_runs._SHAPES.clear()
    return fast, batches, one_by_one, counted


def _nan_at(iteration: int) -> Callable[[int], str | None]:
    return lambda i: "nan" if i == iteration else None


NANOGPT = {
    # faulty: a NaN loss at one iteration, mid-run; from an iteration on, all NaN
    "nan-mid": (nanogpt_log(6000, loss_at=_nan_at(3210)), [("AMP006", 3210)]),
    "nan-from": (nanogpt_log(60000, log_interval=10,
                             loss_at=lambda i: "nan" if i >= 40000 else None),
                 [("AMP006", 40000)]),
    # healthy controls, non-default settings: log_interval 10; log_interval 25 from iteration 0
    "healthy-interval10": (nanogpt_log(50000, log_interval=10), []),
    "healthy-interval25": (nanogpt_log(150000, log_interval=25), []),
}


MEGATRON = {
    # faulty: the loss NaN from an iteration on (Megatron prints nan and counts it)
    "nan-from": ([megatron_line(i, loss=math.nan if i >= 25000 else 2.5 - i / 1e5,
                                nan=1 if i >= 25000 else 0) for i in range(10, 30000, 10)],
                 [("AMP006", 25000)]),
    # healthy control, non-default settings: loss scale 4096, grad norm printed to 4 places
    "healthy-scale4096": ([megatron_line(i, loss=2.5 - i / 1e5, scale=4096.0,
                                         grad_norm=f"{0.8 + i % 7 / 100:.4f}")
                           for i in range(10, 40000, 10)], []),
}


EVERY_LINE = {**{f"nanogpt-{name}": case for name, case in NANOGPT.items()},
              **{f"megatron-{name}": case for name, case in MEGATRON.items()}}


@pytest.mark.parametrize("name", list(EVERY_LINE))
def test_every_line_logs_read_the_same_with_re2_with_re_and_line_by_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    lines, expected = EVERY_LINE[name]
    fast, batches, one_by_one, counted = _three_ways(tmp_path, lines, monkeypatch)
    assert counted > len(lines) // 2  # (the quiet path taken: most lines counted in runs)
    assert [(d.code, d.step) for d in one_by_one.faults] == expected
    assert _said(fast) == _said(batches)
    assert _said(fast, sampling=False) == _said(one_by_one, sampling=False)


def test_a_pattern_re2_does_not_take_is_none() -> None:
    """A backreference (what a shape that prints an epoch holds) is RE2's to refuse: the
    batches of ``re`` read such runs, and nothing is printed."""
    from denpex_callbacks.logs.keyword_scan import byte_pattern

    assert byte_pattern(rb"(?P<epoch>\d+) (?P=epoch)\n") is None
    found = byte_pattern(rb"(?:a\d\n)+")
    assert found is None or found.match(b"a1\na2\nb\n").end() == 6
    assert re.fullmatch(rb"(?:a\d\n)+", b"a1\na2\n") is not None
