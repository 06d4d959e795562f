"""The layouts in which a training line prints its step, each with the tools whose format
strings it follows: an epoch and the batch of that epoch (bracketed, keyed, glued, in a
tuple), a bar's count, a run's count of a total with no key, a bracketed step; and
:class:`EpochBatches`, which numbers the batches of epochs whose length the line does not
print. The generic reader (:mod:`~denpex_callbacks.logs.metric_reader`) tries them in its
order and keeps the counts across lines.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.launcher_ranks import rank_prefix_end

# mmengine / mmcv epoch-based runners: ``Epoch(train)  [3][ 50/500]`` or ``Epoch [3][50/500]``;
# PyTorch-Ignite's ProgressBar: ``Epoch [3/10]: [50/500]  10%|█ , loss=0.5 [00:01<00:09]``;
# the ImageNet example's ``Epoch: [3][ 50/500]`` (and the many scripts copied from it); the
# GAN scripts' ``[Epoch 3/200] [Batch 50/938]``; Swin Transformer's and its descendants'
# ``Train: [3/300][50/1251]``; GNMT's (DeepLearningExamples ``seq2seq/train/trainer.py``)
# ``TRAIN [1][350/1000]\tTime ...\tLoss/tok 8.1 (8.2)``; timm's ``Train: 3 [  50/1251 (
# 4%)]``; flashy's LogProgressBar (audiocraft, dora solvers): ``Train | Epoch 3 | 400/2000 |
# 5.23 it/sec | ...``; the DCGAN example's (pytorch/examples ``dcgan/main.py``, and the GAN
# scripts copied from it) ``[%d/%d][%d/%d] Loss_D: ...``, epoch of epochs then batch of
# batches opening the line; pytorch/examples' super_resolution (``main.py``: ``"===>
# Epoch[{}]({}/{}): Loss: {:.4f}"``), the batch in parentheses; pytorch/examples'
# fast_neural_style (``neural_style/neural_style.py``: ``"{}\tEpoch {}:\t[{}/{}]\tcontent:
# ..."``, the count of images done, from 1: no batch size printed, the count is the step).
# The epoch's colon may stand a blank off its key (2yejin2/OOD-generation ``train_vae.py``:
# ``'Epoch : [{0}/{1}] [{2}/{3}]  Train Loss : {loss.avg:.4f} ...'``, both from 1 and 0).
# PointNet's scripts (fxia22/pointnet.pytorch ``utils/train_classification.py`` and
# ``train_segmentation.py``, copied widely) bracket the epoch, a colon and a blank, then the
# batch of the epoch's batches: ``'[%d: %d/%d] train loss: %f accuracy: %f' % (epoch, i,
# num_batch, ...)`` (no word: the blank after the colon tells it from a clock's ``[12:34``).
EPOCH_ITER = re.compile(
    r"(?:(?<!/)[Ee]poch(?:\(train\))?(?: ?:)?|Train:|TRAIN)"
    r"\s*\[(\d+)(?:/\d+)?\]:?\s*[\[(]\s*(\d+)\s*/\s*(\d+)[\])]"
    r"|Epoch\s+(\d+)/\d+\]\s*\[Batch\s+(\d+)\s*/\s*(\d+)\]"
    r"|Train:\s*(\d+)\s+\[\s*(\d+)\s*/\s*(\d+)\s+\("
    r"|Epoch\s+(\d+)\s+\|\s+(\d+)/(\d+)\s+\|"
    r"|^\[(\d+)/\d+\]\[\s*(\d+)\s*/\s*(\d+)\]"
    r"|^(\d+)/\d+\(t\): (\d+)/(\d+) "
    r"|Epoch\s+(\d+):\s*\[(\d+)/(\d+)\]"
    r"|^\[(\d+): (\d+)/(\d+)\] ")
# torchbearer's ConsolePrinter (torchbearer/callbacks/printer.py ``_step``): ``'{:d}/{:d}({:s}):
# '.format(epoch, epochs, 't')`` then ``'{:d}/{:d} '.format(batch, steps)``, the epoch from 0.
# ``Epoch E [n/N (p%)]`` counts samples, not batches: the PyTorch examples' ``Train Epoch:
# {} [{}/{} ({:.0f}%)]`` (pytorch/examples ``mnist/main.py``: ``batch_idx * len(data)``, from
# 0) and open_clip's ``Train Epoch: {epoch} [{num_samples:>{sample_digits}}/{samples_per_epoch}
# ({percent_complete:.0f}%)]`` (mlfoundations/open_clip ``src/training/train.py``:
# ``batch_count * batch_size * world_size``, its first line at batch 1).
# A copy that prints no epoch (ChatterMonkey/MNIST-test-neural-net ``train.py``: ``'Train
# Epoch:  [{}/{} ({:.0f}%)]'``) counts the samples of the epoch the excerpt shows (group 1 None).
# A copy may put a blank before the sign (1542118717-dotcom/HDR-Transformer-SR ``train_sr.py``:
# ``'Train Epoch: {} [{}/{} ({:.0f} %)]'``): the same count, one blank allowed.
EPOCH_SAMPLES = re.compile(
    r"Epoch:?\s*(\d+)?\s*\[\s*(\d+)\s*/\s*(\d+)\s*\(\s*\d+(?:\.\d+)? ?%\)\]")
# LAVIS' and MiniGPT-4's runners head their MetricLogger ``Train: data epoch: [0]`` (lavis/
# runners/runner_base.py, lavis/tasks/base_task.py ``_train_inner_loop``): the lower-case
# ``epoch:`` above. A MetricLogger line with no epoch before its count (DINOv2's
# ``dinov2/train/train.py``: ``header = "Training"`` over the run's iterations, from
# ``dinov2/logging/helpers.py`` ``log_every``: ``Training  [  500/125000]  eta: 3 days, ...``)
# counts the run's own steps: the step is the count. Where the count starts over with its
# total (SAM-HQ's ``log_every`` with no header, its epoch on a line of its own above: SysCV/
# sam-hq ``train/train.py`` and ``train/utils/misc.py``) it counts an epoch's batches: the
# reader adds the passes before (``_pass_step``).
LOGGER_COUNT = re.compile(r"\[\s*(\d+)/(\d+)\]\s+eta: ")
# The same logger headed by the epoch alone (torchvision's references ``utils.py``
# ``log_every`` under ``header = f"Epoch: [{epoch}]"``, and the loops copied from them: DETR,
# DeiT, MAE, BEiT, DINO, LeViT; 007whoami/DualFlow-AMP ``engine.py``): each runs ``for epoch in
# range(args.start_epoch, args.epochs)``, so its epochs count from 0 even where the excerpt
# opens past epoch 0 (a resumed run's ``start_epoch`` too).
LOGGER_EPOCH = re.compile(r"Epoch: \[\d+\]\s+\[\s*\d+/\d+\]\s+eta: ")
# MedicalNet's training line (Tencent/MedicalNet ``train.py``: ``'Batch: {}-{} ({}), loss =
# {:.3f}, ...'.format(epoch, batch_id, batch_id_sp, ...)``): the epoch and its batch, then
# the run's batch (``batch_id_sp``, from 0 over the epochs) in parentheses: the step.
RUN_BATCH = re.compile(r"\bBatch: \d+-\d+ \((\d+)\)")
# Cellpose's training line (MouseLand/cellpose ``cellpose/train.py`` ``train_seg``:
# ``train_logger.info(f"{iepoch}, train_loss={lavg:.4f}, test_loss={lavgt:.4f}, LR=
# {LR[iepoch]:.6f}, time {time.time()-t0:.2f}s")``, behind its logger's ``%(asctime)s
# [%(levelname)s] ``): the epoch opens the message bare, then a comma and ``key=value``s.
LEADING_COUNT = re.compile(r"(?:^|\] )(\d+), [A-Za-z][\w./-]*=")
# The same count padded to its width and followed by blanks alone, two ``key=value``s after
# it at least (0Dema0/Adversarial_Sonar_Placement ``trainer/trainer.py`` ``fit``: ``f"{epoch+1:3d}
# train={train_loss:.6f} val={val_loss:.6f} val_mse=..."``): the epoch opens the line.
LEADING_PADDED_COUNT = re.compile(r" *(\d{1,9}) +[A-Za-z][\w./-]*=\S+ +[A-Za-z][\w./-]*=")
# XLM's trainer heads its stats with the run's iteration, then its speeds (facebookresearch/
# XLM xlm/trainer.py ``print_stats``: ``"%7i - " % n_total_iter`` + ``"{:7.2f} sent/s -
# {:8.2f} words/s - "``), behind its LogFormatter's ``INFO - 03/01/19 10:00:00 - 0:01:40 - ``
# (the elapsed time's digits follow a colon: no count): the count the speed follows.
SPEED_COUNT = re.compile(r"(?<![\d:.])(\d+) -\s+\d+(?:\.\d+)? [A-Za-z]+/s - ")
# Composer's ConsoleLogger heads each record with where training is, its metrics one a line
# below (``\t Train loss/train/total: 7.2344``: llm-foundry's console): ``[batch=12/4800]:``
# for a run measured in batches, ``[epoch=2][batch=5/32]:`` (the batch of the epoch) for one
# measured in epochs (composer/loggers/console_logger.py ``_get_progress_string``).
COMPOSER_PROGRESS = r"\[(?:epoch=(\d+)\]\[)?batch=(\d+)(?:/(\d+))?\]:[ \t]*"
COMPOSER_LINE = re.compile(COMPOSER_PROGRESS + "$")
# A bracket under a key that names its counts (PixArt-alpha/-sigma train_scripts/train.py:
# ``Step/Epoch [{global_step}/{epoch}][{step}/{len(loader)}]:total_eta: ...``): the first
# count is the step itself, not an epoch (the batches of the epoch follow in the next one).
STEP_EPOCH = re.compile(r"(?:Step|Iter|Iteration)/Epoch:?\s*\[\s*(\d+)\s*/\s*\d+\s*\]")
# ``Epoch [4/100], Step [10/120]`` (StyleTTS2's ``train_first.py`` / ``train_second.py``, the
# pytorch-tutorial scripts copied everywhere): its step key counts the batches of the epoch
# (from 1), the epochs count from 1: the step is ``(epoch - 1) * 120 + 10``.
# The same counters without brackets, the epoch's batch keyed by ``iter`` or ``batch``: MONAI's
# StatsHandler ``Epoch: 2/3, Iter: 13/20 -- train_loss: 0.5``, FastPitch's DLLogger step
# (DeepLearningExamples ``common/tb_dllogger.py``) ``epoch    2 | iter   5/15 |``, Flair's
# ``epoch 2 - iter 40/100 - loss 0.5`` (each counts epochs and batches from 1). ``step`` is
# left out here: ``Epoch 2, step 1200/50000`` often counts the run's steps, not the epoch's.
# MindCV's callback keys both (mindcv/utils/callbacks.py: ``Epoch: [1/90], batch:
# [100/1000], loss: ...``). The count may name what it counts after it: pytorch/examples'
# word_language_model (``main.py``: ``'| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} |
# ms/batch {:5.2f} | loss {:5.2f} | ppl {:8.2f}'``, and the PyTorch transformer tutorial
# after it). The batch of batches may be in parentheses after the epoch of epochs: fatchord's
# WaveRNN and Tacotron (``train_wavernn.py`` / ``train_tacotron.py``: ``f'| Epoch: {e}/{epochs}
# ({i}/{total_iters}) | Loss: {avg_loss:.4f} | ...'``, both from 1). The bracketed epoch may
# print no total: the reid-strong-baseline ignite loops (1582795529/KGNet ``engine/
# trainer.py``, a fork: ``"Epoch[{}] Iteration[{}/{}] Loss: {:.3f}, ..."``, ignite's epoch
# from 1, the iteration of the epoch). Each counter may be in
# brackets of its own: faster-rcnn.pytorch and the detectors copied from it (2427795956/
# DetNet_pytorch ``train_net.py``: ``"[session %d][epoch %2d][iter %4d/%4d] loss: %.4f, lr:
# %.2e"``, the epoch from ``start_epoch``, 1), so that an excerpt pasted from a later epoch
# reads the epochs before it. Each count and its total may be in brackets of their own: the
# numpy MLP solvers of a neural-network course, copied into many repositories (09rohanchopra/
# MLP ``solver.py``: ``"Epoch [{}][{}]\t Batch [{}][{}]\t Training Loss {:.4f}".format(epoch,
# max_epoch, iteration, max_train_iteration, ...)``, both from 0): the second bracket after
# each key is its total.
EPOCH_STEP = re.compile(
    r"Epoch:?\s*\[(\d+)(?:/\d+)?\],?\s*(?:Step|Iter|Iteration|Batch|step|iter|batch):?\s*"
    r"\[\s*(\d+)\s*/\s*(\d+)\]"
    r"|\b[Ee]poch:?\s+(\d+)/\d+\s+\((\d+)/(\d+)\)"
    r"|\b[Ee]poch:?\s+(\d+)(?:/\d+)?\s*[,|-]?\s*(?:[Ii]ter(?:ation)?|[Bb]atch):?\s+(\d+)/(\d+)\b"
    r"|\b[Ee]poch:?\s+(\d+)(?:/\d+)?\s*[,|:-]?\s*(\d+)\s*/\s*(\d+)\s+(?:batches|iters|iterations|steps)\b"
    r"|\[[Ee]poch\s*(\d+)\]\s*\[(?:[Ii]ter(?:ation)?|[Bb]atch)\s*(\d+)\s*/\s*(\d+)\]"
    r"|\b[Ee]poch:?\s*\[(\d+)\]\[\d+\]\s*(?:[Ii]ter(?:ation)?|[Bb]atch|[Ss]tep):?\s*"
    r"\[(\d+)\]\[(\d+)\]")
# ``Epoch E/N, step i/M``: the step counts the epoch's batches (llama-recipes'
# ``src/llama_recipes/utils/train_utils.py`` bar: ``f"Training Epoch: {epoch+1}/{num_epochs},
# step {step}/{len(train_dataloader)} completed (loss: {loss.detach().float()})"``) or the run's
# steps. A run's count lies in its epoch's share of M; a count outside it (or one that goes
# back when the epoch moves on) counts the epoch's batches: the step is ``(E - 1) * M + i``.
EPOCH_OF_STEPS = re.compile(r"\b[Ee]poch:?\s+(\d+)/(\d+),?\s+[Ss]tep:?\s+(\d+)/(\d+)\b")
# An epoch's summary line that counts its steps, the key plural (poutyne's ColorProgress
# ``on_epoch_end``, poutyne/framework/callbacks/color_formatting.py: ``Epoch: 3/5 Train
# steps: 100 Val steps: 20 5.32s loss: ... val_loss: ...``): how many steps the epoch took,
# not which step the line is.
EPOCH_OF_COUNT = re.compile(r"\b[Ee]poch:?\s+(\d+)/\d+\b")
# A bar counting the batches of an epoch (Lightning's TQDM ``Epoch 1:  40%|###  | 4/10 [``,
# its Rich bar ``Epoch 1/9  ━━━━ 4/10``): the step is ``epoch * batches + n``. An epoch
# counted ``E/N`` before ``Epoch`` counts from 1 (Catalyst's VerboseCallback: ``4/10 * Epoch
# (train): 100%|####| 1875/1875 [``): the step is ``(E - 1) * batches + n``.
EPOCH_BAR = re.compile(r"Epoch (\d+)(?::\s*\d+%\|[^|]*\||/-?\d+\s+\S*)\s*(\d+)/(\d+)"
                        r"|(\d+)/\d+ \* Epoch \([^)]*\):\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)")
# A bar that starts its line with the batch of its epoch: Keras ``15/20 ━━━━ 0s 32ms/step -
# loss: 2.42``, Paddle's hapi ``step  4/20 - loss: 2.90``. The epoch is on a line of its own
# (``Epoch 2/3``) that no keyword brings here: the counter going back marks a new epoch, and
# so does the same count on a new line (a bar printed once an epoch, ``32/32 ...``; Keras
# redraws its last count once more on the same line, after a carriage return). MONAI's
# tutorials (copied into most of its users' scripts) print ``f"{step}/{epoch_len},
# train_loss: {loss.item():.4f}"`` under ``epoch 3/5``: the count then a comma.
# A count followed by a clock time is a date (mmengine's console and file format
# ``%m/%d %H:%M:%S``: ``06/01 10:04:00 - mmengine - INFO - Iter(train) [240/5198]``), no bar.
BATCH_BAR = re.compile(r"\s*(?:step\s+)?(\d+)/(\d+)(?:,|\s(?!\s*\d{1,2}:\d\d))")
# A tqdm counter before its postfix: ``| 120/1000 [00:10<01:30, ...``.
TQDM = re.compile(r"\|\s*(\d+)/(\d+)\s*\[")
# A tqdm bar that knows no total (an iterable without a length: a WebDataset, a generator)
# prints no bar, only ``{n}{unit} [{elapsed}, {rate}{unit}/s{postfix}]`` (tqdm's
# ``format_meter``), behind Lightning's ``Epoch 0: `` (stable-audio-tools' ``train.py``):
# ``Epoch 0: 1777it [14:37, 2.00it/s, v_num=a1b2, train/loss=nan]``. The count is the batch
# of the epoch (the run's step while the epoch never ends); the unit is no key ("it [14").
OPEN_BAR = re.compile(r"(?:\bEpoch (\d+):\s+)?(?<![\w.])(\d+)([A-Za-z]+) \[(?:\d+:)?\d+:\d\d, "
                       r"\s*(?:[\d.]+|\?)(?:\3/s|s/\3)\b")
# ...or, under a bar format of its own, ``?`` for the total: Lightning's TQDMProgressBar
# (lightning/pytorch/callbacks/progress/tqdm_progress.py ``BAR_FORMAT = "{l_bar}{bar}|
# {n_fmt}/{total_fmt} [..."``, ``convert_inf`` making an unsized loader's total None) over
# fish-speech's iterable datasets: ``Epoch 0: |          | 1650/? [10:00<00:00,  2.00it/s,
# v_num=0, train/loss=nan]``. The same two counts as above.
UNSIZED_BAR = re.compile(r"(?:\bEpoch (\d+):\s*)?\|[^|]*\|\s*(\d+)/\?\s*\[")
# The epoch in a postfix, counted from 1: GluonTS' Trainer bar (``gluonts/mx/trainer/
# _base.py``: ``"epoch": f"{epoch_no + 1}/{self.epochs}"``) ``| 30/50 [00:01<00:00,
# 30.12it/s, epoch=9/20, avg_epoch_loss=4.77]``: the counter counts that epoch's batches.
POSTFIX_EPOCH = re.compile(r"\bepoch=(\d+)/\d+")
# An epoch and the batch of that epoch, the epoch's length not printed: icefall's ``Epoch 3,
# batch 500, loss[...]`` (``egs/*/ASR/*/train.py``), snowfall's ``batch 10, epoch 0/10 global
# average objf: ...`` (the number after the epoch is the run's epochs, not the batches');
# MXNet's Speedometer (mxnet/callback.py: ``Epoch[%d] Batch [%d-%d]\tSpeed: %.2f
# samples/sec``, ``Batch [%d]`` before 1.0: the range's last batch), GluonCV's scripts after
# it (``'[Epoch {}][Batch {}], Speed: ...'``); PaddlePaddle's v2 and fluid examples count
# epochs in passes (PaddlePaddle/book: ``"Pass %d, Batch %d, Cost %f"``). The batch first or
# the epoch first (groups 1-2: epoch, batch; 3-4: batch, epoch).
EPOCH_BATCH = re.compile(r"\b(?:[Ee]poch|Pass):?\s*\[?\s*(\d+)(?:/\d+)?\s*\]?,?\s*\[?[Bb]atch:?"
                          r"\s*\[?\s*(?:\d+-)?(\d+)\s*\]?(?![\d/])"
                          r"|\b[Bb]atch:?\s*(\d+),?\s+[Ee]poch:?\s*(\d+)(?:/\d+)?\b")
# A range of the minibatches since the last print, counted over each epoch and started again
# at the next, no epoch on the line: CNTK's ProgressPrinter (cntk/logging/progress_print.py
# ``_write_progress_update``: `` Minibatch[{:4d}-{:4d}]: loss = {:0.6f} * {:d}, ...``, its
# ``updates_since_start`` reset by each ``Finished Epoch[{} of {}]: ...`` summary printed
# after the epoch). The last is where the line stands, within its epoch.
MINIBATCH_RANGE = re.compile(r"\b[Mm]inibatch\[\s*\d+-\s*(\d+)\]:")
# ESPnet2's reporter (``espnet2/train/reporter.py`` ``SubReporter.log_message``:
# ``f"{self.epoch}epoch:{self.key}:{self.prev_count + 1}-{self.count}batch: "``): the epoch
# (from 1), then the batches of that epoch the values average (counted from 1); the last is
# where the line stands.
EPOCH_RANGE = re.compile(r"(?<![\w.])(\d+)epoch:[\w-]+:\d+-(\d+)batch:")
# wenet's executor and ``log_per_step`` (``wenet/utils/executor.py``, ``train_utils.py``):
# ``TRAIN Batch {epoch}/{batch_idx} loss ...``, the epoch first. The GAN scripts' ``Batch
# 300/938`` is the batch of how many: which of the two a log prints is told by its lines
# (the first count stays while the second moves: an epoch and its batches).
SLASH_BATCH = re.compile(r"\bBatch (\d+)/(\d+)\s")
# A count of a total that no key claims (``[2000/10000]``, ``(400/2000)``, ``400/2000``
# after a logging prefix or between fields): a loop's own progress, the step (a count that
# goes back starts another pass: see ``_bar_step``). Not a date (``05/01/2024``), nor a value
# of a key before it (``mem 12/80``: unbracketed, a count must follow a separator, not a
# word); only where no epoch is printed (an epoch's batch is the epoch counters' to read).
FRACTION = re.compile(r"(?<![\w./])([\[(]?)\s*(\d+)\s*/\s*(\d+)\s*[\])]?(?![\w./])")
BEFORE_COUNT = frozenset("[(|,;-]>)")
# ...or after another key's value (``loss: inf  2000/10000``, a rank's ``Rank 0:``), a phase
# (``train: 400/2000``; in the bracket it opens: dm-haiku's ``examples/imagenet/train.py``
# ``logging.info('[Train %s/%s] %s', step_num, num_train_steps, train_scalars)``), or
# logging.basicConfig's ``INFO:root:``.
AFTER_VALUE = re.compile(r"(?:(?<![\w.])(?:[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|NaN|inf):?"
                          r"|\b(?i:train|training|progress):|\[(?i:train|training)"
                          r"|^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]*:)$")


# A count alone in brackets that ends the line, right after a value (the PyTorch quickstart's
# loop copied without its total, AlexMuresan/MNIST-PyTorch ``train_net.py``: ``f"loss:
# {loss:>7f} [{current:>5d}]"``, the samples of the epoch from 0 each epoch under its ``Epoch
# 2`` heading): the loop's own count, read as printed (its length unknown, no epoch on the
# line); with its total (``[25600/60000]``) it is FRACTION's.
TRAILING_COUNT = re.compile(r"(?<![\w.])(?:[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|NaN|inf)"
                            r"[ \t]+\[[ \t]*(\d+)\][ \t]*$")


def bare_fraction(text: str) -> tuple[int, int] | None:
    """The first count of a total that no key claims on ``text`` (see ``FRACTION``), or None.

    Example:
        >>> bare_fraction("[INFO] 400/2000 | loss=nan"), bare_fraction("mem 12/80 loss 1")
        ((400, 2000), None)
        >>> bare_fraction("loss: inf  2000/10000"), bare_fraction("INFO:root:400/2000 - loss")
        ((2000, 10000), (400, 2000))
        >>> bare_fraction("[Train 7000/100000] {'train_loss': nan}")
        (7000, 100000)
        >>> bare_fraction("[1,0]<stdout>:100/100 ━━━━ 1s 3ms/step - loss: 0.5")
        (100, 100)
    """
    for found in FRACTION.finditer(text):
        done, total = int(found.group(2)), int(found.group(3))
        before = text[:found.start()].rstrip()
        if 0 < done <= total and (found.group(1) or not before or before[-1] in BEFORE_COUNT
                                  or (before[-1] == ":" and before[-2:-1] in ("]", ")"))
                                  or AFTER_VALUE.search(before) is not None
                                  # (all before it a launcher's rank prefix: mpirun's
                                  # ``[1,0]<stdout>:`` opens the line, as torchrun's does)
                                  or len(before) <= rank_prefix_end(text)):
            return done, total
    return None


# DLLogger's step tuple (``dllogger/logger.py`` ``default_step_format`` is ``str(step)``): the
# Tacotron2/WaveGlow trainers log ``step=(epoch, i)``, ``i`` the batch of the epoch:
# ``DLL 2021-05-01 12:00:00.123456 - (0, 37) train_iter_loss : nan``. Only where the step
# opens the message (after DLLogger's `` - ``, or the line's start): a tuple further on is
# any pair a program printed (a tensor's shape).
STEP_TUPLE = re.compile(r"(?:^|\s-\s)\((\d+), (\d+)\)\s+[A-Za-z]")
# ``print(epoch, i, f'loss - {loss}')`` (DALLE-pytorch ``train_dalle.py``, ``train_vae.py``):
# two bare counts open the line, the epoch then the batch of the epoch, then the keys. The
# PyTorch CIFAR-10 tutorial (``beginner_source/blitz/cifar10_tutorial.py``: ``print(f'[{epoch +
# 1}, {i + 1:5d}] loss: {running_loss / 2000:.3f}')``, copied into most first training
# loops) puts the two in a bracket.
TWO_COUNTS = re.compile(r"\s*(?:(\d+) (\d+)|\[(\d+),\s*(\d+)\]) [A-Za-z]")
# The epoch, then the batch of that epoch alone in a bracket (ml-explore/mlx-examples
# ``cifar/main.py`` and ``speechcommands/main.py`` ``train_epoch``: ``f"Epoch {epoch:02d}
# [{batch_counter:03d}]"`` joined by `` | `` to ``Train loss 2.301``); a bracket that holds a
# total is EPOCH_ITER's. The epoch may be bracketed too (SwAV's ``"Epoch: [{0}][{1}]\t"
# "Time ..."``, facebookresearch/swav main_swav.py ``train``: the batch of the epoch, printed
# every 50).
EPOCH_BRACKET = re.compile(r"\b[Ee]poch:? *\[?(\d+)\]? *\[ *(\d+)\]")
# A step in brackets before a step's metrics: CLU's LoggingWriter (t5x, and the JAX loops
# that log through clu.metric_writers) ``[%d]%s %s`` as ``[1800] collection=train
# accuracy=0.51, loss=nan``, big_vision's ``\x1b[35m[1400]\x1b[0m training_loss = nan``. A
# bracket followed by ``<`` or ``:`` is a launcher's rank (``[1]<stdout>:``), not this; a
# field separator may follow it (``[1800] | loss nan``, ``[1800] - loss: nan``, ``[1800], ``),
# or the key right after a bracket (pyro-ppl/pyro ``examples/neutra.py``: ``"[{}]Elbo loss =
# {:.2f}"``). A number sign or parentheses that open the line number it the same way
# (``#1500 loss 2.34``, ``(1500) loss 2.34``: ``print(f"#{step} loss {loss:.2f}")``), a blank
# before the key; the reader's guard (a step never goes back, nor prints its loss twice) holds
# for them too. Parentheses right after a bracketed tag that names where the line comes from
# number it as well (pytorch/xla's ``test/test_utils.py`` ``print_training_update`` before
# 2021, and the TPU scripts copied from it: ``'[{}]({}) Loss={:.5f} Rate={:.2f} ...'.format(
# device, step, ...)`` as ``[xla:1/0](120) Loss=2.30125``): the tag opens with a letter and
# holds no blank, so a bracketed count or a sentence in brackets is not one. Each device of a
# multi-core run prints its own line of each step, in the order the processes flush them.
BRACKET_STEP = re.compile(r"(?:\[(\d+)\](?:\x1b\[0m)?(?:\s+[-|]|,)?\s*"
                          r"|^[ \t]*(?:#(\d+)|\((\d+)\))(?:\x1b\[0m)?(?:\s+[-|]|,)?\s+"
                          r"|(?:^|\s)\[(?P<tag>[A-Za-z][^\]\s]{0,39})\]\((?P<tagged>\d+)\)\s*)[A-Za-z]")
# ClassyVision's LossLrMeterLoggingHook (classy_vision/hooks/loss_lr_meter_logging_hook.py
# ``_log_loss_lr_meters``): ``Approximate meters: [0] train phase 2 (60.00% done), loss: ...,
# meters: [...], lr: 0.1000`` every ``log_freq`` batches; a phase is an epoch, whose batches
# only its last line prints (``Synced meters: ... (100.00% done), ..., processed batches:
# 500``).
PHASE_DONE = re.compile(r"\btrain phase (\d+) \((\d+(?:\.\d+)?)% done\)")
PHASE_BATCHES = re.compile(r"processed batches: (\d+)")
# Before 2020 the hook printed the phase and its batches so far on a line of their own, the
# loss on the line below it (``"Rank: {}, {} phase: {}, processed batches: {}".format(
# get_rank(), phase_type, phase_type_idx, batches)``, then ``"{} loss: {}, LR rate: {}"``,
# joined by newlines into one ``logging.info``): the phase is an epoch, the count its batch.
PHASE_COUNT = r"\btrain phase: (\d+), processed batches: (\d+)\s*$"
# What opens a line that BRACKET_STEP may number (a cheap check before the regex).
BRACKET_OPENERS = ("[", "#", "(")
# A bare count and a colon opening the message, a key after it: Sonnet's examples
# (google-deepmind/sonnet ``sonnet/examples/rnn_shakespeare.py``: ``tf.logging.info("%d:
# Training loss %f.", train_iteration, ...)``), the message opening the line, following a
# bracketed prefix (absl's ``... rnn_shakespeare.py:215] ``), python logging's default
# ``LEVEL:name:`` or a `` - `` separated prefix. The iteration, as a bracket's (the same guard:
# a count that goes back or prints its loss twice numbers something else, a rank). A count
# the same on every row is a process id, a line number or ``srun --label``'s task (SchedMD/slurm
# ``src/common/write_labelled_message.c``: ``"%0*d: "``): the reader takes a count only once
# it rose from the row before. The task's label may open a logging prefix (``7:
# INFO:tensorflow:1033: ...``), tried first so that it is not the count.
COLON_COUNT = re.compile(r"^(?:\d+: )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]*:(\d+):"
                         r"\s+[A-Za-z]|(?:^\s*|\]\s+|\s-\s)(\d+):\s+[A-Za-z]")


def epoch_length(last: int, first: int, interval: int) -> int:
    """The batches of an epoch whose count, printed every ``interval`` batches, ended at
    ``last`` before the next epoch's ``first``: the last count, and the interval less the
    next epoch's first count where that is below it (counted from 0: DGL's ``Step 00080``,
    the last of 100 batches printed every 20, then ``Step 00000``; a count printed on the
    run's grid, CycleGAN's ``iters: 1000`` then ``iters: 33``, 1067 images: the batches
    after the last count printed went unprinted). A count from 1 whose last print is on the
    interval's grid and whose next epoch opens at 1 (2024yuva/multi-crop ``train_vae.py``:
    ``if batch_index == 1 or batch_index % LOG_EVERY == 0``: ``1, 100, 200, 300`` then
    ``1``) prints its first batch besides the grid: the epoch ends at its last count.

    Example:
        >>> epoch_length(120, 40, 40), epoch_length(220, 0, 20), epoch_length(1000, 33, 100)
        (120, 240, 1067)
        >>> epoch_length(300, 1, 100), epoch_length(81, 1, 20)
        (300, 100)
    """
    if first == 1 < interval and last % interval == 0:
        return last
    return last + (interval - first if first < interval else 0)


class EpochBatches:
    """The step of the batch of an epoch where the line does not print how many batches an
    epoch holds (icefall's ``Epoch 3, batch 500``, wenet's ``Batch 3/500``, DLLogger's ``(3,
    500)``, MXNet's ``Epoch[1] Batch [650-700]``, MindSpore's ``epoch: 2 step: 50``): learnt
    from the log, one epoch at a time.

    A counter that starts over when the epoch goes up counts the batches of the epoch: an
    epoch holds its last batch printed, and the print interval less the next epoch's first
    count where that is below it (counted from 0: DGL's ``Step 00080``, the last of 100
    batches printed every 20, then ``Step 00000``; GluonCV's ``Batch 999`` of 1000 printed at
    99, 199, ...): exact where every batch prints or an epoch's batches are a multiple of the
    interval, else short by less than an interval. The longest epoch read so far is each
    epoch's length (an epoch of which few lines were read is no shorter), and the steps go on
    from there. A counter that goes on rising as the epoch goes up is the run's own step
    (:attr:`run_wide`), read as printed. The excerpt's first epoch starts at 0 while no epoch's
    length is known; once one is learnt, the epochs before the excerpt's first are that many
    of that length (epochs from 1 unless an epoch 0 is read: E2E-ASR's ``Epoch 4 | Iter 1``
    of 1200 an epoch, pasted from epoch 3, is step 3601, not 1201).

    Example:
        >>> counter = EpochBatches()
        >>> [counter.step_of(e, b) for e, b in ((0, 0), (0, 100), (0, 200), (1, 0), (3, 200))]
        [0, 100, 200, 300, 1100]
        >>> counter = EpochBatches()  # the line prints the epoch's length: ``it: 100/1000``
        >>> [counter.step_of(e, b, 1000) for e, b in ((1, 100), (1, 200), (2, 100))]
        [100, 200, 1100]
        >>> counter = EpochBatches()  # a global step beside the epoch
        >>> [counter.step_of(e, b) for e, b in ((1, 100), (1, 200), (2, 300))], counter.run_wide
        ([100, 200, 300], True)
        >>> counter = EpochBatches()  # pasted from epoch 3 (from 1), its length learnt at 4
        >>> [counter.step_of(e, b) for e, b in ((3, 601), (3, 901), (4, 1), (5, 1))]
        [601, 901, 3601, 4801]
        >>> counter = EpochBatches()  # a count that never moves: the epoch numbers the rows
        >>> [counter.step_of(e, 0) for e in (0, 1, 2, 3)]
        [0, 1, 2, 3]
    """

    __slots__ = ("base", "declared", "epoch", "first", "interval", "last", "length", "offset",
                 "run_wide", "still")

    def __init__(self) -> None:
        self.base = 1  # the run's first epoch: 1 unless an epoch 0 was read
        self.first = 0  # the excerpt's first epoch read (since the run last started over)
        self.epoch: int | None = None  # the epoch of the last batch read
        self.last = 0  # the last batch read
        self.interval = 0  # how many batches apart it prints (0: not known)
        self.offset = 0  # the batches of the epochs before this one
        self.length = 0  # batches an epoch (0: the counter has not started over yet)
        self.run_wide = False  # the count went on rising as the epoch went up
        # batches an epoch as the log's head declared them (0: not declared; see
        # declared_lengths): the rows print every N batches, so they tell it only roughly
        self.declared = 0
        # the count came back the same as the epoch went up and never moved within one (a
        # loop that prints its first batch alone, ``Epoch 3, Iter: 0``, 0merjavaid/
        # Microscopic-segmentation trainer/trainer.py): no batch counter, the epoch the step
        self.still = False

    def wrapped(self, epoch: int, batch: int, total: int) -> int:
        """``batch`` as counted where a loop prints its count modulo the epoch's length
        (tinyvision/DAMO-YOLO ``damo/apis/detector_trainer.py``: ``'epoch: {}/{}, iter:
        {}/{}'.format(self.epoch + 1, ..., (cur_iter + 1) % self.iters_per_epoch, ...)``, the
        epoch going up only after it): a ``0/N`` after a count of the same epoch is that
        epoch's ``N``-th batch, its last, not its first.

        Example:
            >>> counter = EpochBatches()
            >>> counter.step_of(1, 980, 1000)
            980
            >>> counter.wrapped(1, 0, 1000), counter.wrapped(2, 0, 1000)
            (1000, 0)
        """
        if batch == 0 and epoch == self.epoch and 0 < self.last <= total:
            return total
        return batch

    def step_of(self, epoch: int, batch: int, total: int = 0, *, keep: bool = True) -> int:
        """The step of ``batch`` of ``epoch`` (``total``: the batches the line says the epoch
        holds, 0 where it does not); ``keep=False`` asks without reading (a message that
        numbers its step within an epoch: MindSpore's ``epoch: 2 step: 50. Invalid loss``)."""
        state = tuple(getattr(self, name) for name in self.__slots__)
        if epoch == 0:
            self.base = 0
        if self.epoch is None or epoch < self.epoch:  # the first, or a run that started over
            self.offset = self.length = 0
            self.run_wide = False
            self.first = epoch
        elif epoch == self.epoch:
            if batch > self.last:
                self.interval = batch - self.last
                self.still = False
        elif self.run_wide:
            pass
        elif self.length or batch <= self.last:  # the counter starts over with each epoch
            self.still = batch == self.last and not self.interval and not self.length
            held = total or (self.declared if self.declared > self.last else 0) or (
                epoch_length(self.last, batch, self.interval))
            if not self.length and self.first > self.base:
                # the length first learnt: the excerpt's first epoch was not the run's, and
                # the epochs before it are that many of this length (their batches unread)
                self.offset = (self.first - self.base) * held
            self.length = max(self.length, held)
            self.offset += self.length * (epoch - self.epoch)
        else:
            self.run_wide = True
        self.epoch, self.last = epoch, batch
        step = epoch if self.still else batch if self.run_wide else self.offset + batch
        if not keep:
            for name, value in zip(self.__slots__, state, strict=True):
                setattr(self, name, value)
        return step
