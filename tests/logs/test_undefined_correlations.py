"""A correlation metric is NaN where the predictions or the labels are constant: an untrained
regressor's first evaluation on GLUE's STS-B (HF's run_glue computes ``pearson`` and
``spearmanr`` with scipy, which returns NaN with a ConstantInputWarning, and averages them
into ``combined_score``). Where the evaluation loss beside it is finite, nothing overflowed
and the doctor stays silent; a NaN evaluation loss is still AMP013, and so is a correlation's
NaN on a line without a loss (sentence-transformers' evaluator: see test_post_formats).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines


def _glue(correlation: str, eval_loss: str = "0.6931") -> list[str]:
    """HF Trainer's rows (``str(logs)``), an evaluation dict every 500 steps."""
    lines = []
    for step in range(10, 3000, 10):
        lines.append(f"{{'loss': {2.3 - step / 1e4:.4f}, 'grad_norm': 1.2, 'learning_rate': "
                     f"1e-05, 'epoch': {step / 3000:.2f}}}")
        if step % 500 == 0:
            first = step == 500
            corr, loss = (correlation, eval_loss) if first else ("0.81", "0.5")
            lines.append(f"{{'eval_loss': {loss}, 'eval_pearson': {corr}, 'eval_spearmanr': "
                         f"{corr}, 'eval_combined_score': {corr}, 'eval_runtime': 1.2, "
                         f"'eval_samples_per_second': 800.0, 'epoch': {step / 3000:.2f}}}")
    return lines


def test_nan_correlation_beside_a_finite_loss_is_quiet(tmp_path: Path) -> None:
    """Before: AMP013 (``eval_pearson = nan``) on a healthy run."""
    assert diagnose_lines(tmp_path, _glue("nan")).diagnoses == []


def test_nan_evaluation_loss_beside_them_is_still_amp013(tmp_path: Path) -> None:
    """Control (AMP013 before too): the evaluation's loss itself NaN."""
    found = diagnose_lines(tmp_path, _glue("nan", eval_loss="nan")).diagnoses
    assert [d.code for d in found] == ["AMP013"]
    assert found[0].evidence["metric"] == "eval_loss"
