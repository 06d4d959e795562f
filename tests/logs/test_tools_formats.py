"""NVIDIA's reference trainers, medical and classic NLP toolkits: excerpts written from each
tool's own format strings (each names its source), a fault beside healthy controls.

- an epoch and the batch of that epoch without brackets: MONAI's StatsHandler
  (``monai/handlers/stats_handler.py``: ``"Epoch: {}/{}, Iter: {}/{} -- "`` then
  ``"{}: {:.4f} "``), FastPitch's DLLogger step (DeepLearningExamples
  ``PyTorch/SpeechSynthesis/FastPitch/common/tb_dllogger.py`` ``stdout_step_format``:
  ``"epoch {:>4}"``, ``"iter {:>3}"`` + ``"/{}"``, joined by ``" | "``), Flair's
  ``ModelTrainer`` (``f"epoch {epoch} - iter {seen_batches}/{total_number_of_batches} - loss
  {...:.8f} - ..."``): the step is ``(epoch - 1) * batches + batch``;
- GNMT's ``TRAIN [{epoch}][{i}/{len}]`` (DeepLearningExamples
  ``PyTorch/Translation/GNMT/seq2seq/train/trainer.py``), epochs from 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path

from excerpts import diagnose_lines, faults


def _quiet(tmp_path: Path, lines: list[str]) -> None:
    result = diagnose_lines(tmp_path, lines)
    assert result.error is None and result.faults == []


def _batches(epochs: int, batches: int, nan_from: int | None,
             finite: Callable[[int], str]) -> Iterator[tuple[int, int, str]]:
    """Each batch of each epoch (both from 1) and the loss it prints: ``nan`` from the step
    ``nan_from`` (``(epoch - 1) * batches + batch``), else ``finite(step)``."""
    for epoch in range(1, epochs + 1):
        for it in range(1, batches + 1):
            step = (epoch - 1) * batches + it
            yield epoch, it, "nan" if nan_from and step >= nan_from else finite(step)


def _monai(nan_from: int | None = None, epochs: int = 3, batches: int = 20) -> list[str]:
    """StatsHandler's iteration lines through ``logging.basicConfig`` (``INFO:name:``), the
    evaluator's metrics after each epoch."""
    lines = []
    for epoch, it, value in _batches(epochs, batches, nan_from,
                                     lambda step: f"{math.exp(-step / 30):.4f}"):
        lines.append("INFO:ignite.engine.engine.SupervisedTrainer:"
                     f"Epoch: {epoch}/{epochs}, Iter: {it}/{batches} -- train_loss: {value} ")
        if it == batches:
            lines.append("INFO:ignite.engine.engine.SupervisedEvaluator:"
                         f"Epoch[{epoch}] Metrics -- val_mean_dice: {0.5 + epoch / 10:.4f} ")
    return lines


def _fastpitch(nan_from: int | None = None, epochs: int = 3, batches: int = 15) -> list[str]:
    """train.py's ``log((epoch, epoch_iter, num_iters), ...)`` through tb_dllogger, its
    epoch's averages after each epoch."""
    lines = []
    for epoch, it, value in _batches(epochs, batches, nan_from,
                                     lambda step: f"{30 * math.exp(-step / 15):.2f}"):
        lines.append(f"DLL 2021-05-01 12:00:00 - epoch {epoch:>4} | iter {it:>3}/{batches} | "
                     f"loss {value} | mel_loss {value} | kl_loss 0.12345 | frames/s 123456 "
                     "| took 0.45 s | lrate 1.00e-04")
        if it == batches:
            lines.append(f"DLL 2021-05-01 12:00:00 - epoch {epoch:>4} | avg train loss {value} "
                         "| avg frames/s 123456 | took 6.7 s")
    return lines


def _flair(nan_from: int | None = None, epochs: int = 3) -> list[str]:
    """ModelTrainer.train's ten progress lines an epoch, then its epoch summary."""
    lines, row = [], 0
    for epoch in range(1, epochs + 1):
        for it in range(10, 110, 10):
            row += 1
            value = "nan" if nan_from and row >= nan_from else f"{math.exp(-row / 20):.8f}"
            lines.append(f"2023-01-01 12:00:00,123 epoch {epoch} - iter {it}/100 - loss {value} "
                         "- time (sec): 12.34 - samples/sec: 523.45 - lr: 0.100000")
        lines.append(f"2023-01-01 12:00:00,123 EPOCH {epoch} done: loss {value} - lr: 0.100000")
    return lines


def _gnmt(nan_from: int | None = None) -> list[str]:
    """trainer.py feed_data's log line every ``print_freq`` iterations, behind its rank."""
    lines = []
    for epoch in range(2):
        for i in range(0, 1000, 50):
            step = epoch * 1000 + i
            loss = 8 * math.exp(-step / 1500) + 2
            value = "nan (nan)" if nan_from and step >= nan_from else f"{loss:.4f} ({loss:.4f})"
            lines.append(f"0: TRAIN [{epoch}][{i}/1000]\tTime 0.123 (0.124)\tData 1.23e-04 "
                         f"(1.20e-04)\tTok/s 123456 (120000)\tLoss/tok {value}\tLR 2.000e-03")
    return lines


def test_epoch_and_its_batch_without_brackets(tmp_path: Path) -> None:
    # MONAI: epoch 2, Iter 13/20 is step 33; FastPitch: epoch 2, iter 5/15 is 20; Flair's
    # 14th line is epoch 2, iter 40/100: batch 140.
    assert faults(tmp_path, _monai(nan_from=33)) == [("AMP006", 33)]
    assert faults(tmp_path, _fastpitch(nan_from=20))[0] == ("AMP006", 20)
    assert faults(tmp_path, _flair(nan_from=14)) == [("AMP006", 140)]
    for healthy in (_monai(), _fastpitch(), _flair()):
        _quiet(tmp_path, healthy)


def test_gnmt_train_counters(tmp_path: Path) -> None:
    assert faults(tmp_path, _gnmt(nan_from=1350)) == [("AMP006", 1350)]
    _quiet(tmp_path, _gnmt())


def _pyg(nan_from: int | None = None, runs: tuple[str, ...] = ("",)) -> list[str]:
    """PyTorch Geometric's examples (``examples/gcn.py``: ``f'Epoch: {epoch:03d}, Loss:
    {loss:.4f}, Train: {train_acc:.4f}, Val: {val_acc:.4f}, Test: {test_acc:.4f}'``) and
    OGB's (``examples/nodeproppred/arxiv/gnn.py``'s Logger-fed print: ``f'Run: {run + 1:02d},
    Epoch: {epoch:02d}, Loss: {loss:.4f}, Train: {100 * train_acc:.2f}%, Valid: {100 *
    valid_acc:.2f}% Test: {100 * test_acc:.2f}%'``)."""
    lines = []
    for run in runs:
        for epoch in range(1, 31):
            loss = "nan" if nan_from and epoch >= nan_from else f"{1.9 * math.exp(-epoch / 10):.4f}"
            if run:
                lines.append(f"Run: {run}, Epoch: {epoch:02d}, Loss: {loss}, Train: "
                             f"{60 + epoch / 2:.2f}%, Valid: {58 + epoch / 2:.2f}% Test: "
                             f"{57 + epoch / 2:.2f}%")
            else:
                lines.append(f"Epoch: {epoch:03d}, Loss: {loss}, Train: {0.5 + epoch / 100:.4f}, "
                             f"Val: {0.4 + epoch / 100:.4f}, Test: {0.4 + epoch / 100:.4f}")
    return lines


def test_split_scores_after_the_training_loss(tmp_path: Path) -> None:
    # The training loss, then each split's accuracy keyed by the split's name: the loss is
    # training's (AMP006 at the epoch printed), not evaluation's (AMP013).
    assert faults(tmp_path, _pyg(nan_from=19)) == [("AMP006", 19)]
    assert faults(tmp_path, _pyg(nan_from=11, runs=("01",)))[0] == ("AMP006", 11)
    _quiet(tmp_path, _pyg())
    _quiet(tmp_path, _pyg(runs=("01", "02")))
    # A line about evaluation stays evaluation's: the split names no score of its own there.
    mnist = [f"Train Epoch: {e} [0/60000 (0%)]\tLoss: {2.3 / e:.6f}" for e in range(1, 4)]
    test = "Test set: Average loss: nan, Accuracy: 980/10000 (10%)"
    assert [code for code, _ in faults(tmp_path, [*mnist, test])] == ["AMP013"]
    split_loss = "Epoch: 004, Loss: 0.4172, Test loss: nan, Test: 0.1000"
    assert [code for code, _ in faults(tmp_path, [*_pyg()[:3], split_loss])] == ["AMP013"]


def _tacotron2(nan_from: int | None = None, overflows: tuple[int, ...] = ()) -> list[str]:
    """NVIDIA/tacotron2 train.py: ``print("Train loss {} {:.6f} Grad Norm {:.6f}
    {:.2f}s/it".format(iteration, reduced_loss, grad_norm, duration))`` on every iteration
    that did not overflow, apex amp's line on those that did, and ``"Validation loss {}:
    {:9f}  "`` with each checkpoint."""
    lines, scale = ["Epoch: 0"], 65536.0
    for it in range(60):
        if it in overflows:
            scale /= 2
            lines.append("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale "
                         f"to {scale}")
            continue
        loss = 5 * math.exp(-it / 30) + 0.4
        if nan_from is not None and it >= nan_from:
            lines.append(f"Train loss {it} nan Grad Norm nan 0.52s/it")
        else:
            lines.append(f"Train loss {it} {loss:.6f} Grad Norm {1 + it % 3 / 2:.6f} 0.52s/it")
        if it % 25 == 0:
            lines.append(f"Validation loss {it}: {loss + 0.1:9f}  ")
    return lines


def test_tacotron2_iteration_before_its_loss(tmp_path: Path) -> None:
    # The integer after "Train loss" is the iteration: the NaN after it is the loss (AMP006
    # at its iteration), not a row with a NaN gradient norm only (AMP003).
    assert faults(tmp_path, _tacotron2(nan_from=37)) == [("AMP006", 37)]
    _quiet(tmp_path, _tacotron2())
    _quiet(tmp_path, _tacotron2(overflows=(0, 1, 2, 3)))  # apex's start-up back-off
    _quiet(tmp_path, _tacotron2(overflows=(12, 41)))


def _spacy(losses: list[tuple[float, ...]], pipes: tuple[str, ...] = ("tok2vec", "ner"),
           nan_from: int | None = None) -> list[str]:
    """spaCy 3's console_logger (``spacy/training/loggers.py``): the table's header through
    wasabi's ``msg.row`` (left-aligned, spacing 2), its rule, then a right-aligned row every
    ``eval_frequency`` (200) steps, each loss ``"{0:.2f}"`` (summed since the last row)."""
    names = [f"LOSS {pipe.upper()}" for pipe in pipes]
    widths = [3, 6, *(max(len(name), 8) for name in names), 6, 6]
    header = ["E", "#", *names, "ENTS_F", "SCORE"]
    lines = ["ℹ Pipeline: " + str(list(pipes)), "ℹ Initial learn rate: 0.001",
             "  ".join(f"{cell:<{width}}" for cell, width in zip(header, widths, strict=True)),
             "  ".join("-" * width for width in widths)]
    for row, terms in enumerate(losses):
        step = row * 200
        terms_as = ["nan" if nan_from is not None and step >= nan_from else f"{term:.2f}"
                    for term in terms]
        cells = [str(step // 1000), str(step), *terms_as, f"{min(90.0, step / 60):.2f}",
                 f"{min(0.9, step / 6000):.2f}"]
        lines.append("  ".join(f"{cell:>{width}}"
                               for cell, width in zip(cells, widths, strict=True)))
    return [*lines, "✔ Saved pipeline to output directory"]


def test_spacy_training_table(tmp_path: Path) -> None:
    # Column names of two words ("LOSS NER") part by two blanks; "#" is the step. The rows
    # hold no keyword: the excerpt is read again with every line a candidate.
    ner = [(0.0, 49.29)] + [(20.12 * math.exp(-r / 20) + 3, 1063.22 * math.exp(-r / 15) + 50)
                            for r in range(1, 31)]
    assert faults(tmp_path, _spacy(ner, nan_from=3600)) == [("AMP006", 3600)]
    _quiet(tmp_path, _spacy(ner))
    # A frozen tok2vec's 0.00 beside the tagger's loss; a textcat loss summed to 0.00 once
    # the model fits its data: a loss that decayed, no fault.
    frozen = [(0.0, 80.0 * math.exp(-r / 10) + 1) for r in range(30)]
    _quiet(tmp_path, _spacy(frozen, pipes=("tok2vec", "tagger")))
    fitted = [(12.5 * math.exp(-r / 2),) for r in range(30)]
    _quiet(tmp_path, _spacy(fitted, pipes=("textcat",)))


def _tabnet(nan_from: int | None = None, epochs: int = 40) -> list[str]:
    """pytorch-tabnet's History callback (``pytorch_tabnet/callbacks.py`` on_epoch_end):
    ``f"epoch {epoch:<3}"``, then ``f"| {metric_name:<3}: {np.round(metric_value, 5):<8}"``
    per metric, then the time since the start."""
    lines = []
    for epoch in range(epochs):
        loss = "nan" if nan_from is not None and epoch >= nan_from else (
            f"{round(0.7 * math.exp(-epoch / 20), 5):<8}")
        lines.append(f"epoch {epoch:<3}| loss: {loss:<8}| val_0_auc: {0.5 + epoch / 100:<8}|"
                     f"  0:00:{epoch:02d}s")
    return lines


def test_one_row_an_epoch_is_numbered_by_its_epoch(tmp_path: Path) -> None:
    # A row an epoch, no step printed: the step named is the epoch the row prints (from 0
    # in pytorch-tabnet), not the row's place in the excerpt.
    assert faults(tmp_path, _tabnet(nan_from=23)) == [("AMP006", 23)]
    assert faults(tmp_path, _tabnet(nan_from=23)[10:]) == [("AMP006", 23)]
    _quiet(tmp_path, _tabnet())
    # Several rows an epoch, or a fractional epoch: the rows are numbered, as before.
    rows = [f"Epoch {1 + row // 10} loss: {'nan' if row >= 14 else f'{2.0 - row / 50:.4f}'}"
            for row in range(30)]
    assert faults(tmp_path, rows) == [("AMP006", 15)]
    fractions = [f"epoch: {row / 7:.2f}, loss: {'nan' if row >= 9 else f'{2 - row / 50:.3f}'}"
                 for row in range(20)]
    assert faults(tmp_path, fractions) == [("AMP006", 10)]


def _gluonts(nan_epoch: int | None = None, epochs: int = 12) -> list[str]:
    """GluonTS' MXNet Trainer (``gluonts/mx/trainer/_base.py``): a tqdm bar a epoch with the
    postfix ``{"epoch": f"{epoch_no + 1}/{self.epochs}", "avg_epoch_loss": lv}``, the epoch's
    lines through the ``gluonts.trainer`` logger; a non-finite running loss logs
    ``"Epoch[%d] gave nan loss"`` before the postfix shows it, and the epoch stops."""
    lines = []
    for epoch in range(epochs):
        for batch in (10, 20, 30, 40, 50):
            if epoch == nan_epoch and batch == 40:
                return [*lines, f"WARNING:gluonts.trainer:Epoch[{epoch}] gave nan loss"]
            lines.append(f" {batch * 2}%|██        | {batch}/50 [00:01<00:00, 30.12it/s, "
                         f"epoch={epoch + 1}/{epochs}, avg_epoch_loss={5.2 - epoch / 20:.3f}]")
        lines.append(f"INFO:gluonts.trainer:Epoch[{epoch}] Elapsed time 1.660 seconds")
        lines.append(f"INFO:gluonts.trainer:Epoch[{epoch}] Evaluation metric "
                     f"'epoch_loss'={5.2 - epoch / 20:.6f}")
    return lines


def test_gluonts_bar_and_its_nan_warning(tmp_path: Path) -> None:
    # The bar's counter counts the batches of the epoch its postfix names (from 1): the
    # warning comes after batch 30 of epoch 9 (epoch_no 8), step 8 * 50 + 30.
    assert faults(tmp_path, _gluonts(nan_epoch=8)) == [("AMP006", 430)]
    _quiet(tmp_path, _gluonts())
    assert diagnose_lines(tmp_path, _gluonts()).timeline.steps == 600


def _monai_tutorial(nan_from: int | None = None, epochs: int = 5, batches: int = 10) -> list[str]:
    """MONAI's tutorials' loop (``3d_segmentation/unet_training_dict.py`` and the many
    scripts copied from it): ``print(f"epoch {epoch + 1}/{max_epochs}")``, then
    ``print(f"{step}/{epoch_len}, train_loss: {loss.item():.4f}")`` a batch, then ``print(f"epoch
    {epoch + 1} average loss: {epoch_loss:.4f}")``."""
    lines = []
    for epoch in range(epochs):
        lines += ["-" * 10, f"epoch {epoch + 1}/{epochs}"]
        for step in range(1, batches + 1):
            at = epoch * batches + step
            loss = "nan" if nan_from and at >= nan_from else f"{math.exp(-at / 20):.4f}"
            lines.append(f"{step}/{batches}, train_loss: {loss}")
        lines.append(f"epoch {epoch + 1} average loss: {loss}")
    return lines


def test_monai_tutorial_batch_count_then_comma(tmp_path: Path) -> None:
    # "7/10, train_loss: nan" in the third epoch: step 27, not the 29th row.
    assert faults(tmp_path, _monai_tutorial(nan_from=27)) == [("AMP006", 27)]
    _quiet(tmp_path, _monai_tutorial())
