"""``denpex`` end to end: through a subprocess (the real entry point) and in-process."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from denpex_callbacks.cli import main

CORPUS = Path(__file__).parent / "corpus"
COLLAPSE = CORPUS / "deepspeed_zero2_collapse.log"
HEALTHY = CORPUS / "deepspeed_zero2_healthy.log"


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "denpex_callbacks.cli", *args],
                          input=stdin.decode() if stdin is not None else None,
                          capture_output=True, text=True, timeout=120, check=False)


def test_exit_codes_through_subprocess() -> None:
    assert run("diagnose", str(HEALTHY)).returncode == 0
    faulty = run("diagnose", str(COLLAPSE))
    assert faulty.returncode == 1
    assert "AMP003 loss-scale-collapse" in faulty.stdout and "step 12" in faulty.stdout
    assert run("diagnose", "/nonexistent.log").returncode == 2
    assert run("diagnose").returncode == 2  # usage error
    assert run("--version").stdout.startswith("denpex ")


def test_installed_script_runs() -> None:
    script = shutil.which("denpex", path=os.path.dirname(sys.executable))
    if script is None:
        pytest.skip("the denpex console script is not installed in this environment")
    done = subprocess.run([script, "diagnose", str(HEALTHY)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0 and "no fault found" in done.stdout


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diagnose", "--format", "json", str(CORPUS / "megatron_collapse.log"),
                 str(HEALTHY)])
    document = json.loads(capsys.readouterr().out)
    assert code == 1 and document["exit_code"] == 1 and document["healthy"] is False
    first = document["diagnoses"][0]
    for key in ("id", "slug", "severity", "line", "step", "rank", "evidence", "root_cause", "fix",
                "references"):
        assert key in first
    assert [d["id"] for d in document["diagnoses"]] == ["AMP006", "AMP003"]  # cause first
    assert document["diagnoses"][1]["caused_by"] == "AMP006"
    timeline = document["inputs"][0]["timeline"]
    assert timeline["steps_seen"] == 60 and timeline["skipped_steps"] == 20
    assert document["inputs"][1]["healthy"] is True


def test_markdown_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "--format", "markdown", str(COLLAPSE)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("## denpex diagnose") and "### AMP003 `loss-scale-collapse`" in out
    assert "```" in out  # evidence lines quoted


def test_healthy_log_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", str(CORPUS / "deepspeed_legacy_two_ranks.log")]) == 0
    assert "no fault found" in capsys.readouterr().out


def test_stdin_and_gzip(tmp_path: Path) -> None:
    piped = run("diagnose", "-", stdin=COLLAPSE.read_bytes())
    assert piped.returncode == 1 and "AMP003" in piped.stdout
    packed = tmp_path / "train.log.gz"
    packed.write_bytes(gzip.compress(COLLAPSE.read_bytes()))
    assert main(["diagnose", str(packed)]) == 1


def test_explain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "amp003"]) == 0
    assert "loss-scale-collapse" in capsys.readouterr().out
    assert main(["explain", "AMP999"]) == 2


def test_secrets_masked_in_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    log = tmp_path / "secret.log"
    log.write_text(
        "downloading https://alice:s3cretpw@hub.example/model with token hf_"
        + "A" * 34 + " AKIAABCDEFGHIJKLMNOP Authorization: Bearer abc.def.ghi123\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 2 GiB (token=hf_" + "B" * 30
        + ")\n")
    for fmt in ("text", "json", "markdown"):
        assert main(["diagnose", "--format", fmt, str(log)]) == 1
        out = capsys.readouterr().out
        assert "SYS001" in out
        for secret in ("s3cretpw", "A" * 34, "B" * 30, "AKIAABCDEFGHIJKLMNOP", "abc.def.ghi123"):
            assert secret not in out, (fmt, secret)


def test_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "timeline.png"
    assert main(["diagnose", "--plot", str(png), str(COLLAPSE)]) == 1
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_plot_without_matplotlib(tmp_path: Path) -> None:
    png = str(tmp_path / "x.png")
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from denpex_callbacks.cli import main\n"
            f"sys.exit(main(['diagnose', '--plot', {png!r}, {str(HEALTHY)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2
    assert "--plot needs matplotlib" in done.stderr and "Traceback" not in done.stderr


def test_no_framework_is_imported() -> None:
    blocked = ["torch", "transformers", "accelerate", "lightning", "pytorch_lightning",
               "deepspeed", "matplotlib"]
    code = (f"import sys\nfor name in {blocked!r}: sys.modules[name] = None\n"
            "from denpex_callbacks.cli import main\n"
            f"code = main(['diagnose', '--format', 'json', {str(COLLAPSE)!r}])\n"
            f"loaded = [n for n in {blocked!r} if sys.modules.get(n) is not None]\n"
            "assert not loaded, loaded\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 1, done.stderr
    assert [d["id"] for d in json.loads(done.stdout)["diagnoses"]] == ["AMP006", "AMP003"]


def test_initiating_rank_in_a_multi_rank_log(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bar = "Epoch 0:  {p}0%|#         | {n}/10 [00:00<00:00, 9.1it/s, train_loss={v}]"
    log = tmp_path / "ddp.log"
    log.write_text("\n".join([
        "[rank0]:" + bar.format(p=2, n=2, v="0.51"), "[rank1]:" + bar.format(p=2, n=2, v="0.48"),
        "[rank1]:" + bar.format(p=3, n=3, v="nan"), "[rank0]:" + bar.format(p=3, n=3, v="0.47"),
        "[rank0]:" + bar.format(p=4, n=4, v="nan"), "[rank1]:" + bar.format(p=4, n=4, v="nan"),
    ]) + "\n")
    assert main(["diagnose", str(log)]) == 1
    out = capsys.readouterr().out
    assert "initiating rank: 1 (its loss went non-finite first, at step 3)" in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_for_big_files(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import denpex_callbacks.cli as cli

    assert main(["diagnose", str(HEALTHY)]) == 0
    assert "MiB" not in capsys.readouterr().err  # not a terminal: no bar
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(cli, "PROGRESS_MIN_BYTES", 1)
    assert main(["diagnose", str(HEALTHY)]) == 0
    assert "[###" in terminal.getvalue() and "100%" in terminal.getvalue()
    monkeypatch.setattr(cli, "PROGRESS_MIN_BYTES", 1 << 40)
    terminal.seek(0)
    terminal.truncate()
    assert main(["diagnose", str(HEALTHY)]) == 0
    assert "[" not in terminal.getvalue()  # a small file: no bar
