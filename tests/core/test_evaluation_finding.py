"""AMP013 of one evaluation, judged by the engine in plain numbers (no torch): the adapters'
evaluation stream only counts the batch losses on the device and reads the framework's
metrics to the host (tests/hf/test_evaluation.py and tests/lightning cover it in real runs)."""

from __future__ import annotations

import subprocess
import sys

from denpex_callbacks.core.evaluation_finding import EvaluationCount, evaluation_finding


def test_the_evaluation_finding_imports_no_torch():
    code = ("import sys, denpex_callbacks.core.evaluation_finding; "
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_non_finite_batches_name_the_loss_and_the_metrics_beside_it():
    found = evaluation_finding(12, EvaluationCount(batches=4, inf_batches=2),
                               {"val_loss": float("inf"), "val_acc": float("nan"), "epoch": 1},
                               loss_metric="val_loss")
    assert found is not None
    assert (found.code, found.step) == ("AMP013", 12)
    assert found.evidence == {"phase": "evaluation", "metric": "val_loss", "value": "inf",
                              "step": 12, "batches": 4, "nonfinite_batches": 2,
                              "nonfinite_metrics": {"val_loss": "inf", "val_acc": "nan"}}
    assert found.summary == ("evaluation at step 12: 2 of 4 evaluation batches had a inf loss "
                             "(also val_acc)")


def test_a_metric_alone_is_named_the_loss_first_where_it_is_one():
    metrics = {"ratio": float("inf"), "acc": float("nan"), "val_loss": 0.25}
    found = evaluation_finding(3, EvaluationCount(batches=2), metrics, loss_metric="val_loss")
    assert found is not None
    assert (found.evidence["metric"], found.evidence["value"]) == ("ratio", "inf")
    assert found.summary == "evaluation at step 3: ratio = inf (also acc)"
    metrics["val_loss"] = float("nan")
    found = evaluation_finding(3, EvaluationCount(batches=2), metrics, loss_metric="val_loss")
    assert found is not None and found.evidence["metric"] == "val_loss"


def test_the_filter_note_only_where_the_framework_filters_and_the_loss_reads_finite():
    count = EvaluationCount(batches=8, nan_batches=1)
    quiet = evaluation_finding(5, count, {"eval_loss": 2.5}, loss_metric="eval_loss")
    said = evaluation_finding(5, count, {"eval_loss": 2.5}, loss_metric="eval_loss",
                              filtered=True)
    assert quiet is not None and said is not None
    assert "logging_nan_inf_filter" not in quiet.summary
    assert "but eval_loss reads 2.5: logging_nan_inf_filter" in said.summary


def test_a_finite_evaluation_is_no_finding():
    assert evaluation_finding(5, EvaluationCount(batches=8), {"eval_loss": 2.5, "note": "x"},
                              loss_metric="eval_loss") is None
