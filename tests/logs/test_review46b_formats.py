"""Stop 46's second review of the stop's new rules (00ce8bf..75a8797): excerpts written from
real tools' format strings (each test names its source) where the new rules answered wrong
and the parent (00ce8bf) answered right, each beside its twin control. The fault tests fail on
75a8797 (the review's base) and pass on the parent; the fixes:

- two-column ``key  value`` rows (tabulate's ``simple``) are one record only while one follows
  the other: a row after lines not handed over begins a record of its own
  (``MetricReader._record``);
- a table column named ``loss`` beats an earlier one that a loss noun names (``l1``);
- Keras' bars count on across ``fit`` calls (``_fit_header``), and a run is abandoned only
  where it stopped on one non-finite loss (``abandoned_runs.STOPPED_ROWS``);
- ``+inf`` at step 0 is the loop's default only where no number but 0 follows it.

What the review found:

- Ray's boxed result tables (ray-project/ray ``python/ray/tune/experimental/output.py``
  ``AIR_TABULATE_TABLEFMT``: ``lineabove=Line("╭", "─", "─", "╮")``, ``datarow=DataRow("│",
  " ", "│")``, printed by ``_print_dict_as_table`` with ``colalign=("left", "right")`` under
  ``Training finished iteration N at ...`` / ``Trial NAME finished iteration N at ...``):
  the two-column rows between box-drawing rules are now read as one tabulate ``simple``
  record for the whole log (a3f3dde, "tabulate's simple two-column table between dash rules
  is one record"), so every box's ``loss`` but one is lost: "no fault found" where the parent
  said AMP006 at the iteration.
- The PyTorch tutorial's Ray Tune search (pytorch/tutorials
  ``beginner_source/hyperparameter_tuning_tutorial.py``: ``config = {"l1":
  tune.choice([2 ** i for i in range(9)]), "l2": ..., "lr": ..., "batch_size": ...}``,
  ``CLIReporter(metric_columns=["loss", "accuracy", "training_iteration"])``): ``l1`` is a
  layer's width, now a loss noun (8392400, Wav2Lip's ``L1:``), so the ``l1`` column is read
  as the loss and the ``loss`` column's NaN is not: "no fault found".
- Keras ``fit`` called again on the same model (keras ``Progbar`` under ``Epoch 1/N``; a
  fine-tune's second ``fit`` as in the Keras transfer-learning guide, or ``fit(epochs=1)``
  in a loop): each ``Epoch 1/N`` now begins a run (80bbbdd), so the step restarts at the
  fit's own batch count: the NaN is placed thousands of steps early (the parent counted the
  model's batches across fits, as ``optimizer.iterations`` does). A k-fold loop's fold
  early-stopped after two NaN epochs is now taken for an abandoned range test (at most
  ``STOPPED_ROWS`` NaN losses before a new ``Epoch 1/N``): "no fault found".
- nanoGPT's loss ``inf`` from iter 0 (karpathy/nanoGPT ``train.py``): the first row's
  ``+inf`` at step 0 is dropped as a loop's default (a3f3dde, torchbeast's), so the fault is
  placed one logging interval late.
- tabulate's ``plain`` two-column blocks (no rules): the same cause as Ray's boxes.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from excerpts import faults

# -- Ray's boxed tables: python/ray/tune/experimental/output.py AIR_TABULATE_TABLEFMT ------


def _box(title: str, items: list[tuple[str, object]]) -> list[str]:
    """``_print_dict_as_table``: the keys sorted, left-aligned, the values right-aligned, the
    title row over a rule, in the UTF-8 box (a terminal's default encoding)."""
    rows = sorted((key, str(value)) for key, value in items)
    keys = max(len(title), *(len(key) for key, _ in rows))
    values = max(len(value) for _, value in rows)
    rule = "─" * (keys + values + 3)
    return [f"╭{rule}╮", f"│ {title.ljust(keys)} {' ' * values} │", f"├{rule}┤",
            *(f"│ {key.ljust(keys)} {value.rjust(values)} │" for key, value in rows),
            f"╰{rule}╯"]


def _ray_train(nan_from: int | None = None) -> list[str]:
    """Ray Train's TorchTrainer console: its config box, then a ``Training result`` box each
    reported iteration (``ray.train.report({"epoch": e, "loss": ...})``)."""
    lines = ["View detailed results here: /root/ray_results/TorchTrainer_2024-01-01_10-00-00",
             "Training started with configuration:",
             *_box("Training config", [("train_loop_config/batch_size", 64),
                                       ("train_loop_config/epochs", 10),
                                       ("train_loop_config/lr", 0.001)])]
    for it in range(1, 11):
        loss = "nan" if nan_from is not None and it >= nan_from else round(1.2 - it / 20, 5)
        lines += [f"Training finished iteration {it} at 2024-01-01 10:{it:02d}:00. Total "
                  f"running time: {it * 30}s",
                  *_box("Training result", [("checkpoint_dir_name", f"checkpoint_{it - 1:06d}"),
                                            ("time_this_iter_s", 29.87654),
                                            ("time_total_s", round(29.9 * it, 5)),
                                            ("training_iteration", it), ("epoch", it - 1),
                                            ("loss", loss)])]
    return lines


def _tune_results(nan_trial: int | None = None) -> list[str]:
    """Ray Tune's ``Trial NAME finished iteration N at ...`` over its ``result`` box, four
    trials reporting in turn (the tutorial's ``loss`` and ``accuracy``)."""
    lines = []
    for it in range(1, 11):
        for trial in range(4):
            bad = nan_trial == trial and it >= 4
            loss = "nan" if bad else round(2.3 - it / 10 - trial / 50, 5)
            name = f"train_cifar_0ca5e_{trial:05d}"
            lines += [f"Trial {name} finished iteration {it} at 2024-01-01 10:{it:02d}:0"
                      f"{trial}. Total running time: {it}min {trial}s",
                      *_box(f"Trial {name} result",
                            [("checkpoint_dir_name", f"checkpoint_{it - 1:06d}"),
                             ("time_this_iter_s", 30.12345), ("time_total_s", round(30.1 * it, 5)),
                             ("training_iteration", it), ("accuracy", round(0.1 + it / 30, 4)),
                             ("loss", loss)])]
    return lines


def test_ray_train_result_boxes_nan_loss_at_its_iteration(tmp_path: Path) -> None:
    """Main: "no fault found" (the boxes' rows one simple-table record); parent: AMP006 at
    iteration 6 (right: ``training_iteration`` is the step)."""
    assert faults(tmp_path, _ray_train(6)) == [("AMP006", 6)]


def test_ray_tune_trial_result_boxes_nan_loss(tmp_path: Path) -> None:
    """Main: "no fault found"; parent: AMP006 (at step 15, the rows counted: a trial's
    iteration 4 is the 15th box; the parent's step is kept here, what is wrong is the
    silence)."""
    assert faults(tmp_path, _tune_results(2)) == [("AMP006", 15)]


def test_ray_result_boxes_healthy_are_quiet(tmp_path: Path) -> None:
    """Controls: healthy Ray Train and Ray Tune boxes (quiet on main and on the parent)."""
    assert faults(tmp_path, _ray_train()) == []
    assert faults(tmp_path, _tune_results()) == []


# -- pytorch/tutorials beginner_source/hyperparameter_tuning_tutorial.py under Ray 1.x ------


def _cli_table(nan_trial: int | None = None, seed: int = 0) -> list[str]:
    """The CLIReporter's ``== Status ==`` block and its ``psql`` table: the tutorial's
    parameter columns (``batch_size``, ``l1``, ``l2``, ``lr``) before its metric columns."""
    rng = random.Random(seed)
    trials = [(2 ** rng.randint(2, 8), 2 ** rng.randint(2, 8), 10 ** rng.uniform(-4, -1),
               rng.choice([2, 4, 8, 16])) for _ in range(10)]
    header = ["Trial name", "status", "loc", "batch_size", "l1", "l2", "lr", "loss", "accuracy",
              "training_iteration"]
    lines = []
    for it in range(1, 11):
        lines += ["== Status ==",
                  f"Current time: 2021-01-01 10:{it:02d}:00 (running for 00:{it:02d}:00.00)",
                  "Memory usage on this node: 10.0/62.8 GiB",
                  "Using AsyncHyperBand: num_stopped=0",
                  "Resources requested: 4.0/16 CPUs, 1.0/1 GPUs, 0.0/30.0 GiB heap, 0.0/15.0 "
                  "GiB objects",
                  "Result logdir: /home/user/ray_results/train_cifar_2021-01-01_10-00-00",
                  "Number of trials: 10/10 (10 RUNNING)"]
        rows = []
        for trial, (l1, l2, lr, batch) in enumerate(trials):
            loss = (float("nan") if nan_trial == trial and it >= 5
                    else round(2.3 - it / 10 - trial / 50, 5))
            rows.append([f"DEFAULT_8a2b1_{trial:05d}", "RUNNING", f"10.0.0.1:1234{trial}", batch,
                         l1, l2, round(lr, 8), loss, round(0.1 + it / 30, 4), it])
        lines += [*_psql(header, rows), "", ""]
    return lines


def _psql(header: list[str], rows: list[list[object]]) -> list[str]:
    """tabulate's ``psql`` format: numbers right-aligned (floats as ``g``), text left."""
    cells = [[format(c, "g") if isinstance(c, float) else str(c) for c in row] for row in rows]
    numeric = [isinstance(c, (int, float)) for c in rows[0]]
    widths = [max(len(name), *(len(row[i]) for row in cells)) for i, name in enumerate(header)]

    def line(row: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if n else c.ljust(w)
                                 for c, w, n in zip(row, widths, numeric, strict=True)) + " |"
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    return [rule, line(header), "|" + "+".join("-" * (w + 2) for w in widths) + "|",
            *(line(row) for row in cells), rule]


def test_tutorial_l1_width_column_is_no_loss(tmp_path: Path) -> None:
    """Main: "no fault found" (``l1``, a layer's width, read as the loss); parent: AMP006 at
    iteration 5 (right)."""
    assert faults(tmp_path, _cli_table(3)) == [("AMP006", 5)]


def test_tutorial_tables_healthy_are_quiet(tmp_path: Path) -> None:
    """Controls: healthy searches, other samples of the widths (quiet on main and parent)."""
    for seed in range(3):
        assert faults(tmp_path, _cli_table(seed=seed)) == []


# -- keras/src/utils/progbar.py under keras' fit: 'Epoch {e}/{epochs}' over its bar ---------


def _epoch_line(loss: float) -> str:
    """The Progbar's line at an epoch's end written to a file (no terminal: only the last)."""
    shown = "nan" if math.isnan(loss) else f"{loss:.4f}"
    return (f"1875/1875 [==============================] - 5s 2ms/step - loss: {shown} - "
            f"accuracy: 0.9000")


def _two_fits(nan_epoch: int | None = None) -> list[str]:
    """The transfer-learning guide's two ``fit`` calls on one model: 5 epochs with the base
    frozen, then 10 fine-tuning (``Epoch 1/10`` again), NaN from ``nan_epoch`` of the
    second."""
    lines = []
    for epoch in range(1, 6):
        lines += [f"Epoch {epoch}/5", _epoch_line(0.9 - epoch / 20)]
    for epoch in range(1, 11):
        bad = nan_epoch is not None and epoch >= nan_epoch
        lines += [f"Epoch {epoch}/10", _epoch_line(math.nan if bad else 0.6 - epoch / 50)]
    return lines


def _fit_loop(nan_from: int | None = None) -> list[str]:
    """``for i in range(20): model.fit(x, y, epochs=1)``: ``Epoch 1/1`` each time."""
    lines = []
    for i in range(1, 21):
        bad = nan_from is not None and i >= nan_from
        lines += ["Epoch 1/1", _epoch_line(math.nan if bad else 0.5 - i / 100)]
    return lines


def test_keras_second_fit_nan_at_the_models_batch(tmp_path: Path) -> None:
    """Main: AMP006 at step 7500 (the second fit's own 4th epoch); parent: 16875 (5 epochs
    of 1875 batches before it, then 4: the model's batch, right). Where the second fit
    trains a new model (a k-fold loop) main's count is the better one; the log cannot tell
    the two apart, so a step that restarts needs more than ``Epoch 1/N`` (e.g. a loss back
    near the first fit's first)."""
    assert faults(tmp_path, _two_fits(4)) == [("AMP006", 16875)]


def test_keras_fit_in_a_loop_nan_at_the_models_batch(tmp_path: Path) -> None:
    """Main: AMP006 at step 1875 (each ``fit(epochs=1)`` counted from 0); parent: 15000
    (the 8th fit's end, right)."""
    assert faults(tmp_path, _fit_loop(8)) == [("AMP006", 15000)]


def test_keras_repeated_fits_healthy_are_quiet(tmp_path: Path) -> None:
    """Controls (quiet on main and parent)."""
    assert faults(tmp_path, _two_fits()) == []
    assert faults(tmp_path, _fit_loop()) == []


# -- karpathy/nanoGPT train.py: print(f"iter {iter_num}: loss {lossf:.4f}, time ...") -------


def _nanogpt(first: str, rest: str | None) -> list[str]:
    """nanoGPT's line every ``log_interval`` (10) iterations from iter 0 (``if iter_num %
    log_interval == 0``); ``running_mfu`` is -1.0 for its first 5 lines (``-100.00%``); the
    loss at iter 0 is ``first``, ``rest`` after it (None: finite, falling)."""
    lines = []
    for it in range(0, 200, 10):
        loss = first if it == 0 else rest if rest is not None else f"{10.9 - it / 100:.4f}"
        lines.append(f"iter {it}: loss {loss}, time {1234.56 if it == 0 else 45.12:.2f}ms, "
                     f"mfu {-100.0 if it < 50 else 35.2:.2f}%")
    return lines


def test_nanogpt_inf_from_iter_zero_is_at_zero(tmp_path: Path) -> None:
    """Main: AMP006 at iter 10 (the first row's ``inf`` at step 0 dropped as a loop's
    default, a3f3dde: torchbeast's ``Loss inf.``); parent: iter 0 (right: nanoGPT prints
    ``loss.item()``, an fp16 forward that overflows from the start, as T5 in fp16). Both
    with the loss inf throughout and NaN after it."""
    assert faults(tmp_path, _nanogpt("inf", "inf")) == [("AMP006", 0)]
    assert faults(tmp_path, _nanogpt("inf", "nan")) == [("AMP006", 0)]


def test_nanogpt_healthy_is_quiet(tmp_path: Path) -> None:
    """Control (quiet on main and parent)."""
    assert faults(tmp_path, _nanogpt("10.9876", None)) == []


# -- astanin/python-tabulate tabulate/__init__.py: "plain" (no rules: DataRow("", "  ", "")) --


def _plain(nan_from: int | None = None) -> list[str]:
    """``print(tabulate(list(metrics.items()), tablefmt="plain"))`` each epoch, a blank line
    after: two columns two blanks apart, no rule above, below or between."""
    lines = []
    for epoch in range(1, 11):
        loss = "nan" if nan_from is not None and epoch >= nan_from else f"{1.2 - epoch / 20:.4f}"
        lines += [f"epoch       {epoch}", f"train_loss  {loss}",
                  f"val_loss    {1.3 - epoch / 20:.4f}", ""]
    return lines


def test_plain_two_column_tables_without_rules_are_records_each(tmp_path: Path) -> None:
    """Main: "no fault found" (the same cause as Ray's boxes: with no ``---  ---`` rule to end
    it, every ``key  value`` line of the log is one record); parent: AMP006 at epoch 5
    (right)."""
    assert faults(tmp_path, _plain(5)) == [("AMP006", 5)]


def test_plain_two_column_tables_healthy_are_quiet(tmp_path: Path) -> None:
    """Control (quiet on main and parent)."""
    assert faults(tmp_path, _plain()) == []


def _kfold(nan_fold: int | None = None) -> list[str]:
    """A k-fold loop of ``fit(epochs=10, callbacks=[EarlyStopping(patience=1)])``, a fresh
    model each fold: a fold whose loss turns NaN stops one epoch later (``Epoch 5: early
    stopping``, keras ``callbacks/early_stopping.py`` ``on_train_end``), two NaN epochs."""
    lines = []
    for fold in range(1, 6):
        lines.append(f"Training fold {fold}/5")
        for epoch in range(1, 11):
            bad = fold == nan_fold and epoch >= 4
            lines += [f"Epoch {epoch}/10", _epoch_line(math.nan if bad else 0.9 - epoch / 20)]
            if bad and epoch == 5:
                lines.append("Epoch 5: early stopping")
                break
    return lines


def test_keras_kfold_fold_stopped_on_two_nan_epochs_keeps_its_fault(tmp_path: Path) -> None:
    """Main: "no fault found" (the fold taken for an abandoned range test: a new ``Epoch
    1/N`` after at most ``STOPPED_ROWS`` NaN losses, 80bbbdd + dfc617b); parent: AMP006
    (at the cumulative step 26250). A fold's model is one the user keeps (its score is the
    cross-validation's): the fault is the user's. Only the id is held here (the step
    convention across fits is the question of the tests above)."""
    assert [code for code, _ in faults(tmp_path, _kfold(2))] == ["AMP006"]


def test_keras_kfold_healthy_is_quiet(tmp_path: Path) -> None:
    """Control (quiet on main and parent)."""
    assert faults(tmp_path, _kfold()) == []
