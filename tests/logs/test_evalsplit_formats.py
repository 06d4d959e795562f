"""Evaluation told from training where the log says which is which (issue #27, h51-evalsplit).

Three layouts whose evaluation values were read as the training's, or lost (review51a):

- a line that tags both passes (``[Train] Loss: ... | [Val] Loss: ...``): the part a
  held-out split's tag opens is that split's (:mod:`~denpex_callbacks.logs.split_tags`);
- a loop's own tqdm bar described as a held-out split's pass (``Validation Epoch 3: ...|
  loss=nan``): evaluation's, no training step; its training bar (``Training Epoch 3:``)
  counts epochs as the loop prints them, from 1 (:mod:`~denpex_callbacks.logs.split_bars`);
- a block of ``| > key: value`` rows under an evaluation heading (coqui-ai/Trainer's ``-->
  EVAL PERFORMANCE``): evaluation's, up to the next line of another shape
  (:mod:`~denpex_callbacks.logs.eval_headings`).

Each excerpt is built from the tool's own format strings; healthy controls use settings other
than the defaults of the review's excerpts.
"""

from __future__ import annotations

from pathlib import Path

from tests.logs.excerpts import faults
from tests.logs.test_review51a_formats import BOLD, END, _bar, both_tagged, coqui_glow

NAN = float("nan")


def vae_rows(bad: int | None = None, val_bad: int | None = None, epochs: int = 60) -> list[str]:
    """A VAE's summary every 10 epochs, both passes on one line split by ``||``, from a public
    training script the code index holds (find_string id 69376028866; the index names no
    repository): ``f"Epoch {epoch+1}/{self.epochs} | [Train] Loss: {train_loss:.4f} | Recon:
    {train_recon:.4f} | KL: {train_kl:.4f} || [Val] Loss: {val_loss:.4f} | Recon: ... | KL:
    ..."`` where ``(epoch + 1) % 10 == 0``. ``bad`` / ``val_bad``: the (1-based) epoch from
    which the training's / the validation's loss and reconstruction are NaN."""
    out: list[str] = []
    for e in range(10, epochs + 1, 10):
        t = NAN if bad is not None and e >= bad else 120.0 - e
        v = NAN if val_bad is not None and e >= val_bad else 125.0 - e
        out.append(f"Epoch {e}/{epochs} | [Train] Loss: {t:.4f} | Recon: {t - 3:.4f} | KL: "
                   f"{3.1:.4f} || [Val] Loss: {v:.4f} | Recon: {v - 3:.4f} | KL: {3.2:.4f}")
    return out


def eta_rows(bad: int | None = None, val_bad: int | None = None, epochs: int = 5) -> list[str]:
    """A vehicle classifier's epoch summary between rules of 90 dashes, from a public script
    the code index holds (find_string id 31194080885; the index names no repository):
    ``print('ETA: {} | Epoch: {}/{} | [Train] Loss: {:.4f}, Acc: {:.2f} % | [Valid] Loss:
    {:.4f}, Acc: {:.2f} %'.format(epoch_eta, epoch, num_epochs, ...))``."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        t = NAN if bad is not None and e >= bad else 1.4 - e / 10
        v = NAN if val_bad is not None and e >= val_bad else 1.5 - e / 10
        out += ["", "", "-" * 90,
                f"ETA: 00:0{e}:12 | Epoch: {e}/{epochs} | [Train] Loss: {t:.4f}, Acc: "
                f"{60 + e:.2f} % | [Valid] Loss: {v:.4f}, Acc: {58 + e:.2f} %", "-" * 90]
    return out


def bracketed_rows(val_bad: int | None = None, epochs: int = 6) -> list[str]:
    """A logger's epoch row with lower-case tags, from a public training script the code index
    holds (find_string id 67474337776; the index names no repository): ``f"Epoch {epoch:03d}
    [train] - Loss: {train_metrics['loss']:.4f} | [val] Loss: {val_metrics['loss']:.4f} |
    LR: {current_lr:.2e}"`` behind logging's default ``INFO:name:`` prefix."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        v = NAN if val_bad is not None and e >= val_bad else 0.7 - e / 50
        out.append(f"INFO:train:Epoch {e:03d} [train] - Loss: {0.6 - e / 50:.4f} | [val] Loss: "
                   f"{v:.4f} | LR: {1e-3 / e:.2e}")
    return out


def traisformer_bars(bad: int | None = None, val_bad: int | None = None, epochs: int = 4,
                     batches: int = 90, val_batches: int = 20) -> list[str]:
    """A TrAISformer fork's ``Trainer.train`` from a public script the code index holds
    (find_string id 56671584748; the index names no repository): the training bar
    ``tqdm(..., desc=f"Epoch {epoch + 1}/{config.max_epochs}", ncols=100, bar_format='{l_bar}
    {bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]')`` (no postfix shown),
    the validation bar ``desc=f"Valid Epoch {epoch + 1}"`` with ``set_postfix({'loss':
    f'{loss.item():.4f}'})``, and ``logging.info(f"[{split}] Epoch {epoch + 1}/
    {config.max_epochs} | Loss: {avg_loss:.5f} | LR: {lr:.2e}")`` for ``split`` ``Training``
    and, without the LR, ``Valid``; printed behind logging's ``INFO:root:``."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        t = NAN if bad is not None and e >= bad else 0.9 - e / 20
        v = NAN if val_bad is not None and e >= val_bad else 1.0 - e / 20
        out += [f"Epoch {e}/{epochs}: {_bar(batches, batches, 30)}]",
                f"INFO:root:[Training] Epoch {e}/{epochs} | Loss: {t:.5f} | LR: 6.00e-04",
                f"Valid Epoch {e}: {_bar(val_batches, val_batches, 4)}, loss={v:.4f}]",
                f"INFO:root:[Valid] Epoch {e}/{epochs} | Loss: {v:.5f}"]
    return out


def informer_training_nan(bad: int = 3, epochs: int = 5, batches: int = 80) -> list[str]:
    """The Informer loop of test_review51a (``Training Epoch {e}`` / ``Validation Epoch {e}``
    bars, tqdm's ``set_postfix(loss=loss.item())``, ``print(f"Validation Loss after Epoch
    {e}: {val_loss}")``), the training's loss NaN from epoch ``bad`` (the validation's not)."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        t = NAN if e >= bad else 0.5 / e
        v = 0.02 + 1 / e
        out += [f"Training Epoch {e}: {_bar(batches, batches)}, loss={t}]",
                f"Validation Epoch {e}: {_bar(20, 20, 3)}, loss={v}]",
                f"Validation Loss after Epoch {e}: {v}"]
    return out


def test_tagged_val_part_lower_case(tmp_path: Path) -> None:
    assert faults(tmp_path, both_tagged(val_bad=2)) == [("AMP013", 2)]


def test_vae_double_bar_split_healthy(tmp_path: Path) -> None:
    assert faults(tmp_path, vae_rows(epochs=90)) == []


def test_vae_double_bar_split_val_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, vae_rows(val_bad=30)) == [("AMP013", 30)]


def test_vae_double_bar_split_train_nan(tmp_path: Path) -> None:
    """Control (right on 4a3d1f7 too): the training's own NaN stays AMP006."""
    assert faults(tmp_path, vae_rows(bad=40)) == [("AMP006", 40)]


def test_eta_rows_healthy(tmp_path: Path) -> None:
    assert faults(tmp_path, eta_rows(epochs=8)) == []


def test_eta_rows_valid_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, eta_rows(val_bad=4)) == [("AMP013", 4)]


def test_eta_rows_train_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, eta_rows(bad=3)) == [("AMP006", 3)]


def test_lower_case_tags_val_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, bracketed_rows(val_bad=5)) == [("AMP013", 5)]


def test_lower_case_tags_healthy(tmp_path: Path) -> None:
    assert faults(tmp_path, bracketed_rows(epochs=9)) == []


def test_valid_bar_healthy(tmp_path: Path) -> None:
    assert faults(tmp_path, traisformer_bars(epochs=6, batches=150)) == []


def test_valid_bar_nan(tmp_path: Path) -> None:
    """The run's batches, 2 x 90: the epoch (2) until h56-convention56, whose convention
    numbers a summary under an ``Epoch 2/4:`` labelled bare bar at its total by the run's
    batches, as the Informer loop below already was (docs/doctor-reading.md)."""
    assert faults(tmp_path, traisformer_bars(val_bad=2)) == [("AMP013", 2 * 90)]


def test_valid_bar_training_nan(tmp_path: Path) -> None:
    """Control (right on 4a3d1f7 too): the training's own NaN stays AMP006; at the run's
    batches, 3 x 90, since h56-convention56 (the epoch, 3, before: see above)."""
    assert faults(tmp_path, traisformer_bars(bad=3)) == [("AMP006", 3 * 90)]


def test_informer_training_nan_still_training(tmp_path: Path) -> None:
    assert faults(tmp_path, informer_training_nan()) == [("AMP006", 240)]


def coqui_vits_eval(eval_bad: int | None = None, train_bad: int | None = None,
                    batches: int = 200, every: int = 50, epochs: int = 3) -> list[str]:
    """VITS through coqui-ai/Trainer (``trainer/logging/console_logger.py``: the formats of
    test_review51a's ``coqui_glow``), its losses from coqui-ai/TTS ``TTS/tts/layers/losses.py``
    (``VitsGeneratorLoss``: ``loss_kl``, ``loss_feat``, ``loss_mel``, ``loss_duration``,
    ``loss_gen``, ``loss``; ``VitsDiscriminatorLoss``: ``loss_disc``), the evaluation's
    block opening with rows that hold no keyword (``avg_loader_time``, ``avg_step_time``) and
    printing its losses once each. ``eval_bad`` / ``train_bad``: the (0-based) epoch from
    which the evaluation's / the training's losses are NaN."""
    keys = ("loss_disc", "loss_kl", "loss_feat", "loss_mel", "loss_duration", "loss_gen",
            "loss")
    out = [f"\n{BOLD} > EPOCH: 0/500{END}", f"\n{BOLD} > TRAINING (2024-06-01 10:00:00) {END}"]
    for g in range(0, epochs * batches, every):
        epoch = g // batches
        bad = train_bad is not None and epoch >= train_bad
        value = "nan" if bad else f"{30.0 - g / 100}"
        out += ["", f"{BOLD}   --> TIME: 2024-06-01 10:00:00 -- STEP: {g % batches}/{batches} "
                    f"-- GLOBAL_STEP: {g}{END}\n" + "".join(
                        f"     | > {k}: {value}  ({value})\n" for k in keys)
                + "     | > current_lr_0: 0.0002 \n     | > grad_norm_0: 12.3  (12.3)\n"]
        if g % batches + every >= batches:
            shown = "nan" if eval_bad is not None and epoch >= eval_bad else f"{31 - epoch}"
            out += [f"\n{BOLD} > EVALUATION {END}\n",
                    f"\n  {BOLD}--> EVAL PERFORMANCE{END}\n"
                    f"     | > avg_loader_time: 0.0041 {END}(+0.0001)\n"
                    f"     | > avg_step_time: 0.2210 {END}(-0.0030)\n" + "".join(
                        f"     | > avg_{k}: {shown} {END}(+0)\n" for k in keys),
                    f"\n{BOLD} > EPOCH: {epoch + 1}/500{END}",
                    f"\n{BOLD} > TRAINING (2024-06-01 10:00:00) {END}"]
    return "\n".join(out).split("\n")


def test_coqui_vits_healthy(tmp_path: Path) -> None:
    assert faults(tmp_path, coqui_vits_eval()) == []


def test_coqui_vits_evaluation_nan(tmp_path: Path) -> None:
    assert faults(tmp_path, coqui_vits_eval(eval_bad=1)) == [("AMP013", 350)]


def test_coqui_training_nan_still_training(tmp_path: Path) -> None:
    """Control (right on 4a3d1f7 too): the training's own NaN stays AMP006."""
    found = faults(tmp_path, coqui_vits_eval(train_bad=1))
    assert found[0] == ("AMP006", 200), found


def test_coqui_glow_training_healthy_eval_block_later(tmp_path: Path) -> None:
    assert faults(tmp_path, coqui_glow(batches=300, every=30)) == []
