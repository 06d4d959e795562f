"""Runs the log began afresh after a NaN: which were abandoned by design (a range test, a
search's failed trial) and which are runs the user has, each excerpt written from its tool's
own format strings (each test names them). Found by stop 46's review of the abandoned-runs
rule (``abandoned_runs.AbandonedRuns``, the doctor's ``_abandoned``).

- A loop of *complete* runs, k-fold cross-validation or seeds, one of which trained on NaN to
  its end, was told as an abandoned run: AMP006 at info, "no fault found" (exit 0). Its
  parent b9d95c6 said AMP006. A run now counts as abandoned only where it stopped on its NaN
  (at most ``STOPPED_ROWS`` non-finite losses) or a search's message said the attempt ended
  (Optuna's ``Trial 1 failed ...``).
- Where an abandoned trial's evaluation went NaN too, AMP013 stayed a warning, "consequence
  of AMP006: fix that first", beside the AMP006 at info: it is now said at info as well.
- A plain loop's losses huge from the first one printed, then NaN: the cause
  ``loss-magnitude`` again (b9d95c6 gave it, saying "before any update was applied", which a
  plain loop's log does not show; stop 45's unknown update count dropped it).
- HF Trainer run again after a crash (an OOM traceback, no closing ``train_runtime``
  summary) numbered its rows on from the first run's (NaN at its 5th row at
  ``logging_steps=10``: step 150, right is 50; b9d95c6 said 15): a row back at the first
  row's epoch after later ones now begins the numbering again (``logging_interval.row_epoch``).

The six fault tests fail on 00ce8bf; the controls (healthy folds, a NaN validation in the kept
trial, epochs that repeat while rounded) pass there too.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults

_FOLD_BATCHES = 400


def _remain(step: int) -> str:
    """``timeSince(start, percent)``: ``'%s (remain %s)' % (asMinutes(s), asMinutes(rs))``,
    asMinutes ``'%dm %ds'``."""
    left = _FOLD_BATCHES - step
    return f"{step // 60}m {step % 60}s (remain {left // 60}m {left % 60}s)"


def _kaggle_folds(nan_folds: tuple[int, ...], folds: int = 3, epochs: int = 3) -> list[str]:
    """Y. Nakama's Kaggle baseline, copied into many public repositories (the code index finds
    it by ``'Elapsed {remain:s} '`` and ``========== fold: {fold} training ==========``; it
    names no repository for those files): ``train_loop`` logs ``LOGGER.info(f"==========
    fold: {fold} training ==========")``, ``train_fn`` (under ``torch.cuda.amp.GradScaler
    (enabled=CFG.apex)``) prints ``'Epoch: [{0}][{1}/{2}] Elapsed {remain:s} Loss:
    {loss.val:.4f}({loss.avg:.4f}) Grad: {grad_norm:.4f}  LR: {lr:.8f}  '`` every
    ``print_freq`` batches and at the last, and each epoch ends with ``LOGGER.info(f'Epoch
    {epoch+1} - avg_train_loss: {avg_loss:.4f}  avg_val_loss: {avg_val_loss:.4f}  time:
    {elapsed:.0f}s')`` and ``Score``. A fold in ``nan_folds`` goes NaN at its epoch 2, batch
    200 (global batch 600), and stays NaN to its end."""
    lines: list[str] = []
    for fold in range(folds):
        lines.append(f"========== fold: {fold} training ==========")
        for epoch in range(1, epochs + 1):
            average_nan = False
            for step in [*range(0, _FOLD_BATCHES, 100), _FOLD_BATCHES - 1]:
                at = (epoch - 1) * _FOLD_BATCHES + step
                nan = fold in nan_folds and at >= 600
                average_nan = average_nan or nan
                value = "nan" if nan else f"{1.2 - at / 2000:.4f}"
                average = "nan" if average_nan else f"{1.25 - at / 2000:.4f}"
                lines.append(f"Epoch: [{epoch}][{step}/{_FOLD_BATCHES}] Elapsed {_remain(step)} "
                             f"Loss: {value}({average}) Grad: {'nan' if nan else '0.8123'}  "
                             "LR: 0.00002000  ")
            bad = fold in nan_folds and epoch >= 2
            lines += [f"Epoch {epoch} - avg_train_loss: {'nan' if bad else '0.9000'}  "
                      f"avg_val_loss: {'nan' if bad else '0.8000'}  time: 62s",
                      f"Epoch {epoch} - Score: {'0.0000' if bad else '0.4567'}"]
    return lines


def test_a_fold_gone_nan_before_the_next_fold_is_a_fault(tmp_path: Path) -> None:
    """Fold 0 of three went NaN at epoch 2 batch 200 and printed NaN to its end (its model is
    NaN); folds 1 and 2 trained. Before: "no fault found" (AMP006 at info, "a learning-rate
    range test or a search's trial ... or a run restarted"); b9d95c6: AMP006 at 600. Two
    folds of three NaN: the same."""
    assert faults(tmp_path, _kaggle_folds((0,))) == [("AMP006", 600)]
    assert faults(tmp_path, _kaggle_folds((0, 1)))[:1] == [("AMP006", 600)]


def test_kaggle_folds_controls(tmp_path: Path) -> None:
    """Controls (main and b9d95c6): healthy folds are quiet; a NaN in the last fold (no run
    after it) is AMP006."""
    assert faults(tmp_path, _kaggle_folds(())) == []
    assert [code for code, _step in faults(tmp_path, _kaggle_folds((2,)))] == ["AMP006"]


def _hf_arguments() -> list[str]:
    """transformers ``training_args.py`` ``TrainingArguments.__str__`` (one ``key=value,`` a
    line), logged by the example scripts' ``logger.info(f"Training/evaluation parameters
    {training_args}")``; a few of its fields."""
    fields = {"fp16": True, "logging_first_step": False, "logging_nan_inf_filter": False,
              "logging_steps": 10, "logging_strategy": "IntervalStrategy.STEPS",
              "num_train_epochs": 1.0, "output_dir": "out"}
    return ["06/01/2024 10:00:00 - INFO - __main__ - Training/evaluation parameters "
            "TrainingArguments(", *(f"{key}={value}," for key, value in sorted(fields.items())),
            ")", "***** Running training *****", "  Num examples = 1,600",
            "  Total optimization steps = 200"]


def _hf_rows(rows: int, nan_from: int | None = None) -> list[str]:
    """transformers ``trainer.py`` ``log()``: ``{'loss': ..., 'grad_norm': ...,
    'learning_rate': ..., 'epoch': ...}`` every ``logging_steps``."""
    return [f"{{'loss': {'nan' if nan_from and k >= nan_from else f'{0.69 - k / 400:.4f}'}, "
            f"'grad_norm': {'nan' if nan_from and k >= nan_from else '1.02'}, "
            f"'learning_rate': {5e-05 * (1 - k / rows):.6g}, 'epoch': {k / rows:.2f}}}"
            for k in range(1, rows + 1)]


def _hf_summary(loss: str) -> str:
    """trainer.py ``train``'s closing row (``speed_metrics("train", ...)`` and
    ``train_loss``)."""
    return ("{'train_runtime': 100.0, 'train_samples_per_second': 16.0, "
            f"'train_steps_per_second': 2.0, 'train_loss': {loss}, 'epoch': 1.0}}")


def test_hf_fold_gone_nan_then_next_fold_is_a_fault(tmp_path: Path) -> None:
    """A script that runs HF Trainer once a fold: fold 0 went NaN at its 12th row (step 120 at
    logging_steps=10) and trained on to its closing summary (``'train_loss': nan``); fold 1
    trained. Before: "no fault found" (AMP006 at info: the summary begins a run, its rows number
    from 10 again, so fold 1 reads as begun afresh); b9d95c6: AMP006 at 12 (rows counted)."""
    lines = [*_hf_arguments(), *_hf_rows(20, 12), _hf_summary("nan"),
             *_hf_arguments(), *_hf_rows(20), _hf_summary("0.64")]
    assert faults(tmp_path, lines) == [("AMP006", 120)]


def _nanogpt(nan_from: int | None) -> list[str]:
    """karpathy/nanoGPT ``train.py``: ``print(f"step {iter_num}: train loss
    {losses['train']:.4f}, val loss {losses['val']:.4f}")`` every ``eval_interval`` (250) and
    ``print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu
    {running_mfu*100:.2f}%")`` every ``log_interval`` (10); NaN from ``nan_from`` on."""
    lines = ["Initializing a new model from scratch", "number of parameters: 10.65M"]
    for it in range(0, 2001, 10):
        value = "nan" if nan_from is not None and it >= nan_from else f"{4.2 - it / 1000:.4f}"
        if it % 250 == 0:
            lines.append(f"step {it}: train loss {value}, val loss {value}")
        lines.append(f"iter {it}: loss {value}, time 45.12ms, mfu "
                     f"{-100.0 if it == 0 else 30.12:.2f}%")
    return lines


def test_a_seed_gone_nan_before_the_next_seed_is_a_fault(tmp_path: Path) -> None:
    """``for s in 1337 1338; do python train.py --seed=$s; done | tee seeds.log``: seed 1337
    went NaN at iter 1200 and trained on NaN to iter 2000; seed 1338 trained. Before: AMP006 at
    info, and its consequence AMP013 (val loss nan at 1250) a warning; b9d95c6: AMP006 at
    1200, then AMP013."""
    lines = [*_nanogpt(1200), *_nanogpt(None)]
    assert faults(tmp_path, lines)[:1] == [("AMP006", 1200)]


def _optuna(level: str, minute: int, message: str) -> str:
    """Optuna's logger: ``[%(levelname_initial)s %(asctime)s] %(message)s``
    (``optuna/logging.py``); its messages from ``optuna/study/_optimize.py``."""
    return f"[{level} 2026-01-01 10:{minute:02d}:05,123] {message}"


def _trial(epochs: int, nan_epoch: int | None = None, base: float = 1.0) -> list[str]:
    """An objective's own prints (test_false_alarms6_formats' ``_trial``) and its validation
    line each epoch."""
    lines = []
    for epoch in range(epochs):
        bad = nan_epoch is not None and epoch >= nan_epoch
        lines += [f"epoch {epoch} batch {b}/500 train_loss "
                  f"{'nan' if bad else f'{base / (1 + epoch):.4f}'}" for b in range(100, 501, 100)]
        lines.append(f"epoch {epoch} val_loss {'nan' if bad else f'{base / (1 + epoch) + 0.1:.4f}'}"
                     f" val_acc {0.1 if bad else 0.8:.4f}")
    return lines


def test_a_failed_trial_with_its_validation_is_no_alarm(tmp_path: Path) -> None:
    """The rule's own case (an Optuna trial failed on NaN, the next trained), where the
    objective prints a validation loss too. Before: AMP006 at info (by design) but AMP013 a
    warning, "consequence of AMP006: fix that first" (exit 1). b9d95c6: AMP006 and AMP013
    (the rule was not there)."""
    lines = [_optuna("I", 0, "A new study created in memory with name: no-name-1c4e"), *_trial(3),
             _optuna("I", 1, "Trial 0 finished with value: 0.4123 and parameters: {'lr': "
                             "0.001}. Best is trial 0 with value: 0.4123."),
             *_trial(2, nan_epoch=1),
             _optuna("W", 2, "Trial 1 failed because of the following error: The value nan is "
                             "not acceptable."),
             *_trial(3, base=0.9)]
    assert faults(tmp_path, lines) == []


def test_a_nan_validation_in_the_kept_trial_is_still_amp013(tmp_path: Path) -> None:
    """The twin: the trial after the failed one trains on finite losses but its validation
    goes NaN: that evaluation is the kept run's, a warning (passes on 00ce8bf too)."""
    kept = _trial(3, base=0.9)
    kept[-1] = kept[-1].replace("val_loss 0.4000", "val_loss nan")
    lines = [*_trial(2, nan_epoch=1),
             _optuna("W", 2, "Trial 1 failed because of the following error: The value nan is "
                             "not acceptable."), *kept]
    assert [code for code, _step in faults(tmp_path, lines)] == ["AMP013"]


def test_a_loop_whose_losses_are_huge_from_the_start_says_loss_magnitude(
        tmp_path: Path) -> None:
    """``print(f"epoch 0 step {step} loss {loss.item():.4g} lr 0.001")`` of a regression on
    raw targets: losses about 4e7 from the first step, NaN from step 20. Before: the
    catalog's text (the cause ``loss-magnitude`` needed "no update applied", which a plain
    loop's log never shows). The fix no longer says no update was applied."""
    lines = [f"epoch 0 step {s} loss {'nan' if s >= 20 else f'{4.1e7 + s * 1e5:.4g}'} lr 0.001"
             for s in range(1, 31)]
    [nan] = diagnose_lines(tmp_path, lines).faults
    assert (nan.code, nan.step, nan.evidence["cause"]) == ("AMP006", 20, "loss-magnitude")
    assert "from the first one the log prints" in nan.root_cause
    assert "no update was applied" not in (nan.fix or "")



def test_a_log_that_begins_after_the_start_does_not_rule_out_the_learning_rate(
        tmp_path: Path) -> None:
    """A plain fp16 loop at ``SGD(lr=0.5, momentum=0.9)`` printing ``f"[step {step:04d}]
    training loss={loss.item():.5g} | amp scale={scaler.get_scale():.0f} | lr={lr}"`` every 10
    steps, run on CPU here: the loss grew to 64180 over the first 10 steps (unprinted) and is
    inf from step 20. Before: "the loss's magnitude ... before any update was applied (so not
    the learning rate)", and the fix said lowering the learning rate does not help: the log
    shows none of the steps before step 10, nor the updates they applied. The twin above,
    whose rows begin at step 1, still says loss-magnitude."""
    scales = {10: 512, 20: 1}
    lines = [f"[step {s:04d}] training loss={'64180' if s == 10 else 'inf'} | amp scale="
             f"{scales.get(s, 0)} | lr=0.5" for s in range(10, 310, 10)]
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step) for d in result.faults][:1] == [("AMP006", 20)]
    for diagnosis in result.faults:
        assert diagnosis.evidence.get("cause") != "loss-magnitude", diagnosis.code
        assert "does not help" not in (diagnosis.fix or ""), diagnosis.code

_TRACEBACK = ["Traceback (most recent call last):", '  File "run_clm.py", line 600, in <module>',
              "    main()", "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate "
              "2.00 GiB (GPU 0; 79.15 GiB total capacity; 75.10 GiB already allocated)"]


def test_hf_run_again_after_a_crash_numbers_its_own_rows(tmp_path: Path) -> None:
    """Run 1 logged 10 rows and died (OOM, no closing summary); the script was run again
    (fresh: its arguments and ``***** Running training *****`` again, its epochs from 0.05)
    and went NaN at its 5th row: step 50. Before: 150 (rows numbered on from run 1's)."""
    lines = [*_hf_arguments(), *_hf_rows(10), *_TRACEBACK, *_hf_arguments(), *_hf_rows(20, 5)]
    assert ("AMP006", 50) in faults(tmp_path, lines)


def test_hf_rows_whose_rounded_epoch_repeats_number_on(tmp_path: Path) -> None:
    """Control: ``'epoch': 0.0`` printed by the first rows of a long epoch (rounded to two
    places) is no new run; the NaN of the 30th row is step 300."""
    rows = [f"{{'loss': {'nan' if k >= 30 else f'{2 - k / 100:.4f}'}, 'grad_norm': 1.0, "
            f"'learning_rate': 5e-05, 'epoch': {round(k / 1000, 2)}}}" for k in range(1, 41)]
    assert faults(tmp_path, [*_hf_arguments(), *rows]) == [("AMP006", 300)]
