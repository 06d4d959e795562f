"""Records the log corpus in tests/logs/recorded/ by running real tools on CPU.

Each case is a small training (well under a minute) of one tool, healthy or with a fault
injected (NaN data, a learning rate far too high, fp16 asked for on CPU, overflowing
gradients under a loss scaler). What the tool printed (stdout and stderr, in order) becomes
``tests/logs/recorded/<tool>/<case>.log``; small files the run leaves beside it are copied
next to it; ``MANIFEST.json`` names the versions, the command and what the doctor must find.
The expected results are stated here, from the fault each case injects, not taken from the
doctor.

The tools go into their own venv, ``.corpus-venv/`` (git-ignored; ``make test`` never
installs them), through ``constraints.txt``: a dry run comes first, and an install that would
bring another torch (a CUDA build, GBs) is refused.

Usage::

    python3 scripts/record_log_corpus.py            # install if needed, record every case
    python3 scripts/record_log_corpus.py keras      # only the cases of one tool
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".corpus-venv"
PYTHON = VENV / "bin" / "python"
RECORDED = ROOT / "tests" / "logs" / "recorded"
REQUIREMENTS = RECORDED / "requirements.txt"
RUNNERS = ROOT / "scripts" / "corpus_runners"
TORCH = "2.13.0"
TIMEOUT_S = 120
MAX_LOG_BYTES = 16_000


@dataclass(frozen=True)
class Case:
    """One recorded run: which runner, which variant, and what the doctor must find."""

    tool: str  # the distribution whose version is recorded
    runner: str  # scripts/corpus_runners/<runner>.py
    variant: str
    what: str  # the fault injected, in words
    faults: tuple[tuple[str, int | None], ...] = ()  # (id, first step) in order; () = healthy
    leaves: tuple[str, ...] = ()  # globs, under the run's folder, of files copied beside the log
    note: str = ""
    env: dict[str, str] = field(default_factory=dict)
    # The doctor does not get it right yet (the test is an xfail that must start passing).
    known_gap: bool = False


CASES = (
    Case("mmengine", "mmengine_run", "healthy", "healthy Runner, OptimWrapper, SGD lr 0.01",
         leaves=("*/vis_data/scalars.json",)),
    Case("mmengine", "mmengine_run", "nan_data",
         "a NaN feature in every batch from iteration 31: the loss logged at 40 (a mean over "
         "iterations 31-40) is NaN", faults=(("AMP006", 40),),
         leaves=("*/vis_data/scalars.json",)),
    Case("mmengine", "mmengine_run", "high_lr", "SGD lr 1e3: the loss is NaN at the first log",
         faults=(("AMP006", 10),)),
    Case("keras", "keras_run", "healthy", "healthy fit, SGD 0.01, 2 epochs of 10 batches",
         env={"KERAS_BACKEND": "torch"}),
    Case("keras", "keras_run", "mixed_float16",
         "healthy fit under the mixed_float16 policy (LossScaleOptimizer)",
         env={"KERAS_BACKEND": "torch"}),
    Case("keras", "keras_run", "nan_data",
         "NaN features from batch 6 of every epoch: the bar's running loss is NaN from there",
         faults=(("AMP006", 6),), env={"KERAS_BACKEND": "torch"}),
    Case("keras", "keras_run", "nan_terminate",
         "as nan_data, with keras.callbacks.TerminateOnNaN", faults=(("AMP006", 5),),
         env={"KERAS_BACKEND": "torch"},
         note="the NaN batch is 6 (Keras prints 'Batch 5', counted from 0, glued to the bar "
              "of batch 5); the doctor places the message at that bar's step (5)"),
    Case("keras", "keras_run", "high_lr_epoch2",
         "LearningRateScheduler: lr 1e4 from epoch 2; the loss is inf at its third batch",
         faults=(("AMP006", 13),), env={"KERAS_BACKEND": "torch"}),
    Case("pytorch-ignite", "ignite_run", "healthy",
         "healthy create_supervised_trainer, fp32, ProgressBar with the loss in its postfix"),
    Case("pytorch-ignite", "ignite_run", "amp_cpu",
         "amp_mode='amp', scaler=True on CPU: torch disables the CUDA GradScaler and autocast",
         faults=(("AMP010", None),)),
    Case("pytorch-ignite", "ignite_run", "nan_terminate",
         "NaN features from iteration 15, with ignite's TerminateOnNan",
         faults=(("AMP006", 14),),
         note="the NaN is iteration 15's: ignite's bar prints a new postfix before it advances "
              "its counter, so 'loss=nan' first shows beside [14/20]"),
    Case("skorch", "skorch_run", "healthy", "healthy NeuralNetRegressor, 8 epochs"),
    Case("skorch", "skorch_run", "high_lr", "LRScheduler: lr x1000 from epoch 4: NaN there",
         faults=(("AMP006", 4),)),
    Case("paddlepaddle", "paddle_run", "hapi_healthy", "healthy paddle.Model.fit, 2 epochs"),
    Case("paddlepaddle", "paddle_run", "hapi_nan_data",
         "NaN labels from batch 13 of epoch 1: the loss logged at batch 16 is NaN",
         faults=(("AMP006", 16),)),
    Case("paddlepaddle", "paddle_run", "scaler_cpu",
         "paddle.amp.GradScaler and auto_cast(float16) on CPU: both switched off by Paddle",
         faults=(("AMP010", None),)),
    Case("paddlepaddle", "paddle_run", "scaler_overflow",
         "every gradient inf from step 10 under a GradScaler (init 1024): the scale halves on "
         "every step (auto_cast float16 on CPU: Paddle warns it makes no effect)",
         faults=(("AMP003", 10), ("AMP010", None), ("AMP004", 20)),
         note="the scaler is built as on a GPU (Paddle refuses it on CPU) and its scale kept "
              "0-d so that Paddle 3.3.1's own message can print under numpy 2"),
)

# Tools tried and not recorded, with the reason (kept in the manifest).
NOT_RECORDED = {
    "ultralytics==8.4.190": "installs, but cannot import: torchvision 0.28.0 (the only release "
    "for torch 2.13.0 on PyPI and on this machine's disk) is a CUDA build whose _C.so needs "
    "libc10_cuda.so; `import torchvision` fails with 'RuntimeError: operator torchvision::nms "
    "does not exist'",
    "timm==1.0.31": "the same torchvision failure; its train.py is not in the wheel either",
    "mosaicml (composer)==0.32.1": "refused by the dry run: it requires torch<2.7.1 and "
    "torchvision<0.22.1 (ResolutionImpossible under constraints.txt)",
    "torchtune==0.6.1": "installs, but cannot import with torch 2.13.0: it imports "
    "torchao.dtypes.nf4tensor, gone from torchao 0.18.0 (the release pip picks), and torchao "
    "0.12.0 fails on import: 'No module named torch._inductor.kernel.flex_attention'",
    "mmengine AmpOptimWrapper": "asserts ''AmpOptimizerWrapper'' is only available training "
    "on gpu, npu, mlu or musa: the mmengine runs use OptimWrapper",
}


def _pip_env() -> dict[str, str]:
    return {**os.environ, "PIP_CONSTRAINT": str(ROOT / "constraints.txt"),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def ensure_venv() -> None:
    """Create .corpus-venv and install the pinned tools, refusing any other torch."""
    if not PYTHON.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(PYTHON), "-m", "pip", "install", "-q", f"torch=={TORCH}"],
                       check=True, env=_pip_env())
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run([str(PYTHON), "-m", "pip", "install", "-q", "--dry-run", "--report",
                        str(report), "-r", str(REQUIREMENTS)], check=True, env=_pip_env())
        planned = {item["metadata"]["name"].lower(): item["metadata"]["version"]
                   for item in json.loads(report.read_text())["install"]}
    unwanted = {name: version for name, version in planned.items()
                if name in ("torch", "torchvision") or name.startswith("nvidia-cu")}
    if unwanted:
        sys.exit(f"refused: the install would bring {unwanted} (torch must stay {TORCH} CPU)")
    if planned:
        subprocess.run([str(PYTHON), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)],
                       check=True, env=_pip_env())


def versions() -> dict[str, str]:
    """Versions of the tools and of what they ran on, read from the corpus venv."""
    names = ["torch", "numpy", *sorted({case.tool for case in CASES})]
    code = ("import importlib.metadata as m, json, sys; "
            "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))")
    out = subprocess.run([str(PYTHON), "-c", code, *names], check=True, capture_output=True,
                         text=True).stdout
    found: dict[str, str] = json.loads(out)
    found["python"] = subprocess.run(
        [str(PYTHON), "-c", "import platform; print(platform.python_version())"],
        check=True, capture_output=True, text=True).stdout.strip()
    return found


def _tidy(text: str, workdir: Path) -> str:
    """The log without this machine's paths (the venv's and the run folder's)."""
    text = text.replace(str(VENV / "lib"), "/venv/lib").replace(str(workdir), "/run")
    return re.sub(r"/venv/lib/python3\.\d+/", "/venv/lib/python3/", text)


def record(case: Case) -> dict[str, Any]:
    """Run one case; write its log and the files it leaves; return its manifest entry."""
    folder = RECORDED / case.tool
    folder.mkdir(parents=True, exist_ok=True)
    command = [f"scripts/corpus_runners/{case.runner}.py", case.variant, "<run folder>"]
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONHASHSEED": "0",
               "OMP_NUM_THREADS": "1", **case.env}
        done = subprocess.run([str(PYTHON), str(RUNNERS / f"{case.runner}.py"), case.variant,
                               str(workdir / "work")], cwd=workdir, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=TIMEOUT_S, check=False)
        text = _tidy(done.stdout.decode("utf-8", "replace"), workdir)
        if done.returncode != 0:
            sys.exit(f"{case.tool}/{case.variant} failed (exit {done.returncode}):\n"
                     f"{text[-3000:]}")
        if len(text.encode()) > MAX_LOG_BYTES:
            sys.exit(f"{case.tool}/{case.variant}: {len(text.encode())} bytes, over "
                     f"{MAX_LOG_BYTES}: make the run smaller")
        log = folder / f"{case.variant}.log"
        log.write_text(text, encoding="utf-8")
        left = []
        for pattern in case.leaves:
            for path in sorted((workdir / "work").glob(pattern)):
                target = folder / f"{case.variant}.{path.name}"
                shutil.copyfile(path, target)
                left.append(target.relative_to(RECORDED).as_posix())
    return {
        "tool": case.tool, "case": case.variant,
        "log": log.relative_to(RECORDED).as_posix(), "files": left,
        "command": " ".join(command), "env": case.env, "what": case.what,
        "expected": {"healthy": not case.faults,
                     "faults": [{"id": code, "step": step} for code, step in case.faults]},
        "note": case.note, "known_gap": case.known_gap,
    }


def main(argv: list[str]) -> None:
    ensure_venv()
    wanted = [case for case in CASES if not argv or case.tool in argv or case.runner in argv]
    manifest_path = RECORDED / "MANIFEST.json"
    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"cases": []}
    entries = {(c["tool"], c["case"]): c for c in old["cases"]}
    for case in wanted:
        print(f"recording {case.tool}/{case.variant}", flush=True)
        entries[(case.tool, case.variant)] = record(case)
    order = [(case.tool, case.variant) for case in CASES]
    manifest = {
        "about": "Logs printed by real runs of these tools on CPU, recorded by "
                 "scripts/record_log_corpus.py; expected results state the injected fault.",
        "versions": versions(),
        "not_recorded": NOT_RECORDED,
        "cases": [entries[key] for key in order if key in entries],
    }
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
