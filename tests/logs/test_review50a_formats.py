"""Adversarial review of the log doctor's rules merged on 2026-12-07 (3e9872d..bb72aed, issue
#27): excerpts built from real tools' own format strings where a new rule should not fire,
or fires wrongly. Each problem found is a strict xfail holding the right answer, each beside
a control in non-default settings.

Problems held here (strict xfails):

- messages, open_clip's fp16 row (AMP001 from "It is recommended to use AMP mixed-precision
  instead of FP16."): only ``--precision fp16`` prints it (``pure_fp16`` does not), and
  before 2026-02-19 (6dc9461) such a run made no GradScaler: right. Since then a ``--fsdp``
  run with ``--precision fp16`` makes one (``need_scaler = fsdp_mp_dtype == torch.float16``)
  and prints the warning all the same, beside ``FSDP2: MixedPrecisionPolicy(param_dtype=
  torch.float16, ...)``: its healthy log is AMP001 error at no step (3e9872d: silent).
  Fixed: that line is a setup of fp16 with a GradScaler, and the warning's row counts only
  where no line shows a loss scaler (``Message.no_scaler_shown``).
- metric_reader + LEADING_PADDED_COUNT: the same repository's other trainer
  (0Dema0/Adversarial_Sonar_Placement ``trainer/train_delta.py``, ``{epoch:3d} rho=...
  train=... | val_mse=... top_both=...``) names no held-out split alone, so ``train=`` is
  not its loss: ``train=nan`` at epoch 12 is AMP013 12 alone (3e9872d: AMP013 None), the
  training NaN hidden; its healthy log "nothing to diagnose", as on 3e9872d. Fixed: a
  held-out split named first in its metric's key (``val_mse``, ``valid_acc``:
  ``lexicon.held_out_first``) keys the training split's value as its loss, as ``val`` alone.

Rules tried that held (quiet where healthy, the fault at its step as before or better):

- LEADING_PADDED_COUNT on its own tool's optional columns (``val_cvar`` with ``lambda`` and
  ``alpha``, ``val_extreme`` with ``rho``): AMP006 and AMP013 at the epoch, healthy silent.
  A count before keys the lexicon reads as training values (a sweep's ``  3 lr=0.1 wd=0
  val=nan``) numbers nothing, as before; ``grep -n`` (``12:  12 train=...``) and ``cat -n``
  pastes are not read by it (AMP013 at no step, as before: no regression). Speed: 30,000
  such all-NaN lines (6.7 MB) take 16-17 s against 10 s on 3e9872d (without re2 alike): the
  rows now read as training lines; linear, no backtracking (the match is anchored, one
  ``\\S+`` per line).
- The bar under its ``Epoch 6/9`` header: a validation bar of its own total right below the
  training bar (within the header's reach) counts its epochs too, but its NaN is said at the
  training step (AMP013 1500, 3e9872d: 750), healthy silent. 40,000 headers each over a bar
  of a new total: as fast as 3e9872d (15-20 s both, noise).
- EPOCH_STEP's bracketed epoch with no total: damo-cv/TransReID's ``Epoch[{}] Iter[{}/{}]``
  (epochs from 1; pasted from epoch 2 now 450, 3e9872d 250) and a 0-based ``Train
  set:Epoch[{}] Iter[{}/{}]`` loop read whole (its epoch 0 seen) hold; 20,000 lines of
  ``Epoch[1`` repeated 50 times: as fast as 3e9872d.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import faults

NAN = float("nan")


def _sick(bad: int | None, at: int) -> bool:
    """Whether the run is NaN at ``at`` (a step, an epoch) when it turns NaN at ``bad``."""
    return bad is not None and at >= bad


def open_clip(*, fsdp: bool, precision: str = "fp16") -> list[str]:
    """A healthy open_clip run (mlfoundations/open_clip ``src/open_clip_train/main.py``,
    ``train.py`` and ``logger.py`` at 89fb801): the handler's ``'%(asctime)s |
    %(levelname)s | %(name)s | %(message)s'``; ``main`` warns ``'It is recommended to use
    AMP mixed-precision instead of FP16. FP16 support needs further verification and tuning,
    especially for train.'`` where ``args.precision == 'fp16'``, logs ``"Params:"`` and
    ``f"  {name}: {val}"``, and under ``--fsdp`` ``f'FSDP2: MixedPrecisionPolicy(param_dtype=
    {fsdp_mp_dtype}, reduce_dtype=torch.float32). Autocast disabled.'``; ``train`` logs
    ``f"Train Epoch: {epoch} [{num_samples:>{sample_digits}}/{samples_per_epoch}
    ({percent_complete:.0f}%)] Data (t): ... Batch (t): ..., {sps:#g}/s, {spsg:#g}/s/gpu LR:
    {lr:5f} Logit Scale: {scale:.3f} "`` and ``f"{name.capitalize()}: {m.val:#.5g}
    ({ema:#.5g})"``, then ``f"End epoch {epoch} | {summary}"``."""
    out: list[str] = []

    def log(msg: str, level: str = "INFO", logger: str = "main") -> None:
        out.append(f"2026-03-01,10:{len(out) // 60:02d}:{len(out) % 60:02d} | {level} | "
                   f"open_clip_train.{logger} | {msg}")

    if precision == "fp16":
        log("It is recommended to use AMP mixed-precision instead of FP16. FP16 support needs "
            "further verification and tuning, especially for train.", "WARNING")
    log("Running in distributed mode with multiple processes. Device: cuda:0.Process "
        "(global: 0, local 0), total 8.")
    log("Params:")
    params = {"batch_size": 256, "epochs": 2, "fsdp": fsdp, "lr": 0.0005, "model": "ViT-B-32",
              "precision": precision, "warmup": 2000, "workers": 6}
    for name in sorted(params):
        log(f"  {name}: {params[name]}")
    if fsdp:
        dtype = "torch.float16" if "fp16" in precision or precision == "amp" else "torch.bfloat16"
        log(f"FSDP2: MixedPrecisionPolicy(param_dtype={dtype}, reduce_dtype=torch.float32). "
            f"Autocast disabled.")
    batches, per_batch = 1000, 2048
    for epoch in range(2):
        for batch in range(0, batches + 1, 100):
            loss = 8.3 - epoch - batch / 1000
            log(f"Train Epoch: {epoch} [{batch * per_batch:>7}/{batches * per_batch} "
                f"({100.0 * batch / batches:.0f}%)] Data (t): 0.101 Batch (t): 0.512, "
                f"{4000.0:#g}/s, {500.0:#g}/s/gpu LR: {0.0005:5f} Logit Scale: "
                f"{14.286 + epoch:.3f} Contrastive_loss: {loss:#.5g} ({loss + 0.1:#.5g})",
                logger="train")
        log(f"End epoch {epoch} | Avg Contrastive_loss: {8.0 - epoch:#.5g}", logger="train")
    return out


def test_open_clip_fsdp_fp16_is_scaled(tmp_path: Path) -> None:
    """The right answer: silence. ``--fsdp --precision fp16`` still prints the warning, but
    ``need_scaler = (fsdp_mp_dtype == torch.float16)`` makes a GradScaler; the FSDP2 line
    (and the params' ``fsdp: True``) say so."""
    assert faults(tmp_path, open_clip(fsdp=True)) == []


def test_open_clip_controls(tmp_path: Path) -> None:
    """Controls of the row: a DDP run with ``--precision fp16`` trains float16 weights with no
    scaler (AMP001, as the row says); an FSDP run in ``amp_bf16`` prints no warning; one in
    ``amp`` prints none either, and its FSDP2 line's scaler is no fault (nothing asks for a
    scale the log never prints)."""
    assert faults(tmp_path, open_clip(fsdp=False)) == [("AMP001", None)]
    assert faults(tmp_path, open_clip(fsdp=True, precision="amp")) == []
    assert faults(tmp_path, open_clip(fsdp=True, precision="amp_bf16")) == []


def train_delta(bad: int | None = None, *, epochs: int = 20, first: int = 1,
                capture_nan: bool = False, val_only: bool = False) -> list[str]:
    """0Dema0/Adversarial_Sonar_Placement ``trainer/train_delta.py`` ``fit_with_history``:
    ``f"{row['epoch']:3d} rho={row['rho']:.3f} train={train_loss:.5f} | val_mse=
    {row['val_mse']:.5f} top_both=... tail_true=... tail_pred=... | capture=
    {row['topk_capture']:.3f} overlap=... neg={row['neg_pred_pct']:.1f}%"``, and ``f"    saved
    best model ({trainer.SELECT[trainer.mode]}={best:.5f})"`` when it improves; ``bad``: the
    (1-based) epoch whose training loss and validation turn NaN; ``capture_nan``: the top-k
    capture NaN by design (``float("nan")`` where the true top-k sums to 0); lines from epoch
    ``first`` on; ``val_only``: the validation alone turns NaN."""
    out: list[str] = []
    for epoch in range(1, epochs + 1):
        sick = _sick(bad, epoch)
        train, val = (NAN, NAN) if sick else (0.05 - epoch / 1000, 0.06 - epoch / 1000)
        if sick and val_only:
            train = 0.05 - epoch / 1000
        if epoch < first:
            continue
        out.append(f"{epoch:3d} rho={max(0.05, 1 - epoch / 20):.3f} train={train:.5f} | "
                   f"val_mse={val:.5f} top_both={val * 2:.5f} tail_true={val * 3:.5f} "
                   f"tail_pred={val * 2:.5f} | capture={NAN if capture_nan else 0.8:.3f} "
                   f"overlap={0.6:.3f} neg={1.5:.1f}%")
        if epoch < 4:
            out.append(f"    saved best model (val_top_both={val * 2:.5f})")
    return out


@pytest.mark.parametrize("first", [1, 8])
def test_train_delta_training_nan(tmp_path: Path, first: int) -> None:
    """The right answer: the training loss NaN at epoch 12 (AMP006) and its validation's
    (AMP013), whole and pasted from epoch 8; the validation's alone, AMP013 alone."""
    assert faults(tmp_path, train_delta(12, first=first)) == [("AMP006", 12), ("AMP013", 12)]
    # control: the validation alone NaN, the training loss read finite beside it
    assert faults(tmp_path, train_delta(12, first=first, val_only=True)) == [("AMP013", 12)]


@pytest.mark.parametrize("capture_nan", [False, True])
def test_train_delta_healthy(tmp_path: Path, capture_nan: bool) -> None:
    """The right answer: silence, read without error (``capture=nan``, an undefined ratio,
    is no evaluation loss)."""
    assert faults(tmp_path, train_delta(capture_nan=capture_nan)) == []


def sonar(bad: int | None = None, *, columns: str = "cvar", epochs: int = 20,
          first: int = 1) -> list[str]:
    """0Dema0/Adversarial_Sonar_Placement ``trainer/trainer.py`` ``fit``: ``f"{epoch+1:3d} "
    f"train={train_loss:.6f} " f"val={val_loss:.6f} " f"val_mse={...:.6f}"``, then the
    columns its loss adds: an ``AnnealedLoss`` ``f" val_cvar=..."``, ``f" lambda={...:.4f}"``,
    ``f" alpha={...:.4f}"``; an ``AnnealedExtremeMSELoss`` ``f" val_extreme=..."`` and
    ``f" rho={...:.4f}"``; ``f"Saved best model to {save_path}"`` when it improves."""
    out = []
    for epoch in range(1, epochs + 1):
        val = NAN if _sick(bad, epoch) else 0.6 - epoch / 100
        train = NAN if _sick(bad, epoch) else 0.5 - epoch / 100
        if epoch < first:
            continue
        msg = f"{epoch:3d} train={train:.6f} val={val:.6f} val_mse={val:.6f}"
        if columns == "cvar":
            msg += f" val_cvar={val * 2:.6f} lambda={0.5:.4f} alpha={0.1:.4f}"
        else:
            msg += f" val_extreme={val * 2:.6f} rho={0.2:.4f}"
        out.append(msg)
        if math.isfinite(val) and epoch < 4:
            out.append("Saved best model to best_model.pt")
    return out


@pytest.mark.parametrize("columns", ["cvar", "extreme"])
def test_sonar_columns_held(tmp_path: Path, columns: str) -> None:
    """The padded count held where the loss adds its columns (``lambda``, ``alpha``,
    ``rho``): the NaN at its epoch (3e9872d: AMP013 None), whole and from epoch 8; healthy
    read and silent (3e9872d: "nothing to diagnose")."""
    right = [("AMP006", 12), ("AMP013", 12)]
    assert faults(tmp_path, sonar(12, columns=columns)) == right
    assert faults(tmp_path, sonar(12, columns=columns, first=8)) == right
    assert faults(tmp_path, sonar(columns=columns)) == []


def drone_validated(bad: int | None = None, *, epochs: int = 9, batches: int = 250,
                    val_batches: int = 50, first: int = 1, val_only: bool = False) -> list[str]:
    """14aprows/drone-object-detection ``engine/trainer.py`` (``f"Epoch {epoch+1}/{EPOCHS}"``
    over ``tqdm(train_loader, leave=True)`` with ``set_postfix(loss=loss.item())``, then
    ``f"Loss: {loss}"``) with a validation pass's own bar right below the training bar
    (``tqdm(val_loader)``, ``set_postfix(val_loss=...)``), a layout of its forks; ``bad``:
    the (1-based) epoch turning NaN (the validation alone where ``val_only``)."""
    out: list[str] = []
    for epoch in range(first, epochs + 1):
        sick = _sick(bad, epoch)
        loss = NAN if sick and not val_only else 18.4 - epoch
        val = NAN if sick else 17.0 - epoch
        out += [f"Epoch {epoch}/{epochs}",
                f"100%|██████████| {batches}/{batches} [01:02<00:00,  4.01it/s, "
                f"loss={loss:.3g}]",
                f"100%|██████████| {val_batches}/{val_batches} [00:05<00:00,  9.80it/s, "
                f"val_loss={val:.3g}]",
                f"Loss: {loss}"]
    return out


def test_bar_under_header_with_a_validation_bar_held(tmp_path: Path) -> None:
    """The header-above-a-bar rule held with a validation bar of its own total below the
    training bar: pasted from epoch 4, the NaN at epoch 6's last batch (3e9872d: 750), the
    validation's alone too; healthy silent."""
    assert faults(tmp_path, drone_validated(6, first=4)) == [("AMP006", 1500), ("AMP013", 1500)]
    assert faults(tmp_path, drone_validated(6, first=4, val_only=True)) == [("AMP013", 1500)]
    assert faults(tmp_path, drone_validated(first=4)) == []


def transreid(bad: int | None = None, *, epochs: int = 4, batches: int = 200,
              period: int = 50, first: int = 1) -> list[str]:
    """damo-cv/TransReID ``processor/processor.py`` ``do_train`` (and its many forks), through
    its ``transreid.train`` logger (the prefix as reid-strong-baseline's ``setup_logger``
    writes it, ``"%(asctime)s %(name)s %(levelname)s: %(message)s"``): every ``log_period``
    iterations ``"Epoch[{}] Iter[{}/{}] Loss: {:.3f}, Acc: {:.3f}, Base Lr: {:.2e}"``
    (``epoch`` from 1, ``n_iter + 1``, ``len(train_loader)``), after each epoch ``"Epoch {}
    done. Time per batch: {:.3f}[s] Speed: {:.1f}[samples/s]"``; ``bad``: the global step."""
    out: list[str] = []
    head = "2026-03-01 10:00:00,000 transreid.train INFO: "
    for epoch in range(first, epochs + 1):
        for it in range(period, batches + 1, period):
            sick = _sick(bad, (epoch - 1) * batches + it)
            loss = NAN if sick else 3 - ((epoch - 1) * batches + it) / 1000
            out.append(f"{head}Epoch[{epoch}] Iter[{it}/{batches}] Loss: {loss:.3f}, Acc: "
                       f"{0.0 if sick else 0.5:.3f}, Base Lr: {3.5e-4:.2e}")
        out.append(f"{head}Epoch {epoch} done. Time per batch: 0.210[s] Speed: "
                   f"304.8[samples/s]")
    return out


def test_bracketed_epoch_iter_held(tmp_path: Path) -> None:
    """EPOCH_STEP's bracketed epoch with no total held for ``Iter`` (not only ``Iteration``):
    pasted from epoch 2, the NaN at 450 (3e9872d: 250); whole, 450; healthy silent."""
    assert faults(tmp_path, transreid(450, first=2)) == [("AMP006", 450)]
    assert faults(tmp_path, transreid(450)) == [("AMP006", 450)]
    assert faults(tmp_path, transreid(first=2)) == []
