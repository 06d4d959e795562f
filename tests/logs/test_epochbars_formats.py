"""Bars that restart each epoch, pasted from the middle: the epoch the excerpt shows beside
them (a bar's label, a header above a bar) says how many passes came before the paste's
first bar (h52-epochbars, issue #27).

Each excerpt is built from the tool's own format strings (the repository and file in each
builder's docstring), healthy with settings other than the defaults and faulty, from the
start and from the middle. Epochs whose base the excerpt cannot show are counted as the
reader counts every epoch: from 1 unless an epoch 0 was read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults, nan_from, tqdm_bar


def keras3_fit(bad: int | None = None, epochs: int = 10, steps: int = 500,
               verbose: int = 1) -> list[str]:
    """Keras 3's ``model.fit`` (keras-team/keras ``keras/src/callbacks/progbar_logger.py``:
    ``io_utils.print_msg(f"Epoch {epoch + 1}/{self.epochs}")``; ``keras/src/utils/
    progbar.py`` ``Progbar.update``): ``verbose=1``, a pasted terminal's final state of each
    epoch, ANSI codes dropped: ``f"%{numdigits}d/%d"``, 20 ``━`` cells, the seconds elapsed,
    ``f" {ms:.0f}ms/step"`` and ``f" - {k}: {avg:.4f}"`` per metric (in the order first
    logged); ``verbose=2`` (a log file: one line an epoch), ``f"{count} - {s:.0f}s"``,
    ``f" -{time}"``, then the metrics alike. ``bad`` is the first NaN epoch (from 1)."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        loss = nan_from(bad, e, 0.9 - e / 50)
        metrics = f" - accuracy: {0.6 + e / 100:.4f} - loss: {loss:.4f}"
        shown = f"{steps}/{steps}"
        out += [f"Epoch {e}/{epochs}",
                f"{shown} {'━' * 20} 61s 122ms/step{metrics}" if verbose == 1
                else f"{shown} - 61s - 122ms/step{metrics}"]
    return out


def keras_fit(bad: int | None = None, epochs: int = 10, steps: int = 500,
              every: int = 120) -> list[str]:
    """Keras 2's ``model.fit`` (keras-team/keras ``keras/callbacks.py`` ``ProgbarLogger
    .on_epoch_begin``: ``print('Epoch %d/%d' % (epoch + 1, self.epochs))``; ``keras/utils/
    generic_utils.py`` ``Progbar.update``: ``'%' + str(numdigits) + 'd/%d ['``, ``'='`` cells
    up to ``'>'``, ``'.'`` after, ``' - ETA: %ds'`` while running, ``' - %s: %.4f'`` per
    metric), a pasted terminal keeping a state every ``every`` steps on its own line and the
    final one; ``bad`` is the first NaN epoch (from 1), NaN from its first step."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        out.append(f"Epoch {e}/{epochs}")
        for done in [*range(every, steps, every), steps]:
            loss = nan_from(bad, e, 0.9 - e / 50 - done / steps / 100)
            cells = 30 * done // steps
            bar = "=" * cells + ("" if done == steps else ">" + "." * (29 - cells))
            timing = (f" - ETA: {(steps - done) // 60}s" if done < steps
                      else " - 61s 122ms/step")
            out.append(f"{done:{len(str(steps))}d}/{steps} [{bar}]{timing} - loss: {loss:.4f}"
                       f" - accuracy: {0.6 + e / 100:.4f}")
    return out


def yolo_trainer(bad: int | None = None, epochs: int = 9, batches: int = 250) -> list[str]:
    """14aprows/drone-object-detection ``engine/trainer.py`` (a YOLOv3 loop): ``fit`` prints
    ``f"Epoch {epoch+1}/{self.config.EPOCHS}"``, then ``tqdm(self.train_loader, leave=True)``
    with ``loop.set_postfix(loss=loss.item())`` (its last state kept), then ``f"Loss:
    {loss}"`` (the epoch's mean, unformatted); ``bad`` is the first NaN epoch (from 1), NaN
    from its first batch."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        loss = nan_from(bad, e, 9.5 - e / 3)
        out += [f"Epoch {e}/{epochs}",
                tqdm_bar("", batches, batches, f", loss={loss:.3g}", rate=3.41),
                f"Loss: {loss + 0.2}"]
    return out


def test_keras_from_the_start(tmp_path: Path) -> None:
    """Epoch 7's first state (120 of 500): 6 * 500 + 120."""
    assert faults(tmp_path, keras_fit(7)) == [("AMP006", 3120)]


@pytest.mark.parametrize("cut", [2 * 6 + 3, 5 * 6 + 2])
def test_keras_from_the_middle(tmp_path: Path, cut: int) -> None:
    """Pasted from the middle of an epoch's bar, the next ``Epoch E/10`` header below it:
    the header says which epoch the bar after it is, the same 3120 (the parent counted the
    paste's bars from its first)."""
    assert faults(tmp_path, keras_fit(7)[cut:]) == [("AMP006", 3120)]


@pytest.mark.parametrize("verbose", [1, 2])
def test_keras3_from_the_start(tmp_path: Path, verbose: int) -> None:
    """Epoch 7's bar of 500 steps, six epochs before it: 3500 (the parent's answer too)."""
    assert faults(tmp_path, keras3_fit(7, verbose=verbose)) == [("AMP006", 3500)]


@pytest.mark.parametrize("verbose", [1, 2])
@pytest.mark.parametrize(("bad", "cut"), [(7, 2 * 3), (7, 2 * 3 + 1), (4, 2 * 3)])
def test_keras3_from_the_middle(tmp_path: Path, verbose: int, bad: int, cut: int) -> None:
    """Pasted from epoch 4's header (or its bar, the header of epoch 5 below it): each
    ``Epoch E/10`` header says which pass the bar below it is, the NaN's the same step as
    from the start (the parent counted the paste's bars: 2000 and 500)."""
    assert faults(tmp_path, keras3_fit(bad, verbose=verbose)[cut:]) == [
        ("AMP006", (bad - 1) * 500 + 500)]


def test_yolo_trainer_from_the_bar_before_a_header(tmp_path: Path) -> None:
    """Pasted from epoch 4's bar and its ``Loss:`` line, ``Epoch 5/9`` below them: the header
    says which pass the next bar is, epoch 6's NaN at 1500 as from the start (the parent
    counted the paste's bars from its first: 750)."""
    assert faults(tmp_path, yolo_trainer(6)) == [("AMP006", 1500)]
    assert faults(tmp_path, yolo_trainer(6)[3 * 3 + 1:]) == [("AMP006", 1500)]


@pytest.mark.parametrize("lines", [
    pytest.param(lambda: keras3_fit(epochs=14, steps=120), id="keras3"),
    pytest.param(lambda: keras3_fit(epochs=14, steps=120, verbose=2)[9:], id="keras3_middle"),
    pytest.param(lambda: keras_fit(epochs=12, steps=300, every=100), id="keras"),
    pytest.param(lambda: keras_fit(epochs=12, steps=300, every=100)[10:], id="keras_middle"),
    pytest.param(lambda: yolo_trainer(epochs=7, batches=410)[4:], id="yolo_middle")])
def test_healthy_bars_are_silent(tmp_path: Path, lines: Callable[[], list[str]]) -> None:
    """Controls: the same layouts at other settings, healthy, from the start and from the
    middle (silent on the parent too), say nothing."""
    assert faults(tmp_path, lines()) == []
