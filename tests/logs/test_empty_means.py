"""numpy's "Mean of empty slice" warning right above the NaN it printed (logs/empty_means.py).

Variants the sample (sample35's relion-classranker run with ``--no_valid``) did not show:
numpy 2's wording (no period, ``_core/``), ``nanmean``'s warning (its caller's file), the
division's second warning left out, other layouts of the rows and of the mean's line. And
where the rule must not reach: a NaN farther below, a second NaN after the one explained, a
line that only quotes the words, a training loss's NaN.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults

# numpy 1.26's and numpy 2's ``_mean``, as Python's ``formatwarning`` prints them: the
# warning over its source line, then the division's warning over its own.
NUMPY_1 = ["/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py:3504: RuntimeWarning: "
           "Mean of empty slice.", "  return _methods._mean(a, axis=axis, dtype=dtype,",
           "/usr/lib/python3/dist-packages/numpy/core/_methods.py:121: RuntimeWarning: invalid "
           "value encountered in double_scalars", "  ret = ret.dtype.type(ret / rcount)"]
NUMPY_2 = ["/home/u/.venv/lib/python3.12/site-packages/numpy/_core/fromnumeric.py:3824: "
           "RuntimeWarning: Mean of empty slice", "  return _methods._mean(a, axis=axis, "
           "dtype=dtype,", "/home/u/.venv/lib/python3.12/site-packages/numpy/_core/_methods.py:"
           "142: RuntimeWarning: invalid value encountered in scalar divide",
           "  ret = ret.dtype.type(ret / rcount)"]
# ``np.nanmean`` of no finite value: its one warning, at the caller's line
NANMEAN = ["train.py:212: RuntimeWarning: Mean of empty slice",
           "  val_mean = np.nanmean(val_losses)"]


def rows(epochs: int = 12) -> list[str]:
    """A plain loop's training rows (``print(f"epoch {e} | loss {loss:.4f} | lr ...")``),
    healthy, no evaluation."""
    return [f"epoch {e} | loss {1.9 * 0.93 ** e:.4f} | lr {3e-4 * 0.95 ** e:.2e}"
            for e in range(epochs)]


@pytest.mark.parametrize(("warning", "mean"), [
    pytest.param(NUMPY_1, "test_loss = nan", id="numpy1"),
    pytest.param(NUMPY_2, "average eval loss nan", id="numpy2"),
    pytest.param(NANMEAN, "Validation loss: nan", id="nanmean"),
    pytest.param(NUMPY_2[:2], "Validation loss: nan", id="one_warning"),
])
def test_the_mean_of_nothing_is_no_fault(tmp_path: Path, warning: list[str],
                                         mean: str) -> None:
    """A healthy run's closing mean of an evaluation that never ran: silent (AMP013 on the
    parent)."""
    assert faults(tmp_path, [*rows(), *warning, mean, "done"]) == []


def test_a_nan_farther_below_counts(tmp_path: Path) -> None:
    """The warning explains the print right below it, not an evaluation's NaN five lines
    on."""
    lines = [*rows(), *NUMPY_2, "saving checkpoint to ckpt/last.pt", "Validation loss: nan"]
    assert faults(tmp_path, lines) == [("AMP013", 11)]


def test_one_warning_explains_one_nan(tmp_path: Path) -> None:
    """A second evaluation NaN below the one the warning explained is a value of its own."""
    lines = [*rows(6), *NANMEAN, "Validation loss: nan", *rows(12)[6:], "Validation loss: nan"]
    assert faults(tmp_path, lines) == [("AMP013", 11)]


def test_quoted_words_explain_nothing(tmp_path: Path) -> None:
    """A line that only quotes the words (a filter set in the script, echoed) is no
    warning."""
    lines = [*rows(), "warnings.filterwarnings('ignore', message='Mean of empty slice')",
             "Validation loss: nan"]
    assert faults(tmp_path, lines) == [("AMP013", 11)]


def test_a_training_nan_is_left_to_the_training_rules(tmp_path: Path) -> None:
    """Below the warning, a training loss's NaN is still the training loss's (AMP006): only
    an evaluation's NaN is explained."""
    lines = [*rows(8), *NANMEAN, "epoch 8 | loss nan | lr 1.99e-04"]
    assert faults(tmp_path, lines) == [("AMP006", 8)]


def test_finite_values_below_the_warning_stay_silent(tmp_path: Path) -> None:
    """The healthy control: the warning above finite evaluation values changes nothing."""
    lines = [*rows(6), *NUMPY_1, "Validation loss: 0.8123", *rows(12)[6:],
             "Validation loss: 0.7020"]
    assert faults(tmp_path, lines) == []
