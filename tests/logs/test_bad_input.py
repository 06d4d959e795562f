"""Bad input: one clear line on stderr, exit 2, no traceback, the other inputs still read."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from denpex_callbacks.cli import main
from denpex_callbacks.logs.doctor import diagnose

CORPUS = Path(__file__).parent / "corpus"
COLLAPSE = CORPUS / "deepspeed_zero2_collapse.log"


def bad_inputs(tmp: Path) -> dict[str, Path]:
    (tmp / "empty.log").write_bytes(b"")
    (tmp / "binary.bin").write_bytes(b"\x7fELF\x00\x00\x01" + bytes(range(256)) * 10)
    (tmp / "latin1.log").write_bytes(
        "r\u00e9sum\u00e9 loss".encode("latin-1") + b"\n" + COLLAPSE.read_bytes())
    (tmp / "noreports").mkdir()
    packed = gzip.compress(COLLAPSE.read_bytes())
    (tmp / "truncated.log.gz").write_bytes(packed[: len(packed) // 2])
    (tmp / "header-only.gz").write_bytes(packed[:12])  # breaks before its first byte
    return {"missing": tmp / "missing.log", "empty": tmp / "empty.log",
            "binary": tmp / "binary.bin", "non-utf8": tmp / "latin1.log",
            "directory": tmp / "noreports", "truncated-gz": tmp / "truncated.log.gz",
            "header-only-gz": tmp / "header-only.gz"}


@pytest.mark.parametrize("kind", ["missing", "empty", "binary", "non-utf8", "directory",
                                  "truncated-gz", "header-only-gz"])
def test_bad_input_is_one_line_and_exit_2(kind: str, tmp_path: Path) -> None:
    path = bad_inputs(tmp_path)[kind]
    done = subprocess.run([sys.executable, "-m", "denpex_callbacks.cli", "diagnose", str(path),
                           str(COLLAPSE)], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    messages = done.stderr.strip().splitlines()
    assert len(messages) == 1 and messages[0].startswith(f"denpex: {path}")
    assert messages[0].count(str(path)) == 1
    assert "AMP003" in done.stdout  # the good file in the same call is still diagnosed


def test_non_utf8_and_truncated_gz_are_still_read(tmp_path: Path) -> None:
    paths = bad_inputs(tmp_path)
    for kind in ("non-utf8", "truncated-gz"):
        result = diagnose(str(paths[kind]))
        assert result.error is None and result.problems
    # the training script's "loss inf" lines (AMP006), the overflow streak (AMP003)
    assert [d.code for d in diagnose(str(paths["non-utf8"])).faults] == ["AMP006", "AMP003"]


def test_gzip_is_told_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    assert "corrupt" in str(diagnose(str(bad_inputs(tmp_path)["header-only-gz"])).error)
    misnamed = tmp_path / "plain.gz"
    misnamed.write_bytes(COLLAPSE.read_bytes())
    assert [d.code for d in diagnose(str(misnamed)).faults] == ["AMP006", "AMP003"]
    piped = subprocess.run([sys.executable, "-m", "denpex_callbacks.cli", "diagnose", "-"],
                           input=gzip.compress(COLLAPSE.read_bytes()), capture_output=True,
                           check=False)
    assert piped.returncode == 1 and b"AMP003" in piped.stdout


def test_json_is_not_healthy_when_an_input_was_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    healthy = CORPUS / "hf_trainer_healthy.log"
    assert main(["diagnose", "--format", "json", str(healthy)]) == 0
    assert '"healthy": true' in capsys.readouterr().out
    assert main(["diagnose", "--format", "json", str(tmp_path / "missing.log"),
                 str(healthy)]) == 2
    assert '"healthy": false' in capsys.readouterr().out


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_bytes(COLLAPSE.read_bytes() * 4)
    # A real SIGINT, sent by the child to itself while it decodes its first block: mid-read,
    # with no timer to race.
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys, os, signal\n"
         "from denpex_callbacks.cli import main\n"
         "from denpex_callbacks.logs import reader\n"
         # Python's own handler, even if this test process ignores SIGINT (children inherit that)
         "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
         "decode = reader._decode\n"
         "def interrupted(*args):\n"
         "    os.kill(os.getpid(), signal.SIGINT)\n"
         "    return decode(*args)\n"
         "reader._decode = interrupted\n"
         f"sys.exit(main(['diagnose', '--workers', '0', {str(log)!r}]))"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert err.strip() == "denpex: interrupted"


def test_permission_denied(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("running as root: file permissions are not enforced")
    log = tmp_path / "locked.log"
    log.write_text("x\n")
    log.chmod(0)
    assert diagnose(str(log)).error == f"{log}: permission denied"


def test_ten_megabyte_single_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A tqdm bar rewritten 100k times with carriage returns and no newline: 10 MB, one line.
    bar = "".join(f"\r 50%|#####     | {i}/200000 [00:10<00:10, 9.1it/s]" for i in range(10**5))
    overflow = ("\r[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1024, "
                "reducing to 512")
    log = tmp_path / "one_line.log"
    log.write_text(bar * 2 + overflow + bar)
    assert log.stat().st_size > 10 * 1024 * 1024
    code = main(["diagnose", str(log)])
    err = capsys.readouterr().err
    assert code == 2 and "longer than 4 MiB" in err and len(err.strip().splitlines()) == 1
    result = diagnose(str(log))
    assert result.timeline.skipped == 1
