"""Speech and TTS trainers' logs, each excerpt written from the tool's own format strings
(each names its source), with healthy controls beside the faults:

- the VITS family's bare list row, ``logger.info([x.item() for x in losses] + [global_step,
  lr])`` (jaywalnut310/vits ``train.py``; Bert-VITS2 ``train_ms.py``, GPT-SoVITS
  ``s2_train.py``, so-vits-svc's early branches, MB-iSTFT-VITS copy it);
- the logger named for the run (``logging.getLogger(os.path.basename(model_dir))``, RVC's
  default experiment ``mi-test``): no evaluation line for it;
- so-vits-svc 4.1's ``Losses: [...]``: each term of the list counts; its ``====> Epoch: 3,
  cost 123.45 s`` is a time, not a loss;
- StyleTTS2's ``Epoch [4/100], Step [10/120]``: the step counts the batches of the epoch.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.metric_pairs import read_pairs
from denpex_callbacks.logs.metric_reader import MetricReader

# vits utils.get_logger: logging.Formatter("%(asctime)s\t%(name)s\t%(levelname)s\t%(message)s")
# on the model_dir's file handler; utils.py's logging.basicConfig(stream=sys.stdout) prints
# the same records as "%(levelname)s:%(name)s:%(message)s".
FILE = "2023-05-01 12:03:20,200\t{name}\tINFO\t"
STDOUT = "INFO:{name}:"
NAN = float("nan")


def _found_then_quiet(tmp_path: Path, faulty: list[str], found: tuple[str, int],
                      healthy: list[str], steps: int) -> None:
    """The fault at its step on ``faulty``; silence, every step counted, on ``healthy``."""
    assert faults(tmp_path, faulty) == [found]
    result = diagnose_lines(tmp_path, healthy)
    assert result.faults == [] and result.timeline.steps == steps


def _vits(steps: range, nan_from: int | None = None, *, prefix: str = FILE,
          name: str = "ljs_base", per_epoch: int = 1000, bad: int | None = None) -> list[str]:
    """vits train.py train_and_evaluate: every ``log_interval`` steps the epoch line, then
    ``[loss_disc, loss_gen, loss_fm, loss_mel, loss_dur, loss_kl] + [global_step, lr]``
    (``bad``: the one term that goes NaN, else all of them)."""
    head = prefix.format(name=name)
    lines = []
    for step in steps:
        epoch = step // per_epoch + 1
        lr = 2e-4 * 0.999875 ** (epoch - 1)
        losses = [2.61, 2.49, 5.7 / (1 + step / 1e4), 45.2 / (1 + step / 1e4), 2.1, 4.05]
        if nan_from is not None and step >= nan_from:
            if bad is None:
                losses = [NAN] * 6
            else:
                losses[bad] = NAN
        done = 100.0 * (step % per_epoch) / per_epoch
        lines.append(head + f"Train Epoch: {epoch} [{done:.0f}%]")
        lines.append(head + str([*losses, step, lr]))
        if (step + 200) % per_epoch == 0:
            lines.append(head + f"====> Epoch: {epoch}")
    return lines


@pytest.mark.parametrize("prefix", [FILE, STDOUT])
def test_vits_list_row_with_nan_losses(tmp_path: Path, prefix: str) -> None:
    assert faults(tmp_path, _vits(range(0, 6001, 200), 3400, prefix=prefix)) == [
        ("AMP006", 3400)]


def test_vits_list_row_one_term_non_finite_mid_run(tmp_path: Path) -> None:
    # a mid-run excerpt, log_interval 500, only loss_kl NaN: the total is NaN
    lines = _vits(range(152000, 160001, 500), 157000, bad=5, per_epoch=1234)
    assert faults(tmp_path, lines[3:]) == [("AMP006", 157000)]


@pytest.mark.parametrize("name", ["test", "mi-test", "valid", "eval_run"])
def test_a_logger_named_for_a_test_run_is_no_evaluation(tmp_path: Path, name: str) -> None:
    # getLogger(os.path.basename(model_dir)): "-m test" names the logger "test"
    for prefix in (FILE, STDOUT):
        assert faults(tmp_path, _vits(range(0, 4001, 200), 2600, prefix=prefix, name=name)) \
            == [("AMP006", 2600)]


def _rvc(steps: range, nan_from: int | None = None) -> list[str]:
    # RVC infer/modules/train/train.py: "Train Epoch: {} [{:.0f}%]", [global_step, lr], then
    # f"loss_disc={loss_disc:.3f}, loss_gen={loss_gen:.3f}, loss_fm={loss_fm:.3f},loss_mel=..."
    head = FILE.format(name="mi-test")
    lines = []
    for step in steps:
        bad = nan_from is not None and step >= nan_from
        d, g, fm, mel, kl = (NAN,) * 5 if bad else (3.9, 3.2, 8.4, 22.4, 1.6)
        lines += [head + f"Train Epoch: {step // 600 + 1} [{100.0 * (step % 600) / 600:.0f}%]",
                  head + str([step, 1e-4]),
                  head + f"loss_disc={d:.3f}, loss_gen={g:.3f}, loss_fm={fm:.3f},"
                         f"loss_mel={mel:.3f}, loss_kl={kl:.3f}"]
    return lines


def test_rvc_losses_under_the_mi_test_logger_are_training_losses(tmp_path: Path) -> None:
    # the step is the one of the ``[global_step, lr]`` row before the losses
    _found_then_quiet(tmp_path, _rvc(range(0, 4001, 200), 2600), ("AMP006", 2600),
                      _rvc(range(0, 4001, 200)), 4001)


def test_an_evaluation_line_under_a_logger_prefix_stays_evaluation(tmp_path: Path) -> None:
    # StyleTTS2 train_second.py: logger.info('Validation loss: %.3f, ...'), a file handler
    # "%(levelname)s:%(asctime)s: %(message)s"; and a named logger's evaluation line
    lines = [f"INFO:2023-11-20 10:00:{i:02d},123: Epoch [1/100], Step [{i}/120], Loss: 0.41"
             for i in range(10, 121, 10)]
    lines.append("INFO:2023-11-20 10:01:00,000: Validation loss: nan, Dur loss: nan, "
                 "F0 loss: nan")
    lines.append(FILE.format(name="mi-test") + "Validation loss: nan")
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP013"]


@pytest.mark.parametrize("row", [
    "[nan, nan]",  # no step, no learning rate
    "[nan, 200, 5]",  # the last is no learning rate
    "[nan, 3400.5, 0.0002]",  # the step is no integer
    "selected ids: [nan, 12, 0.5] kept",  # not the whole message
])
def test_other_lists_are_not_vits_rows(row: str) -> None:
    assert MetricReader().read(FILE.format(name="x") + row, 1) == []


def test_healthy_vits_rows_read_as_finite_losses() -> None:
    reader = MetricReader()
    events = [e for line in _vits(range(0, 1001, 200)) for e in reader.read(line, 1)]
    assert [e.step for e in events] == [0, 200, 400, 600, 800, 1000]
    assert all(e.loss is not None and math.isfinite(e.loss) for e in events)
    assert events[0].lr == pytest.approx(2e-4)


def test_healthy_vits_excerpts_raise_no_alarm(tmp_path: Path) -> None:
    # finite rows hold no keyword: the progress line before each (``%]``) hands it over
    for lines, steps in ((_vits(range(0, 6001, 200)), 6001),
                         (_vits(range(0, 6001, 200), prefix=STDOUT), 6001),
                         (_vits(range(152000, 160001, 500), per_epoch=1234, name="test"), 8002)):
        result = diagnose_lines(tmp_path, lines)
        assert result.faults == [] and result.timeline.steps == steps


def _sovits(steps: range, nan_from: int | None = None, bad: int | None = None) -> list[str]:
    # so-vits-svc 4.1 train.py: f"Losses: {[x.item() for x in losses]}, step: {global_step},
    # lr: {lr}, reference_loss: {reference_loss}" (a tensor), then per epoch
    # f'====> Epoch: {epoch}, cost {durtaion} s'
    head = FILE.format(name="44k")
    lines = []
    for step in steps:
        losses = [2.4, 2.3, 9.1, 20.5 - step / 1e3, 1.4]
        if nan_from is not None and step >= nan_from:
            losses = [NAN] * 5 if bad is None else [*losses[:bad], NAN, *losses[bad + 1:]]
        total = sum(losses)
        lines += [head + f"Train Epoch: {step // 800 + 1} [{100.0 * (step % 800) / 800:.0f}%]",
                  head + f"Losses: {losses}, step: {step}, lr: 0.0001, reference_loss: "
                         f"tensor({total:.4f}, device='cuda:0', grad_fn=<AddBackward0>)"]
        if (step + 200) % 800 == 0:
            lines.append(head + f"====> Epoch: {step // 800 + 1}, cost {123.45 + step:.2f} s")
    return lines


def test_sovits_each_loss_term_counts(tmp_path: Path) -> None:
    assert faults(tmp_path, _sovits(range(0, 3001, 200), 2000, bad=3)) == [("AMP006", 2000)]
    assert faults(tmp_path, _sovits(range(0, 3001, 200), 2600)) == [("AMP006", 2600)]
    assert faults(tmp_path, _sovits(range(0, 3001, 200))) == []


def test_a_list_after_a_loss_key_is_its_terms() -> None:
    line = read_pairs("Losses: [2.4, 2.3, nan, 1.4], step: 2000, lr: 0.0001")
    assert "loss" not in line.values and line.values["step"] == 2000
    assert [key for key, _ in line.components] == ["Losses"] * 4
    assert math.isnan(line.components[2][1])


@pytest.mark.parametrize("text", ["====> Epoch: 3, cost 123.45 s", "epoch 3 time cost 0.00 s",
                                  "cost: 12.5 sec"])
def test_a_duration_is_no_loss(text: str) -> None:
    line = read_pairs(text)
    assert "loss" not in line.values and not line.components


def test_a_loss_beside_a_unit_word_is_still_read() -> None:
    assert read_pairs("loss 2.31 sec/it 0.5").values["loss"] == 2.31
    assert read_pairs("loss 2.3 h_loss 4").values["loss"] == 2.3


def _styletts2(epochs: range, nan_at: int | None = None, batches: int = 120) -> list[str]:
    # StyleTTS2 train_second.py: logger.info('Epoch [%d/%d], Step [%d/%d], Loss: %.5f, Disc
    # Loss: %.5f, ...' % (epoch+1, epochs, i+1, len(train_list)//batch_size, ...)) every
    # log_interval (10) batches, a file handler '%(levelname)s:%(asctime)s: %(message)s'
    lines = []
    for epoch in epochs:
        for i in range(10, batches + 1, 10):
            step = (epoch - 1) * batches + i
            value = "nan" if nan_at is not None and step >= nan_at else "0.41234"
            lines.append(f"INFO:2023-11-20 10:00:00,123: Epoch [{epoch}/100], Step [{i}/"
                         f"{batches}], Loss: {value}, Disc Loss: 3.91234, Dur Loss: 0.91234, "
                         f"CE Loss: 0.31234, Norm Loss: 0.21234, F0 Loss: 0.51234, LM Loss: "
                         f"0.05123, Gen Loss: 2.11234, Sty Loss: 0.00000, Diff Loss: 0.00000, "
                         f"DiscLM Loss: 0.00000, GenLM Loss: 0.00000")
        lines.append(f"Epochs: {epoch}")
    return lines


def test_epoch_and_step_of_the_epoch_make_the_step(tmp_path: Path) -> None:
    assert faults(tmp_path, _styletts2(range(1, 6), nan_at=370)) == [("AMP006", 370)]
    # a mid-run excerpt, and the pytorch-tutorial spelling "Epoch [1/5], Step [100/600]"
    assert faults(tmp_path, _styletts2(range(31, 34), nan_at=32 * 120 + 50)) == [
        ("AMP006", 3890)]
    tutorial = [f"Epoch [{e}/5], Step [{i}/600], Loss: {'nan' if (e, i) >= (2, 300) else 0.2}"
                for e in range(1, 4) for i in range(100, 601, 100)]
    assert faults(tmp_path, tutorial) == [("AMP006", 900)]


def test_healthy_styletts2_epochs_raise_no_alarm(tmp_path: Path) -> None:
    # the steps go on across epochs
    _found_then_quiet(tmp_path, _styletts2(range(1, 3), nan_at=130), ("AMP006", 130),
                      _styletts2(range(1, 6)), 600)


def _wenet(epochs: range, nan_from: int | None = None, cv_nan_epoch: int | None = None,
           batches: int = 400, interval: int = 100) -> list[str]:
    # wenet utils/train_utils.py log_per_step: logging.debug(f"{tag} | steps/sec ...| Batch
    # {epoch}/{batch_idx + 1} loss {loss:.6f} {name} {value:.6f} ... lr {lrs} grad_norm ...
    # rank 0") for TRAIN and CV; log_per_epoch: 'Epoch {} Step {} CV info lr {} cv_loss {}
    # rank {} acc {}'; bin/train.py basicConfig '%(asctime)s %(levelname)s %(message)s'
    lines, step = [], 0
    for epoch in epochs:
        lines.append(f"2024-03-01 10:00:00,000 INFO Epoch {epoch} Step {step} TRAIN info lr "
                     f"1.0000e-03 rank 0")
        for batch in range(interval, batches + 1, interval):
            step += interval
            loss = NAN if nan_from is not None and step >= nan_from else 80 / (1 + step / 500)
            lines.append(f"2024-03-01 10:00:00,123 DEBUG TRAIN | steps/sec 2.345| Batch {epoch}/"
                         f"{batch} loss {loss:.6f} loss_att {loss * 0.9:.6f} loss_ctc "
                         f"{loss * 1.3:.6f} th_accuracy 0.300000 lr 1.0000e-03 grad_norm "
                         f"45.670000 rank 0")
        cv = NAN if epoch == cv_nan_epoch else 30.0
        lines += [f"2024-03-01 11:00:00,000 DEBUG CV | steps/sec 8.123| Batch {epoch}/{b} loss "
                  f"{cv:.6f} loss_att {cv:.6f} loss_ctc {cv:.6f} th_accuracy 0.400000 "
                  for b in (10, 20, 30)]
        lines.append(f"2024-03-01 11:00:00,000 INFO Epoch {epoch} Step {step} CV info lr "
                     f"1.0000e-03 cv_loss {cv} rank 0 acc 0.41")
    return lines


def test_wenet_cross_validation_is_evaluation(tmp_path: Path) -> None:
    assert [code for code, _ in faults(tmp_path, _wenet(range(3), cv_nan_epoch=2))] == [
        "AMP013"]
    assert [code for code, _ in faults(tmp_path, _wenet(range(3), nan_from=700))] == ["AMP006"]
    assert faults(tmp_path, _wenet(range(3))) == []


# flashy logging.py LogProgressBar._log: f' {delimiter} '.join([name, f'{index}/{total}', speed]
# + [f"{k} {v}"]), name = "Train | Epoch {epoch}" (ResultLogger.get_log_progress_bar), behind
# colorlog's '[%(asctime)s][%(name)s][%(levelname)s] - ' (setup_logging); audiocraft's
# musicgen.py formats lr '.2E', grad_norm '.3E', others '.3f' (get_formatter).
_FLASHY = "[\x1b[36m12-01 10:00:00\x1b[0m][audiocraft.solvers.musicgen][INFO] - "


def _flashy(epochs: range, ce_nan: int | None = None, total: int = 2000) -> list[str]:
    lines = []
    for epoch in epochs:
        for index in range(400, total, 400):
            step = (epoch - 1) * total + index  # flashy's epochs count from 1
            ce = NAN if ce_nan is not None and step >= ce_nan else 5.0 - step / 3000
            lines.append(_FLASHY + f"Train | Epoch {epoch} | {index}/{total} | 5.23 it/sec | lr "
                         f"1.00E-04 | grad_norm 1.234E+00 | grad_scale 65536.000 | ce {ce:.3f} | "
                         f"ppl {math.exp(ce):.3f}")
        lines.append(_FLASHY + f"Valid | Epoch {epoch} | 40/100 | 9.1 it/sec | ce 4.300 | "
                               f"ppl 73.700")
        lines.append(_FLASHY + f"Train Summary | Epoch {epoch} | ce=4.123 | ppl=61.722")
    return lines


def test_flashy_progress_bar_steps_count_across_epochs(tmp_path: Path) -> None:
    _found_then_quiet(tmp_path, _flashy(range(1, 4), ce_nan=5200), ("AMP006", 5200),
                      _flashy(range(1, 4)), 5600)


def test_audiocraft_divergence_error_is_a_non_finite_loss(tmp_path: Path) -> None:
    # musicgen.py run_step: the loss is checked before it is logged, so the log shows the
    # raise after finite rows
    lines = [*_flashy(range(1, 3)), "Traceback (most recent call last):",
             '  File "/x/audiocraft/solvers/musicgen.py", line 434, in run_step',
             '    raise RuntimeError("Model probably diverged.")',
             "RuntimeError: Model probably diverged."]
    assert faults(tmp_path, lines) == [("AMP006", 3600)]


# chainer training/extensions/print_report.py (ESPnet1's trainer, pytorch-pfn-extras copy it):
# entry_widths = [max(10, len(s)) for s in entries]; the header '  '.join('{:%d}' % w) once,
# then per report '{:<%dg}  ' % w for each entry observed, ' ' * (w + 2) for the others (the
# validation entries until an epoch ends). espnet/asr/pytorch_backend/asr.py report_keys.
_ENTRIES = ["epoch", "iteration", "main/loss", "main/loss_ctc", "main/loss_att",
            "validation/main/loss", "validation/main/loss_ctc", "validation/main/loss_att",
            "main/acc", "validation/main/acc", "main/cer_ctc", "validation/main/cer_ctc",
            "elapsed_time", "lr"]
_WIDTHS = [max(10, len(entry)) for entry in _ENTRIES]


def _print_report(epochs: range, nan_from: int | None = None, per_epoch: int = 10,
                  chatter: bool = False) -> list[str]:
    lines = ["  ".join(f"{entry:{width}}" for entry, width in zip(_ENTRIES, _WIDTHS,
                                                                    strict=True))]
    iteration = 0
    for epoch in epochs:
        for k in range(1, per_epoch + 1):
            iteration += 100
            loss = NAN if nan_from is not None and iteration >= nan_from else 150 / (
                1 + iteration / 3000)
            seen = {"epoch": epoch, "iteration": iteration, "main/loss": loss,
                    "main/loss_ctc": loss * 1.2, "main/loss_att": loss * 0.9, "main/acc": 0.3,
                    "main/cer_ctc": 0.4, "elapsed_time": iteration * 0.5, "lr": 1.0}
            if k == per_epoch:
                seen |= {key: 33.0 for key in _ENTRIES if key.startswith("validation/")}
            lines.append("".join(f"{seen[entry]:<{width}g}  " if entry in seen
                                 else " " * (width + 2)
                                 for entry, width in zip(_ENTRIES, _WIDTHS, strict=True)))
            if chatter:  # chainer's ProgressBar between the reports
                lines += [f"     total [{'#' * (iteration // 2000):.<50}] {iteration / 600:.2f}%",
                          f"this epoch [{'#' * (k * 5):.<50}] {k * 10:.2f}%",
                          f"{iteration:>10} iter, {epoch} epoch / 12 epochs",
                          "    2.1234 iters/sec. Estimated time to finish: 0:12:34.567890."]
    return lines


def test_print_report_rows_with_blank_validation_cells(tmp_path: Path) -> None:
    _found_then_quiet(tmp_path, _print_report(range(1, 4), nan_from=700), ("AMP006", 700),
                      _print_report(range(1, 4)), 3000)


def test_print_report_rows_far_below_their_header(tmp_path: Path) -> None:
    # the header is printed once: a NaN row thousands of lines below it is still its row
    lines = _print_report(range(1, 13), nan_from=45000, per_epoch=50, chatter=True)
    assert faults(tmp_path, lines) == [("AMP006", 45000)]
    assert faults(tmp_path, _print_report(range(1, 13), per_epoch=50, chatter=True)) == []


def test_a_line_that_does_not_line_up_is_no_row_of_the_table() -> None:
    reader = MetricReader()
    reader.read(_print_report(range(1))[0], 1)  # the header row
    assert reader.read(" " * 24 + "nan", 500) == []  # one cell, under "main/loss"
    assert reader.read("  nan", 500) == []  # under no column
    assert reader.read("loss went nan here " + " " * 40 + "nan", 501) == []


def _dlas(steps: range, *, text_ce_nan: int | None = None, nan_grads: int | None = None,
          skips: int = 30) -> list[str]:
    # DL-Art-School codes/train.py: message = '[epoch:{:3d}, iter:{:8,d}, lr:('...')] ' then
    # '{:s}: {:.4e} ' for each log (the steps' metrics with grad_scaler_scale, the learning
    # rates), behind utils/util.py's '%(asctime)s.%(msecs)03d - %(levelname)s: %(message)s';
    # codes/trainer/steps.py print()s its NaN messages
    lines = []
    for step in steps:
        ce = NAN if text_ce_nan is not None and step >= text_ce_nan else 4.0 - step / 1e4
        logs = {"step": step, "samples": step * 32, "iteration_rate": 1.234, "loss_text_ce": ce,
                "loss_mel_ce": 1.8, "grad_scaler_scale": 32768.0, "learning_rate_gpt_0": 1e-4}
        head = f"[epoch:{step // 5000:3d}, iter:{step:8,d}, lr:({1e-4:.3e},)] "
        lines.append("22-10-10 12:00:00.123 - INFO: " + head
                     + "".join(f"{key:s}: {value:.4e} " for key, value in logs.items()))
        if math.isnan(ce):
            lines += ["!!Detected non-finite loss loss_text_ce",
                      "Non-finite loss encountered. Skipping backwards step."]
        if nan_grads is not None and step >= nan_grads:
            lines += ["NaN found in grads. Throwing this step out."] * skips
    return lines


def test_dlas_thousands_in_the_step_and_its_nan_messages(tmp_path: Path) -> None:
    assert faults(tmp_path, _dlas(range(100, 3001, 100), text_ce_nan=1500)) == [
        ("AMP006", 1500)]
    # NaN gradients thrown out at a scale that never moves (the scaler is not updated)
    assert [code for code, _ in faults(tmp_path, _dlas(range(100, 3001, 100),
                                                          nan_grads=1500))] == ["AMP008"]
    lines = [*_dlas(range(100, 1001, 100)), "Encountered 10 NaN losses in a row. Something is "
             "screwed up. Dumping model weights and exiting."]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]


def test_healthy_dlas_is_quiet(tmp_path: Path) -> None:
    result = diagnose_lines(tmp_path, _dlas(range(100, 20001, 100)))
    assert result.faults == [] and result.timeline.steps == 20000
    # a NaN gradient thrown out now and then
    lines = _dlas(range(100, 20001, 100))
    for at in (40, 110, 170):
        lines.insert(at, "NaN found in grads. Throwing this step out.")
    assert faults(tmp_path, lines) == []


def test_amphion_nan_check(tmp_path: Path) -> None:
    # Amphion models/base/new_trainer.py _check_nan, behind utils/util.py Logger's
    # "%(asctime)s : %(message)s"; the epoch summary "  |- Train/Loss: {:.6f}" before it
    lines = [f"2025-01-01 10:00:00,000 :   |- Train/Loss: {0.5 - e / 100:.6f}" for e in range(3)]
    lines += ["2025-01-01 10:00:00,000 : Fatal Error: Training is down since loss has Nan!",
              "RuntimeError: Loss has Nan! See log for more info."]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]


def test_snowfall_objf_is_a_loss(tmp_path: Path) -> None:
    # k2-fsa/snowfall egs/librispeech/asr/simple_v1/mmi_att_transformer_train.py, behind
    # snowfall/common.py '%(asctime)s %(levelname)s [%(filename)s:%(lineno)d] %(message)s'
    def line(batch: int, objf: float) -> str:
        return (f"2021-03-01 10:00:00,123 INFO [mmi_att_transformer_train.py:273] batch "
                f"{batch}, epoch 0/10 global average objf: {objf:.6f} over 12345.0 frames "
                f"(99.8% kept), current batch average objf: {objf:.6f} over 1234.0 frames "
                f"(99.9% kept) avg time waiting for batch 0.012s")
    assert read_pairs(line(10, 0.9)).values["loss"] == 0.9
    lines = [line(b, 0.9 if b < 150 else NAN) for b in range(0, 300, 10)]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]
