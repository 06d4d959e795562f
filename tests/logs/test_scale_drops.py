"""A log that prints only the loss scale still shows its skipped steps: the doctor reads a
halving between two of a rank's logged values as skipped steps, and agrees with what the live
monitor concluded on the same run.

The runs are real: ``scaler_loop.py`` runs a GradScaler loop (CPU, fp16 autocast) with
denpex's AmpMonitor watching it live while it prints its scale, so the log and the live
verdict come from one run. The live monitor numbers iterations from 0, the loop's ``print``
from 1: a live step ``s`` is the log's ``s + 1``. Lines written by hand come from format
strings named beside them.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from scaler_loop import LoopRun, scaler_loop

from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.render import render_text
from denpex_callbacks.logs.result import Result

SCALE_ONLY = "step {step} loss_scale={scale}"
WITH_LOSS = "step {step} loss {loss} loss_scale {scale}"  # tests/logs/ranked_loop.py's print
# torchrun --tee's header (torch/distributed/elastic/multiprocessing/tail_log.py)
TEE = "[default{rank}]:"


def _read(tmp_path: Path, lines: list[str], name: str = "train.log") -> Result:
    log = tmp_path / name
    log.write_text("\n".join(lines) + "\n")
    result = diagnose(str(log))
    assert result.error is None, result.error
    return result


def _found(result: Result) -> list[tuple[str, int | None]]:
    return [(d.code, d.step) for d in result.faults]


def _live(run: LoopRun, *, loss_shown: bool) -> list[tuple[str, int | None]]:
    """The live verdict in the log's step numbers, less what the log cannot show (a NaN loss
    when only the scale is printed)."""
    return [(code, None if step is None else step + 1) for code, step in run.live
            if loss_shown or code != "AMP006"]


@pytest.mark.parametrize("fmt", [SCALE_ONLY, WITH_LOSS])
@pytest.mark.parametrize("fault", [{"nan_from": 6}, {"overflow": frozenset(range(12, 30))}],
                         ids=["nan-loss", "overflowing-gradients"])
def test_a_scale_halving_every_step_reads_as_the_live_run(
        tmp_path: Path, fmt: str, fault: dict[str, object]) -> None:
    run = scaler_loop(30, fmt, **fault)  # type: ignore[arg-type]
    assert run.live and run.live[0][0] in {"AMP006", "AMP003"}
    result = _read(tmp_path, run.lines)
    assert _found(result) == _live(run, loss_shown=fmt == WITH_LOSS)
    assert result.timeline.skipped == run.skipped  # every skip read from the scale alone
    collapse = next(d for d in result.faults if d.code == "AMP003")
    assert collapse.evidence["scale_at_start"] == 1024.0


@pytest.mark.parametrize(("every", "fault"), [
    (5, {"nan_from": 23}), (10, {"overflow": frozenset(range(23, 80))})])
def test_a_scale_logged_every_n_steps_finds_the_collapse_within_the_interval(
        tmp_path: Path, every: int, fault: dict[str, object]) -> None:
    run = scaler_loop(80, SCALE_ONLY, every=every, **fault)  # type: ignore[arg-type]
    live = dict(_live(run, loss_shown=False))
    found = _found(_read(tmp_path, run.lines))
    first = dict(reversed(found))  # the first report of each id
    assert set(first) == set(live) == {"AMP003", "AMP004"}
    for code, step in first.items():
        # The log shows every ``every``-th step: the step it names is the first one proven
        # skipped, at most one interval after the live one.
        began = live[code]
        assert step is not None and began is not None
        assert began <= step < began + every, (code, step, began)


def test_gaps_count_at_least_the_halvings_as_skipped_steps(tmp_path: Path) -> None:
    run = scaler_loop(80, SCALE_ONLY, every=10, overflow=frozenset(range(23, 80)))
    result = _read(tmp_path, run.lines)
    assert result.timeline.steps == 80
    # steps 23-79 overflowed: 8 halvings over 21-30, 10 over each of 31-40 ... 61-70, 9 over
    # 71-80; every one read as a skipped step, none made up
    assert result.timeline.skipped == run.skipped == 57


# ``difference``: skips the log shows beyond the live count. The back-off's first skip is on
# the first logged line, with no value before it. A scale set by hand to its half is a skip to
# the log (a halving is what a back-off looks like there) and none to the live monitor, which
# reads the step's found_inf at update(): the step was applied. A scale set by hand after an
# overflow: a later overflow would make the scale's trajectory a collapse for the live monitor
# and the log alike (the same detector), so the overflow comes first here; neither counts the
# drop to 8 as a skip (the log: no back-off drops by 2**6 in one step; live: found_inf).
@pytest.mark.parametrize(("name", "options", "difference"), [
    ("start-up back-off from 65536",
     {"init_scale": 65536.0, "overflow": frozenset(range(1, 5))}, -1),
    ("one overflow in a long run", {"overflow": frozenset({150})}, 0),
    ("a healthy sawtooth (growth interval 5)", {"growth_interval": 5}, 0),
    ("a healthy sawtooth (growth interval 10)",
     {"growth_interval": 10, "overflow": frozenset(range(11, 300, 11))}, 0),
    ("a scale set by hand once, after one overflow",
     {"set_scale": (30, 8.0), "overflow": frozenset({10})}, 0),
    ("a scale set by hand to its half once", {"set_scale": (30, 512.0)}, 1),
])
def test_healthy_scale_only_logs_stay_quiet_and_count_their_skips(
        tmp_path: Path, name: str, options: dict[str, object], difference: int) -> None:
    run = scaler_loop(300, SCALE_ONLY, **options)  # type: ignore[arg-type]
    assert run.live == [], name
    result = _read(tmp_path, run.lines)
    assert _found(result) == [], name
    # The skips were read: the silence is a judgement, not blindness.
    assert result.timeline.skipped == run.skipped + difference > 0, name


def _two_rank_lines(*, blocks: bool) -> list[str]:
    """ranked_loop.py's ``print`` under torchrun --tee: rank 1's loss NaN from step 6, DDP
    averaging its NaN gradients into both ranks, whose scalers halve from 1024 each step."""
    def line(rank: int, step: int) -> str:
        loss = "nan" if rank == 1 and step >= 6 else f"{4.0 / step}"
        scale = 1024.0 / 2 ** max(0, step - 5)
        return TEE.format(rank=rank) + WITH_LOSS.format(step=step, loss=loss, scale=scale)
    ranks = [[line(rank, step) for step in range(1, 15)] for rank in (0, 1)]
    if blocks:
        return ranks[0] + ranks[1]
    return [text for pair in zip(*ranks, strict=True) for text in pair]


@pytest.mark.parametrize("blocks", [False, True], ids=["interleaved", "rank-blocks"])
def test_two_ranks_count_each_step_once(tmp_path: Path, blocks: bool) -> None:
    result = _read(tmp_path, _two_rank_lines(blocks=blocks))
    assert [(d.code, d.step, d.rank) for d in result.faults] == [
        ("AMP006", 6, 1), ("AMP003", 6, 0)]
    assert result.faults[1].evidence["also_on_ranks"] == [1]
    assert (result.timeline.steps, result.timeline.skipped) == (14, 9)
    assert "14 step(s) reconstructed, 9 skipped by overflow" in render_text([result])


@pytest.mark.slow  # one torchrun launch, ~7 s on two cores
def test_a_real_two_rank_nan_run_shows_its_collapse_and_its_steps_once(tmp_path: Path) -> None:
    from run_makers import torchrun_loop

    log = tmp_path / "nan.log"
    log.write_text(torchrun_loop("nan", 6, 14, "--tee", "3"))
    result = diagnose(str(log))
    assert result.error is None, result.error
    assert [(d.code, d.step, d.rank) for d in result.faults] == [
        ("AMP006", 6, 1), ("AMP003", 6, 0)]
    assert (result.timeline.steps, result.timeline.skipped) == (14, 9)


def test_a_loss_scale_column_in_lightning_metrics_csv(tmp_path: Path) -> None:
    """A ``loss_scale`` column logged through Lightning's own CSVLogger (``log_metrics``)."""
    loggers = pytest.importorskip("lightning.pytorch.loggers")
    logger = loggers.CSVLogger(str(tmp_path), name="lightning_logs")
    for step in range(30):
        scale = 1024.0 / 2 ** max(0, step - 11)  # steps 12.. skipped
        logger.log_metrics({"train_loss": 1.0 / (step + 1), "loss_scale": scale}, step=step)
    logger.save()
    path = Path(logger.log_dir) / "metrics.csv"
    assert "loss_scale" in next(csv.reader(path.open()))
    result = diagnose(str(path))
    assert result.error is None, result.error
    assert _found(result)[:1] == [("AMP003", 12)]
    assert result.timeline.skipped == 18


@pytest.mark.parametrize("name", ["bf16", "config dump"])
def test_constant_or_dumped_scales_are_not_skips(tmp_path: Path, name: str) -> None:
    """bf16: a real loop with GradScaler disabled (``get_scale()`` is 1.0 every step).
    DeepSpeed's configuration dump, written from ``DeepSpeedConfig.print``'s
    ``"  {} {} {}".format(arg, dots, value)`` (loss_scale 0 means dynamic), above a healthy
    fp16 loop's scale-only lines."""
    if name == "bf16":
        run = scaler_loop(60, "step {step} loss {loss} loss scale: {scale}", bf16=True)
        lines = run.lines
    else:
        run = scaler_loop(60, SCALE_ONLY)
        lines = ["[2026-11-30 10:00:00,000] [INFO] [config.py:1000:print]   loss_scale "
                 "................... 0", *run.lines]
    assert run.live == []
    result = _read(tmp_path, lines)
    assert _found(result) == []
    assert (result.timeline.steps, result.timeline.skipped) == (60, 0)


def test_overflow_lines_and_a_logged_scale_count_each_skip_once(tmp_path: Path) -> None:
    """fairseq's ``train_inner`` lines (``loss_scale=`` each 10 updates) with some of its
    overflow NOTE lines, as in ``corpus/fairseq_simple_collapse.log`` (fairseq 0.12 strings):
    the scale fell from 128 to 2 (6 halvings) over updates 101-110, 3 of them printed."""
    corpus = (Path(__file__).parent / "corpus" / "fairseq_simple_collapse.log").read_text()
    lines = corpus.splitlines()
    metric, notes = lines[9], lines[10:13]  # update 100 at 128; overflows to 64, 32, 16

    def at(update: int, scale: str) -> str:
        return (metric.replace("  100 / 1000", f"  {update} / 1000")
                .replace("num_updates=100", f"num_updates={update}")
                .replace("loss_scale=128", f"loss_scale={scale}"))
    result = _read(tmp_path, [*lines[:10], *notes, at(110, "2"), at(120, "2")])
    assert (result.timeline.steps, result.timeline.skipped) == (120, 6)


@pytest.mark.parametrize("key", ["amp/loss_scale", "loss_scale"])
def test_a_loss_scale_in_trainer_state_log_history(tmp_path: Path, key: str) -> None:
    """HF ``trainer_state.json`` as ``TrainerState.save_to_json`` writes it (transformers
    trainer_callback.py): ``log_history`` holds the dicts ``Trainer.log`` got, here with the
    scale denpex's metrics sink logs (``amp/loss_scale``) or one the user logged."""
    history = [{"epoch": step / 100, "grad_norm": 0.5, "learning_rate": 1e-4, "loss": 1.0,
                key: 1024.0 / 2 ** max(0, step - 5), "step": step} for step in range(1, 15)]
    state = {"global_step": 14, "log_history": history, "max_steps": 14}
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(state))
    result = diagnose(str(path))
    assert result.error is None, result.error
    assert _found(result) == [("AMP003", 6)]
    assert (result.timeline.steps, result.timeline.skipped) == (14, 9)


def test_each_ranks_own_log_keeps_the_cause_first(tmp_path: Path) -> None:
    """The same two ranks in torchrun ``--log-dir``'s layout (``attempt_0/<rank>/stdout.log``,
    torch/distributed/elastic/multiprocessing/api.py), each file without a prefix: rank 0's
    collapse is the consequence of rank 1's NaN loss, as in one interleaved log."""
    lines = _two_rank_lines(blocks=True)
    for rank in (0, 1):
        own = tmp_path / "attempt_0" / str(rank) / "stdout.log"
        own.parent.mkdir(parents=True)
        own.write_text("\n".join(line.removeprefix(TEE.format(rank=rank))
                                 for line in lines[rank * 14:(rank + 1) * 14]) + "\n")
    result = diagnose(str(tmp_path))
    assert result.error is None, result.error
    assert [(d.code, d.step, d.rank) for d in result.faults] == [
        ("AMP006", 6, 1), ("AMP003", 6, 0)]
    assert result.faults[1].evidence["also_on_ranks"] == [1]
