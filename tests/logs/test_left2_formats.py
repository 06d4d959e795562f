"""The misses the last rounds left, second pass: formats the doctor read wrong, each fixed by a
general rule, each excerpt written from the tool's own format strings (each test names its
source), a fault beside healthy controls. Each fault test failed on the parent commit
(3eedced); the controls pass there too unless their docstring says otherwise.

- ProteinMPNN's epoch line (``train: {perplexity}, valid: {perplexity}``): the training
  split's name keying a non-finite value is the training objective, not an evaluation's
  score;
- sacrebleu's score string (``BLEU = 12.34 45.6/18.2/9.1/4.8 (BP = ...)``): BLEU is measured
  on held-out sentences only;
- flash-attn's refusal of float32 queries and cuBLAS' refusal of a float16 GEMM: AMP014;
- ``#1500 loss x`` and ``(1500) loss x``: the number that opens the line is the step;
- pfrl's ``statistics:[('average_q', ...), ('average_loss', nan), ...]``: a ``('key',
  value)`` tuple is read, and a mean loss NaN while ``n_updates`` is 0 is a mean over none;
- Open3D-ML's ``=== EPOCH 5/100 ===`` heading numbers the rows below it;
- gsplat's ``PSNR: ..., SSIM: ...`` and Pointcept's ``Val result: mIoU/mAcc/allAcc ...``:
  evaluation prints that name no split;
- OpenPCDet's two bars (before 2022-08): the inner bar's ``total_it`` numbers the loss the
  ``epochs`` bar below it prints.

Left as documented misses (no test): torchdrug (torchdrug/core/engine.py ``evaluate``,
core/logger.py ``LoggingLogger``): its finite ``mean squared error: 0.12`` lines hold no
keyword of the prefilter (its 40-keyword budget has no room for ``error``), so no row is read
before a NaN and its step cannot be told; its evaluation metrics under ``Evaluate on valid``
fill a table of tasks (``auroc [CT_TOX]: nan``, a bracketed task in the key) longer than the
reach of an announced evaluation (and an AUROC is NaN on a healthy run whose split holds one
class of a task: no rule may read it alone), and its ``average ...`` epoch lines still count
as rows.
xformers' ``No operator found for `memory_efficient_attention_forward` with inputs:`` lists
each backend's reasons on the lines below it, a dtype reason beside capability and head-size
reasons of other backends: the dtype is not the one cause, and a row per line would flag runs
that failed for their GPU. ``L_total`` / ``L_rec``: no tool's source was found printing them,
and a single letter before a word names lengths and layers as often as losses: not mapped. A
0 loss beside a NaN gradient norm in a generic layout (``step 100 loss 0.0000 grad_norm
nan``) stays silent on one to three rows: without HF's ``logging_nan_inf_filter`` a printed
0.0000 there is as well a loss that decayed below the print's digits on a step GradScaler
skipped (its norm is non-finite after ``unscale_``); on more rows AMP007 reads it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.metric_reader import MetricReader


def _findings(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None]]:
    """(id, step) above info, where "nothing to diagnose" may be the answer (a healthy log
    that holds nothing the doctor reads as a training metric, a traceback that is no AMP
    fault's)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [(d.code, d.step) for d in diagnose(str(path)).faults]

# -- ProteinMPNN: dauparas/ProteinMPNN training/training.py ----------------------------------


def _proteinmpnn(nan_epoch: int | None = None, *, valid_nan: bool = True,
                 steps_per_epoch: int = 500) -> list[str]:
    """ProteinMPNN's ``log.txt`` / console line (dauparas/ProteinMPNN
    ``training/training.py``: ``f'epoch: {e+1}, step: {total_step}, time: {dt}, train:
    {train_perplexity_}, valid: {validation_perplexity_}, train_acc: {train_accuracy_},
    valid_acc: {validation_accuracy_}'``, each value ``np.format_float_positional(np.float32(
    v), unique=False, precision=3)``: ``nan`` for NaN; the perplexity is ``np.exp`` of the
    loss). ``total_step`` counts the run's batches."""
    lines = []
    for epoch in range(1, 7):
        bad = nan_epoch is not None and epoch >= nan_epoch
        train = "nan" if bad else f"{9.0 - epoch * 0.2:.3f}"
        valid = "nan" if bad and valid_nan else f"{9.1 - epoch * 0.2:.3f}"
        lines.append(f"epoch: {epoch}, step: {epoch * steps_per_epoch}, time: 812.3, "
                     f"train: {train}, valid: {valid}, train_acc: {0.30 + epoch / 100:.3f}, "
                     f"valid_acc: {0.29 + epoch / 100:.3f}")
    return lines


def test_proteinmpnn_training_perplexity_is_the_loss(tmp_path: Path) -> None:
    """Before: AMP013 alone (``valid`` made the line an evaluation's, ``train: nan`` read as
    one of its scores), or, beside a NaN ``valid``, the training NaN not read at all."""
    assert faults(tmp_path, _proteinmpnn(4)) == [("AMP006", 2000), ("AMP013", 2000)]
    assert faults(tmp_path, _proteinmpnn(4, valid_nan=False)) == [("AMP006", 2000)]


def test_proteinmpnn_controls(tmp_path: Path) -> None:
    """Healthy runs: nothing to diagnose, as on the parent. A finite ``train:`` value is not
    read as the loss: beside a split's name alone it may be an accuracy (PyTorch Geometric's
    ``Train: 0.95, Val: 0.78``), which sits at 0 early in a healthy run (AMP007 would be a
    false alarm); only a non-finite one says the training objective broke."""
    assert _findings(tmp_path, _proteinmpnn()) == []
    assert _findings(tmp_path, _proteinmpnn(steps_per_epoch=1234)) == []


# -- sacrebleu's score string in a translation loop ------------------------------------------


def _bleu(nan_step: int | None = None, *, score: str = "12.34") -> list[str]:
    """A translation loop's training lines and sacrebleu's score string after each
    evaluation (mjpost/sacrebleu ``sacrebleu/sacrebleu.py`` 1.x ``BLEU.format``: ``'BLEU =
    {score:.{width}f} {precisions} (BP = {bp:.3f} ratio = {ratio:.3f} hyp_len = {sys_len:d}
    ref_len = {ref_len:d})'``, the precisions ``'/'.join('{:.1f}')``; printed as
    ``str(bleu)``, the line an MT toolkit logs after its validation decode)."""
    lines = []
    for step in range(100, 3001, 100):
        lines.append(f"step {step} loss {4.0 - step / 1e3:.4f} lr 0.000500")
        if step % 1000 == 0:
            value = "nan" if step == nan_step else score
            lines.append(f"BLEU = {value} 45.6/18.2/9.1/4.8 (BP = 1.000 ratio = 1.012 "
                         "hyp_len = 12345 ref_len = 12200)")
    return lines


def test_bleu_nan_is_an_evaluation_metric(tmp_path: Path) -> None:
    """Before: silence (``BLEU`` named nothing the lexicon knows, on a line without an
    evaluation word)."""
    assert faults(tmp_path, _bleu(2000)) == [("AMP013", 2000)]


def test_bleu_controls(tmp_path: Path) -> None:
    """Healthy runs, a score of 0 too (an untrained model's first decode; pass on the parent
    too)."""
    assert faults(tmp_path, _bleu()) == []
    assert faults(tmp_path, _bleu(score="0.00")) == []


# -- fp16 kernels that refuse a dtype: flash-attn, cuBLAS --------------------------------------

_TRACEBACK = ["Traceback (most recent call last):",
              '  File "train.py", line 212, in <module>',
              "    loss = model(**batch).loss",
              '  File "/x/flash_attn/flash_attn_interface.py", line 91, in _flash_attn_forward',
              "    out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = "
              "flash_attn_cuda.fwd("]


def test_fp16_kernel_refusals(tmp_path: Path) -> None:
    """flash-attn's ``TORCH_CHECK(q_dtype == torch::kFloat16 || q_dtype == torch::kBFloat16,
    "FlashAttention only support fp16 and bf16 data type")`` (Dao-AILab/flash-attention
    ``csrc/flash_attn/flash_api.cpp``; FlashAttention 3's ``hopper/flash_api.cpp``: "only
    supports fp16, bf16, and fp8_e4m3 data type"), and torch's ``TORCH_CUDABLAS_CHECK`` on
    the float16 GEMM (pytorch/pytorch ``aten/src/ATen/cuda/CUDABlas.cpp`` ``gemm<at::Half>``,
    ``aten/src/ATen/cuda/Exceptions.h``: ``"CUDA error: ", _cublasGetErrorEnum(__err), " when
    calling `" #EXPR "`"``). Before: nothing to diagnose."""
    flash = [*_TRACEBACK, "RuntimeError: FlashAttention only support fp16 and bf16 data type"]
    assert faults(tmp_path, flash) == [("AMP014", None)]
    flash3 = ["RuntimeError: FlashAttention only supports fp16, bf16, and fp8_e4m3 data type"]
    assert faults(tmp_path, flash3) == [("AMP014", None)]
    cublas = ["RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling "
              "`cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, "
              "CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, "
              "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`"]
    assert faults(tmp_path, cublas) == [("AMP014", None)]


def test_fp16_kernel_refusal_controls(tmp_path: Path) -> None:
    """Not fp16's: cuBLAS refusing a float32 GEMM, flash-attn's GPU check (pass on the parent
    too)."""
    sgemm = ["RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling "
             "`cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`"]
    assert _findings(tmp_path, sgemm) == []
    gpu = ["RuntimeError: FlashAttention only supports Ampere GPUs or newer."]
    assert _findings(tmp_path, gpu) == []


# -- a number sign or parentheses opening the line: the step ---------------------------------


def _numbered(opener: str, nan_from: int | None = None, *, ranks: int = 1) -> list[str]:
    """A hand-written loop's ``print(f"#{step} loss {loss:.4f} lr {lr}")`` (or
    ``f"({step}) ..."``), the forms ``tests/logs/test_counter_marks.py`` holds for ``Step
    #1500`` and ``[1500] | loss``; no one tool's. ``ranks``: each rank prints its own
    number the same way (``#0 loss ...``, ``#1 loss ...``): no step."""
    lines = []
    for step in range(100, 3001, 100):
        value = "nan" if nan_from is not None and step >= nan_from else f"{2.3 - step / 1e4:.4f}"
        if ranks > 1:
            lines += [f"{opener.format(n=rank)} loss {value} lr 0.0001" for rank in range(ranks)]
        else:
            lines.append(f"{opener.format(n=step)} loss {value} lr 0.0001")
    return lines


def test_number_sign_or_parentheses_open_the_step(tmp_path: Path) -> None:
    """Before: step 15 (the rows counted: no counter was read before the loss)."""
    assert faults(tmp_path, _numbered("#{n}", 1500)) == [("AMP006", 1500)]
    assert faults(tmp_path, _numbered("({n})", 1500)) == [("AMP006", 1500)]


def test_number_sign_controls(tmp_path: Path) -> None:
    """Healthy runs, and ranks numbered the same way: no rank's number is taken for a step
    once the numbers go back (the rows are counted; pass on the parent too)."""
    assert faults(tmp_path, _numbered("#{n}")) == []
    assert faults(tmp_path, _numbered("({n})")) == []
    ranked = faults(tmp_path, _numbered("#{n}", 1500, ranks=2))
    assert [code for code, _step in ranked] == ["AMP006"]
    assert ranked[0][1] not in (0, 1)


# -- pfrl: pfrl/experiments/train_agent.py, pfrl/agents/dqn.py ---------------------------------


def _pfrl(nan_from: int | None = None, *, replay_start: int = 1000,
          update_interval: int = 1) -> list[str]:
    """pfrl's ``train_agent`` at each episode's end (pfnet/pfrl ``pfrl/experiments/
    train_agent.py``: ``logger.info("outdir:%s step:%s episode:%s R:%s", ...)`` then
    ``logger.info("statistics:%s", agent.get_statistics())``, behind ``logging.basicConfig``'s
    ``INFO:name:`` as its examples configure it), DQN's statistics (``pfrl/agents/dqn.py``
    ``get_statistics``: ``[("average_q", _mean_or_nan(self.q_record)), ("average_loss",
    _mean_or_nan(self.loss_record)), ("cumulative_steps", ...), ("n_updates", self.optim_t),
    ("rlen", len(self.replay_buffer))]``: NaN means over no update until the replay buffer
    holds ``replay_start_size`` transitions). 200-step episodes."""
    head = "INFO:pfrl.experiments.train_agent:"
    lines = []
    for episode in range(40):
        t = 200 * (episode + 1)
        updates = max(0, t - replay_start) // update_interval
        bad = nan_from is not None and t >= nan_from
        q = "nan" if bad or updates == 0 else f"{1.5 + episode / 10}"
        loss = "nan" if bad or updates == 0 else f"{0.05 - episode / 1000}"
        lines += [f"{head}outdir:results/20240601T100000.000000 step:{t} episode:{episode} "
                  f"R:{-200.0 + episode}",
                  f"{head}statistics:[('average_q', {q}), ('average_loss', {loss}), "
                  f"('cumulative_steps', {t}), ('n_updates', {updates}), ('rlen', {t})]"]
    return lines


def test_pfrl_average_loss_nan_after_updates(tmp_path: Path) -> None:
    """Before: nothing to diagnose (a ``('key', value)`` tuple's value had no key)."""
    assert faults(tmp_path, _pfrl(4000)) == [("AMP006", 4000)]
    assert faults(tmp_path, _pfrl(6000, replay_start=5000, update_interval=4)) == [
        ("AMP006", 6000)]


def test_a_loops_own_average_nan_before_its_first_update_is_read() -> None:
    """The no-update rule is pfrl's statistics' (``(name, value)`` tuples): a loop's own
    ``avg_loss=nan, num_updates=0`` may be its first batch's NaN, and is read (found by the
    generic reader's property test after the merge)."""
    (event,) = MetricReader().read("avg_loss=nan, loss_scale=0.00390625, num_updates=0", 1)
    assert event.loss is not None and math.isnan(event.loss) and event.step == 0


def test_pfrl_controls(tmp_path: Path) -> None:
    """Healthy runs: ``average_loss`` NaN while ``n_updates`` is 0 is a mean over no update
    (nothing to diagnose on the parent, which fails this control)."""
    assert faults(tmp_path, _pfrl()) == []
    assert faults(tmp_path, _pfrl(replay_start=5000, update_interval=4)) == []


# -- Open3D-ML: ml3d/torch/pipelines/semantic_segmentation.py (run_train, save_logs) ----------


def _open3d_ml(nan_epoch: int | None = None, *, start: int = 0) -> list[str]:
    """Open3D-ML's semantic segmentation pipeline (isl-org/Open3D-ML ``ml3d/torch/pipelines/
    semantic_segmentation.py`` ``run_train``: ``for epoch in range(cfg.start_epoch,
    cfg.max_epoch + 1): log.info(f'=== EPOCH {epoch:d}/{cfg.max_epoch:d} ===')``, the
    ``tqdm(train_loader, desc='training')`` and ``desc='validation'`` bars, then
    ``save_logs``: ``Loss train: {:.3f}  eval: {:.3f}``...; its logger's ``%(levelname)s -
    %(asctime)s - %(module)s - %(message)s``). ``start``: a resumed run's
    ``cfg.start_epoch``."""
    def log(message: str) -> str:
        return f"INFO - 2024-06-01 10:00:00,000 - semantic_segmentation - {message}"
    lines = [log(f"Started training at epoch: {start}")]
    for epoch in range(start, start + 8):
        bad = nan_epoch is not None and epoch >= nan_epoch
        train = "nan" if bad else f"{0.5 - epoch / 1000:.3f}"
        valid = "nan" if bad else f"{0.6 - epoch / 1000:.3f}"
        lines += [log(f"=== EPOCH {epoch:d}/100 ==="),
                  "training: 100%|##########| 1136/1136 [10:00<00:00,  1.89it/s]",
                  "validation: 100%|##########| 200/200 [01:00<00:00,  3.33it/s]",
                  log(f"Loss train: {train}  eval: {valid}"),
                  log("Mean acc train: 0.800  eval: 0.780"),
                  log("Mean IoU train: 0.600  eval: 0.550")]
    return lines


def test_open3d_ml_epoch_heading_numbers_its_rows(tmp_path: Path) -> None:
    """Before: the rows were counted (step 6 for a resumed run's epoch 35): the heading's
    ``EPOCH 35/100`` between rules was no epoch line (upper case, its count after a slash)."""
    assert faults(tmp_path, _open3d_ml(35, start=30)) == [("AMP006", 35), ("AMP013", 35)]


def test_open3d_ml_controls(tmp_path: Path) -> None:
    """Healthy runs, from 0 and resumed (pass on the parent too); Keras' bare ``Epoch 3/10``
    over its bar stays no epoch line (``test_classic_formats``)."""
    assert faults(tmp_path, _open3d_ml()) == []
    assert faults(tmp_path, _open3d_ml(start=30)) == []


# -- evaluation prints that name no split: gsplat, Pointcept -----------------------------------


def _gsplat(nan_eval: bool = False, *, psnr: str = "24.512") -> list[str]:
    """gsplat's bar (nerfstudio-project/gsplat ``examples/simple_trainer.py``: ``desc =
    f"loss={loss.item():.3f}| " f"sh degree={sh_degree_to_use}| "`` on ``tqdm.trange(init_step,
    max_steps)``) and its ``eval`` at the default ``eval_steps`` (7000): ``print(f"PSNR:
    {stats['psnr']:.3f}, SSIM: {stats['ssim']:.4f}, LPIPS: {stats['lpips']:.3f} " f"Time:
    {stats['ellipse_time']:.3f}s/image " f"Number of GS: {stats['num_GS']}")``."""
    lines = []
    for step in range(0, 9000, 50):
        lines.append(f"loss={0.2 - step / 1e6:.3f}| sh degree={min(3, step // 1000)}| : "
                     f"{100 * step // 30000:>3}%|##        | {step}/30000 [02:10<07:08, "
                     "53.67it/s]")
        if step == 7000:
            ssim, lpips = ("nan", "nan") if nan_eval else ("0.8123", "0.201")
            lines.append(f"PSNR: {'nan' if nan_eval else psnr}, SSIM: {ssim}, LPIPS: {lpips} "
                         "Time: 0.012s/image Number of GS: 1234567")
    return lines


def _pointcept(nan_epoch: int | None = None) -> list[str]:
    """Pointcept's ``InformationWriter`` and ``SemSegEvaluator`` (Pointcept/Pointcept
    ``pointcept/engines/hooks/misc.py``: ``Train: [{epoch}/{max_epoch}][{iter}/{len}] ...
    loss: {:.4f} Lr: {:.5f}``; ``pointcept/engines/hooks/evaluator.py``: ``">>>>>>>>>>>>>>>>
    Start Evaluation >>>>>>>>>>>>>>>>"``, ``"Val result: mIoU/mAcc/allAcc
    {:.4f}/{:.4f}/{:.4f}."``, ``"<<<<<<<<<<<<<<<<< End Evaluation <<<<<<<<<<<<<<<<<"``),
    behind its ``[%(asctime)s %(levelname)s %(filename)s line %(lineno)d %(process)d]``."""
    def log(message: str) -> str:
        return f"[2024-06-01 10:00:00,000 INFO evaluator.py line 120 12345] {message}"
    lines = []
    for epoch in range(1, 5):
        for i in range(50, 1001, 50):
            lines.append(log(f"Train: [{epoch}/100][{i}/1000] Data 0.010 (0.012) Batch 0.500 "
                             "(0.510) Remain 10:00:00 loss: 1.2000 Lr: 0.00100"))
        scores = "nan/nan/nan" if nan_epoch is not None and epoch >= nan_epoch else (
            "0.6500/0.7000/0.9000")
        lines += [log(">>>>>>>>>>>>>>>> Start Evaluation >>>>>>>>>>>>>>>>"),
                  log(f"Val result: mIoU/mAcc/allAcc {scores}."),
                  log("<<<<<<<<<<<<<<<<< End Evaluation <<<<<<<<<<<<<<<<<")]
    return lines


def test_evaluation_prints_without_a_split(tmp_path: Path) -> None:
    """Before: silence (no evaluation word on either line; gsplat's ``Number of GS`` was read
    as a step counter, ``gs``)."""
    assert faults(tmp_path, _gsplat(nan_eval=True)) == [("AMP013", 7000)]
    assert faults(tmp_path, _pointcept(3)) == [("AMP013", 3000)]


def test_evaluation_prints_without_a_split_controls(tmp_path: Path) -> None:
    """Healthy runs; a PSNR of +inf (a view rendered exactly) is no fault, and the bar right
    below the evaluation print is training's again (pass on the parent too)."""
    assert faults(tmp_path, _gsplat()) == []
    assert faults(tmp_path, _gsplat(psnr="inf")) == []
    assert faults(tmp_path, _pointcept()) == []


# -- OpenPCDet before 2022-08: tools/train_utils/train_utils.py, two bars ----------------------


def _openpcdet_bars(nan_at: int | None = None, *, epochs: range = range(3),
                    timers: bool = True, noise: Sequence[str] = ()) -> list[str]:
    """OpenPCDet's two bars as a log file holds them (open-mmlab/OpenPCDet
    ``tools/train_utils/train_utils.py`` before 97a4e42, 2022-08: ``train_model``'s
    ``tqdm.trange(start_epoch, total_epochs, desc='epochs', dynamic_ncols=True)`` and
    ``train_one_epoch``'s ``tqdm.tqdm(total=total_it_each_epoch, leave=leave_pbar,
    desc='train')``; each batch ``pbar.update()``, ``pbar.set_postfix(dict(total_it=
    accumulated_iter))``, ``tbar.set_postfix(disp_dict)`` with ``disp_dict`` the loss and
    learning rate, since d9e76fe (2021-12) the ``d_time``/``f_time``/``b_time`` timers after
    them). 1856 batches an epoch, one redraw of each bar in 50 kept; ``noise`` between the two
    bars every 350 batches (a second process's stderr between two redraws:
    test_interleaved_formats)."""
    per_epoch = 1856
    lines = []
    done = epochs[0] * per_epoch
    for epoch in epochs:
        for it in range(1, per_epoch + 1):
            done += 1
            if it % 50 and it != per_epoch:
                continue
            loss = "nan" if nan_at is not None and done >= nan_at else f"{1.5 - done / 1e5:.3f}"
            timer = (", d_time=0.01(0.02), f_time=0.20(0.21), b_time=0.30(0.31)"
                     if timers else "")
            lines += [f"train:  {100 * it // per_epoch:>2}%|###       | {it}/{per_epoch} "
                      f"[03:00<06:18,  3.32it/s, total_it={done}]",
                      *(noise if it % 350 == 0 else ()),
                      f"epochs:  {100 * epoch // 80:>2}%|          | {epoch}/80 [13:00<6:17:00, "
                      f"780.00s/it, loss={loss}, lr=0.003{timer}]"]
    return lines


def test_openpcdet_two_bars(tmp_path: Path) -> None:
    """Before: step 1 (the ``epochs`` bar's percentage was read as its epoch, its count as
    the step); the inner bar's ``total_it`` above it is the step."""
    assert faults(tmp_path, _openpcdet_bars(2456)) == [("AMP006", 2456)]
    assert faults(tmp_path, _openpcdet_bars(57030, epochs=range(30, 32), timers=False)) == [
        ("AMP006", 57030)]


def test_openpcdet_two_bars_controls(tmp_path: Path) -> None:
    """Healthy runs (pass on the parent too)."""
    assert faults(tmp_path, _openpcdet_bars()) == []
    assert faults(tmp_path, _openpcdet_bars(epochs=range(30, 32), timers=False)) == []
