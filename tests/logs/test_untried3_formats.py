"""Graph learning, document and OCR trainers, and runtimes with their own loss scalers:
excerpts written from each tool's own format strings (each names its source), a fault beside
healthy controls.

- GraphGPS' epoch dicts (rampasek/GraphGPS ``graphgps/logger.py`` ``write_epoch``:
  ``logging.info('{}: {}'.format(self.name, stats))``, one ``train: {...}`` then ``val:`` and
  ``test:`` an epoch) and its best-so-far line (``graphgps/train/custom_train.py``
  ``custom_train``: ``> Epoch {e}: took ...s (avg ...s) | Best so far: epoch {best}\\t
  train_loss: ... val_loss: ... test_loss: ...``): that line's values are the best epoch's;
- hivemind's own GradScaler under ``hivemind.Optimizer`` (learning-at-home/hivemind
  ``hivemind/optim/grad_scaler.py`` ``GradScaler.step``: ``Skipping global step due to
  gradient over/underflow``; ``hivemind/optim/optimizer.py`` ``_check_and_accumulate_gradients``
  with ``verbose=True``: ``Encountered incorrect value in fp16 grads, resetting local
  gradients``), behind hivemind's handler (``hivemind/utils/logging.py``: ``{asctime}.{msecs}
  [{levelname}]{caller_block} {message}``, the caller ``[name.function:line]`` on all levels
  but INFO), beside the ALBERT example's rows (``examples/albert/run_trainer.py``
  ``CollaborativeCallback.on_step_end``: ``Step #{local_epoch}``, ``Your current contribution:
  ...``, ``Performance: ... samples/sec``, ``Local loss: {loss:.5f}``): each global step skipped
  says so before its own row;
- openpifpaf's training dicts (openpifpaf/openpifpaf ``src/openpifpaf/network/trainer.py``
  ``Trainer.train_batch``/``train``: ``LOG.info({'type': 'train', 'epoch': epoch, 'batch':
  batch_idx, 'n_batches': len(scenes), ...})`` every ``log_interval`` (11) batches, then
  ``train-epoch`` and ``val-epoch``), behind ``basicConfig``'s ``INFO:name:`` or as
  python-json-logger's JSON (``--log-stats``, ``src/openpifpaf/logger.py``): ``n_batches`` is
  the epoch's length;
- apple/ml-cvnets' and corenet's statistics (corenet ``corenet/metrics/stats.py``
  ``Statistics.iter_summary``: ``"Epoch: {:3d} [{:8d}/{:8d}]"`` over the samples, the
  metrics, ``LR: ...``, ``Avg. batch load time: ...``, ``Elapsed time: ...`` joined by ``, ``;
  ``epoch_summary``: ``*** {Stage} summary for epoch {e}`` then ``\t loss=... || top1=...``),
  behind corenet's logger (``corenet/utils/logger.py``: ``{time} - LOGS    - ``): the line
  below a validation summary's heading is the validation's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

from excerpts import faults


def _graphgps(nan_from: int | None = None, *, epochs: int = 60,
              eval_period: int = 1) -> list[str]:
    """GraphGPS on a classification task (CLUSTER's ``accuracy-SBM``, ``cfg.round`` 5, the
    loss rounded to 8 places); evaluation every ``eval_period`` epochs (``is_eval_epoch``),
    each followed by the best-so-far line (the lowest validation loss, np.argmin: the first
    NaN once there is one)."""
    lines = ["Start from epoch 0"]
    best, best_loss = 0, math.inf
    for epoch in range(epochs):
        bad = nan_from is not None and epoch >= nan_from
        loss = math.nan if bad else round(1.6 - epoch / 100, 8)
        acc = 0.16667 if bad else round(0.3 + epoch / 200, 5)
        scores = {"accuracy": acc, "f1": acc, "accuracy-SBM": acc}
        train = {"epoch": epoch, "time_epoch": 35.12345, "eta": round(35.1 * (epochs - epoch), 5),
                 "eta_hours": round(35.1 * (epochs - epoch) / 3600, 5), "loss": loss,
                 "lr": round(0.0005 * (1 - epoch / 100), 8), "params": 502314,
                 "time_iter": 0.07123, **scores}
        lines.append(f"train: {train}")
        if epoch < 3:
            lines.append("...computing epoch stats took: 0.12s")
        if (epoch + 1) % eval_period and epoch + 1 != epochs:
            continue
        for split in ("val", "test"):
            stats = {"epoch": epoch, "time_epoch": 3.12345, "loss": loss, "lr": 0,
                     "params": 502314, "time_iter": 0.02123, **scores}
            lines.append(f"{split}: {stats}")
        if bad and not math.isnan(best_loss):
            best, best_loss = epoch, math.nan
        elif not bad and loss < best_loss:
            best, best_loss = epoch, loss
        shown = f"{best_loss:.4f}"
        lines.append(f"> Epoch {epoch}: took 38.4s (avg 38.4s) | Best so far: epoch {best}\t"
                     f"train_loss: {shown} train_accuracy-SBM: 0.5000\tval_loss: {shown} "
                     f"val_accuracy-SBM: 0.5000\ttest_loss: {shown} test_accuracy-SBM: 0.5000")
    lines.append("Avg time per epoch: 38.40s")
    return lines


def test_graphgps_best_so_far_is_no_step(tmp_path: Path) -> None:
    """Before: the best-so-far line was read as a second training row an epoch (its
    ``train_loss``), so the epoch rows were counted: the NaN at epoch 37 was step 74. Its
    values are the best epoch's now (metric_pairs ``tracked_from``)."""
    assert faults(tmp_path, _graphgps(37)) == [("AMP006", 37), ("AMP013", 37)]
    assert faults(tmp_path, _graphgps(37, eval_period=5)) == [("AMP006", 37), ("AMP013", 39)]


def test_graphgps_controls(tmp_path: Path) -> None:
    """Healthy runs, evaluated every epoch and every 5 (pass on the parent too)."""
    for lines in (_graphgps(), _graphgps(eval_period=5), _graphgps(epochs=8)):
        assert faults(tmp_path, lines) == []


def _hivemind(skipped: set[int] | range = frozenset(), *, steps: int = 60, verbose: bool = True,
              local_batches: int = 3, nan_loss: bool = False) -> list[str]:
    """A hivemind ALBERT peer: each global step ``s`` in ``skipped`` says its skip (each local
    batch's, with ``verbose``, then the global step's unless the loss itself is NaN: no step
    then, the loss row says it) before its ``Step #s`` rows."""
    lines = ["Dec 06 12:00:00.100 [INFO] Found 1 initial peers: ['/ip4/10.0.0.2/tcp/31337/p2p/Qm']",
             "Dec 06 12:00:01.000 [INFO] Training from scratch"]
    for step in range(1, steps + 1):
        clock = f"Dec 06 12:{step // 60:02d}:{step % 60:02d}"
        bad = step in skipped
        if bad and verbose:
            lines += [f"{clock}.{100 + k:03d} [INFO] Encountered incorrect value in fp16 grads, "
                      "resetting local gradients" for k in range(local_batches)]
        if verbose:
            lines += [f"{clock}.400 [INFO] Beginning optimizer step #{step - 1}",
                      f"{clock}.450 [INFO] Averaged gradients with 2 peers"]
        if bad and not nan_loss:
            lines.append(f"{clock}.500 [WARNING] [hivemind.optim.grad_scaler.step:93] Skipping "
                         "global step due to gradient over/underflow")
        if verbose:
            lines.append(f"{clock}.600 [INFO] Transitioning to epoch {step}")
        loss = "nan" if bad and nan_loss else f"{7.5 - step / 100:.5f}"
        lines += [f"{clock}.700 [INFO] Step #{step}",
                  f"{clock}.701 [INFO] Your current contribution: {step * 4096} samples",
                  f"{clock}.702 [INFO] Performance: 123.456 samples/sec",
                  f"{clock}.703 [INFO] Local loss: {loss}"]
    return lines


def test_hivemind_skips_are_their_steps(tmp_path: Path) -> None:
    """Before: neither message was known (silence); then each skip counted a step of its own
    beside its step's row, and the caller block's ``grad_scaler.step:93`` was read as step
    93. Now a skip said before its own row is that row's step (messages ``in_step``,
    assembler ``_skip_in_step``), a dotted name's ``step:93`` no step (events
    ``sentence_step``): every global step skipped from step 30 on."""
    assert faults(tmp_path, _hivemind(range(30, 61), verbose=False)) == [("AMP003", 30)]
    assert faults(tmp_path, _hivemind(range(30, 61))) == [("AMP003", 30)]
    assert faults(tmp_path, _hivemind(range(30, 61), nan_loss=True)) == [
        ("AMP006", 30), ("AMP003", 30)]


def test_hivemind_controls(tmp_path: Path) -> None:
    """Healthy peers: none skipped, quiet or verbose; the scale backing off on the first two
    steps and once at step 40 (pass on the parent too: the messages were unknown)."""
    for lines in (_hivemind(), _hivemind(verbose=False), _hivemind({1, 2, 40}),
                  _hivemind({1, 2, 40}, verbose=False)):
        assert faults(tmp_path, lines) == []


def _openpifpaf(nan_from: int | None = None, *, epochs: int = 3, batches: int = 500,
                every: int = 11, as_json: bool = False,
                val_nan_from: int | None = None) -> list[str]:
    """``nan_from``: the training loss from that step on (its epoch's means too);
    ``val_nan_from``: the validation loss alone, from that epoch (counted from 1) on."""
    lines = []

    def log(record: dict[str, object]) -> None:
        if as_json:
            lines.append(json.dumps({**record, "levelname": "INFO",
                                     "name": "openpifpaf.network.trainer"}))
        else:
            lines.append(f"INFO:openpifpaf.network.trainer:{record}")

    for epoch in range(epochs):
        nan_epoch = False
        for batch in range(0, batches, every):
            step = epoch * batches + batch
            bad = nan_from is not None and step >= nan_from
            nan_epoch = nan_epoch or bad
            loss = math.nan if bad else round(1.2 - step / 10000, 3)
            log({"type": "train", "epoch": epoch, "batch": batch, "n_batches": batches,
                 "time": 0.512, "data_time": 0.023, "lr": 0.0001, "loss": loss,
                 "head_losses": [math.nan if bad else round(loss / 2, 3), 0.6]})
        mean = math.nan if nan_epoch else round(1.2 - epoch / 10, 5)
        log({"type": "train-epoch", "epoch": epoch + 1, "loss": mean,
             "head_losses": [mean, 0.6], "time": 1234.5, "n_clipped_grad": 0, "max_norm": 0.0})
        held_out = math.nan if val_nan_from is not None and epoch + 1 >= val_nan_from else mean
        log({"type": "val-epoch", "epoch": epoch + 1, "loss": held_out,
             "head_losses": [held_out, 0.6], "time": 123.4})
    return lines


def test_openpifpaf_batches_key_is_the_epoch_length(tmp_path: Path) -> None:
    """Before: the epoch's length was guessed from the batches printed (the last, 495, and
    the interval: 506), so the NaN at epoch 1's batch 220 was step 726; ``n_batches`` beside
    the batch key is the length now (metric_reader ``_batches_total``): step 720."""
    for as_json in (False, True):
        found = faults(tmp_path, _openpifpaf(720, as_json=as_json))
        assert found[0] == ("AMP006", 720), as_json
        assert [code for code, _ in found] == ["AMP006", "AMP013"]


def test_openpifpaf_val_epoch_is_evaluation(tmp_path: Path) -> None:
    """Before: ``'type': 'val-epoch'`` named no evaluation (the glued ``val-``), so a NaN
    validation loss beside a healthy training loss was AMP006, a training fault; the record's
    own kind says evaluation now (metric_reader ``_RECORD_KIND``): AMP013 alone."""
    for as_json in (False, True):
        found = faults(tmp_path, _openpifpaf(val_nan_from=2, as_json=as_json))
        assert [code for code, _ in found] == ["AMP013"], as_json


def test_openpifpaf_controls(tmp_path: Path) -> None:
    """Healthy runs, a print every batch and every 11 (pass on the parent too)."""
    for lines in (_openpifpaf(), _openpifpaf(as_json=True), _openpifpaf(every=1, batches=60)):
        assert faults(tmp_path, lines) == []


def _corenet(nan_from: int | None = None, *, val_nan_from: int | None = None, epochs: int = 3,
             samples: int = 1281167, batch: int = 1024, every: int = 100,
             noise: Sequence[str] = ()) -> list[str]:
    """``nan_from``: the training loss from that iteration on; ``val_nan_from``: the
    validation loss alone, from that epoch on; ``noise``: lines of another source between
    each summary's heading and its row (test_interleaved_formats)."""
    prefix = "2026-12-06 10:00:00 - LOGS    - "
    lines = []
    iteration = 0
    for epoch in range(epochs):
        lines.append(f"{prefix}Training epoch {epoch} with {samples} samples")
        for i in range(1, samples // batch + 1):
            iteration += 1
            if i % every and i != 1:
                continue
            bad = nan_from is not None and iteration >= nan_from
            loss = "nan" if bad else f"{6.9 - iteration / 10000:.4f}"
            top1 = 0.1 if bad else 30.0
            lines.append(f"{prefix}Epoch: {epoch:3d} [{i * batch:8d}/{samples:8d}], loss: {loss}, "
                         f"top1: {top1:.4f}, LR: [0.1, 0.1], Avg. batch load time: 0.012, "
                         "Elapsed time: 123.45")
        trained = "nan" if nan_from is not None and iteration >= nan_from else "5.1234"
        held_out = "nan" if trained == "nan" or (
            val_nan_from is not None and epoch >= val_nan_from) else "4.1234"
        for stage, value, scores in (("Training", trained, "top1=30.0000"),
                                     ("Validation", held_out, "top1=35.0000 || top5=60.0000")):
            lines += [f"{prefix}*** {stage} summary for epoch {epoch}", *noise,
                      f"\t loss={value} || {scores}"]
    return lines


def test_corenet_validation_summary_is_evaluation(tmp_path: Path) -> None:
    """Before: the ``\t loss=nan || ...`` line below ``*** Validation summary for epoch 1``
    was read as a training row, so a NaN validation loss beside a healthy training loss was
    AMP006 (twice); the line a heading of evaluation opens is evaluation's now
    (metric_reader ``_goes_on``): AMP013 alone."""
    assert [code for code, _ in faults(tmp_path, _corenet(val_nan_from=1))] == ["AMP013"]


def test_corenet_controls(tmp_path: Path) -> None:
    """A healthy run; a training NaN still AMP006 (the step is the row's count: the loop
    prints samples, not its iteration); both pass on the parent too."""
    assert faults(tmp_path, _corenet()) == []
    assert faults(tmp_path, _corenet(every=50)) == []
    assert faults(tmp_path, _corenet(1700))[0][0] == "AMP006"
