"""Generative-model and LLM trainers: excerpts written from each tool's own format strings
(each test names its source), a fault beside healthy controls.

- BasicSR's ``MessageLogger`` (XPixelGroup/BasicSR ``basicsr/utils/logger.py``: ``[{exp_name[:5]}
  ..][epoch:{epoch:3d}, iter:{current_iter:8,d}, lr:(...)] [eta: ..., time (data): ...]``
  then ``{k}: {v:.4e}`` for each loss term): its terms are ``l_pix``, ``l_g_gan``,
  ``l_d_real`` (``basicsr/models/sr_model.py``, ``esrgan_model.py``), "l" for loss;
- the image-to-image GAN visualizer (junyanz/pytorch-CycleGAN-and-pix2pix ``util/
  visualizer.py`` ``print_current_losses``: ``(epoch: %d, iters: %d, time: %.3f, data: %.3f)
  `` then ``%s: %.3f`` for each loss; NVIDIA/pix2pixHD and NVlabs/SPADE ``util/visualizer.py``
  ``print_current_errors`` without ``data``): loss terms named as the model names them
  (``G_GAN``, ``D_real``, ``cycle_A``), ``iters`` the epoch's images; pix2pixHD's ``--fp16``
  trains under apex amp O1 (``train.py``), whose ``Gradient overflow.`` lines fall between;
- LLM and diffusion trainers the doctor read right before (controls only): karpathy/llm.c,
  pytorch/torchtune, AI-Hypercomputer/maxtext, huggingface/nanotron, huggingface/picotron,
  KellerJordan/modded-nanogpt, crowsonkb/k-diffusion, lucidrains/denoising-diffusion-pytorch,
  facebookresearch/metaseq (its fp16 overflow notes too).

Each fault test failed on the parent commit (3eedced); controls say where they pass there.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults


def _basicsr(nan_from: int | None = None, *, every: int = 100, total: int = 2000,
             esrgan: bool = False, start: int = 0, epoch_iters: int = 800) -> list[str]:
    """BasicSR's console, every ``every`` iterations from ``start``: ``basicsr/train.py``
    logs ``Start training from epoch: ..., iter: ...``, then ``MessageLogger`` one line each
    ``print_freq``; a validation every 1000 iterations (``sr_model.py``
    ``_log_validation_metric_values``). Terms NaN from iteration ``nan_from``."""
    lines = [f"2024-06-01 10:00:00,000 INFO: Start training from epoch: {start // epoch_iters}, "
             f"iter: {start}"]
    for it in range(start + every, start + total + 1, every):
        bad = nan_from is not None and it >= nan_from

        def term(x: float, bad: bool = bad) -> str:
            return "nan" if bad else f"{x:.4e}"

        if esrgan:
            terms = (f"l_g_pix: {term(1.2e-2)} l_g_percep: {term(2.31)} l_g_gan: {term(4.5e-3)} "
                     f"l_d_real: {term(0.69)} out_d_real: {term(1.2)} l_d_fake: {term(0.7)} "
                     f"out_d_fake: {term(-1.1)} ")
            name = "ESRGA"
        else:
            terms = f"l_pix: {term(2.4e-2 - it / 1e8)} "
            name = "train"
        lines.append(f"2024-06-01 10:{it // 100 % 60:02d}:00,000 INFO: [{name}..][epoch:"
                     f"{(it - 1) // epoch_iters:3d}, iter:{it:8,d}, lr:(1.000e-04,)] [eta: 1 day, "
                     f"2:03:04, time (data): 0.123 (0.002)] {terms}")
        if it % 1000 == 0:
            lines += ["2024-06-01 10:00:00,000 INFO: Validation Set5",
                      f"\t # psnr: 30.1234\tBest: 30.1234 @ {it} iter", "",
                      "2024-06-01 10:00:00,000 INFO: Saving models and training states."]
    return lines


def test_basicsr_loss_terms_are_losses(tmp_path: Path) -> None:
    """Before: ``l_pix`` and ``l_g_gan`` named no loss (no loss noun), and the finite lines
    hold no keyword: "nothing to diagnose" on the NaN runs."""
    assert faults(tmp_path, _basicsr(1300)) == [("AMP006", 1300)]
    assert faults(tmp_path, _basicsr(2500, esrgan=True, total=4000)) == [("AMP006", 2500)]
    assert faults(tmp_path, _basicsr(101_050, every=50, start=100_000)) == [("AMP006", 101_050)]


def test_basicsr_controls(tmp_path: Path) -> None:
    """Healthy runs: SR every 100 iterations, ESRGAN every 50, one resumed at 100,000 (read
    on the second pass, every line a candidate; "nothing to diagnose" on the parent)."""
    for lines in (_basicsr(), _basicsr(esrgan=True, every=50),
                  _basicsr(start=100_000, total=3000)):
        assert faults(tmp_path, lines) == []


def _prints(dataset: int, epochs: int, print_freq: int,
            batch: int = 1) -> list[tuple[int, int, int]]:
    """(epoch, epoch_iter, total_iters) of each loss line of the visualizer's loop
    (pytorch-CycleGAN-and-pix2pix ``train.py``: both count images, ``batch_size`` a step;
    it prints where ``total_iters % print_freq == 0``)."""
    prints, total = [], 0
    for epoch in range(1, epochs + 1):
        epoch_iter = 0
        while epoch_iter < dataset:
            total += batch
            epoch_iter += batch
            if total % print_freq == 0:
                prints.append((epoch, epoch_iter, total))
    return prints


_CYCLEGAN = ("D_A", 0.25), ("G_A", 0.4), ("cycle_A", 1.2), ("idt_A", 0.5), ("D_B", 0.2), \
    ("G_B", 0.3), ("cycle_B", 1.1), ("idt_B", 0.6)
_PIX2PIX = ("G_GAN", 2.1), ("G_L1", 30.2), ("D_real", 0.4), ("D_fake", 0.3)
_SPADE = ("GAN", 0.9), ("GAN_Feat", 3.2), ("VGG", 2.1), ("D_Fake", 0.4), ("D_real", 0.35)


def _visualizer(losses: tuple[tuple[str, float], ...], nan_from: int | None = None, *,
                dataset: int = 1067, epochs: int = 3, print_freq: int = 100, batch: int = 1,
                data: bool = True) -> list[str]:
    """The visualizer's loss lines (``data``: CycleGAN's header, else SPADE's and
    pix2pixHD's), the loop's own prints between: ``End of epoch``, the scheduler's
    ``learning rate %.7f -> %.7f`` (``models/base_model.py``), the checkpoint lines. The
    losses NaN from image ``nan_from``."""
    lines = ["----------------- Options ---------------", "batch_size: 1", "----------------- "
             "End -------------------", f"The number of training images = {dataset}",
             "initialize network with normal", "---------- Networks initialized -------------",
             "[Network G_A] Total number of parameters : 11.378 M",
             "-----------------------------------------------"]
    epoch_before = 1
    for epoch, epoch_iter, total in _prints(dataset, epochs, print_freq, batch):
        if epoch != epoch_before:
            lines += [f"saving the model at the end of epoch {epoch_before}, iters {total}",
                      f"End of epoch {epoch_before} / 200 \t Time Taken: 250 sec",
                      "learning rate 0.0002000 -> 0.0002000"]
            epoch_before = epoch
        bad = nan_from is not None and total >= nan_from
        header = (f"(epoch: {epoch}, iters: {epoch_iter}, time: 0.123, data: 0.456) " if data
                  else f"(epoch: {epoch}, iters: {epoch_iter}, time: 0.210) ")
        lines.append(header + "".join(f"{name}: {'nan' if bad else f'{value:.3f}'} "
                                      for name, value in losses))
        if total % 5000 == 0:
            lines.append(f"saving the latest model (epoch {epoch}, total_iters {total})")
    return lines


def test_visualizer_losses_are_read(tmp_path: Path) -> None:
    """Before: the visualizer's terms (``G_A``, ``D_real``) named no loss and its finite
    lines hold no keyword: "nothing to diagnose". A NaN past the first epoch is numbered by
    the lines before it (the excerpt read again, every line a candidate: the first reading
    saw only the NaN lines, counted within their epoch)."""
    assert faults(tmp_path, _visualizer(_CYCLEGAN, 1500)) == [("AMP006", 1500)]
    assert faults(tmp_path, _visualizer(_CYCLEGAN, 2600)) == [("AMP006", 2600)]
    assert faults(tmp_path, _visualizer(_PIX2PIX, 300, dataset=400)) == [("AMP006", 300)]
    assert faults(tmp_path, _visualizer(_SPADE, 3000, dataset=2975, epochs=2,
                                        data=False)) == [("AMP006", 3000)]


def test_visualizer_controls(tmp_path: Path) -> None:
    """Healthy runs: CycleGAN over three epochs, pix2pix at batch size 4 printing every 400
    images, SPADE's header without ``data`` ("nothing to diagnose" on the parent)."""
    for lines in (_visualizer(_CYCLEGAN), _visualizer(_PIX2PIX, batch=4, print_freq=400,
                                                       dataset=2000, epochs=4),
                  _visualizer(_SPADE, dataset=2975, epochs=2, data=False)):
        assert faults(tmp_path, lines) == []


_APEX_O1 = ["Selected optimization level O1:  Insert automatic casts around Pytorch functions "
            "and Tensor methods.", "", "Defaults for this optimization level are:",
            "enabled                : True", "opt_level              : O1",
            "loss_scale             : dynamic"]


def _overflow(scale: float) -> str:
    """apex amp's own line (apex/amp/scaler.py ``update_scale``)."""
    return f"Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to {scale}"


def _pix2pixhd_fp16(collapse_after: int | None = None, *, halvings: int = 40,
                    sawtooth: bool = False) -> list[str]:
    """pix2pixHD ``--fp16`` (NVIDIA/pix2pixHD ``train.py``: ``amp.initialize(..., opt_level=
    'O1')``, ``print_freq`` 100, 2975 Cityscapes images): apex halves its 65536 at start
    (five overflows), then the losses every 100 images; ``sawtooth``: the scale doubles
    every 2000 clean iterations and one overflow halves it back; ``collapse_after``: every
    iteration overflows after that print, ``halvings`` times, and the excerpt ends there."""
    lines = [*_APEX_O1, "#training images = 2975"]
    lines += [_overflow(65536.0 / 2 ** k) for k in range(1, 6)]
    for epoch, epoch_iter, total in _prints(2975, 2, 100):
        if sawtooth and total % 2000 == 100:
            lines.append(_overflow(2048.0))
        lines.append(f"(epoch: {epoch}, iters: {epoch_iter}, time: 0.210) G_GAN: 0.912 "
                     "G_GAN_Feat: 3.214 G_VGG: 2.108 D_real: 0.401 D_fake: 0.352 ")
        if total == collapse_after:
            lines += [_overflow(2048.0 / 2 ** k) for k in range(1, halvings + 1)]
            break
    return lines


def test_pix2pixhd_fp16_collapse_is_numbered_by_its_losses(tmp_path: Path) -> None:
    """Before: the loss lines hold no keyword, only apex's lines were read and numbered from
    the file's start: AMP003 at step 1, AMP004 at 17 (the collapse after image 3400)."""
    assert faults(tmp_path, _pix2pixhd_fp16(3400)) == [("AMP003", 3401), ("AMP004", 3412)]


def test_pix2pixhd_fp16_controls(tmp_path: Path) -> None:
    """Healthy fp16 runs: the start-up back-off alone, and a scale sawtooth (pass on the
    parent too: only apex's lines read there)."""
    assert faults(tmp_path, _pix2pixhd_fp16()) == []
    assert faults(tmp_path, _pix2pixhd_fp16(sawtooth=True)) == []


def _llmc(total: int = 200, val_every: int = 20) -> list[str]:
    """llm.c's ``train_gpt2.cu``: ``printf0("val loss %f\\n", ...)`` every ``val_every``
    steps and ``"step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | %.2f ms |
    %.1f%% bf16 MFU | %.0f tok/s\\n"`` each step; the loss falls fast, then a warmup-free
    sawtooth (its z-scores)."""
    lines = ["num_parameters: 124475904 => bytes: 248951808",
             "batch_size B=64 * seq_len T=1024 * num_processes=8 and total_batch_size=524288",
             "=> setting grad_accum_steps=1"]
    for step in range(total):
        if step % val_every == 0:
            lines.append(f"val loss {11.0 - step / 100:f}")
        spike = step % 7 == 0
        loss = 10.9 - step / 50 + (0.3 if spike else 0.0)
        z = "+2.10" if spike else "-0.12"
        lines.append(f"step {step + 1:4d}/{total} | loss {loss:7.6f} ({z}z)"
                     f"| norm {1.2345:6.4f} (+0.05z)| lr {6e-4 * min(1.0, (step + 1) / 100):.2e} | "
                     f"123.45 ms | 45.1% bf16 MFU | 1234567 tok/s")
    return lines


def _llmc_py(total: int = 100) -> list[str]:
    """llm.c's ``train_gpt2.py``: ``f"step {step+1:4d}/{args.num_iterations} | train loss
    {lossf:.6f} | norm {norm:.4f} | lr {lr:.2e} | ({(t1-t0)*1000:.2f} ms | {tokens_per_second:.0f}
    tok/s)"``, ``val loss {val_loss}`` every 10 steps."""
    lines = []
    for step in range(total):
        if step % 10 == 0:
            lines.append(f"val loss {5.3 - step / 100}")
        lines.append(f"step {step + 1:4d}/{total} | train loss {5.2 - step / 100:.6f} | norm "
                     f"1.2345 | lr 6.00e-04 | (123.45 ms | 1234567 tok/s)")
    return lines


def _torchtune(every: int = 1, total: int = 120, epochs: int = 2) -> list[str]:
    """torchtune's recipes (``recipes/full_finetune_single_device.py``): the bar's
    ``f"{curr_epoch + 1}|{self.global_step}|Loss: {loss_value:.4f}"`` each optimizer step
    (after ``gradient_accumulation_steps`` batches), ``StdoutLogger.log_dict``'s ``Step {step}
    | loss:... lr:... tokens_per_second_per_gpu:... `` each ``log_every_n_steps``
    (``torchtune/training/metric_logging.py``)."""
    lines, step, steps = [], 0, total // epochs
    for epoch in range(epochs):
        for done in range(1, steps + 1):
            step += 1
            loss = 1.6 - step / 1000 + (0.2 if step % 9 == 0 else 0.0)
            lines.append(f"{epoch + 1}|{step}|Loss: {loss:.4f}: {100 * done // steps:3d}%|█"
                         f"         | {done}/{steps} [00:{done % 60:02d}<01:00,  1.60it/s]")
            if step % every == 0:
                lines.append(f"Step {step} | loss:{loss} lr:2e-05 tokens_per_second_per_gpu:"
                             f"1523.4567 peak_memory_active:15.2 peak_memory_alloc:15.2 "
                             f"peak_memory_reserved:16.1 ")
    return lines


def _maxtext(total: int = 60) -> list[str]:
    """MaxText's ``MaxText/metric_logger.py`` ``write_metrics_to_tensorboard``: ``completed
    step: {step}, seconds: {:.3f}, TFLOP/s/device: {:.3f}, Tokens/s/device: {:.3f},
    total_weights: {}, loss: {:.3f}``."""
    return [f"completed step: {s}, seconds: 1.234, TFLOP/s/device: 150.123, Tokens/s/device: "
            f"7000.456, total_weights: 65536, loss: {10.9 - s / 20:.3f}" for s in range(total)]


def _nanotron(every: int = 10, total: int = 200) -> list[str]:
    """nanotron's ``LoggerWriter.add_scalars_from_list`` (``src/nanotron/logging/base.py``):
    ``iteration: {step} / {total}`` then ``" | "``-joined ``{tag}: {human_format(value)}``
    (``src/nanotron/trainer.py``), behind its ranks' prefix."""
    return [f"\x1b[2;3m06/01 10:00:{s % 60:02d} [INFO|DP=0|PP=0|TP=0|ip-26-0-160-225]\x1b[0m: "
            f"iteration: {s} / {total} | consumed_tokens: {s * 262}K | time_per_iteration_ms: "
            f"1.2K | tokens_per_sec: 215K | tokens_per_sec_per_gpu: 26.9K | global_batch_size: "
            f"262K | lm_loss: {10.9 - s / 40:.3g} | lr: 0.0003 | model_tflops_per_gpu: 145 | "
            f"eta: 0:01:12 | grad_norm: 0.352" for s in range(every, total + 1, every)]


def _picotron(total: int = 80) -> list[str]:
    """picotron's ``train.py``: ``[rank N] Step: {step:<5d} | Loss: {loss:6.4f} | Global batch
    size: ... | Tokens/s: ... | MFU: ...% | Memory usage: ...GB``."""
    return [f"[rank 0] Step: {s:<5d} | Loss: {10.9 - s / 20:6.4f} | Global batch size:   1.05M | "
            f"Tokens/s:  215.3K | Tokens/s/GPU:   26.9K | Tokens: {s}M/100M | MFU: 42.10% | "
            f"Memory usage:  60.12GB" for s in range(1, total + 1)]


def _modded_nanogpt(total: int = 200) -> list[str]:
    """modded-nanogpt's record scripts (``records/track_1_short/2024-10-10_Muon/
    train_gpt2.py``): ``step:{step}/{n} val_loss:{:.4f} train_time:...ms step_avg:...ms``
    every 25 steps, ``step:{step+1}/{n} train_loss:{:.4f} train_time:...`` each step."""
    lines = []
    for s in range(total + 1):
        if s % 25 == 0:
            lines.append(f"step:{s}/{total} val_loss:{4.5 - s / 100:.4f} train_time:{s * 100}ms "
                         f"step_avg:100.00ms")
        if s < total:
            lines.append(f"step:{s + 1}/{total} train_loss:{4.6 - s / 100:.4f} train_time:"
                         f"{s * 100}ms step_avg:100.00ms")
    return lines


def _k_diffusion(total: int = 2000) -> list[str]:
    """k-diffusion's ``train.py``: ``tqdm.write(f'Epoch: {epoch}, step: {step}, loss:
    {loss_disp:g}, avg loss: {avg_loss:g}')`` every 25 steps."""
    return [f"Epoch: {s // 1000}, step: {s}, loss: {0.5 - s / 1e5:g}, avg loss: {0.51 - s / 1e5:g}"
            for s in range(0, total, 25)]


def _ddpm(total: int = 300) -> list[str]:
    """denoising-diffusion-pytorch's ``Trainer.train`` bar: ``pbar.set_description(f'loss:
    {total_loss:.4f}')``, ``tqdm(initial=self.step, total=self.train_num_steps)``, resumed at
    step 1000."""
    return [f"loss: {0.05 - s / 1e5:.4f}:   {s // 1000}%|          | {s}/100000 [00:{s % 60:02d}<"
            f"10:00,  2.1it/s]" for s in range(1000, 1000 + total)]


def _metaseq(total: int = 2000, every: int = 100) -> list[str]:
    """metaseq's fp16 run (``metaseq/cli/train.py``'s ``%(asctime)s | %(levelname)s |
    %(name)s | %(message)s``; ``JsonProgressBar.log``'s ``train_inner`` dict every
    ``log_interval`` updates; ``DynamicLossScaler``'s start line and the trainer's ``NOTE:
    gradient overflow detected, ignoring gradient, setting loss scale to: {scale}``, from
    ``metaseq/optim/dynamic_loss_scaler.py`` and ``metaseq/trainer.py``): two overflows at
    start, one every 500 updates after (the scale doubles back between)."""
    stamp = "2022-05-02 12:00:00 | INFO |"
    lines = [f"{stamp} metaseq.optim.dynamic_loss_scaler | *** SCALE_WINDOW: 256, loss scale: "
             "4.0 ***"]
    note = f"{stamp} metaseq.trainer | NOTE: gradient overflow detected, ignoring gradient, "
    lines += [note + "setting loss scale to: 2.0", note + "setting loss scale to: 1.0"]
    for update in range(every, total + 1, every):
        if update % 500 == 0:
            lines.append(note + "setting loss scale to: 2.0")
        lines.append(f'{stamp} train_inner | {{"epoch": 1, "update": {update / 1e5:.3f}, "loss": '
                     f'"{9.0 - update / 1000:.3f}", "ppl": "557.4", "wps": "120000", "ups": '
                     f'"0.25", "wpb": "524288", "bsz": "256", "num_updates": "{update}", "lr": '
                     f'"6e-05", "gnorm": "0.834", "clip": "0", "loss_scale": "4", '
                     f'"scale_window": "128", "train_wall": "400", "wall": "410"}}')
    return lines


def test_llm_and_diffusion_trainers_controls(tmp_path: Path) -> None:
    """Healthy runs of the trainers the doctor read right before (pass on the parent too;
    each one's NaN loss was found at its step there): non-default intervals, gradient
    accumulation, evaluation lines, a warmup and a sawtooth."""
    for lines in (_llmc(), _llmc(val_every=250), _llmc_py(), _torchtune(), _torchtune(every=10),
                  _maxtext(), _nanotron(), _nanotron(every=1, total=50), _picotron(),
                  _modded_nanogpt(), _k_diffusion(), _ddpm(), _metaseq()):
        assert faults(tmp_path, lines) == []
