"""Log doctor throughput and memory on a realistic 1 GB log, beside ``grep -cE``.

Generates (once) a DeepSpeed-at-INFO style log in /tmp: engine timer lines, ``step=`` lines,
HF-style loss dicts behind tqdm bars, fp16 overflow lines (start-up back-off, a sawtooth, a
collapse at the end) and unrelated noise. Then runs on the same file, after it has been read
once so that every reader gets it from the page cache, in rotated rounds (round r starts with
variant r mod n; ``--rounds``, default 3): ``grep -cE`` with the doctor's keyword prefilter,
``denpex diagnose`` as it runs by default and, with ``--baseline PYTHON``, the ``denpex`` that
another interpreter imports (another checkout's virtual environment: before/after side by
side). The median of each; then, once each, ``denpex diagnose --workers 0`` (one process) and
a plain Python loop that matches those keywords with one regex per line (where a hand-written
log scanner starts). Prints MB/s for each and the peak RSS of each variant's largest process (from
``wait4``, per run). Not a test: numbers depend on the machine.

``--generic 0.3``: the second benchmark log, where that share of the lines are metric lines
in formats no family parser knows (nanoGPT, mmengine, key=value, Keras bars...), read by the
generic metric reader. ``--shape megatron`` / ``nanogpt`` / ``mnist`` / ``epochstep``: logs
where every line is a metric line, as those tools print them (``training_log``'s iteration
line every 10 iterations; ``iter N: loss X, time Y ms, mfu Z%`` every iteration; the PyTorch
MNIST example's ``Train Epoch: E [n/N (p%)]\tLoss: X`` every batch; the most copied
tutorial's ``Epoch [e/E], Step [i/T], Loss: X`` every step).

``--startup``: start-up instead of throughput, on a pasted excerpt of two lines: ``python -c
pass``, ``import denpex_callbacks.logs.doctor`` and ``denpex diagnose`` (and the baseline's),
in rotated rounds (default 10), medians in ms. Bytecode is written to a cache under /tmp
(``PYTHONPYCACHEPREFIX``), as an installed package has it, even where the environment sets
``PYTHONDONTWRITEBYTECODE`` (compiling the sources would otherwise be most of the time).

Usage: ``.venv/bin/python benchmarks/log_doctor.py [--size-mb 1024] [--path /tmp/x.log]
[--generic 0.3 | --shape megatron | --startup] [--rounds 3]
[--baseline /other/checkout/.venv/bin/python]``
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from denpex_callbacks.logs.parsers import KEYWORDS

STAMP = "[2026-01-01 10:00:00,000]"
ROUNDS = 3  # rotated rounds of the variants (grep, the doctor, ...)
STARTUP_ROUNDS = 10  # --startup: each run takes a fraction of a second
NOISE = (
    f"{STAMP} [INFO] [timer.py:264:stop] epoch=0/micro_step={{s}}/global_step={{s}}, "
    "RunningAvgSamplesPerSec=1224.88, CurrSamplesPerSec=1224.50, MemAllocated=30.1GB, "
    "MaxMemAllocated=31.9GB",
    f"{STAMP} [INFO] [engine.py:2134:_take_model_step] throughput tokens/s=81234.2 "
    "tflops=152.3 mfu=0.48 grad accumulation boundary reached",
    f"{STAMP} [WARNING] [stage_1_and_2.py:1891:step] communication bucket flushed early "
    "(bucket size 500000000 elements)",
    "data_loader: worker 3 prefetched shard 00041-of-01024 (2048 samples, 7.9 MB)",
)


# Metric lines of tools without a family parser, as their format strings print them.
GENERIC = (
    "iter {s}: loss {v:.4f}, time 35.21ms, mfu 12.34%",
    "2026/01/01 10:00:00 - mmengine - INFO - Epoch(train)  [1][{s}/999999]  lr: 1.0000e-04  "
    "eta: 0:10:00  time: 0.5000  data_time: 0.0100  memory: 1000  grad_norm: 1.2000  "
    "loss: {v:.4f}  loss_cls: 0.5000",
    "step={s} train_loss={v:.4f} lr=0.0001 grad_norm=0.91",
    "32/32 ━━━━━━━━━━━━━━━━━━━━ 1s 3ms/step - accuracy: 0.5000 - loss: {v:.4f}",
    "| step {s} | Train Loss {v:.4f} | Loss Scale 65536 |",
)


def generate(path: Path, size_mb: int, generic: float = 0.0) -> None:
    """Write a log of about ``size_mb`` MB (deterministic); ``generic``: the share of lines
    that are metric lines in formats only the generic reader knows."""
    rng = random.Random(0)
    target = size_mb * 1_000_000
    written, step, scale = 0, 0, 2.0 ** 16
    with open(path, "w", encoding="utf-8") as out:
        while written < target:
            step += 1
            block = [rng.choice(GENERIC).format(s=step, v=2.5 + rng.random())
                     if rng.random() < generic else rng.choice(NOISE).format(s=step)
                     for _ in range(8)]
            overflow = step < 6 or step % 2000 == 0 or written > target * 0.995
            if overflow:
                block.append(f"{STAMP} [INFO] [loss_scaler.py:266:update_scale] [deepspeed] "
                             f"OVERFLOW! Rank 0 Skipping step. Attempted loss scale: "
                             f"{int(scale)}, reducing to {int(max(scale / 2, 1))}")
                scale = max(scale / 2, 1)
            elif step % 1000 == 0:
                scale *= 2
            if step % 10 == 0:
                block.append(f"{STAMP} [INFO] [logging.py:123:log_dist] [Rank 0] step={step}, "
                             "skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]")
                block.append(f" 10%|#         | {step}/1000000 [00:10<01:30, 9.1it/s]"
                             f"{{'loss': '{2.5 + rng.random():.4f}', 'grad_norm': '0.91', "
                             "'learning_rate': '0.0001', 'epoch': '0.01'}")
            text = "\n".join(block) + "\n"
            out.write(text)
            written += len(text)


def _mnist(iteration: int, loss: float) -> str:
    """pytorch/examples mnist/main.py's line (log_interval 1, batch 64, 60000 samples: 938
    batches an epoch; ``iteration`` from 1)."""
    epoch, batch = divmod(iteration - 1, 938)
    return (f"Train Epoch: {epoch + 1} [{batch * 64}/60000 ({100.0 * batch / 938:.0f}%)]"
            f"\tLoss: {loss:.6f}")


def _epochstep(iteration: int, loss: float) -> str:
    """yunjey/pytorch-tutorial's ``Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}`` (every step,
    600 an epoch)."""
    epoch, step = divmod(iteration - 1, 600)
    return f"Epoch [{epoch + 1}/1000], Step [{step + 1}/600], Loss: {loss:.4f}"


SHAPES = {"mnist": _mnist, "epochstep": _epochstep}


def generate_shape(path: Path, size_mb: int, shape: str) -> None:
    """Write a log of about ``size_mb`` MB where every line is a metric line of ``shape``
    (deterministic): Megatron-LM's ``training_log`` line, nanoGPT's ``iter`` line, the PyTorch
    MNIST example's ``Train Epoch`` line or the tutorial's ``Epoch [e/E], Step [i/T]``."""
    rng = random.Random(0)
    target = size_mb * 1_000_000
    written, iteration = 0, 0
    with open(path, "w", encoding="utf-8") as out:
        while written < target:
            lines = []
            for _ in range(1000):
                iteration += 10 if shape == "megatron" else 1
                if shape in SHAPES:
                    lines.append(SHAPES[shape](iteration, 2.5 + rng.random()))
                elif shape == "megatron":
                    lines.append(
                        f" [2026-01-01 10:00:00] iteration {iteration:8d}/  500000 | consumed "
                        f"samples: {iteration * 512:12d} | elapsed time per iteration (ms): "
                        f"{1200 + rng.random() * 50:.1f} | learning rate: 3.000000E-04 | global "
                        f"batch size:   512 | lm loss: {2.5 + rng.random():.6E} | loss scale: "
                        f"65536.0 | grad norm: {0.8 + rng.random():.3f} | number of skipped "
                        "iterations:   0 | number of nan iterations:   0 |")
                else:
                    lines.append(f"iter {iteration}: loss {2.5 + rng.random():.4f}, time "
                                 f"{30 + rng.random() * 10:.2f}ms, mfu {40 + rng.random():.2f}%")
            text = "\n".join(lines) + "\n"
            out.write(text)
            written += len(text)


def _warm_page_cache(path: Path) -> None:
    with open(path, "rb") as handle:
        while handle.read(1 << 24):
            pass


def _timed(command: list[str], cwd: str | None = None,
           env: dict[str, str] | None = None) -> tuple[float, str, float]:
    """Seconds, stdout and peak RSS (MB, its largest process: ``wait4`` reports the
    child's, which counts its own children's) of one run."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, cwd=cwd, env=env)
    assert child.stdout is not None
    out = child.stdout.read()
    child.stdout.close()
    _pid, status, usage = os.wait4(child.pid, 0)  # reaped here: Popen must not wait again
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, out, usage.ru_maxrss / 1024


def python_loop_seconds(path: Path, pattern: str) -> tuple[float, int]:
    """Seconds a per-line ``re.search`` loop takes over the file, and its matching lines."""
    regex = re.compile(pattern)
    start = time.perf_counter()
    matches = 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if regex.search(line):
                matches += 1
    return time.perf_counter() - start, matches


def startup(rounds: int, baseline: str | None) -> None:
    """Median start-up times (ms) of Python, the doctor's import and ``denpex diagnose`` on a
    two-line excerpt, in rotated rounds (see the module docstring)."""
    log = Path("/tmp/denpex_bench_startup.log")
    log.write_text("Epoch 1 step 10 loss 2.31\nEpoch 1 step 20 loss 2.10\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = "/tmp/denpex_bench_pycache"
    doctor = ["-m", "denpex_callbacks.cli", "diagnose", str(log)]
    variants: dict[str, tuple[list[str], str | None]] = {
        "python": ([sys.executable, "-c", "pass"], None),
        "import": ([sys.executable, "-c", "import denpex_callbacks.logs.doctor"], None),
        "denpex": ([sys.executable, *doctor], None),
    }
    if baseline:  # run outside this checkout, so that it imports its own denpex
        variants["baseline import"] = ([baseline, "-c", "import denpex_callbacks.logs.doctor"],
                                       "/")
        variants["baseline"] = ([baseline, *doctor], "/")
    names = list(variants)
    for name in names:  # once, untimed: writes the bytecode cache
        _timed(*variants[name], env=env)
    times: dict[str, list[float]] = {name: [] for name in names}
    load_before = os.getloadavg()
    for round_ in range(rounds):  # rotated: round r starts with variant r mod n
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            times[name].append(_timed(*variants[name], env=env)[0])
    load_after = os.getloadavg()
    print(f"start-up: {os.cpu_count()} CPUs, {rounds} rotated rounds, load "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after (1-minute)")
    for name in names:
        print(f"{name:16} {1000 * statistics.median(times[name]):7.1f} ms median  "
              f"({1000 * min(times[name]):.1f} best)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--path", help="the log to read (generated when missing or smaller "
                        "than --size-mb); default: one file per kind of log under /tmp")
    parser.add_argument("--generic", type=float, default=0.0,
                        help="share of metric lines in formats without a family parser")
    parser.add_argument("--shape", choices=("megatron", "nanogpt", *SHAPES),
                        help="every line a metric line of this tool")
    parser.add_argument("--startup", action="store_true",
                        help="time start-up on a two-line excerpt instead (default 10 rounds)")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--baseline", help="another interpreter whose denpex runs beside")
    args = parser.parse_args()
    if args.startup:
        startup(args.rounds or STARTUP_ROUNDS, args.baseline)
        return
    args.rounds = args.rounds or ROUNDS
    # One default file per kind: a log generated for one shape is never timed as another's.
    kind = args.shape or f"mixed{args.generic:g}"
    path = Path(args.path or f"/tmp/denpex_bench_{kind}.log")
    if not path.exists() or path.stat().st_size < args.size_mb * 900_000:
        print(f"generating {path} ({args.size_mb} MB)...", flush=True)
        if args.shape:
            generate_shape(path, args.size_mb, args.shape)
        else:
            generate(path, args.size_mb, args.generic)
    size_mb = path.stat().st_size / 1e6
    pattern = "|".join(re.escape(k.decode()) for k in KEYWORDS)
    _warm_page_cache(path)  # every reader below then reads from memory, the first one too
    doctor = ["-m", "denpex_callbacks.cli", "diagnose", "--format", "text"]
    variants: dict[str, tuple[list[str], str | None]] = {
        "grep": (["grep", "-cE", pattern, str(path)], None),
        "denpex": ([sys.executable, *doctor, str(path)], None),
    }
    if args.baseline:  # run outside this checkout, so that it imports its own denpex
        variants["baseline"] = ([args.baseline, *doctor, str(path)], "/")
    names = list(variants)
    times: dict[str, list[float]] = {name: [] for name in names}
    rss: dict[str, float] = dict.fromkeys(names, 0.0)
    outputs: dict[str, str] = {}
    load_before = os.getloadavg()
    for round_ in range(args.rounds):  # rotated: round r starts with variant r mod n
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            seconds, out, peak = _timed(*variants[name])
            times[name].append(seconds)
            rss[name] = max(rss[name], peak)
            outputs[name] = out
    load_after = os.getloadavg()
    median = {name: statistics.median(samples) for name, samples in times.items()}
    median["one"], _out, rss["one"] = _timed(
        [sys.executable, *doctor, "--workers", "0", str(path)])  # once: informative
    loop_s, loop_matches = python_loop_seconds(path, pattern)
    grep_s, doctor_s = median["grep"], median["denpex"]
    what = (f"every line a {args.shape} metric line" if args.shape
            else f"generic metric lines: {args.generic:.0%}")
    print(f"file:   {size_mb:.0f} MB, {os.cpu_count()} CPUs, {what}, {args.rounds} rotated "
          "rounds")
    print(f"load:   {load_before[0]:.2f} before, {load_after[0]:.2f} after (1-minute)")
    print(f"grep:   {size_mb / grep_s:8.1f} MB/s  ({grep_s:.1f} s, {outputs['grep'].strip()} "
          "lines match)")
    print(f"python: {size_mb / loop_s:8.1f} MB/s  ({loop_s:.1f} s, per-line regex loop, "
          f"{loop_matches} lines match)")
    print(f"denpex --workers 0: {size_mb / median['one']:8.1f} MB/s  ({median['one']:.1f} s, "
          f"one process, peak RSS {rss['one']:.0f} MB)")
    if "baseline" in median:
        print(f"baseline: {size_mb / median['baseline']:8.1f} MB/s  "
              f"({median['baseline']:.1f} s, {args.baseline}, peak RSS {rss['baseline']:.0f} MB)")
    print(f"denpex: {size_mb / doctor_s:8.1f} MB/s  ({doctor_s:.1f} s, "
          f"{doctor_s / grep_s:.1f}x grep's time, "
          f"{100 * grep_s / doctor_s:.0f}% of grep's speed, "
          f"{loop_s / doctor_s:.2f}x the Python loop's)")
    print(f"denpex peak RSS: {rss['denpex']:.0f} MB (its largest process)")
    print("denpex verdict: " + (outputs["denpex"].splitlines() or ["(none)"])[0])


if __name__ == "__main__":
    main()
