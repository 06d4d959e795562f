"""Which files of a run folder to read: what a failed run leaves, one pick per kind.

``denpex diagnose OUTPUT_DIR`` on the folder a run wrote finds:

- HF ``trainer_state.json``, at the top (``trainer.save_state()``) or in ``checkpoint-*/``
  folders. Each holds the whole ``log_history`` so far, so only the most complete one is read
  (the longest history; then the highest ``global_step``, then the newest file). One that is
  not valid JSON is read too, so that it is named (a checkpoint torn by the crash).
- Lightning ``metrics.csv`` (CSVLogger) and TensorBoard ``events.out.tfevents.*`` (Lightning's
  TensorBoardLogger, HF's ``runs/<date>_<host>/``): one folder per run (``version_<n>``), so
  only the newest run's folder is read (the highest version, then the newest file).
- stdout logs: ``*.log``, ``*.txt``, ``*.out``, ``*.err`` (and ``.gz`` of them), except the
  tokenizer and package files a checkpoint holds (``vocab.txt``, ``merges.txt``...) and
  anything inside ``checkpoint-*/``.
- a log's rank from its path, when each rank wrote its own: torchrun ``--log-dir``'s
  ``attempt_<n>/<local_rank>/stdout.log`` (``DefaultLogsSpecs``), or a name such as
  ``rank1.log``, ``train_rank_1.out``.
- denpex's own run reports: a folder of ``rank*.jsonl`` (``denpex_reports/`` by default); of
  the runs written into one folder (``run-<n>/``), the latest.

Hidden folders, virtual environments and ``__pycache__`` are not entered; the walk stops
``MAX_DEPTH`` folders down and after ``MAX_ENTRIES`` entries.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from denpex_callbacks.core.report import REPORT_GLOB

LOG, REPORTS = "log", "reports"
TRAINER_STATE, CSV, TFEVENTS = "trainer_state", "csv", "tfevents"  # as run_files names them
LOG_SUFFIXES = (".log", ".txt", ".out", ".err")
# Text files a checkpoint or a project folder holds that are not training logs.
NOT_LOGS = frozenset({"vocab.txt", "merges.txt", "added_tokens.txt", "spiece.txt",
                      "requirements.txt", "license.txt", "readme.txt", "notice.txt"})
SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv"})
MAX_DEPTH = 6
MAX_ENTRIES = 20_000
_NUMBER = re.compile(r"(\d+)$")
_REPORT = re.compile(r"rank\d+\.jsonl$")
_TORCHRUN_RANK = re.compile(r"(?:^|/)attempt_\d+/(\d+)/std(?:out|err)\.log$")
_NAMED_RANK = re.compile(r"(?:^|[^a-z])rank[_-]?(\d+)(?!\d)", re.IGNORECASE)


@dataclass(frozen=True)
class RunFile:
    """A file (or a folder of run reports) picked for reading.

    Attributes:
        path: Where it is.
        name: Its path inside the run folder, as the verdict names it.
        kind: ``log``, ``trainer_state``, ``csv``, ``tfevents`` or ``reports``.
        why: Why it was picked among others of its kind ("" when it was the only one).
        rank: The rank whose output it is, when its path says so (logs only).
    """

    path: str
    name: str
    kind: str
    why: str = ""
    rank: int | None = None


def discover(folder: str) -> list[RunFile]:
    """The files of ``folder`` to read, run reports first, then run files, then logs.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> for sub in ("checkpoint-4", "checkpoint-8"):
        ...     (root / sub).mkdir()
        ...     steps = int(sub.split("-")[1])
        ...     _ = (root / sub / "trainer_state.json").write_text(json.dumps(
        ...         {"global_step": steps, "log_history": [{"loss": 1.0}] * steps}))
        >>> _ = (root / "train.log").write_text("step 1 loss 0.5\\n")
        >>> [(f.name, f.kind) for f in discover(str(root))]
        [('checkpoint-8/trainer_state.json', 'trainer_state'), ('train.log', 'log')]
    """
    found: dict[str, list[str]] = {TRAINER_STATE: [], CSV: [], TFEVENTS: [], LOG: [],
                                   REPORTS: []}
    for directory, names in _walk(folder):
        if any(directory.startswith(reports + os.sep) for reports in found[REPORTS]):
            continue  # a later run's reports (run-<n>/) inside a report folder
        if any(_REPORT.match(name) for name in names):
            found[REPORTS].append(directory)
            continue
        in_checkpoint = "checkpoint-" in os.path.relpath(directory, folder)
        for name in names:
            kind = _kind(name, in_checkpoint)
            if kind is not None:
                found[kind].append(os.path.join(directory, name))
    picked = [*_latest_reports(found[REPORTS]), *_most_complete(found[TRAINER_STATE]),
              *_newest_run(found[CSV]), *_newest_run(found[TFEVENTS])]
    picked += [(path, LOG, "") for path in sorted(found[LOG])]
    return [RunFile(path, name, kind, why, path_rank(name) if kind == LOG else None)
            for path, kind, why in picked for name in [os.path.relpath(path, folder)]]


def path_rank(name: str) -> int | None:
    """The rank a log's path names, if any.

    Example:
        >>> path_rank("run_x/attempt_0/1/stdout.log"), path_rank("logs/train_rank3.log")
        (1, 3)
        >>> path_rank("train.log"), path_rank("ranking_42.log")
        (None, None)
    """
    found = _TORCHRUN_RANK.search(name.replace(os.sep, "/"))
    if found is None:
        found = _NAMED_RANK.search(os.path.basename(name))
    return int(found.group(1)) if found else None


def _walk(folder: str) -> Iterator[tuple[str, list[str]]]:
    """(folder, file names) below ``folder``, bounded in depth and in entries."""
    seen = 0
    base = folder.rstrip(os.sep).count(os.sep)
    for directory, dirs, files in os.walk(folder):
        seen += len(dirs) + len(files)
        if seen > MAX_ENTRIES:
            return
        deep = directory.rstrip(os.sep).count(os.sep) - base >= MAX_DEPTH
        dirs[:] = [] if deep else sorted(
            d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        yield directory, sorted(files)


def _kind(name: str, in_checkpoint: bool) -> str | None:
    if name == "trainer_state.json":
        return TRAINER_STATE
    if in_checkpoint:
        return None  # weights, optimizer state, tokenizer files
    if name == "metrics.csv":
        return CSV
    if name.startswith("events.out.tfevents."):
        return TFEVENTS
    plain = name[:-3] if name.endswith(".gz") else name
    if plain.endswith(LOG_SUFFIXES) and plain.lower() not in NOT_LOGS:
        return LOG
    return None


def _most_complete(paths: list[str]) -> list[tuple[str, str, str]]:
    """The trainer_state.json with the longest history, and every one that is not JSON."""
    ranked: list[tuple[tuple[int, int, float], str]] = []
    broken: list[str] = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                state = json.load(handle)
            history = state.get("log_history") if isinstance(state, dict) else None
            step = state.get("global_step") if isinstance(state, dict) else None
            ranked.append(((len(history) if isinstance(history, list) else -1,
                            step if isinstance(step, int) else -1, _mtime(path)), path))
        except (OSError, ValueError):
            broken.append(path)  # read anyway: the reader names what is wrong with it
    out = [(path, TRAINER_STATE, "") for path in broken]
    if ranked:
        ranked.sort()
        why = f"the most complete of {len(ranked)}" if len(ranked) > 1 else ""
        out.insert(0, (ranked[-1][1], TRAINER_STATE, why))
    return out


def _newest_run(paths: list[str]) -> list[tuple[str, str, str]]:
    """The files of the newest run folder (``version_<n>``, ``runs/<date>``) among them."""
    if not paths:
        return []
    folders: dict[str, list[str]] = {}
    for path in paths:
        folders.setdefault(os.path.dirname(path), []).append(path)

    def recency(folder: str) -> tuple[int, float]:
        number = _NUMBER.search(os.path.basename(folder))
        return (int(number.group(1)) if number and "version" in folder else -1,
                max(_mtime(p) for p in folders[folder]))

    newest = max(folders, key=recency)
    why = (f"the newest of {len(folders)} runs ({os.path.basename(newest)})"
           if len(folders) > 1 else "")
    return [(path, TFEVENTS if "tfevents" in path else CSV, why)
            for path in sorted(folders[newest])]


def _latest_reports(folders: list[str]) -> list[tuple[str, str, str]]:
    """Each report folder, or the latest run written into it (``run-<n>/`` beside it)."""
    out: list[tuple[str, str, str]] = []
    for folder in folders:
        later = sorted((p.parent for p in Path(folder).glob("run-*/" + REPORT_GLOB)),
                       key=lambda p: int(m.group(1)) if (m := _NUMBER.search(p.name)) else 0)
        out.append((str(later[-1]), REPORTS, "the latest run written there") if later
                   else (folder, REPORTS, ""))
    return out


def _mtime(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0
