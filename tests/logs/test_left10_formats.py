"""Strict xfails that held known misreadings, fixed (issue #27, branch h49-left10).

Each builder names the tool's source its format comes from; each fix is a rule for a kind of
layout, with a healthy control under non-default settings beside it.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults, ranked_faults
from test_false_alarms8_formats import _deepspeed
from test_newuser_findings import _bar, _row, trainer_stdout
from test_review47b_formats import _BANNER, _watched_rows
from test_step_banners import _blocks


def trainer_mid_run(start: int, every: int = 5, rows: int = 8, total: int = 1000,
                    nan_from: int | None = None) -> list[str]:
    """An excerpt of a Trainer run's stdout that begins after ``start`` steps (the last row
    before it at ``start``): each line opens with the fast bar ``tqdm.write`` redrew after the
    row before, at that row's step (tqdm ``tqdm/std.py`` ``external_write_mode``;
    transformers ``src/transformers/trainer_callback.py`` ``ProgressCallback.on_step_end``
    then ``on_log``), then the clear (blanks as wide as the bar) and the row
    (``test_newuser_findings._row``); rows every ``every`` steps
    (``DefaultFlowCallback.on_step_end``), NaN from step ``nan_from`` on."""
    lines = []
    for step in range(start + every, start + every * (rows + 1), every):
        nan = nan_from is not None and step >= nan_from
        row = _row("nan" if nan else f"{1.3 - step / 2000:.4g}",
                   "nan" if nan else f"{2.3 + step / 1000:.4g}", 1e-3 * (1 - step / total),
                   step / total)
        bar = _bar(step - every, total, 418.2)
        # (tqdm's clear: blanks as wide as the bar it erases, ``status_printer``'s last_len)
        lines.append(bar + "\r" + " " * (len(bar) - 1) + "\r" + row)
    return lines


def test_trainer_first_row_numbered_by_the_redrawn_bars(tmp_path: Path) -> None:
    """A run's first row (no logging_first_step), NaN: main said AMP006 at 1 (the row
    counted); the bars redrawn after it (7, 14) say the interval: step 7."""
    assert faults(tmp_path, trainer_stdout(nan_from=7)) == [("AMP006", 7)]


def test_trainer_mid_run_first_row_numbered_by_the_redrawn_bars(tmp_path: Path) -> None:
    """An excerpt from step 700 on, every 5 steps, its first row NaN: main said AMP006 at 1;
    the bar redrawn before it (700) and the interval the next redraws show give 705."""
    assert faults(tmp_path, trainer_mid_run(700, nan_from=705)) == [("AMP006", 705)]
    assert faults(tmp_path, trainer_mid_run(700, nan_from=720)) == [("AMP006", 720)]


def test_trainer_redrawn_bars_healthy_controls(tmp_path: Path) -> None:
    """Controls: healthy runs every 5 and every 12 steps, from the start and mid-run: quiet."""
    assert faults(tmp_path, trainer_stdout(every=12, total=200, nan_from=None)) == []
    assert faults(tmp_path, trainer_mid_run(700)) == []
    assert faults(tmp_path, trainer_mid_run(0, every=12, rows=15)) == []


def resumed_banner(step: int, epoch: int) -> list[str]:
    """The Trainer's banner of a run resumed from a checkpoint (transformers
    ``src/transformers/trainer.py`` ``_inner_training_loop``: ``logger.info("***** Running
    training *****")``, its ``  Num examples = {n:,}`` lines, then ``"  Continuing training
    from checkpoint, will skip to saved global_step"``, ``f"  Continuing training from epoch
    {epochs_trained}"``, ``f"  Continuing training from global step {global_step}"``)."""
    return [*_BANNER, "  Continuing training from checkpoint, will skip to saved global_step",
            f"  Continuing training from epoch {epoch}",
            f"  Continuing training from global step {step}"]


def test_first_skip_count_after_a_resumed_banner_is_a_baseline(tmp_path: Path) -> None:
    """A resumed run's banner proves no start: its first count holds the skips before the
    resume (the callback's state restored with the checkpoint) and stays a baseline, as with
    no banner at all (AMP004 at 1 only, the count's rise after it)."""
    rows = _watched_rows([40, 45, 50, 55, 60, 64], 0.125)
    assert faults(tmp_path, [*resumed_banner(48, 3), *rows]) == faults(tmp_path, rows)
    assert faults(tmp_path, rows) == [("AMP004", 1)]


def test_banner_controls_with_other_settings(tmp_path: Path) -> None:
    """Controls: healthy runs after the banner, logged every 20 steps at a scale of 1024
    with 3 early skips, started and resumed: quiet."""
    rows = _watched_rows([3, 3, 4, 4, 4, 4, 4, 4], 1024.0, every=20)
    assert faults(tmp_path, [*_BANNER, *rows]) == []
    assert faults(tmp_path, [*resumed_banner(160, 10), *rows]) == []


def keras2_epochs_behind_mpirun(losses: list[str], rank: int = 0, stream: str = "stdout",
                                steps: int = 50) -> list[str]:
    """Keras 2's last bar of each epoch under ``fit(verbose=1)`` (keras ``utils/generic_utils.py``
    ``Progbar.update``: ``'%d/%d [' ... ']'`` then `` - name: value`` with ``%.4f``) behind
    mpirun ``--tag-output``'s ``"[%s,%s]<%s>:"`` (open-mpi/ompi
    ``orte/mca/iof/base/iof_base_output.c``: job, rank, stream), no ``Epoch N/M`` line (a
    paste of the bars only)."""
    return [f"[1,{rank}]<{stream}>:{steps}/{steps} [==============================] - 2s "
            f"40ms/step - loss: {loss} - accuracy: 0.5000" for loss in losses]


def test_keras2_bars_behind_mpirun_stderr(tmp_path: Path) -> None:
    """Three epochs' bars (50 steps an epoch, fewer lines than a margin needs: the tag stays
    on), a NaN on the third, behind rank 2's stderr tag: main counted the rows (AMP006 at
    3); the bar's count after the tag numbers it: 150."""
    lines = keras2_epochs_behind_mpirun(["0.6931", "0.6012", "nan"], rank=2, stream="stderr")
    assert faults(tmp_path, lines) == [("AMP006", 150)]


def test_keras_bars_behind_mpirun_controls(tmp_path: Path) -> None:
    """Controls: healthy bars of 40 steps behind rank 1's tag, three and five epochs, and
    Keras 3's with a scale of 4096 held: quiet."""
    for epochs in (3, 5):
        assert faults(tmp_path, keras2_epochs_behind_mpirun(
            [f"{0.7 - e / 20:.4f}" for e in range(epochs)], rank=1, steps=40)) == []
    lines = [f"[1,1]<stdout>:40/40 {'━' * 20} 1s 3ms/step - loss: 0.5 - dynamic_scale: 4096.0"
             for _ in range(3)]
    assert faults(tmp_path, lines) == []


def test_deepspeed_sawtooth_without_its_dump_short_windows(tmp_path: Path) -> None:
    """Whole healthy DeepSpeed logs (``test_false_alarms8_formats._deepspeed``: its
    ``loss_scaler.py`` ``OVERFLOW! ... Attempted loss scale: 2048, reducing to 1024`` lines,
    which print no growth) at ``loss_scale_window`` 16 and 8, their configuration dump cut:
    main said AMP008 at 11 and 21 (a skip every 17 or 9 steps read against an unknown
    window); each overflow attempts 2048 again within the window of the last back-off to
    1024, which bounds the window: quiet."""
    assert faults(tmp_path, _deepspeed(None)) == []
    assert faults(tmp_path, _deepspeed(None, window=8)) == []


def test_deepspeed_without_its_dump_control(tmp_path: Path) -> None:
    """Control: a healthy window of 32, its dump cut: quiet (on main too)."""
    assert faults(tmp_path, _deepspeed(None, window=32)) == []


def test_deepspeed_without_its_dump_fault_twin(tmp_path: Path) -> None:
    """Fault twin: from step 400 every fourth step overflows at ``min_loss_scale`` 1024 (no
    regrowth between those: no bound), the dump cut: AMP008 at the first skip of its
    200-step window (251; main said 11, the healthy sawtooth's skips read as the rate)."""
    assert faults(tmp_path, _deepspeed(None, floor_from=400)) == [("AMP008", 251)]


def skypilot_node(rank: int, colour: bool = True) -> str:
    """SkyPilot's multi-node prefix (skypilot-org/skypilot ``sky/skylet/executor/slurm.py``,
    handed to ``log_lib.run_bash_command_with_log``: ``({node_name}, rank={rank},
    pid={pid})``, ``, ip={ip}`` on the workers; cyan where it colours)."""
    name = "head" if rank == 0 else f"worker{rank}"
    prefix = (f"({name}, rank={rank}, pid={4100 + rank})" if rank == 0 else
              f"({name}, rank={rank}, pid={4100 + rank}, ip=172.31.0.{10 + rank})")
    return f"\x1b[36m{prefix}\x1b[0m " if colour else prefix + " "


def skypilot_nodes(per_node: list[list[str]], colour: bool = True) -> list[str]:
    """Each node's lines behind its prefix, mixed line by line (``sky logs`` of a job whose
    nodes all print)."""
    return [skypilot_node(rank, colour) + lines[index]
            for index in range(len(per_node[0])) for rank, lines in enumerate(per_node)]


def test_skypilot_nodes_uncoloured_the_first_nan_node(tmp_path: Path) -> None:
    """Three nodes' step banners, no colour (a log written to a file), worker 2 NaN from 900,
    the others from 1200: main said AMP006 at 9 on rank 2 (one shape asked of the head's and
    the workers' prefixes, so the nodes' lines were not read apart and the banners' rows
    were counted); now worker 2's AMP006 at 900."""
    per_node = [_blocks("==== Step {s} ====", 900 if rank == 2 else 1200) for rank in range(3)]
    assert ranked_faults(tmp_path, skypilot_nodes(per_node, colour=False)) == [
        ("AMP006", 900, 2)]


def test_skypilot_nodes_controls(tmp_path: Path) -> None:
    """Controls: four healthy nodes' ``--- Iteration N ---`` banners, coloured and not, and
    one node's alone: quiet."""
    per_node = [_blocks("--- Iteration {s} ---") for _ in range(4)]
    for colour in (True, False):
        assert ranked_faults(tmp_path, skypilot_nodes(per_node, colour)) == []
        assert ranked_faults(tmp_path, skypilot_nodes(per_node[:1], colour)) == []
