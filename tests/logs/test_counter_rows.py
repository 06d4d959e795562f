"""A split's bare row: ``train %03d %e %f %f`` (logs/counter_rows.py).

Built from DARTS' own format strings (quark0/darts ``cnn/train.py``: ``logging.basicConfig``
with ``'%(asctime)s %(message)s'``, ``logging.info('epoch %d lr %e', ...)``, every
``report_freq`` batches ``logging.info('train %03d %e %f %f', step, objs.avg, top1.avg,
top5.avg)``, ``logging.info('train_acc %f', ...)``, ``'valid %03d %e %f %f'`` and
``'valid_acc %f'``), with variants the sample (sample35's CNAS and DARTS-with-involution,
both NaN in epoch 0, both with the datefmt ``%m/%d %I:%M:%S %p``) did not show: logging's
default date, a tab between the cells, one accuracy, other intervals and lengths, a NaN past
the first epoch (the counter restarting each epoch), pasted from the middle. Controls: the
healthy runs, and rows that are not this layout (pandas' ``NaN``, a row under other words, a
value not in ``%e``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import alarms, faults, running_means


def darts(bad: int | None = None, epochs: int = 3, steps: int = 500, report: int = 100,
          sep: str = " ", accuracies: int = 2, iso: bool = True) -> list[str]:
    """A DARTS-shaped run: ``bad`` is the first NaN batch of the run (from 0); the epoch's
    length (``steps``) is printed nowhere."""
    clock = [0]

    def log(message: str) -> str:
        clock[0] += 3
        minute, second = divmod(clock[0], 60)
        stamp = (f"2026-12-07 {10 + minute // 60:02d}:{minute % 60:02d}:{second:02d},412"
                 if iso else f"12/07 10:{minute % 60:02d}:{second:02d} AM")
        return f"{stamp} {message}"

    out = [log("args = Namespace(batch_size=64, learning_rate=0.025, report_freq=50)"),
           log("param size = 3.349342MB")]
    for e in range(epochs):
        out.append(log(f"epoch {e} lr {0.025 * (1 - e / 600):e}"))
        for s, avg in running_means(bad, e, steps, report,
                                    lambda run, s: 2.3 * 0.9995 ** run + 0.1 * (s % 3)):
            top = 10.0 if avg != avg else 30 + e * 9 + s / 50
            cells = [f"{s:03d}", f"{avg:e}", *[f"{top + 20 * k:f}" for k in range(accuracies)]]
            out.append(log("train" + sep + sep.join(cells)))
        broken = bad is not None and bad < (e + 1) * steps
        out.append(log(f"train_acc {10.0 if broken else 30 + e * 9:f}"))
        out.append(log(f"valid 000 {1.8 - e / 5 if not broken else float('nan'):e} "
                       f"{40 + e:f} {70 + e:f}"))
        out.append(log(f"valid_acc {40 + e:f}"))
    return out


@pytest.mark.parametrize(("build", "right"), [
    # NaN from the run's batch 730: epoch 1's 230 (500 a epoch, rows 000..400 every 100), the
    # row of 300: the run's 800; the validation after that epoch's last row (400): 900.
    pytest.param(lambda: darts(730), [("AMP006", 800), ("AMP013", 900)], id="epoch_1"),
    # A tab between the cells, one accuracy, rows every 25 of 300 (000..275): NaN from 640,
    # epoch 2's 40: the row of 50, the run's 650; the validation after 875.
    pytest.param(lambda: darts(640, steps=300, report=25, sep="\t", accuracies=1),
                 [("AMP006", 650), ("AMP013", 875)], id="tab_one_accuracy"),
    # The sample's datefmt (``%m/%d %I:%M:%S %p``), NaN in epoch 0: its row's count.
    pytest.param(lambda: darts(120, iso=False), [("AMP006", 200), ("AMP013", 400)],
                 id="twelve_hour_clock"),
])
def test_bare_training_rows_are_read(tmp_path: Path, build: Callable[[], list[str]],
                                     right: list[tuple[str, int]]) -> None:
    """The training row's NaN at the run's batch, the evaluation's after the last training
    row before it (the parent: AMP013 at 0, no AMP006)."""
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("build", [
    pytest.param(lambda: darts(), id="healthy"),
    pytest.param(lambda: darts(epochs=5, steps=782, report=50, sep="\t", accuracies=1),
                 id="healthy_tab"),
    pytest.param(lambda: darts(iso=False)[7:], id="healthy_from_the_middle"),
])
def test_healthy_runs_are_read_and_silent(tmp_path: Path,
                                          build: Callable[[], list[str]]) -> None:
    """A healthy run is read (no "nothing to diagnose": the parent's error) and silent."""
    assert faults(tmp_path, build()) == []


@pytest.mark.parametrize("row", [
    "train 150 NaN 34.738631",  # pandas' missing value, not Python's nan
    "epoch 3 train 150 nan 34.738631",  # other words before: some other row
    "train 150 2.395833e-02",  # no accuracy after the objective
    "train 150 2.395833e-02 34.738631 51.0 77.1 90.0",  # more cells than DARTS prints
])
def test_other_rows_are_not_this_layout(row: str) -> None:
    """Rows the rule leaves to the reader as before."""
    # (imported here: the parent, which has no such module, still runs the other tests)
    from denpex_callbacks.logs.counter_rows import named_row

    assert named_row(row) is None


def test_finite_lookalikes_raise_no_alarm(tmp_path: Path) -> None:
    """A log of rows in a value not in ``%e`` (``train 150 0.0239 34.7``) and a pandas frame
    with a missing ``NaN``: no alarm, whatever is read."""
    lines = [f"train {s:03d} {2.3 - s / 1000:.4f} {30 + s / 10:.1f}" for s in range(0, 500, 50)]
    lines += ["       loss   acc", "train  0.51  NaN", "valid  0.62  71.0"]
    assert alarms(tmp_path, lines) == []
