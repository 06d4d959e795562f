"""``denpex diagnose FOLDER`` on what a run leaves: a real HF Trainer's output folder
(checkpoints with trainer_state.json, TensorBoard events, its stdout) and a real Lightning
Trainer's lightning_logs (metrics.csv and events of several versions); one merged verdict,
what was read, exit 2 for a folder with a broken run file or nothing readable."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from run_makers import hf_run, lightning_run, torchrun_loop

from denpex_callbacks.cli import main
from denpex_callbacks.logs.doctor import diagnose

# HF's own log dict, as its PrinterCallback prints it (transformers 5: values as strings).
HF_LINE = "{{'loss': '{loss}', 'grad_norm': '1.2', 'learning_rate': '0.01', 'epoch': '{epoch}'}}"


@pytest.fixture(scope="module")
def hf_nan_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hf_nan")
    hf_run(root, math.nan, nan_filter=False, save_steps=8, report_to="tensorboard",
           log=root / "train.log")
    return root


def test_an_hf_output_folder_with_a_nan_loss(hf_nan_folder: Path) -> None:
    result = diagnose(str(hf_nan_folder))
    assert result.error is None and result.kind == "folder", result.error
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP006", 6, 0)]
    (nan,) = result.faults
    # The newest checkpoint holds the whole history: the older ones are not read again.
    names = [f.name for f in result.files]
    assert names[0] == "checkpoint-24/trainer_state.json"
    assert "checkpoint-8/trainer_state.json" not in names
    assert [n.split("/")[0] for n in names[1:]] == ["runs", "train.log"]
    assert all(f.status == "read" and f.faults == 1 for f in result.files)
    # One diagnosis for the three files that show the NaN, the others named as evidence.
    assert nan.source == str(hf_nan_folder / "checkpoint-24" / "trainer_state.json")
    assert nan.evidence["also_in"] == names[1:]
    assert result.files[0].why == "the most complete of 3"


def test_the_folder_verdict_says_what_was_read(
        hf_nan_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", str(hf_nan_folder)]) == 1
    headline = capsys.readouterr().out.splitlines()[0]
    assert headline.startswith(f"{hf_nan_folder}: 1 fault(s) (read 3 file(s): "
                               "checkpoint-24/trainer_state.json (24 records: 24 HF "
                               "trainer_state.json metric records; the most complete of 3), ")
    # (the closing summary {'train_runtime': ...} ends the run: a setup line)
    assert "train.log (25 lines: 24 HF Trainer metric lines, 1 HF Trainer setup lines)" in (
        headline)
    assert main(["diagnose", "--format", "json", str(hf_nan_folder)]) == 1
    document = json.loads(capsys.readouterr().out)
    (entry,) = document["inputs"]
    assert entry["kind"] == "folder" and entry["read"]["unit"] == "files"
    assert [f["status"] for f in entry["read"]["files"]] == ["read"] * 3
    assert entry["read"]["files"][2] == {
        "name": "train.log", "kind": "log", "status": "read",
        "read": "25 lines: 24 HF Trainer metric lines, 1 HF Trainer setup lines", "why": "",
        "faults": 1}
    assert [(d["id"], d["step"]) for d in document["diagnoses"]] == [("AMP006", 6)]


def test_a_healthy_hf_output_folder_is_silent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hf_run(tmp_path, 1.0, nan_filter=True, save_steps=8, log=tmp_path / "train.log")
    assert main(["diagnose", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{tmp_path}: no fault found (read 2 file(s): ")


def test_lightning_logs_are_read_from_the_newest_version(tmp_path: Path) -> None:
    # Two loggers under one save_dir: CSVLogger takes version_0, TensorBoardLogger version_1.
    lightning_run(tmp_path, 1.0, ("csv", "tensorboard"))
    healthy = diagnose(str(tmp_path))
    assert healthy.error is None and healthy.faults == [], healthy.error
    assert [(f.name.split("/")[1], f.kind) for f in healthy.files] == [
        ("version_0", "csv"), ("version_1", "tfevents")]
    lightning_run(tmp_path, math.inf * 0, ("csv", "tensorboard"))  # NaN from step 5 on
    result = diagnose(str(tmp_path))
    assert [(d.code, d.step) for d in result.faults][:1] == [("AMP006", 5)]
    assert [(f.name.split("/")[1], f.why, f.faults > 0) for f in result.files] == [
        ("version_2", "the newest of 2 runs (version_2)", True),
        ("version_3", "the newest of 2 runs (version_3)", True)]
    assert result.faults[0].evidence["also_in"] == [result.files[1].name]


def _hf_log(folder: Path, losses: list[str]) -> None:
    lines = [HF_LINE.format(loss=loss, epoch=(i + 1) / 24) for i, loss in enumerate(losses)]
    (folder / "train.log").write_text("\n".join(lines) + "\n")


def test_a_broken_run_file_is_named_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _hf_log(tmp_path, ["1.5", "1.2", "nan", "nan"])
    torn = tmp_path / "checkpoint-4" / "trainer_state.json"
    torn.parent.mkdir()
    torn.write_text('{"global_step": 4, "log_history": [{"loss": 1.5')  # the crash tore it
    assert main(["diagnose", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"denpex: {torn}: not valid JSON (Expecting ',' delimiter at line 1)"]
    # The rest of the folder is still diagnosed.
    assert "AMP006 non-finite-loss" in captured.out
    assert "checkpoint-4/trainer_state.json (not valid JSON" in captured.out.splitlines()[0]


@pytest.mark.parametrize(("files", "message"), [
    ({}, "no file a run leaves (trainer_state.json, metrics.csv"),
    ({"notes.txt": "to do: lower the lr\n", "config.yaml": "lr: 0.1\n"},
     "read 1 file(s), none usable: notes.txt (read 1 line(s), none with a training metric"),
    ({"lightning_logs/version_0/metrics.csv": "epoch,step,val_acc\n0,9,0.5\n"},
     "read 1 file(s), none usable: lightning_logs/version_0/metrics.csv (a CSV without a "
     "loss"),
])
def test_a_folder_with_nothing_readable_is_one_line_and_exit_2(
        tmp_path: Path, files: dict[str, str], message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert main(["diagnose", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith(f"denpex: {tmp_path}: {message}"), line


def test_tokenizer_files_and_checkpoint_contents_are_not_read_as_logs(tmp_path: Path) -> None:
    _hf_log(tmp_path, ["1.5", "1.2", "1.1", "1.0"])
    checkpoint = tmp_path / "checkpoint-4"
    checkpoint.mkdir()
    (tmp_path / "vocab.txt").write_text("[PAD]\nloss\nnan\n")
    (checkpoint / "merges.txt").write_text("l oss\n")
    (checkpoint / "debug.log").write_text("loss nan\n")
    result = diagnose(str(tmp_path))
    assert [f.name for f in result.files] == ["train.log"] and result.faults == []


def test_a_run_folder_holding_its_report_folder_is_one_verdict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _hf_log(tmp_path, ["1.5", "1.2", "nan", "nan"])
    reports = tmp_path / "denpex_reports"
    reports.mkdir()
    header = {"type": "header", "setup": {"rank": 0, "framework": "hf"}}
    (reports / "rank0.jsonl").write_text(json.dumps(header) + "\n")
    assert main(["diagnose", "--format", "json", str(tmp_path)]) == 1
    (entry,) = json.loads(capsys.readouterr().out)["inputs"]
    assert entry["path"] == str(tmp_path)
    assert [(f["name"], f["kind"]) for f in entry["read"]["files"]] == [
        ("denpex_reports", "reports"), ("train.log", "log")]


def test_each_ranks_own_log_names_its_rank(tmp_path: Path) -> None:
    """torchrun --log-dir's layout, ``<run id>/attempt_<n>/<local_rank>/stdout.log``
    (torch/distributed/elastic/multiprocessing/api.py, DefaultLogsSpecs): a plain loop's
    lines without any prefix; rank 1's loss is NaN from step 3 on."""
    for rank in (0, 1):
        folder = tmp_path / "run_abc" / "attempt_0" / str(rank)
        folder.mkdir(parents=True)
        losses = [2.0, 1.5] + ([1.2, 1.1] if rank == 0 else [math.nan, math.nan])
        (folder / "stdout.log").write_text("".join(
            f"step {s} loss {loss} loss_scale 1024.0\n" for s, loss in enumerate(losses, 1)))
        (folder / "stderr.log").write_text("")
    result = diagnose(str(tmp_path))
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP006", 3, 1)]
    assert result.initiating == (1, 3)
    assert [f.status for f in result.files] == ["unusable", "read"] * 2  # stderr.log is empty


@pytest.mark.slow  # a torchrun launch, ~7 s on two cores
def test_a_real_torchrun_log_dir_is_read_per_rank(tmp_path: Path) -> None:
    torchrun_loop("nan", 6, 12, "--log-dir", str(tmp_path), "--redirects", "3")
    result = diagnose(str(tmp_path))
    assert [(d.code, d.step, d.rank) for d in result.faults][:1] == [("AMP006", 6, 1)]
    assert result.initiating == (1, 6)
    assert sorted(f.name.split("/", 1)[1] for f in result.files if f.status == "read") == [
        "attempt_0/0/stdout.log", "attempt_0/1/stdout.log"]
