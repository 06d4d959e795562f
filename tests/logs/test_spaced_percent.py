"""The samples count ``Epoch E [n/N (p %)]`` with a blank before its sign
(denpex_callbacks/logs/step_layouts.py ``EPOCH_SAMPLES``): the same count as the PyTorch
examples' ``(p%)``, read as the run's samples. At the parent (0a269ab) the blank left the
count unread: the rows were counted (HDR-Transformer-SR's, tests/logs/test_sample40_formats.py).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults, nan_from


def spaced_rows(bad: int | None = None, *, epochs: int = 4, n_train: int = 6000,
                batch: int = 64, every: int = 10, head: str = "Train Epoch: ",
                percent: str = ".0f") -> list[str]:
    """The PyTorch MNIST example's row (pytorch/examples ``mnist/main.py``: ``'Train Epoch: {}
    [{}/{} ({:.0f}%)]\\tLoss: {:.6f}'``, the count ``batch_idx * len(data)`` from 0, epochs
    from 1) as 1542118717-dotcom/HDR-Transformer-SR ``train_sr.py`` prints it, a blank before
    ``%`` (``'... ({:.0f} %)]\\tLoss: {:.6f}\\t'``); ``head`` and ``percent`` vary what
    precedes the epoch and the percentage's format; after each epoch the examples' ``'\\nTest
    set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\\n'``. ``bad`` is the first NaN batch
    of the run (from 0)."""
    batches = n_train // batch
    out: list[str] = []
    for epoch in range(1, epochs + 1):
        last = 0.0
        for b in range(batches):
            g = (epoch - 1) * batches + b
            last = nan_from(bad, g, 2.3 * 0.995 ** g + 0.05)
            if b % every == 0:
                out.append(f"{head}{epoch} [{b * batch}/{n_train} "
                           f"({100.0 * b / batches:{percent}} %)]\tLoss: {last:.6f}")
        right = 980 if last != last else 9800
        out += ["", f"Test set: Average loss: {last / 10:.4f}, Accuracy: {right}/10000 "
                f"({right / 100:.0f}%)", ""]
    return out


def test_blank_before_the_sign_counts_samples(tmp_path: Path) -> None:
    """The NaN from epoch 3's batch 2 (93 batches of 64 an epoch, a row every 10), printed
    at its batch 10: the run's sample 2 * 6000 + 640; the test after the epoch at the epoch's
    last row read (batch 90: 2 * 6000 + 5760). Before: rows counted."""
    lines = spaced_rows(2 * 93 + 2)
    assert faults(tmp_path, lines) == [("AMP006", 12640), ("AMP013", 17760)]


def test_other_heads_and_decimals(tmp_path: Path) -> None:
    """``Epoch: 2 [...]`` (no ``Train``, a colon) and a percentage with a decimal (``(12.5
    %)``), a batch of 32 of 3200 every 25, from the middle: the NaN from epoch 2's batch 30,
    printed at its batch 50: 3200 + 1600."""
    lines = spaced_rows(100 + 30, epochs=3, n_train=3200, batch=32, every=25, head="Epoch: ",
                        percent=".1f")
    assert faults(tmp_path, lines[6:])[:1] == [("AMP006", 4800)]


def test_healthy_controls_stay_silent(tmp_path: Path) -> None:
    """Healthy runs with settings other than the defaults: silent."""
    assert faults(tmp_path, spaced_rows(epochs=6, n_train=12800, batch=128, every=20)) == []
    assert faults(tmp_path, spaced_rows(head="Epoch ", percent=".2f")[9:]) == []
