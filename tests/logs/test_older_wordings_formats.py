"""Older wordings of the mainstream tools, each written as that release printed it (the
repository and file followed are named in each test), a fault beside healthy controls.

Tried and read right before any fix (no test here, the suite covers them): fairseq 0.6-0.9's
``| epoch 001:   100 / 5000 loss=..., num_updates=100, ...`` and ``--log-format json`` lines
(``fairseq/progress_bar.py``), its overflow notes of 0.6-0.9 (``| WARNING: overflow
detected, setting loss scale to: X``), 0.10 (``NOTE: overflow detected, ...``) and 0.12
(``NOTE: gradient overflow detected, ignoring gradient, ...``); transformers 2.x-3.x's
``{"loss": ..., "step": N}`` JSON and ``{'loss': ..., 'step': N}`` dicts, with or without the
``Epoch:``/``Iteration:`` bars around them; Megatron-LM's 2019 lines (``pretrain_bert.py``'s
``lm loss {:.3E}`` without colons, ``megatron/training.py``'s ``lm loss: {:.6E}``) and the
old FP16_Optimizer's ``OVERFLOW! Skipping step. Attempted loss scale: X, reducing to Y``
between them; DeepSpeed 0.3-0.16's ``fused_optimizer``/``unfused_optimizer`` wordings (the
static scaler's ``Grad overflow on iteration: N`` and ``Using static loss scale of: X``).

Left as documented misses: a Lightning 0.7-0.8 excerpt without the sanity check
(``num_sanity_val_steps=0``, or pasted from a later epoch) is numbered as 0.9's, an epoch
late; a later release's fit resumed at its second epoch (sanity check, then ``Epoch 1``) is
numbered as 0.8's, an epoch early. transformers 4.x-5.x dicts print no step: without the
bar beside them their steps stay the rows' places (the suite's convention), although the
``Total optimization steps`` / ``Num Epochs`` banner and the rounded ``epoch`` would give
them roughly. A DeepSpeed log of ``step=N, skipped=K`` counters only (no overflow lines)
that skips every step from 501 on is AMP003 at its last counter (the excerpt judged as a
whole), not at 501 (not a wording: the judgement is doctor.py's). torch 2.4's
``FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated`` is not read as a setup
(a scaler built with ``enabled=False`` warns too).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.events import SETUP
from denpex_callbacks.logs.parsers import parse_line


# --- Lightning 0.7-0.8: the bar numbers its epochs from 1 -----------------------------------
def _bar(desc: str, n: int, total: int, postfix: str = "") -> str:
    """tqdm's default layout: ``{desc}: {p:3.0f}%|{bar}| {n}/{total} [..., {rate}{postfix}]``."""
    filled = 10 * n // total
    tail = f", {postfix}" if postfix else ""
    return (f"{desc}: {100 * n / total:3.0f}%|{'█' * filled}{' ' * (10 - filled)}| "
            f"{n}/{total} [00:10<00:10, 20.00it/s{tail}]")


def _v08(*, first: int = 1, train: int = 1000, val: int = 100, epochs: int = 4,
         nan_from: int | None = None, every: int = 50, sanity: bool = True) -> list[str]:
    """A 0.8 fit (``pytorch_lightning/callbacks/progress.py`` 0.8.5: the sanity bar
    ``desc='Validation sanity check'`` over ``num_sanity_val_steps`` (5) batches, the main
    bar's total ``total_train_batches + total_val_batches`` and its description ``f'Epoch
    {trainer.current_epoch + 1}'``, the validation bar ``desc='Validating'``; the postfix
    ``core/lightning.py`` ``get_progress_bar_dict``: ``'loss': '{:.3f}'``, ``v_num``). The
    loss is NaN from the fit's batch ``nan_from`` on (from 1); ``first=0`` is 0.9's number."""
    lines = ["GPU available: True, used: True", "Using native 16bit precision."]
    if sanity:
        lines += [_bar("Validation sanity check", n, 5) for n in range(0, 6)]
    total = train + val
    for epoch in range(epochs):
        loss = ""
        for batch in range(1, train + 1):
            step = epoch * train + batch
            loss = "nan" if nan_from is not None and step >= nan_from else f"{2.0 - step / 1e4:.3f}"
            if batch % every == 0:
                lines.append(_bar(f"Epoch {epoch + first}", batch, total, f"loss={loss}, v_num=0"))
        lines.append("Validating: 0it [00:00, ?it/s]")
        for batch in range(every, val + 1, every):
            lines.append(_bar("Validating", batch, val))
            lines.append(_bar(f"Epoch {epoch + first}", train + batch, total,
                              f"loss={loss}, v_num=0"))
    return lines


def test_v08_epochs_numbered_from_one(tmp_path: Path) -> None:
    """0.7-0.8 (``pytorch_lightning/trainer/training_loop.py`` 0.7: ``f'Epoch {epoch + 1}'``;
    ``callbacks/progress.py`` 0.8: ``f'Epoch {trainer.current_epoch + 1}'``; 0.9 on ``f'Epoch
    {trainer.current_epoch}'``): after the sanity check, ``Epoch 1`` is the fit's first
    epoch. Before: a NaN at training batch 450 of the first epoch was step 1550, one at
    batch 450 of the fourth 4450 (an epoch late)."""
    assert faults(tmp_path, _v08(nan_from=450)) == [("AMP006", 450)]
    assert faults(tmp_path, _v08(nan_from=3450)) == [("AMP006", 3450)]


def test_v08_controls(tmp_path: Path) -> None:
    """Healthy 0.8 fits, and 0.9's numbering from 0 with a NaN (its step unchanged), and a
    0.8 fit without a sanity check (``num_sanity_val_steps=0``: read as before). Pass on the
    parent too."""
    assert faults(tmp_path, _v08()) == []
    assert faults(tmp_path, _v08(sanity=False)) == []
    assert faults(tmp_path, _v08(first=0)) == []
    assert faults(tmp_path, _v08(first=0, nan_from=3450)) == [("AMP006", 3450)]


# --- Lightning's precision notices across releases -------------------------------------------
_FP16 = {"active_precision": "fp16-mixed", "scaler": "dynamic"}


def _setups(line: str) -> list[dict[str, object]]:
    return [e.setup for e in parse_line(line) if e.kind == SETUP]


def test_lightning_precision_notices_of_older_releases() -> None:
    """0.5 ``pytorch_lightning/trainer/trainer.py`` ``print('using 16bit precision')``, 0.6
    ``trainer/auto_mix_precision.py`` ``logging.info('using 16bit precision')``, 0.7
    ``log.info('Using 16bit precision.')`` (the ``lightning`` logger), 1.9
    ``trainer/connectors/accelerator_connector.py`` ``f"Using 16bit {self._amp_type_flag}
    Automatic Mixed Precision (AMP)"`` with ``_amp_type_flag = None`` unless ``amp_backend``
    is given. Before: none of them was read as an fp16 setup (nothing)."""
    assert _setups("using 16bit precision") == [_FP16]
    assert _setups("INFO:lightning:Using 16bit precision.") == [_FP16]
    assert _setups("Using 16bit None Automatic Mixed Precision (AMP)") == [_FP16]


def test_lightning_precision_notices_controls() -> None:
    """The spellings read before (0.8-1.2's ``Using native 16bit precision.``, 1.3-1.9's
    ``native``, bf16's, 2.3's) still read the same; a sentence that only resembles them is
    no setup. Pass on the parent too."""
    assert _setups("Using native 16bit precision.") == [_FP16]
    assert _setups("Using 16bit native Automatic Mixed Precision (AMP)") == [_FP16]
    assert _setups("Using 16-bit Automatic Mixed Precision (AMP)") == [_FP16]
    assert _setups("Using bfloat16 Automatic Mixed Precision (AMP)") == [
        {"active_precision": "bf16-mixed", "scaler": None}]
    assert _setups("this run will NOT use 16 bit precision") == []
