"""Step counters that number a batch of an epoch, written from each tool's own format string
(each names its source), a fault beside a healthy control: the right id at the right step.

- the batch of an epoch whose length the line does not print: wenet's executor (older
  ``wenet/utils/executor.py``: ``'TRAIN Batch {}/{} loss {:.6f} '.format(epoch, batch_idx,
  ...)``; newer ``wenet/utils/train_utils.py`` ``log_per_step``: ``'{} | '.format(tag)``,
  ``'steps/sec {:.3f}| '``, ``'Batch {}/{} loss {:.6f} '.format(epoch, batch_idx + 1, ...)``),
  icefall's ``f"Epoch {params.cur_epoch}, batch {batch_idx}, loss[{loss_info}], ..."``
  (``egs/librispeech/ASR/zipformer/train.py``), NVIDIA DeepLearningExamples' Tacotron2
  ``DLLogger.log(step=(epoch, i), data={'train_iter_loss': reduced_loss})`` through dllogger's
  ``StdOutBackend`` (``"DLL {} - ".format(timestamp)``, ``str(step)``, ``"{} : {} {}"``) and
  ConvNets' ``image_classification/logger.py`` ``format_step`` (``"Epoch: {} "``,
  ``"Iteration: {} "``), DALLE-pytorch's ``print(epoch, i, f'loss - {avg_loss.item()}')``
  (``train_dalle.py``), ESPnet2's ``f"{self.epoch}epoch:{self.key}:{self.prev_count +
  1}-{self.count}batch: "`` (``espnet2/train/reporter.py``): the step counts the batches
  across the epochs, an epoch's length learnt where the counter starts over;
- an epoch printed on a line of its own above its row: nnU-Net v2
  (``nnunetv2/training/nnUNetTrainer/nnUNetTrainer.py``: ``print_to_log_file(f'Epoch
  {self.current_epoch}')``, then ``print_to_log_file('train_loss', ...)``; each line behind
  ``f"{dt_object}:"``, the arguments joined by blanks), nnU-Net v1
  (``nnunet/training/network_training/network_trainer.py``: ``print_to_log_file("\\nepoch: ",
  self.epoch)``, ``"train loss : %.4f"``): the row is that epoch's;
- the DCGAN example's ``'[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f ...' % (epoch, niter, i,
  len(dataloader), ...)`` (pytorch/examples ``dcgan/main.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose

NAN = float("nan")
_TIME = "2021-03-01 10:00:00,123"


def _loss(step: int, nan_from: int | None) -> float:
    """A decaying loss, NaN from the step ``nan_from``."""
    return NAN if nan_from is not None and step >= nan_from else 5.0 * math.exp(-step / 3000) + 1


def _found_then_quiet(tmp_path: Path, make: Callable[[int | None], list[str]], nan_from: int,
                      expected: tuple[str, int]) -> None:
    assert faults(tmp_path, make(nan_from))[:1] == [expected]
    result = diagnose_lines(tmp_path, make(None))
    assert result.error is None and result.faults == []


def _wenet_executor(nan_from: int | None, epochs: int = 3, batches: int = 500,
                    interval: int = 100) -> list[str]:
    """Older wenet: ``batch_idx`` from 0, printed every ``log_interval``; cross-validation's
    ``CV Batch`` lines and the epoch's ``Epoch {} CV info cv_loss {}`` after each epoch
    (bin/train.py's basicConfig ``'%(asctime)s %(levelname)s %(message)s'``)."""
    lines = []
    for epoch in range(epochs):
        for batch in range(0, batches, interval):
            v = _loss(epoch * batches + batch, nan_from)
            lines.append(f"{_TIME} DEBUG TRAIN Batch {epoch}/{batch} loss {v:.6f} loss_att "
                         f"{v:.6f} loss_ctc {v:.6f} lr 0.00100000 rank 0")
        lines += [f"{_TIME} DEBUG CV Batch {epoch}/{batch} loss 3.000000 loss_att 3.000000 "
                  "loss_ctc 3.000000 history loss 3.000000 rank 0" for batch in (0, 10, 20)]
        lines.append(f"{_TIME} INFO Epoch {epoch} CV info cv_loss 3.0")
    return lines


def _wenet_log_per_step(nan_from: int | None, epochs: int = 3, batches: int = 500,
                        interval: int = 100) -> list[str]:
    """Newer wenet: ``batch_idx + 1``, behind its tag and the steps a second."""
    lines, step = [], 0
    for epoch in range(epochs):
        lines.append(f"{_TIME} INFO Epoch {epoch} Step {step} TRAIN info lr 1.0000e-03 rank 0")
        for batch in range(interval, batches + 1, interval):
            v = _loss(epoch * batches + batch, nan_from)
            lines.append(f"{_TIME} DEBUG TRAIN | steps/sec 2.345| Batch {epoch}/{batch} loss "
                         f"{v:.6f} loss_att {v:.6f} loss_ctc {v:.6f} th_accuracy 0.300000 lr "
                         "1.0000e-03 grad_norm 45.670000 rank 0")
        step += batches
        lines.append(f"{_TIME} INFO Epoch {epoch} Step {step} CV info lr 1.0000e-03 cv_loss 3.0 "
                     "rank 0 acc 0.41")
    return lines


def test_wenet_batch_of_epoch(tmp_path: Path) -> None:
    # epoch 2, batch 200 of 500 a epoch: step 1200, not the 13th row nor batch 200
    _found_then_quiet(tmp_path, _wenet_executor, 1200, ("AMP006", 1200))
    _found_then_quiet(tmp_path, _wenet_log_per_step, 1200, ("AMP006", 1200))


def _icefall(nan_from: int | None, epochs: int = 3, batches: int = 500,
             interval: int = 50) -> list[str]:
    """zipformer/train.py's progress line (epochs from 1, ``batch_idx`` from 0) behind
    icefall/utils.py ``setup_logger``'s ``%(asctime)s %(levelname)s [%(filename)s:%(lineno)d]
    ({rank}/{world_size}) %(message)s``; ``MetricsTracker.__str__`` as ``k=v, ... over N
    frames. ``."""
    head = "2023-01-01 10:00:00,123 INFO [train.py:1203] (0/4) "
    lines = []
    for epoch in range(1, epochs + 1):
        for batch in range(0, batches, interval):
            v = f"{_loss((epoch - 1) * batches + batch, nan_from):.4g}"
            lines.append(f"{head}Epoch {epoch}, batch {batch}, loss[loss={v}, simple_loss={v}, "
                         f"pruned_loss={v}, over 1234.00 frames. ], tot_loss[loss={v}, "
                         f"simple_loss={v}, pruned_loss={v}, over 123456.00 frames. ], batch "
                         "size: 56, lr: 2.34e-02, grad_scale: 16.0")
        lines.append(f"{head}Epoch {epoch}, validation: loss=0.2, simple_loss=0.3, pruned_loss="
                     "0.1, over 9999.00 frames. ")
    return lines


def test_icefall_epoch_and_batch(tmp_path: Path) -> None:
    _found_then_quiet(tmp_path, _icefall, 1200, ("AMP006", 1200))


def _snowfall(nan_from: int | None, epochs: int = 3, batches: int = 300,
              interval: int = 10) -> list[str]:
    """snowfall's MMI training loop (egs/librispeech/asr/simple_v1/mmi_att_transformer_train.py
    ``logging.info('batch {}, epoch {}/{} global average objf: {:.6f} over {} frames ...')``):
    the batch first, then the epoch of the run's epochs; Kaldi's "objf" its only loss word."""
    head = f"{_TIME} INFO [mmi_att_transformer_train.py:273] "
    lines = []
    for epoch in range(epochs):
        for batch in range(0, batches, interval):
            v = _loss(epoch * batches + batch, nan_from)
            lines.append(f"{head}batch {batch}, epoch {epoch}/10 global average objf: {v:.6f} "
                         f"over 12345.0 frames (99.8% kept), current batch average objf: "
                         f"{v:.6f} over 1234.0 frames (99.9% kept) avg time waiting for batch "
                         "0.012s")
    return lines


def test_snowfall_batch_then_epoch(tmp_path: Path) -> None:
    # its finite lines hold no other keyword than "objf": read, they number the epochs
    _found_then_quiet(tmp_path, _snowfall, 700, ("AMP006", 700))


_DLL = "DLL 2021-05-01 12:00:00.123456 - "


def _tacotron2(nan_from: int | None, epochs: int = 3, batches: int = 50) -> list[str]:
    """Tacotron2 train.py (DeepLearningExamples 2992264d): ``i`` from 0 in each epoch,
    ``iteration`` the run's (printed as ``glob_iter/iters_per_epoch``)."""
    lines, iteration = [], 0
    for epoch in range(epochs):
        lines.append(f"{_DLL}({epoch},) train_epoch_start : 1620000000.0 ")
        for i in range(batches):
            lines += [f"{_DLL}({epoch}, {i}) glob_iter/iters_per_epoch : {iteration}/{batches} ",
                      f"{_DLL}({epoch}, {i}) train_iter_start : 1620000000.0 ",
                      f"{_DLL}({epoch}, {i}) train_iter_loss : {_loss(iteration, nan_from)} ",
                      f"{_DLL}({epoch}, {i}) train_iter_items/sec : 12345.6 "]
            iteration += 1
        lines.append(f"{_DLL}({epoch}, {iteration}, {epoch}) val_iter_loss : 0.5 ")
    return lines


def _convnets(nan_from: int | None, epochs: int = 3, batches: int = 100,
              interval: int = 10, summaries: bool = True) -> list[str]:
    """ConvNets' Logger (``start_epoch - 1`` then ``+= 1``: epochs from 0; iterations from 1
    in each epoch), its metrics' ``LOSS_METADATA`` (``":.5f"``, unit None)."""
    lines = []
    for epoch in range(epochs):
        for it in range(interval, batches + 1, interval):
            v = _loss(epoch * batches + it, nan_from)
            lines.append(f"{_DLL}Epoch: {epoch} Iteration: {it}  train.loss : {v:.5f} None "
                         "train.compute_ips : 1234.56 images/s train.lr : 0.25600 None "
                         "train.grad_scale : 65536.00000 None")
        if summaries:
            lines += [f"{_DLL}Epoch: {epoch}  train.loss : 2.00000 None train.compute_ips : "
                      "1234.56 images/s",
                      f"{_DLL}Epoch: {epoch}  val.loss : 2.10000 None val.top1 : 45.00 %"]
    return lines


def test_dllogger_epoch_and_iteration(tmp_path: Path) -> None:
    _found_then_quiet(tmp_path, _tacotron2, 120, ("AMP006", 120))
    _found_then_quiet(tmp_path, _convnets, 230, ("AMP006", 230))


def test_epoch_and_iteration_read_the_same_in_quiet_runs(tmp_path: Path) -> None:
    # every iteration printed, no line between the epochs: a run of one line shape would
    # swallow the counter starting over
    path = tmp_path / "convnets.log"
    lines = _convnets(2300, batches=1000, interval=1, summaries=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for quiet_runs in (True, False):
        result = diagnose(str(path), quiet_runs=quiet_runs)
        assert [(d.code, d.step) for d in result.faults][:1] == [("AMP006", 2300)]


def _dalle(nan_from: int | None, epochs: int = 3, batches: int = 200) -> list[str]:
    """train_dalle.py: the loss every 10 batches, the samples a second after the 10th."""
    lines = []
    for epoch in range(epochs):
        for i in range(batches):
            if i % 10 == 0:
                lines.append(f"{epoch} {i} loss - {_loss(epoch * batches + i, nan_from)}")
            if i % 10 == 9:
                lines.append(f"{epoch} {i} sample_per_sec - 123.456")
    return lines


def test_dalle_bare_epoch_and_batch(tmp_path: Path) -> None:
    _found_then_quiet(tmp_path, _dalle, 450, ("AMP006", 450))


def _nnunet_v2(nan_from: int | None, epochs: int = 6) -> list[str]:
    stamp = "2023-05-01 10:00:00.123456:"
    lines = []
    for epoch in range(epochs):
        loss = "nan" if nan_from is not None and epoch >= nan_from else f"{-0.1 * epoch:.4f}"
        lines += [f"{stamp} ", f"{stamp} Epoch {epoch} ",
                  f"{stamp} Current learning rate: 0.00982 ", f"{stamp} train_loss {loss} ",
                  f"{stamp} val_loss {-0.1 * epoch + 0.05:.4f} ",
                  f"{stamp} Pseudo dice [0.8123, 0.7012] ", f"{stamp} Epoch time: 123.45 s "]
    return lines


def _nnunet_v1(nan_from: int | None, epochs: int = 6) -> list[str]:
    stamp = "2021-05-01 10:00:00.123456:"
    lines = []
    for epoch in range(epochs):
        loss = "nan" if nan_from is not None and epoch >= nan_from else f"{-0.1 * epoch:.4f}"
        lines += [f"{stamp} ", f"epoch:  {epoch} ", f"{stamp} train loss : {loss} ",
                  f"{stamp} validation loss: {-0.1 * epoch + 0.05:.4f} ",
                  f"{stamp} Average global foreground Dice: [0.8123, 0.7012] ",
                  f"{stamp} lr: 0.009818 ", f"{stamp} This epoch took 123.456789 s", ""]
    return lines


def test_nnunet_row_belongs_to_the_epoch_above_it(tmp_path: Path) -> None:
    # epochs from 0: the fourth row is epoch 3's, not step 4
    _found_then_quiet(tmp_path, _nnunet_v2, 3, ("AMP006", 3))
    _found_then_quiet(tmp_path, _nnunet_v1, 3, ("AMP006", 3))


def _espnet2(nan_from: int | None, epochs: int = 3, batches: int = 500,
             interval: int = 100) -> list[str]:
    """espnet2/train/reporter.py ``SubReporter.log_message`` (epochs and batches from 1; values
    ``:.3f`` between 1e-3 and 1e3, else ``:.3e``) behind espnet2's ``[%(hostname)s]
    %(asctime)s (%(module)s:%(lineno)d) %(levelname)s: %(message)s``; the epoch's results
    after it."""
    head = "[host] 2023-01-01 10:00:00,123 (trainer:732) INFO: "
    lines = []
    for epoch in range(1, epochs + 1):
        for end in range(interval, batches + 1, interval):
            v = _loss((epoch - 1) * batches + end, nan_from)
            lines.append(f"{head}{epoch}epoch:train:{end - interval + 1}-{end}batch: "
                         f"iter_time=1.234e-04, forward_time=0.123, loss_ctc={v:.3f}, "
                         f"loss_att={v:.3f}, acc=0.456, loss={v:.3f}, backward_time=0.234, "
                         "optim_step_time=0.012, optim0_lr0=1.000e-03, train_time=1.234")
        lines.append(f"{head}{epoch}epoch results: [train] iter_time=1.234e-04, loss=2.000, "
                     "time=10 minutes and 3.2 seconds, total_count=500, [valid] loss=2.500, "
                     "acc=0.500")
    return lines


def test_espnet2_epoch_and_batch_range(tmp_path: Path) -> None:
    # epoch 3 (from 1), batches 201-300 of 500: step 1300, not the 13th row
    _found_then_quiet(tmp_path, _espnet2, 1300, ("AMP006", 1300))


def _dcgan(nan_from: int | None, epochs: int = 3, batches: int = 200) -> list[str]:
    lines = []
    for epoch in range(epochs):
        for i in range(batches):
            step = epoch * batches + i
            d = "nan" if nan_from is not None and step >= nan_from else f"{0.5 + step / 1e4:.4f}"
            lines.append(f"[{epoch}/25][{i}/{batches}] Loss_D: {d} Loss_G: {d} D(x): 0.5000 "
                         "D(G(z)): 0.4000 / 0.3000")
    return lines


def test_dcgan_epoch_and_batch_brackets(tmp_path: Path) -> None:
    _found_then_quiet(tmp_path, _dcgan, 450, ("AMP006", 450))
