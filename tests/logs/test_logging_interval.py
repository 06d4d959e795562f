"""HF Trainer's rows numbered by the logging interval the log's arguments show.

The Trainer prints a row every ``logging_steps`` optimizer steps (transformers
``trainer_callback.py`` DefaultFlowCallback ``on_step_end``), and no step on it. The example
scripts log their arguments first (``run_clm.py``: ``logger.info(f"Training/evaluation
parameters {training_args}")`` under ``%(asctime)s - %(levelname)s - %(name)s -
%(message)s``), as ``TrainingArguments.__str__`` writes them: one ``key=value,`` a line, keys
sorted. Launch lines echo ``--logging_steps 50``; LLaMA-Factory's and axolotl's YAML configs
``logging_steps: 10``.

Before: the k-th row was step k (a NaN in the 10th row of a run logging every 50 steps was
"step 10"); the controls pass on the parent too.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults

_INFO = "06/01/2024 10:00:00 - INFO - __main__ - "


def _arguments(**settings: object) -> list[str]:
    """``TrainingArguments.__str__`` (transformers 4.x), a few of its fields."""
    fields = {"fp16": True, "gradient_accumulation_steps": 1, "learning_rate": 5e-05,
              "logging_dir": "out/runs/Jun01_10-00-00", "logging_first_step": False,
              "logging_nan_inf_filter": True, "logging_steps": 50,
              "logging_strategy": "IntervalStrategy.STEPS", "max_grad_norm": 1.0,
              "max_steps": -1, "num_train_epochs": 3.0, "output_dir": "out",
              "per_device_train_batch_size": 8, **settings}
    return [f"{_INFO}Training/evaluation parameters TrainingArguments(",
            *(f"{key}={value}," for key, value in sorted(fields.items())), ")"]


def _rows(nan_from: int | None = None, rows: int = 20, rank: str = "") -> list[str]:
    return [f"{rank}{{'loss': {'nan' if nan_from and k >= nan_from else f'{2.5 - k / 50:.4f}'}, "
            f"'grad_norm': {'nan' if nan_from and k >= nan_from else '1.02'}, "
            f"'learning_rate': 5e-05, 'epoch': {k * 0.05:.2f}}}" for k in range(1, rows + 1)]


def test_rows_are_numbered_by_the_arguments_logging_steps(tmp_path: Path) -> None:
    """Before: AMP006 at step 10 (the 10th row)."""
    lines = [*_arguments(), "***** Running training *****", *_rows(10)]
    assert faults(tmp_path, lines) == [("AMP006", 500)]
    result = diagnose_lines(tmp_path, lines)
    assert any("numbered every 50 steps (logging_steps=50" in p for p in result.problems)


def test_the_first_step_logged_and_other_ways_to_say_it(tmp_path: Path) -> None:
    """``logging_first_step=True``: rows at 1, 50, 100...; a launch line's ``--logging_steps
    25``; LLaMA-Factory's YAML echo; transformers 4.4x's ``logging_strategy=steps``. Before:
    each at step 10."""
    first = [*_arguments(logging_first_step=True, logging_strategy="steps"), *_rows(10)]
    assert faults(tmp_path, first) == [("AMP006", 450)]
    launched = ["+ torchrun --nproc_per_node 1 run_clm.py --model_name_or_path gpt2 --fp16 "
                "--logging_steps 25 --output_dir out", *_rows(10)]
    assert faults(tmp_path, launched) == [("AMP006", 250)]
    yaml = ["### train", "per_device_train_batch_size: 1", "gradient_accumulation_steps: 8",
            "learning_rate: 1.0e-4", "logging_steps: 10", "fp16: true", *_rows(10)]
    assert faults(tmp_path, yaml) == [("AMP006", 100)]


def test_two_ranks_rows_are_each_numbered(tmp_path: Path) -> None:
    """Each rank's k-th row is the same step (each rank prints its own copy). Before: 10."""
    lines = [*_arguments(logging_steps=20)]
    for zero, one in zip(_rows(), _rows(10), strict=True):
        lines += [f"[rank0]:{zero}", f"[rank1]:{one}"]
    assert [(d.code, d.step, d.rank) for d in diagnose_lines(tmp_path, lines).faults] == [
        ("AMP006", 200, 1)]


def test_what_no_interval_is_read_from(tmp_path: Path) -> None:
    """Controls: rows an epoch (``logging_strategy=epoch``), a ratio of the total steps
    (``logging_steps=0.01``), two runs' arguments that disagree, ``logging_steps=1``, and
    no arguments: rows are counted as before. Healthy runs stay quiet."""
    for settings in ({"logging_strategy": "IntervalStrategy.EPOCH"}, {"logging_steps": 0.01},
                     {"logging_steps": 1}):
        assert faults(tmp_path, [*_arguments(**settings), *_rows(10)]) == [("AMP006", 10)]
    twice = [*_arguments(logging_steps=50), *_rows(rows=5), *_arguments(logging_steps=10),
             *_rows(10)]
    assert faults(tmp_path, twice)[:1] == [("AMP006", 15)]
    assert faults(tmp_path, _rows(10)) == [("AMP006", 10)]
    assert faults(tmp_path, [*_arguments(), *_rows()]) == []


def test_a_resumed_run_and_a_second_run(tmp_path: Path) -> None:
    """A run resumed from a checkpoint goes on from the step it says (trainer.py
    ``_inner_training_loop``: ``Continuing training from global step 500``): its 3rd row is
    650 (was 150, from 0). A script run again into the same log: its rows number from its own
    start after the first run's closing summary (trainer.py ``train``: ``{'train_runtime':
    ...}``): the second run's 2nd row is 100 (was 250, after the first run's rows)."""
    resumed = [*_arguments(), "***** Running training *****",
               "  Continuing training from checkpoint, will skip to saved global_step",
               "  Continuing training from global step 500", *_rows(3)]
    assert faults(tmp_path, resumed) == [("AMP006", 650)]
    summary = ("{'train_runtime': 10.0, 'train_samples_per_second': 5.0, "
               "'train_steps_per_second': 1.0, 'train_loss': 2.2, 'epoch': 0.3}")
    twice = [*_arguments(), *_rows(rows=3), summary, *_arguments(), *_rows(2, rows=5)]
    assert faults(tmp_path, twice) == [("AMP006", 100)]
    assert faults(tmp_path, [*_arguments(), *_rows(rows=3), summary, *_arguments(),
                             *_rows(rows=5)]) == []
