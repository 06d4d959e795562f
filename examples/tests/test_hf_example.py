"""examples/hf/train.py runs on CPU (with its CPU GradScaler helper) and diagnoses its fault."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from denpex_callbacks import read_report_dir

EXAMPLE = Path(__file__).parents[2] / "examples" / "hf" / "train.py"

pytestmark = pytest.mark.slow  # run by `make test-slow`, not `make test`


def run_example(tmp_path: Path, fault: str) -> list[tuple[str, int]]:
    """Run the example with ``fault`` from step 3; its (id, step) of each non-info diagnosis."""
    spec = importlib.util.spec_from_file_location("hf_example_train", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path / "out"
    example.main(["--fault", fault, "--fault-step", "3", "--steps", "26",
                  "--output-dir", str(out)])
    report = read_report_dir(out / "denpex_reports")[0]
    return [(d.code, d.step) for d in report.diagnoses if d.severity.value != "info"]


@pytest.mark.parametrize(("fault", "expected"), [("overflow", "AMP003"), ("zero", "AMP007")])
def test_example_reports_its_fault(tmp_path: Path, fault: str, expected: str) -> None:
    # (step 3 exactly: the healthy steps before it never skip, whatever the CPU's rounding)
    assert run_example(tmp_path, fault)[0] == (expected, 3)


def test_example_is_silent_when_healthy(tmp_path: Path) -> None:
    assert run_example(tmp_path, "none") == []
