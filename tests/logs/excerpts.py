"""Excerpts as a person pastes them: lines written to a file and diagnosed."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

from denpex_callbacks.logs.doctor import Result, diagnose


def diagnose_lines(tmp_path: Path, lines: list[str]) -> Result:
    """The doctor's result on ``lines`` (read without error)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = diagnose(str(path))
    assert result.error is None, result.error
    return result


def diagnose_within(path: Path, seconds: int) -> Result | None:
    """The doctor's result on ``path``, or None where it did not finish within ``seconds``
    (``signal.alarm``: a guard against a hang, not a measure of speed; POSIX only)."""
    rang: list[int] = []

    def on_alarm(signum: int, frame: object) -> None:
        rang.append(signum)  # (the doctor reports an exception as the input's error)
        raise TimeoutError(f"the reader did not finish {path.name} in {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        result = diagnose(str(path))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return None if rang else result


def faults(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None]]:
    """(id, step) of each diagnosis above info on ``lines``."""
    return [(d.code, d.step) for d in diagnose_lines(tmp_path, lines).faults]


def megatron_line(iteration: int, *, loss: float | None = 2.5, scale: float = 65536.0,
                  grad_norm: str = "0.900", skipped: int = 0, nan: int = 0) -> str:
    """Megatron-LM's iteration line (megatron/training/training.py ``training_log``), at a
    global batch of 512; ``loss=None`` leaves the loss out, as Megatron does where no
    iteration of the interval advanced."""
    shown = f"lm loss: {loss:.6E} | " if loss is not None else ""
    return (f" [2026-01-01 10:00:00] iteration {iteration:8d}/  500000 | consumed samples: "
            f"{iteration * 512:12d} | elapsed time per iteration (ms): 1200.0 | learning rate: "
            f"3.000000E-04 | global batch size:   512 | {shown}loss scale: {scale:.1f} | "
            f"grad norm: {grad_norm} | number of skipped iterations: {skipped:3d} | number of "
            f"nan iterations: {nan:3d} |")


def lerobot_number(number: float) -> str:
    """LeRobot's ``format_big_number(num, precision=0)`` (lerobot ``utils/utils.py``):
    ``f"{num:.0f}{suffix}"`` with 1000s prefixes, as its training line prints counts."""
    for suffix in ("", "K", "M", "B"):
        if abs(number) < 1000:
            return f"{number:.0f}{suffix}"
        number /= 1000
    return f"{number:.0f}T"


def loop_lines(nan_from: int | None = None, steps: int = 40) -> list[str]:
    """A plain loop's ``print(f"epoch 1 step {step} loss {loss:.4f} lr 0.001")``, NaN from
    step ``nan_from`` on."""
    return [f"epoch 1 step {s} loss {'nan' if nan_from and s >= nan_from else f'{3 - s / 50:.4f}'}"
            f" lr 0.001" for s in range(1, steps + 1)]


def hf_rows(nan_from: int | None = None) -> list[str]:
    """HF Trainer's ``log()`` dicts (no step printed: the row counts), 20 rows, NaN from row
    ``nan_from`` on."""
    return [f"{{'loss': {'nan' if nan_from and i >= nan_from else f'{2.5 - i / 20:.4f}'}, "
            f"'grad_norm': {1 + i / 100:.4f}, 'learning_rate': {5e-05 - i * 1e-06:.6g}, "
            f"'epoch': {i * 0.05:.2f}}}" for i in range(1, 21)]


def megatron_rows(nan_from: int | None = None) -> list[str]:
    """Megatron-LM's iteration lines 10 to 400 every 10, the loss NaN from ``nan_from`` on."""
    return [megatron_line(i, loss=float("nan") if nan_from and i >= nan_from else 2.5 - i / 1e4)
            for i in range(10, 410, 10)]


def ranked_faults(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None, int]]:
    """(id, step, rank) of each diagnosis above info on ``lines``."""
    return [(d.code, d.step, d.rank) for d in diagnose_lines(tmp_path, lines).faults]


def assert_read_through(tmp_path: Path, wrap: Callable[[list[str]], list[str]]) -> None:
    """A platform's lines or records around a run (``wrap``) read as the run itself: a loop's
    NaN from step 20, HF's from row 10, Megatron's from iteration 200, each at rank 0, and
    silence on the three healthy runs."""
    assert ranked_faults(tmp_path, wrap(loop_lines(20))) == [("AMP006", 20, 0)]
    assert ranked_faults(tmp_path, wrap(hf_rows(10))) == [("AMP006", 10, 0)]
    assert ranked_faults(tmp_path, wrap(megatron_rows(200))) == [("AMP006", 200, 0)]
    for run in (loop_lines, hf_rows, megatron_rows):
        assert ranked_faults(tmp_path, wrap(run())) == []


def nan_from(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN from ``bad`` on (a builder's loss at ``at``: a step, an epoch)."""
    return float("nan") if bad is not None and at >= bad else value


Table = dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]]


def check_listed(tmp_path: Path, name: str, *tables: Table) -> None:
    """Assert that the excerpt ``name`` (from the first of ``tables`` that lists it: its
    builder and its expected (id, step) pairs) is diagnosed as expected."""
    build, expected = next(table[name] for table in tables if name in table)
    assert faults(tmp_path, build()) == expected


def tqdm_bar(desc: str, n: int, total: int, postfix: str = "", rate: float = 4.87) -> str:
    """tqdm's default ``{l_bar}{bar}{r_bar}`` (``tqdm/std.py`` ``format_meter``): ``{desc}:
    {percentage:3.0f}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}it/s{postfix}]``, a
    10-cell bar of full blocks and one partial block; ``postfix`` as tqdm glues it on (``,
    k=v, ...`` from ``set_postfix``; a list given as ``postfix=[...]``: its ``str``)."""
    frac = n / total
    full = int(frac * 10)
    part = " ▏▎▍▌▋▊▉"[int((frac * 10 - full) * 8)] if full < 10 else ""
    cells = ("█" * full + part).ljust(10)
    left = int((total - n) / rate)
    head = f"{desc}: " if desc else ""
    return (f"{head}{frac * 100:3.0f}%|{cells}| {n}/{total} [{int(n / rate) // 60:02d}:"
            f"{int(n / rate) % 60:02d}<{left // 60:02d}:{left % 60:02d}, {rate:5.2f}it/s"
            f"{postfix}]")


def apex_step(scale: float, clean: int, over: bool) -> tuple[float, int, str | None]:
    """One step of apex amp's dynamic scaler (NVIDIA/apex ``apex/amp/scaler.py``: halved on an
    overflow, doubled after 2000 clean steps): the scale and clean count after it, and the
    line ``apex/amp/handle.py`` prints on an overflow (None without one)."""
    if over:
        return scale / 2, 0, ("Gradient overflow.  Skipping step, loss scaler 0 reducing loss "
                              f"scale to {scale / 2}")
    return (scale * 2, 0, None) if clean + 1 == 2000 else (scale, clean + 1, None)


def sb3_record(values: dict[str, float | int]) -> list[str]:
    """One record as stable-baselines3's ``HumanOutputFormat.write`` lays it out
    (DLR-RM/stable-baselines3 ``stable_baselines3/common/logger.py``): keys sorted, each
    namespace (``rollout/``, ``time/``, ``train/``) a row of its own with its keys indented by
    three blanks below it, floats ``f"{value:<8.3g}"``, between rules of dashes."""
    cells: dict[tuple[str, str], str] = {}
    tag = ""
    for key, value in sorted(values.items()):
        text = f"{value:<8.3g}" if isinstance(value, float) else str(value)
        if key.find("/") > 0:
            tag = key[: key.find("/") + 1]
            cells[(tag, tag)] = ""
        shown = f"{'':3}{key[len(tag):]}" if tag and tag in key else key
        cells[(tag, shown)] = text
    key_width = max(len(key) for _tag, key in cells)
    value_width = max(len(value) for value in cells.values())
    rule = "-" * (key_width + value_width + 7)
    return [rule, *(f"| {key.ljust(key_width)} | {value.ljust(value_width)} |"
                    for (_tag, key), value in cells.items()), rule]


def alarms(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None]]:
    """(id, step) of each diagnosis above info on ``lines``, whatever the result's error says
    (a log the doctor finds nothing to read in must still raise no alarm)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [(d.code, d.step) for d in diagnose(str(path)).faults]


def running_means(bad: int | None, epoch: int, steps: int, report: int,
                  loss: Callable[[int, int], float]) -> list[tuple[int, float]]:
    """(batch, the epoch's running mean of the loss) at each ``report``-th batch of
    ``epoch`` (``steps`` a epoch, counted from 0), as DARTS' ``utils.AvgrageMeter`` prints it:
    ``loss(run, batch)`` the loss of the run's batch ``run``, NaN from ``bad`` on."""
    total, out = 0.0, []
    for batch in range(steps):
        run = epoch * steps + batch
        total += nan_from(bad, run, loss(run, batch))
        if batch % report == 0:
            out.append((batch, total / (batch + 1)))
    return out
