"""Vision, 3D, medical, speech and GAN trainers nobody described before: excerpts written from
each tool's own format strings (each test names its source), a fault beside healthy controls.

- DeepLabV3Plus-Pytorch's ``"Epoch %d, Itrs %d/%d, Loss=%f"`` (VainF/DeepLabV3Plus-Pytorch
  ``main.py``) and BigGAN-PyTorch's ``logs/*_log.jsonl`` (ajbrock/BigGAN-PyTorch ``train.py``
  ``train_log.log(itr=..., **metrics)`` through ``utils.py`` ``MetricsLogger``): ``itr``;
- torchreid's engine line (KaiyangZhou/deep-person-reid ``torchreid/engine/engine.py``
  ``train``): ``epoch: [3/60][140/200]\\ttime ...``, the epoch lower-case;
- Grad-TTS' ``train.log`` (huawei-noah/Speech-Backbones ``Grad-TTS/train.py``): ``Epoch %d:
  duration loss = %.3f | prior loss = %.3f | diffusion loss = %.3f``, three objectives and no
  total;
- Cellpose's ``{iepoch}, train_loss=..., test_loss=..., LR=...`` (MouseLand/cellpose
  ``cellpose/train.py``): the epoch opens the message bare;
- Wav2Lip's bar (Rudrabha/Wav2Lip ``wav2lip_train.py``): ``L1: ..., Sync Loss: 0.0: 140it [``,
  the L1 loss trained on, the sync term off, a bar with no total per epoch;
- the First Order Motion Model's ``log.txt`` (AliaksandrSiarohin/first-order-model
  ``logger.py``): ``00000012) perceptual - nan; equivariance_value - 0.30000; ...``;
- fatchord's WaveRNN (``train_wavernn.py``): ``| Epoch: 4/6 (400/400) | Loss: ...``;
- rosinality's StyleGAN2 (``train.py``): ``d: nan; g: nan; r1: ...`` in its bar;
- DiffWave's ``RuntimeError: Detected NaN loss at step N.`` below the source line a
  traceback echoes (lmnt-com/diffwave ``src/diffwave/learner.py``);
- MedicalNet's ``Batch: 3-15 (345), loss = nan, ...`` (Tencent/MedicalNet ``train.py``).

Each fault test failed on the parent commit (00ce8bf); the controls pass there too, but
Wav2Lip's (a false ``AMP007`` there), the First Order Motion Model's and StyleGAN2's
(nothing read).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose


def _value(step: int, nan_from: int | None, scale: float = 1e4) -> float:
    """A decaying loss, NaN from the step ``nan_from``."""
    return math.nan if nan_from is not None and step >= nan_from else 2 * math.exp(-step / scale)


def _deeplab(nan_from: int | None = None, total: int = 30000) -> list[str]:
    """VainF/DeepLabV3Plus-Pytorch ``main.py``: every 10 iterations ``print("Epoch %d, Itrs
    %d/%d, Loss=%f" % (cur_epochs, cur_itrs, opts.total_itrs, interval_loss))``, the run's
    iterations counted across epochs (662 a VOC epoch at batch 16)."""
    lines = ["Device: cuda", "Dataset: voc, Train set: 10582, Val set: 1449", "[!] Retrain"]
    for itrs in range(10, 3001, 10):
        lines.append(f"Epoch {itrs // 662 + 1}, Itrs {itrs}/{total}, "
                     f"Loss={_value(itrs, nan_from):f}")
    return lines


def _biggan(nan_from: int | None = None, first: int = 1) -> list[str]:
    """ajbrock/BigGAN-PyTorch ``train.py``: ``train_log.log(itr=int(state_dict['itr']),
    **metrics)`` each iteration (``utils.py`` ``MetricsLogger.log``: ``json.dumps(record)``
    with ``_stamp``), the singular values every ``sv_log_interval`` (10) on rows of their own;
    the rows from the iteration ``first`` on (a log's tail, or a resumed run's)."""
    lines = []
    for itr in range(first, first + 2000):
        loss = _value(itr, nan_from)
        lines.append(json.dumps({"itr": itr, "G_loss": loss, "D_loss_real": loss / 2,
                                 "D_loss_fake": loss / 3, "_stamp": 1.6e9 + itr}))
        if itr % 10 == 0:
            lines.append(json.dumps({"itr": itr, "G_blocks_0_0_conv1_weight": 1.5,
                                     "D_blocks_0_0_conv1_weight": 1.2,
                                     "_stamp": 1.6e9 + itr + 0.5}))
    return lines


def test_itrs_counts_the_iterations(tmp_path: Path) -> None:
    """Before: ``Itrs`` was no counter: DeepLab's NaN at iteration 1500 was reported at step
    150, the row's number."""
    assert faults(tmp_path, _deeplab(1500)) == [("AMP006", 1500)]


def test_biggan_itr_is_the_step(tmp_path: Path) -> None:
    """Before: ``"itr"`` was no counter: the rows were counted (the singular values' rows, no
    loss on them, left out), right from the first iteration, but a tail from iteration 40001
    on put the NaN at iteration 41234 at step 1234."""
    assert faults(tmp_path, _biggan(41234, first=40001)) == [("AMP006", 41234)]


def test_itrs_controls(tmp_path: Path) -> None:
    """Healthy runs, a shorter schedule too (pass on the parent too)."""
    for lines in (_deeplab(), _deeplab(total=1000), _biggan(), _biggan(first=40001)):
        assert faults(tmp_path, lines) == []


def _torchreid(nan_from: int | None = None, *, triplet: bool = False,
               batches: int = 200) -> list[str]:
    """KaiyangZhou/deep-person-reid ``torchreid/engine/engine.py`` ``train``: ``'epoch:
    [{0}/{1}][{2}/{3}]\\t' 'time ...\\t' 'data ...\\t' 'eta {eta}\\t' '{losses}\\t' 'lr
    {lr:.6f}'`` every ``print_freq`` (20) batches, epoch and batch from 1; ``{losses}`` is
    ``MetricMeter`` (``torchreid/utils/avgmeter.py``: ``'{} {:.4f} ({:.4f})'`` joined by tabs):
    ``loss``, ``acc`` (ImageSoftmaxEngine) or ``loss_t``, ``loss_x``, ``acc`` (the triplet
    engine); ``_evaluate``'s report every third epoch."""
    lines = ["=> Start training"]
    for epoch in range(1, 7):
        for batch in range(20, batches + 1, 20):
            loss = _value((epoch - 1) * batches + batch, nan_from)
            meters = (f"loss_t {loss / 3:.4f} ({loss / 3:.4f})\tloss_x {loss:.4f} ({loss:.4f})"
                      if triplet else f"loss {loss:.4f} ({loss:.4f})")
            lines.append(f"epoch: [{epoch}/60][{batch}/{batches}]\ttime 0.312 (0.320)\tdata "
                         f"0.001 (0.010)\teta 1:02:03\t{meters}\tacc 51.0000 (50.1000)\t"
                         f"lr 0.000300")
        if epoch % 3 == 0:
            lines += ["##### Evaluating market1501 (source) #####",
                      "Extracting features from query set ...",
                      "Done, obtained 3368-by-512 matrix", "Speed: 0.0210 sec/batch",
                      "Computing CMC and mAP ...", "** Results **", "mAP: 70.1%", "CMC curve",
                      "Rank-1  : 87.2%", "Rank-5  : 95.0%"]
    return lines


def test_torchreid_epoch_and_batch(tmp_path: Path) -> None:
    """Before: the lower-case ``epoch: [3/60][140/200]`` was not read as an epoch and its
    batch: the NaN at batch 140 of epoch 3 (step 540) was reported at step 27, the row's
    number."""
    assert faults(tmp_path, _torchreid(540)) == [("AMP006", 540)]
    assert faults(tmp_path, _torchreid(540, triplet=True)) == [("AMP006", 540)]


def test_torchreid_controls(tmp_path: Path) -> None:
    """Healthy runs, the triplet engine and a shorter epoch too (pass on the parent too)."""
    for lines in (_torchreid(), _torchreid(triplet=True), _torchreid(batches=100)):
        assert faults(tmp_path, lines) == []


def _grad_tts(nan_from: int | None = None, epochs: int = 20) -> list[str]:
    """huawei-noah/Speech-Backbones ``Grad-TTS/train.py``: each epoch (from 1) ``msg = 'Epoch
    %d: duration loss = %.3f ' % ...; msg += '| prior loss = %.3f ' % ...; msg += '|
    diffusion loss = %.3f\\n' % ...`` appended to ``train.log``: the three objectives' means,
    no total."""
    lines = []
    for epoch in range(1, epochs + 1):
        lines.append(f"Epoch {epoch}: duration loss = {0.5 + 1 / epoch:.3f} | prior loss = "
                     f"{1.2:.3f} | diffusion loss = {_value(epoch, nan_from, 20):.3f}")
    return lines


def test_grad_tts_objectives(tmp_path: Path) -> None:
    """Before: the three keys read as one ``loss``, the first (the duration loss) kept: the
    diffusion loss at NaN from epoch 7 went unseen (nothing to diagnose)."""
    assert faults(tmp_path, _grad_tts(7)) == [("AMP006", 7)]


def test_grad_tts_controls(tmp_path: Path) -> None:
    """Healthy runs, short and long (pass on the parent too)."""
    for lines in (_grad_tts(), _grad_tts(epochs=3), _grad_tts(epochs=200)):
        assert faults(tmp_path, lines) == []


def _cellpose(nan_from: int | None = None, *, test: bool = True,
              epochs: int = 200) -> list[str]:
    """MouseLand/cellpose ``cellpose/train.py`` ``train_seg``: at epoch 5 and every tenth
    (from 0) ``train_logger.info(f"{iepoch}, train_loss={lavg:.4f}, test_loss={lavgt:.4f},
    LR={LR[iepoch]:.6f}, time {time.time()-t0:.2f}s")`` (no ``test_loss`` without test
    data), behind ``cellpose/io.py`` ``logger_setup``'s ``%(asctime)s [%(levelname)s] ``."""
    stamp = "2024-05-01 10:00:00,123 [INFO] "
    lines = [f"{stamp}>>> n_epochs={epochs}, n_train=540, n_test=68",
             f"{stamp}>>> AdamW, learning_rate=0.00500, weight_decay=0.00001"]
    for epoch in range(epochs):
        if epoch == 5 or epoch % 10 == 0:
            loss = _value(epoch, nan_from, 100)
            held = f" test_loss={loss * 1.1:.4f}," if test else ""
            lines.append(f"{stamp}{epoch}, train_loss={loss:.4f},{held} LR={0.005:.6f}, "
                         f"time {epoch * 1.5:.2f}s")
    return lines


def test_cellpose_epoch_opens_the_message(tmp_path: Path) -> None:
    """Before: the bare epoch before ``, train_loss=`` went unread: the NaN at epoch 70 was
    reported at step 9, the row's number."""
    assert faults(tmp_path, _cellpose(70)) == [("AMP006", 70), ("AMP013", 70)]
    assert faults(tmp_path, _cellpose(70, test=False)) == [("AMP006", 70)]


def test_cellpose_controls(tmp_path: Path) -> None:
    """Healthy runs, with and without test data, short too (pass on the parent too)."""
    for lines in (_cellpose(), _cellpose(test=False), _cellpose(epochs=30)):
        assert faults(tmp_path, lines) == []


def _wav2lip(nan_from: int | None = None, *, raw: bool = False, sync_from: int | None = None,
             batches: int = 520) -> list[str]:
    """Rudrabha/Wav2Lip ``wav2lip_train.py`` ``train``: ``print('Starting Epoch: {}'...)``,
    then a bar over ``tqdm(enumerate(train_data_loader))`` (no total: ``{n}it [...]``) whose
    description is ``'L1: {}, Sync Loss: {}'.format(running_l1_loss / (step + 1),
    running_sync_loss / (step + 1))``; the sync loss is 0 while ``hparams.syncnet_wt`` is 0
    (its default, until an evaluation's sync loss drops below .75); ``eval_model``'s ``L1: {},
    Sync loss: {}`` and ``Saved checkpoint:`` at step 1 and every 3000. ``raw``: each epoch's
    bar states joined by carriage returns, as a log file holds them; else its last state, as
    a terminal shows it."""
    lines = ["total trainable params 36298035"]
    step = 0
    for epoch in range(6):
        lines.append(f"Starting Epoch: {epoch}")
        states: list[str] = []
        l1 = sync = 0.0
        for batch in range(batches):
            step += 1
            l1 += _value(step, nan_from, 3000) / 20
            sync += 0.69 if sync_from is not None and step >= sync_from else 0.0
            if batch % 10 == 9 or batch == batches - 1:
                states.append(f"L1: {l1 / (batch + 1)}, Sync Loss: {sync / (batch + 1)}: "
                              f"{batch + 1}it [00:{batch // 20:02d},  1.74it/s]")
            if step == 1 or step % 3000 == 0:
                lines += ["\r".join(states) if raw else states[-1]] if states else []
                states = []
                lines += [f"Saved checkpoint: checkpoints/checkpoint_step{step:09d}.pth",
                          "Evaluating for 700 steps", f"L1: {l1 / (batch + 1)}, Sync loss: 0.8"]
        lines.append("\r".join(states) if raw else states[-1])
    return lines


def test_wav2lip_l1_is_the_loss(tmp_path: Path) -> None:
    """Before: ``Sync Loss`` was read as the loss and ``L1`` as nothing: the NaN L1 loss from
    step 1700 went unseen (nothing to diagnose on the terminal's view; on the log file's, a
    false ``AMP007`` at step 10, see the control). Each epoch's bar counts from 0: the last
    state of epoch 3 is step 2080, the NaN's first state in the file step 1700."""
    assert faults(tmp_path, _wav2lip(1700)) == [("AMP006", 2080)]
    assert faults(tmp_path, _wav2lip(1700, raw=True)) == [("AMP006", 1700)]


def test_wav2lip_controls(tmp_path: Path) -> None:
    """Healthy runs, the sync loss off (0.0) and switched on at step 1500. Before: the log
    file's view (``raw``) raised a false ``AMP007`` (the sync loss at 0 read as the loss) on
    the parent; the others pass there."""
    for lines in (_wav2lip(), _wav2lip(raw=True), _wav2lip(sync_from=1500),
                  _wav2lip(raw=True, sync_from=1500), _wav2lip(batches=130)):
        assert faults(tmp_path, lines) == []


def _fomm(nan_from: int | None = None, *, gan: bool = False, epochs: int = 30) -> list[str]:
    """AliaksandrSiarohin/first-order-model ``logger.py`` ``Logger.log_scores``: each epoch
    (from 0) ``"; ".join(["%s - %.5f" % (name, value) ...])`` behind ``str(self.epoch).zfill(
    self.zfill_num) + ") "`` (8 digits) into ``log.txt``: the generator's loss terms by name
    (``train.py``: ``perceptual``, ``equivariance_value``, ``equivariance_jacobian``; with the
    GAN's weights set, ``gen_gan``, ``feature_matching`` and the discriminator's ``disc_gan``)."""
    lines = []
    for epoch in range(epochs):
        terms = {"perceptual": 50 * _value(epoch, nan_from, 30), "equivariance_value": 0.3,
                 "equivariance_jacobian": 0.4}
        if gan:
            terms |= {"gen_gan": 0.9, "feature_matching": 1.7, "disc_gan": 0.4}
        lines.append(f"{epoch:08d}) " + "; ".join(f"{name} - {value:.5f}"
                                                   for name, value in terms.items()))
    return lines


def test_fomm_scores_are_loss_terms(tmp_path: Path) -> None:
    """Before: no name says "loss": nothing to diagnose, the perceptual loss NaN from epoch
    12 on."""
    assert faults(tmp_path, _fomm(12)) == [("AMP006", 12)]
    assert faults(tmp_path, _fomm(12, gan=True)) == [("AMP006", 12)]


def test_fomm_controls(tmp_path: Path) -> None:
    """Healthy runs, with the GAN's terms and short (on the parent: nothing to diagnose, an
    error, the lines unread)."""
    for lines in (_fomm(), _fomm(gan=True), _fomm(epochs=3)):
        assert faults(tmp_path, lines) == []


def _wavernn(nan_from: int | None = None, *, raw: bool = False, batches: int = 400) -> list[str]:
    """fatchord/WaveRNN ``train_wavernn.py`` ``voc_train_loop``: each batch ``msg = f'| Epoch:
    {e}/{epochs} ({i}/{total_iters}) | Loss: {avg_loss:.4f} | {speed:.1f} steps/s | Step:
    {k}k | '`` through ``stream`` (a carriage return before it), epoch and batch from 1, the
    epoch's running mean; ``print(' ')`` and ``model.log(paths.voc_log, msg)`` (the epoch's
    last state) at the epoch's end. ``raw``: the states as the console's log file holds them;
    else the epoch's last, as ``voc_log`` (and a terminal) shows them."""
    lines = []
    step = 0
    for epoch in range(1, 7):
        states = []
        running = 0.0
        for batch in range(1, batches + 1):
            step += 1
            running += _value(step, nan_from, 3000)
            states.append(f"\r| Epoch: {epoch}/6 ({batch}/{batches}) | Loss: {running / batch:.4f}"
                          f" | {2.1:.1f} steps/s | Step: {step // 1000}k | ")
        lines += ["".join(states) if raw else states[-1][1:], " "]
    return lines


def _forward_tacotron(nan_from: int | None = None) -> list[str]:
    """ForwardTacotron's trainer (as-ideas/ForwardTacotron ``trainer/forward_trainer.py``,
    read in its forks, e.g. tarepan/ForwardTacotron): WaveRNN's layout over three averaged
    losses, ``f'| Epoch: {e}/{epochs} ({i}/{total_iters}) | Mel Loss: {...:#.4} ' f'| Dur
    Loss: {...:#.4} | Pitch Loss: {...:#.4} ' f'| {speed:#.2} steps/s | Step: {k}k | '``,
    every 50th state kept (a terminal's scrollback)."""
    lines = []
    for epoch in range(1, 7):
        for batch in range(50, 401, 50):
            step = (epoch - 1) * 400 + batch
            lines.append(f"| Epoch: {epoch}/6 ({batch}/400) | Mel Loss: {0.5:#.4} | Dur Loss: "
                         f"{0.1:#.4} | Pitch Loss: {_value(step, nan_from, 3000):#.4} | "
                         f"{2.1:#.2} steps/s | Step: {step // 1000}k | ")
    return lines


def test_wavernn_batch_in_parentheses(tmp_path: Path) -> None:
    """Before: ``Epoch: 4/6 (400/400)`` was no epoch and batch: each epoch's last state was
    numbered by its row (the NaN from step 1234 reported at step 4, not 1600, the last step
    of its epoch); the raw states were right, one row a batch. ForwardTacotron's NaN pitch
    loss at step 1250 was reported at step 25."""
    assert faults(tmp_path, _wavernn(1234)) == [("AMP006", 1600)]
    assert faults(tmp_path, _wavernn(1234, raw=True)) == [("AMP006", 1234)]
    assert faults(tmp_path, _forward_tacotron(1250)) == [("AMP006", 1250)]


def test_wavernn_controls(tmp_path: Path) -> None:
    """Healthy runs, raw and as ``voc_log`` keeps them, a shorter epoch (pass on the parent
    too)."""
    for lines in (_wavernn(), _wavernn(raw=True), _wavernn(batches=90), _forward_tacotron()):
        assert faults(tmp_path, lines) == []


def _stylegan2(nan_from: int | None = None, *, first: int = 1, augment: float = 0.0) -> list[str]:
    """rosinality/stylegan2-pytorch ``train.py``: ``pbar = tqdm(range(args.iter),
    initial=args.start_iter, ...)`` described each iteration by ``f"d: {d_loss_val:.4f}; g:
    {g_loss_val:.4f}; r1: {r1_val:.4f}; " f"path: {path_loss_val:.4f}; mean path:
    {mean_path_length_avg:.4f}; " f"augment: {ada_aug_p:.4f}"``, the states joined by
    carriage returns (500 a line here, as a log file wraps them)."""
    states = []
    for i in range(first, first + 3000):
        d_loss = _value(i, nan_from, 5000)
        states.append(f"\rd: {d_loss:.4f}; g: {1.5 * d_loss:.4f}; r1: 0.0123; path: 0.0000; "
                      f"mean path: 0.0000; augment: {augment:.4f}:   {i * 100 // 800000}%|"
                      f"          | {i}/800000 [10:00<100:00:00,  2.05it/s]")
    return ["".join(states[start:start + 500]) for start in range(0, len(states), 500)]


def test_stylegan2_d_and_g(tmp_path: Path) -> None:
    """Before: ``d`` and ``g`` named no loss: nothing to diagnose, both NaN from iteration
    1234 (from 41234 in a run resumed at 40000)."""
    assert faults(tmp_path, _stylegan2(1234)) == [("AMP006", 1234)]
    assert faults(tmp_path, _stylegan2(41234, first=40001)) == [("AMP006", 41234)]


def test_stylegan2_controls(tmp_path: Path) -> None:
    """Healthy runs, with ADA's augmentation and resumed (on the parent: nothing to
    diagnose, an error, the lines unread)."""
    for lines in (_stylegan2(), _stylegan2(augment=0.2345), _stylegan2(first=40001)):
        assert faults(tmp_path, lines) == []


def _diffwave(nan_step: int | None = None) -> list[str]:
    """lmnt-com/diffwave ``src/diffwave/learner.py`` ``DiffWaveLearner.train``: a bar per epoch
    (``tqdm(self.dataset, desc=f'Epoch {self.step // len(self.dataset)}')``, no loss shown),
    and on a NaN loss ``raise RuntimeError(f'Detected NaN loss at step {self.step}.')``: the
    traceback echoes that source line above the exception's own."""
    lines = ["Epoch 40: 100%|██████████| 323/323 [02:41<00:00,  2.00it/s]",
             "Epoch 41:  37%|███▋      | 120/323 [01:00<01:41,  2.00it/s]"]
    if nan_step is not None:
        source = "/home/u/diffwave/src/diffwave"
        lines += ["Traceback (most recent call last):",
                  f'  File "{source}/__main__.py", line 50, in <module>',
                  "    main(parser.parse_args())",
                  f'  File "{source}/learner.py", line 176, in _train_impl',
                  "    learner.train(max_steps=args.max_steps)",
                  f'  File "{source}/learner.py", line 95, in train',
                  "    raise RuntimeError(f'Detected NaN loss at step {self.step}.')",
                  f"RuntimeError: Detected NaN loss at step {nan_step}."]
    return lines


def test_diffwave_traceback_source_is_no_event(tmp_path: Path) -> None:
    """Before: the echoed source line was read as a NaN loss without a step (the row's, 1),
    the exception's ``at step 13363`` joined to it: the NaN reported at step 1."""
    assert faults(tmp_path, _diffwave(13363)) == [("AMP006", 13363)]


def test_diffwave_control(tmp_path: Path) -> None:
    """A healthy run's bars (no loss printed: nothing to diagnose, no finding; the same on
    the parent)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(_diffwave()) + "\n", encoding="utf-8")
    assert diagnose(str(path)).faults == []


def _medicalnet(nan_from: int | None = None, *, batches: int = 110,
                seg: bool = True) -> list[str]:
    """Tencent/MedicalNet ``train.py`` ``train``: each batch ``log.info('Batch: {}-{} ({}),
    loss = {:.3f}, loss_seg = {:.3f}, avg_batch_time = {:.3f}'.format(epoch, batch_id,
    batch_id_sp, ...))`` (``loss_seg`` left out in the copies that train one loss), epochs
    from 0, ``batch_id_sp = epoch * batches_per_epoch + batch_id``; ``Start epoch {}`` and
    ``lr = {}`` above each epoch."""
    stamp = "2019-08-01 10:00:00,123-train.py#L120-INFO: "

    def row(epoch: int, batch: int) -> str:
        run_batch = epoch * batches + batch
        loss = _value(run_batch, nan_from, 500)
        terms = f"loss = {loss:.3f}, loss_seg = {loss:.3f}" if seg else f"loss = {loss:.3f}"
        return f"{stamp}Batch: {epoch}-{batch} ({run_batch}), {terms}, avg_batch_time = 0.500"

    return [line for epoch in range(8)
            for line in (f"{stamp}Start epoch {epoch}", f"{stamp}lr = [0.001, 0.01]",
                         *(row(epoch, batch) for batch in range(batches)))]


def test_medicalnet_run_batch(tmp_path: Path) -> None:
    """Before: ``Batch:`` keyed the epoch as the step: the NaN at the run's batch 345 (epoch
    3, batch 15) was reported at step 3."""
    assert faults(tmp_path, _medicalnet(345)) == [("AMP006", 345)]
    assert faults(tmp_path, _medicalnet(345, seg=False)) == [("AMP006", 345)]


def test_medicalnet_controls(tmp_path: Path) -> None:
    """Healthy runs, one loss or two, a shorter epoch (pass on the parent too)."""
    for lines in (_medicalnet(), _medicalnet(seg=False), _medicalnet(batches=12)):
        assert faults(tmp_path, lines) == []
