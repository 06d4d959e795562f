"""The files a failed run leaves, written by the real frameworks: HF ``trainer_state.json``,
Lightning CSVLogger ``metrics.csv`` and TensorBoard event files; each bad file is one line
and exit 2."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from run_makers import hf_run, lightning_run

from denpex_callbacks.cli import main
from denpex_callbacks.logs.doctor import diagnose


def _hf_trainer_state(root: Path, factor: float, *, nan_filter: bool) -> Path:
    return hf_run(root, factor, nan_filter=nan_filter)


def test_hf_trainer_state_with_a_nan_loss(tmp_path: Path) -> None:
    result = diagnose(str(_hf_trainer_state(tmp_path, math.nan, nan_filter=False)))
    assert result.error is None and result.kind == "trainer_state"
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 6)]
    assert result.reading.parts[("trainer_state", "metrics")] == 24


def test_hf_trainer_state_with_the_nan_filter_on(tmp_path: Path) -> None:
    result = diagnose(str(_hf_trainer_state(tmp_path, math.nan, nan_filter=True)))
    assert [d.code for d in result.faults][:1] == ["AMP009"]


def test_hf_trainer_state_of_a_healthy_run_is_quiet(tmp_path: Path) -> None:
    result = diagnose(str(_hf_trainer_state(tmp_path, 1.0, nan_filter=True)))
    assert result.error is None and result.faults == []
    assert result.reading.lines > 24  # the eval-free records and the closing summary


def _lightning_run(root: Path, factor: float, logger: str) -> Path:
    return lightning_run(root, factor, (logger,))


@pytest.mark.parametrize("logger", ["csv", "tensorboard"])
def test_lightning_logger_files_with_a_nan_loss(tmp_path: Path, logger: str) -> None:
    result = diagnose(str(_lightning_run(tmp_path, math.inf * 0, logger)))
    assert result.error is None, result.error
    assert [(d.code, d.step) for d in result.faults][:1] == [("AMP006", 5)]


@pytest.mark.parametrize("logger", ["csv", "tensorboard"])
def test_lightning_logger_files_with_a_zero_loss(tmp_path: Path, logger: str) -> None:
    result = diagnose(str(_lightning_run(tmp_path, 0.0, logger)))
    assert [(d.code, d.step) for d in result.faults] == [("AMP007", 5)]


def test_lightning_csv_of_a_healthy_run_is_quiet(tmp_path: Path) -> None:
    result = diagnose(str(_lightning_run(tmp_path, 1.0, "csv")))
    assert result.error is None and result.faults == []


@pytest.mark.parametrize(("name", "content", "message"), [
    ("trainer_state.json", "{not json", "not valid JSON"),
    ("trainer_state.json", '{"global_step": 3}', "no 'log_history' list"),
    ("metrics.csv", "epoch,step,accuracy\n0,1,0.5\n", "without a loss, loss-scale or grad-norm"),
    ("events.out.tfevents.1.host", "garbage that is no record", "TensorBoard"),
])
def test_a_bad_run_file_is_one_line_and_exit_2(
    tmp_path: Path, name: str, content: str, message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    path.write_text(content)
    assert main(["diagnose", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"denpex: {path}") and message in err[0]
